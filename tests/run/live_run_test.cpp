// LiveRun: a run advanced in slices and looked at while it goes is the run() run, byte for byte;
// its snapshots show the job at their instant; requests act on the running job.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "sim/run/live_run.hpp"
#include "sim/run/result_at.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/metrics.hpp"
#include "sim/run/writers/rest_job.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;

namespace {

model::Scenario load(const std::string& relative) {
  const auto loaded = scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) + "/" + relative);
  REQUIRE(loaded.ok());
  return *loaded.scenario;
}

std::string outputs(const run::RunResult& r) {
  return run::format_flink_log(r) + run::summary_json(r).dump() + run::timeseries_csv(r) +
         run::rest_checkpoints(r).dump() + run::job_json(r).dump();
}

}  // namespace

TEST_CASE("a LiveRun sliced and snapshot every few seconds gives run()'s outputs exactly") {
  for (const char* file : {"scenarios/seed/doris-cdc-table-swap.yaml",
                           "scenarios/seed/unaligned.yaml",
                           "scenarios/examples/jdbc-slow-database.yaml"}) {
    const model::Scenario s = load(file);
    const std::string expected = outputs(run::run(s, 3));
    run::LiveRun live(s, 3);
    int snapshots = 0;
    for (core::SimTime t = 0; !live.finished(); t += core::seconds(3) + 7 * core::kMillisecond) {
      live.advance(t, 5000);  // a slice may end before t: its events are capped
      (void)live.snapshot();
      ++snapshots;
    }
    CHECK(snapshots > 10);
    CHECK(outputs(live.finish(false)) == expected);
  }
}

TEST_CASE("a LiveRun snapshot shows the job at its instant: the expiring checkpoint in progress, "
          "then RESTARTING") {
  run::LiveRun live(load("scenarios/seed/doris-cdc-table-swap.yaml"), std::nullopt);
  const run::RunResult full = run::run(load("scenarios/seed/doris-cdc-table-swap.yaml"));
  const run::CheckpointRecord* expired = nullptr;
  for (const auto& c : full.checkpoints)
    if (c.id == 3) expired = &c;
  REQUIRE(expired != nullptr);
  REQUIRE(expired->status == run::CheckpointStatus::failed);

  live.advance(expired->end_time - core::seconds(1));
  run::RunResult before = live.snapshot();
  CHECK(before.end_time == expired->end_time - core::seconds(1));
  CHECK(before.final_status == model::JobStatus::running);
  REQUIRE(before.checkpoints.size() >= 3);
  CHECK(before.checkpoints[2].status == run::CheckpointStatus::in_progress);
  CHECK(before.counts.in_progress >= 1);

  live.advance(expired->end_time + core::milliseconds(100));
  const run::RunResult after = live.snapshot();
  CHECK(after.checkpoints[2].status == run::CheckpointStatus::failed);
  CHECK(after.final_status == model::JobStatus::restarting);
}

TEST_CASE("LiveRun::request triggers a savepoint on the running job and follows it to its end") {
  const model::Scenario s = load("scenarios/examples/kafka-catch-up.yaml");  // a healthy job
  run::LiveRun live(s, std::nullopt);
  live.advance(core::seconds(30));
  model::TimelineAction savepoint;
  savepoint.kind = model::ActionKind::trigger_savepoint;
  const std::uint64_t id = live.request(savepoint);
  CHECK(live.operation(id).state == run::OperationStatus::State::in_progress);
  live.advance(core::minutes(5));
  const run::OperationStatus done = live.operation(id);
  REQUIRE(done.state == run::OperationStatus::State::completed);
  const run::RunResult r = live.snapshot();
  bool found = false;
  for (const auto& c : r.checkpoints)
    if (c.id == done.checkpoint_id) {
      found = true;
      CHECK(c.type == model::SnapshotType::savepoint);
      CHECK(c.status == run::CheckpointStatus::completed);
    }
  CHECK(found);

  model::TimelineAction cancel;
  cancel.kind = model::ActionKind::cancel;
  const std::uint64_t cancelled = live.request(cancel);
  live.advance(core::minutes(6));
  CHECK(live.operation(cancelled).state == run::OperationStatus::State::completed);
  CHECK(live.snapshot().final_status == model::JobStatus::canceled);
  // A savepoint asked of a job that is gone fails with the plan's reason.
  const std::uint64_t late = live.request(savepoint);
  CHECK(live.operation(late).state == run::OperationStatus::State::failed);
  CHECK(live.operation(late).failure.find("Not all required tasks") != std::string::npos);
}

namespace {

// What `serve` answers from a snapshot that reads the time series: the job, every vertex's
// details and back-pressure, the Prometheus text (all task metrics), the subtask metrics.
std::string served(const run::RunResult& r) {
  std::string out = run::rest_job_details(r).dump() + run::prometheus_text(r);
  for (int v = 0; v < static_cast<int>(r.vertices.size()); ++v)
    out += run::rest_vertex_details(r, v).dump() + run::rest_vertex_backpressure(r, v).dump() +
           run::rest_subtasks_metrics(r, v, {"numRecordsIn", "busyTimeMsPerSecond"}, {}, {}).dump();
  return out;
}

}  // namespace

