// Costs that grow (model/cost_law.hpp; docs/scenario-format.md "Costs that grow"): the law's
// arithmetic, and each place a law applies, against the same cost held constant.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/model/cost_law.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

namespace {

namespace core = ckptsim::core;
namespace model = ckptsim::model;
namespace run = ckptsim::run;
namespace scenario = ckptsim::scenario;

run::RunResult run_yaml(const std::string& interval, const std::string& sink_extra,
                        const std::string& jobmanager = "", const std::string& timeline = "") {
  const std::string yaml = R"(
name: costs
duration: 5 min
flink:
  version: "1.17"
  execution.checkpointing.interval: )" +
                           interval + R"(
  execution.checkpointing.timeout: 2 min
  restart-strategy.type: fixed-delay
  restart-strategy.fixed-delay.attempts: 100
  restart-strategy.fixed-delay.delay: 1 s
)" + jobmanager + R"(
job:
  vertices:
    - { name: Source, parallelism: 1, rate: 1000 records/s, record-size: 1 kb }
    - { name: Sink, parallelism: 1, input: { from: Source, ship: rebalance }, cost: 10 us/record, )" +
                           sink_extra + R"( }
)" + timeline;
  const auto loaded = scenario::load_string(yaml, "costs.yaml");
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

std::vector<core::Duration> completed_durations(const run::RunResult& r) {
  std::vector<core::Duration> out;
  for (const auto& c : r.checkpoints)
    if (c.status == run::CheckpointStatus::completed) out.push_back(c.end_time - c.trigger_time);
  return out;
}

core::Duration sink_sync(const run::RunResult& r, std::int64_t id) {
  for (const auto& c : r.checkpoints)
    if (c.id == id) return c.subtasks.at(1).at(0).sync_duration;
  FAIL("no checkpoint " << id);
  return 0;
}

// The first failed checkpoint whose late subtasks were explained (nullptr: none).
const run::CheckpointRecord* first_failed_with_waits(const run::RunResult& r) {
  for (const auto& c : r.checkpoints)
    if (c.status == run::CheckpointStatus::failed && !c.waits.empty()) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE(
    "CostLaw: a constant plus terms per checkpoint, per MiB since the checkpoint, per MiB "
    "of state and per minute since the start",
    "[cost-law]") {
  model::CostLaw law;
  law.base = core::milliseconds(10);
  law.per_checkpoint = core::milliseconds(2);
  law.per_mb_since_checkpoint = core::milliseconds(5);
  law.per_mb_state = core::milliseconds(1);
  law.per_minute_since_start = core::milliseconds(60);
  model::CostLaw::Inputs in;
  in.completed_checkpoints = 3;
  in.bytes_since_checkpoint = 2 * 1024 * 1024;
  in.state_bytes = 512 * 1024;
  in.since_start = core::seconds(30);
  CHECK(law.at(in) ==
        core::milliseconds(10 + 6 + 10) + core::microseconds(500) + core::milliseconds(30));
  CHECK(law.growth(in) == law.at(in) - core::milliseconds(10));
  CHECK(model::CostLaw(core::milliseconds(7)).at(in) == core::milliseconds(7));
  CHECK_FALSE(model::CostLaw(core::milliseconds(7)).grows());
}

TEST_CASE(
    "notify-complete per checkpoint: a committer whose commit grows with the history "
    "delays each next checkpoint more, where a constant commit does not",
    "[cost-law]") {
  const auto growing =
      completed_durations(run_yaml("2 s", "notify-complete: { per-checkpoint: 500 ms }"));
  const auto constant = completed_durations(run_yaml("2 s", "notify-complete: 500 ms"));
  REQUIRE(growing.size() >= 10);
  REQUIRE(constant.size() >= 10);
  // The barrier waits for the previous commit (a mail on the task thread): once a commit takes
  // longer than the interval, each checkpoint waits longer than the one before.
  CHECK(growing[9] > growing[3] + core::seconds(1));
  CHECK(growing[12] > growing[9]);
  CHECK(constant[9] < constant[3] + core::milliseconds(50));
}

TEST_CASE(
    "sync-snapshot per MiB since the checkpoint: a sink's flush at the barrier takes as "
    "long as the data buffered since the last one (a longer interval, a longer flush)",
    "[cost-law]") {
  const std::string law = "sync-snapshot: { base: 1 ms, per-mb-since-checkpoint: 100 ms }";
  const run::RunResult ten = run_yaml("10 s", law);
  const run::RunResult twenty = run_yaml("20 s", law);
  // 1000 records/s of 1 kb: about 9.8 MiB in 10 s (a little less reaches the sink while it
  // flushes: the source is back-pressured meanwhile).
  CHECK(sink_sync(ten, 3) > core::milliseconds(850));
  CHECK(sink_sync(ten, 3) < core::milliseconds(1000));
  const double ratio =
      static_cast<double>(sink_sync(twenty, 3)) / static_cast<double>(sink_sync(ten, 3));
  CHECK(ratio > 1.8);
  CHECK(ratio < 2.1);
}

TEST_CASE(
    "a coordinator's checkpoint per minute since the start: the stage grows while the job "
    "runs and falls back after a restart",
    "[cost-law]") {
  const std::string jobmanager = R"(jobmanager:
  coordinators:
    - { name: Enumerator, checkpoint-duration: { base: 10 ms, per-minute-since-start: 1 s } }
)";
  const run::RunResult r = run_yaml("10 s", "notify-complete: 0 ms", jobmanager,
                                    "timeline:\n  - { at: 150 s, do: fail-task, vertex: Sink }\n");
  REQUIRE(r.failovers == 1);
  const auto durations = [&](core::SimTime from, core::SimTime to) {
    std::vector<core::Duration> out;
    for (const auto& c : r.checkpoints)
      if (c.status == run::CheckpointStatus::completed && c.trigger_time >= from &&
          c.trigger_time < to)
        out.push_back(c.end_time - c.trigger_time);
    return out;
  };
  const auto before = durations(0, core::seconds(150));
  const auto after = durations(core::seconds(152), core::seconds(300));
  REQUIRE(before.size() >= 10);
  REQUIRE(after.size() >= 3);
  CHECK(before.back() > core::milliseconds(2000));  // about 2.3 min into the run
  CHECK(after.front() < core::milliseconds(500));   // seconds after the restart
}