// run/retention.hpp: a served run merges its old time-series rows; what it answers stays the
// same at every instant, through failovers and restarts, while the rows stop growing.
TEST_CASE("LiveRun retention: the same answers at every instant, with bounded time-series rows") {
  for (const char* file : {"scenarios/seed/doris-cdc-table-swap.yaml",
                           "scenarios/examples/jdbc-slow-database.yaml",
                           "scenarios/catalog/b10-backpressure-aligned-barriers.yaml"}) {
    INFO(file);
    model::Scenario s = load(file);
    s.duration = 3 * core::kHour;
    run::LiveRun kept(s, 1), bounded(s, 1);
    bounded.set_retention(core::minutes(10));
    std::size_t most_rows = 0, rows_kept = 0;
    for (core::SimTime t = core::seconds(37); !kept.finished(); t += core::seconds(37)) {
      kept.advance(t);
      bounded.advance(t);
      const run::RunResult a = kept.snapshot(), b = bounded.snapshot();
      CHECK(served(a) == served(b));
      most_rows = std::max(most_rows, b.timeseries.size());
      rows_kept = a.timeseries.size();
    }
    std::size_t subtasks = 0;
    for (const auto& v : kept.snapshot().vertices) subtasks += static_cast<std::size_t>(v.parallelism);
    // At most the window (600 one-second rows), the rows since the last merge (up to 600 more)
    // and one merged row per attempt, per subtask: far below the 10,800 rows of three hours.
    CHECK(most_rows < subtasks * 1400);
    CHECK(rows_kept >= subtasks * 10000);
  }
}

// Right after a restart the new attempt has no sample yet and the task metrics fall back to the
// previous attempt's counters, cut at its deployment: merged rows must not straddle that cut.
TEST_CASE("LiveRun retention: the answers just after a restart are the same") {
  model::Scenario s = load("scenarios/seed/doris-cdc-table-swap.yaml");
  s.duration = 2 * core::kHour;
  std::vector<core::SimTime> restarted;
  for (const auto& change : run::run(s, 1).job_status_changes)
    if (change.from == model::JobStatus::restarting && change.to == model::JobStatus::running)
      restarted.push_back(change.time);
  REQUIRE(restarted.size() >= 4);
  for (std::size_t k = 2; k < 4; ++k) {
    run::LiveRun kept(s, 1), bounded(s, 1);
    bounded.set_retention(core::minutes(10));
    for (core::SimTime t = 0; t < restarted[k]; t += core::minutes(1)) {
      kept.advance(t);
      bounded.advance(t);
    }
    for (core::SimTime after : {core::milliseconds(1), core::milliseconds(400)}) {
      kept.advance(restarted[k] + after);
      bounded.advance(restarted[k] + after);
      CHECK(served(kept.snapshot()) == served(bounded.snapshot()));
    }
  }
}

// run/result_at.hpp (serve --replay over time): a finished run cut at an instant shows what the
// live run showed then: the same checkpoints with their statuses and acknowledgements, counts,
// job status, failovers and restarts.
TEST_CASE("result_at: a finished run cut at t agrees with the live run's snapshot at t") {
  const model::Scenario s = load("scenarios/seed/doris-cdc-table-swap.yaml");
  const run::RunResult full = run::run(s, 2);
  run::LiveRun live(s, 2);
  int in_progress_seen = 0;
  for (core::SimTime t = core::seconds(13); !live.finished(); t += core::seconds(97)) {
    live.advance(t);
    const run::RunResult now = live.snapshot();
    const run::RunResult cut = run::result_at(full, live.now());
    INFO("t = " << live.now());
    REQUIRE(cut.checkpoints.size() == now.checkpoints.size());
    for (std::size_t i = 0; i < cut.checkpoints.size(); ++i) {
      CHECK(cut.checkpoints[i].id == now.checkpoints[i].id);
      CHECK(cut.checkpoints[i].status == now.checkpoints[i].status);
      CHECK(cut.checkpoints[i].num_acknowledged == now.checkpoints[i].num_acknowledged);
      in_progress_seen += cut.checkpoints[i].status == run::CheckpointStatus::in_progress;
    }
    CHECK(cut.counts.total == now.counts.total);
    CHECK(cut.counts.completed == now.counts.completed);
    CHECK(cut.counts.failed == now.counts.failed);
    CHECK(cut.counts.in_progress == now.counts.in_progress);
    CHECK(cut.final_status == now.final_status);
    CHECK(cut.failovers == now.failovers);
    CHECK(cut.restarts == now.restarts);
    CHECK(run::rest_checkpoints(cut).dump() == run::rest_checkpoints(now).dump());
  }
  CHECK(in_progress_seen > 0);
}