TEST_CASE(
    "the diagnosis names a commit that holds the barrier back, with its law: "
    "notifyCheckpointComplete of checkpoint N (base + per checkpoint x history)",
    "[cost-law][diagnosis]") {
  const run::RunResult r =
      run_yaml("10 s", "notify-complete: { base: 100 ms, per-checkpoint: 40 s }");
  const run::CheckpointRecord* expired = first_failed_with_waits(r);
  REQUIRE(expired != nullptr);
  const run::WaitRecord& w = expired->waits.front();
  CHECK(w.kind == "sink_flush");
  const std::string previous = std::to_string(expired->id - 1);
  CHECK(w.call == "notifyCheckpointComplete of checkpoint " + previous + " (100 ms + 40 s x " +
                      previous + " checkpoints completed)");
}

TEST_CASE(
    "the diagnosis names a flush in the synchronous part with its law and the MiB buffered "
    "since the last checkpoint",
    "[cost-law][diagnosis]") {
  // Several MiB before the first barrier at 300 s per MiB: far beyond the 2 min timeout.
  const run::RunResult r =
      run_yaml("10 s", "sync-snapshot: { base: 1 ms, per-mb-since-checkpoint: 300 s }");
  const run::CheckpointRecord* expired = first_failed_with_waits(r);
  REQUIRE(expired != nullptr);
  const run::WaitRecord& w = expired->waits.front();
  CHECK(w.kind == "sink_flush");
  CHECK(w.call.starts_with("the synchronous part of checkpoint " + std::to_string(expired->id) +
                           " (the operators' flush: 1 ms + 300 s x "));
  CHECK(w.call.ends_with(" MiB since the checkpoint)"));
}

TEST_CASE("a law's per-table term counts the tables the source captures", "[cost-law]") {
  model::CostLaw law;
  law.base = core::milliseconds(100);
  law.per_table = core::seconds(2);
  model::CostLaw::Inputs in;
  in.tables = 400;
  CHECK(law.at(in) == core::milliseconds(100) + core::seconds(800));
  CHECK(law.grows());
  CHECK(law.describe(in) == "100 ms + 2 s x 400 captured tables");
}

TEST_CASE("a burst of timers is named with its count and cost when a checkpoint waits behind it "
          "(issue 13 item 9)",
          "[cost-law][diagnosis]") {
  const auto loaded = scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) +
                                              "/scenarios/examples/timer-burst.yaml",
                                          {"flink.execution.checkpointing.timeout=3 s"});
  REQUIRE(loaded.ok());
  const run::RunResult r = run::run(*loaded.scenario);
  const run::CheckpointRecord* failed = first_failed_with_waits(r);
  REQUIRE(failed != nullptr);
  bool named = false;
  for (const run::WaitRecord& w : failed->waits)
    if (w.kind == "in_call") {
      CHECK(w.call == "firing 300000 timers (300000 x 20 us)");
      CHECK(w.since == core::seconds(62));
      CHECK(w.until == core::seconds(68));
      named = true;
    }
  CHECK(named);
}
