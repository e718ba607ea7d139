// Timeline actions placed by the job's life (docs/scenario-format.md, "When an action happens"):
// after every start of the job, at a checkpoint, repeated, and stalls that a restart clears.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

namespace {

namespace core = ckptsim::core;
namespace model = ckptsim::model;
namespace run = ckptsim::run;
namespace scenario = ckptsim::scenario;

run::RunResult run_with(const std::string& timeline, const std::string& duration = "5 min") {
  const std::string yaml = R"(
name: anchors
duration: )" + duration + R"(
flink:
  version: "1.17"
  execution.checkpointing.interval: 10 s
  execution.checkpointing.timeout: 30 s
  restart-strategy.type: fixed-delay
  restart-strategy.fixed-delay.attempts: 100
  restart-strategy.fixed-delay.delay: 5 s
job:
  vertices:
    - { name: Source, parallelism: 2, rate: 1000 records/s }
    - { name: Sink, parallelism: 2, input: { from: Source, ship: hash }, cost: 10 us/record }
timeline:
)" + timeline;
  const auto loaded = scenario::load_string(yaml, "anchors.yaml");
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

int completed_after(const run::RunResult& r, core::SimTime t) {
  int n = 0;
  for (const auto& c : r.checkpoints)
    if (c.status == run::CheckpointStatus::completed && c.trigger_time > t) ++n;
  return n;
}

std::vector<core::SimTime> failure_times(const run::RunResult& r) {
  std::vector<core::SimTime> out;
  for (const auto& f : r.task_failures) out.push_back(f.time);
  return out;
}

}  // namespace

TEST_CASE("until: restart: a stall that a failover clears, against one that outlives restarts",
          "[timeline][anchors]") {
  // Both stall Sink (2/2) from 20 s: its checkpoint expires 30 s later and the job fails over.
  const run::RunResult cleared =
      run_with("  - { at: 20 s, do: stall, vertex: Sink, subtask: 1, until: restart }\n");
  const run::RunResult kept = run_with("  - { at: 20 s, do: stall, vertex: Sink, subtask: 1 }\n");
  REQUIRE(cleared.failovers == 1);
  // After the restart the new attempt runs: checkpoints complete again.
  CHECK(completed_after(cleared, core::seconds(60)) >= 20);
  // The environment's stall stays: no checkpoint completes after it began, and the job keeps
  // failing over.
  CHECK(completed_after(kept, core::seconds(20)) == 0);
  CHECK(kept.failovers >= 4);
}

TEST_CASE(
    "after-start: the action comes back after every (re)start, counted from that start; "
    "one whose run restarted before it came is dropped",
    "[timeline][anchors]") {
  const run::RunResult r = run_with(R"(
  - { after-start: 40 s, do: fail-task, vertex: Sink, subtask: 0 }
  - { at: 30 s, do: fail-task, vertex: Sink, subtask: 1 }
)",
                                    "3 min");
  const std::vector<core::SimTime> failures = failure_times(r);
  REQUIRE(failures.size() >= 3);
  CHECK(failures[0] == core::seconds(30));  // the plain one; the first run's 40 s never comes
  for (std::size_t i = 1; i < failures.size(); ++i) {
    // Each 40 s after the job last switched to RUNNING.
    core::SimTime running = 0;
    for (const auto& c : r.job_status_changes)
      if (c.to == model::JobStatus::running && c.time < failures[i]) running = c.time;
    CHECK(failures[i] == running + core::seconds(40));
  }
}

TEST_CASE("at-checkpoint: when checkpoint N completes (or is triggered), with an offset",
          "[timeline][anchors]") {
  const run::RunResult r = run_with(R"(
  - { at-checkpoint: 3, do: fail-task, vertex: Sink, subtask: 0 }
  - { at-checkpoint: 5, on: triggered, after: 100 ms, do: fail-task, vertex: Sink, subtask: 1 }
)",
                                    "2 min");
  REQUIRE(r.task_failures.size() == 2);
  const auto checkpoint = [&](std::int64_t id) -> const run::CheckpointRecord& {
    for (const auto& c : r.checkpoints)
      if (c.id == id) return c;
    FAIL("no checkpoint " << id);
    return r.checkpoints.front();
  };
  // The failure reaches the JobMaster an RPC later; "triggered" is when the tasks are triggered
  // (after the coordinators' stage), a few ms after the checkpoint's timestamp.
  const auto within = [](core::SimTime t, core::SimTime from) {
    return t >= from && t <= from + core::milliseconds(20);
  };
  CHECK(within(r.task_failures[0].time, checkpoint(3).end_time));
  CHECK(within(r.task_failures[1].time, checkpoint(5).trigger_time + core::milliseconds(100)));
  CHECK(checkpoint(4).end_time < r.task_failures[1].time);
}

TEST_CASE("every / times: an action repeated a number of times", "[timeline][anchors]") {
  const run::RunResult r =
      run_with("  - { at: 30 s, every: 20 s, times: 3, do: trigger-savepoint }\n", "3 min");
  int savepoints = 0;
  for (const auto& c : r.checkpoints)
    if (c.type == model::SnapshotType::savepoint) {
      CHECK(c.trigger_time == core::seconds(30 + 20 * savepoints));
      ++savepoints;
    }
  CHECK(savepoints == 3);
}

namespace {

run::RunResult run_busy(const std::string& busy) {
  const std::string yaml = R"(
name: busy
duration: 20 min
flink:
  execution.checkpointing.interval: 1 min
  execution.checkpointing.timeout: 5 min
  restart-strategy.type: fixed-delay
  restart-strategy.fixed-delay.attempts: 100
jobmanager:
  coordinators:
    - { name: Enumerator, checkpoint-duration: 20 ms }
job:
  vertices:
    - { name: Source, parallelism: 2, rate: 1000 records/s }
    - { name: Sink, parallelism: 2, input: { from: Source, ship: hash } }
timeline:
)" + busy;
  const auto loaded = scenario::load_string(yaml, "busy.yaml");
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

}  // namespace

TEST_CASE(
    "coordinator-busy: a checkpoint's coordinator call queues behind the coordinator's "
    "work (its executor's FIFO), and the diagnosis names the coordinator, the work and "
    "its start",
    "[timeline][coordinator]") {
  const run::RunResult r = run_busy(
      "  - { at-checkpoint: 3, do: coordinator-busy, coordinator: Enumerator, for: 15 min, "
      "work: scheduleCompaction }\n");
  const run::CheckpointRecord* fourth = nullptr;
  for (const auto& c : r.checkpoints)
    if (c.id == 4) fourth = &c;
  REQUIRE(fourth != nullptr);
  CHECK(fourth->failure_reason == model::CheckpointFailureReason::checkpoint_expired);
  REQUIRE(fourth->waits.size() == 1);
  const run::WaitRecord& w = fourth->waits.front();
  CHECK(w.kind == "coordinator");
  CHECK(w.table == "Enumerator");
  CHECK(w.call == "scheduleCompaction");
  CHECK(w.since == r.checkpoints[2].end_time);  // when checkpoint 3 completed
  // The work outlives the failovers; once it ends checkpoints complete again.
  CHECK(r.failovers >= 2);
  CHECK(r.checkpoints.back().status == run::CheckpointStatus::completed);
}

TEST_CASE(
    "coordinator-busy until: restart: the work ends when a global failover resets the "
    "coordinators",
    "[timeline][coordinator]") {
  const run::RunResult kept =
      run_busy("  - { at: 150 s, do: coordinator-busy, coordinator: Enumerator, work: listing }\n");
  const run::RunResult reset = run_busy(
      "  - { at: 150 s, do: coordinator-busy, coordinator: Enumerator, work: listing, "
      "until: restart }\n");
  REQUIRE(reset.failovers >= 1);
  CHECK(completed_after(reset, core::minutes(9)) >= 5);
  CHECK(completed_after(kept, core::seconds(150)) == 0);
}

TEST_CASE(
    "slow-down on a vertex: it works at `factor` of its speed for the window (each record "
    "costs 1 / factor as much), then as before",
    "[timeline][slow-down]") {
  // Sink: 1000 records/s x 10 us = 10 ms busy per second; a tenth of its speed: 100 ms/s.
  const run::RunResult r = run_with(
      "  - { at: 60 s, do: slow-down, vertex: Sink, subtask: 0, factor: 0.1, for: 60 s }\n",
      "3 min");
  const auto busy_ms = [&](int subtask, core::SimTime at) {
    for (const auto& row : r.timeseries)
      if (row.vertex == 1 && row.subtask == subtask && row.end == at)
        return static_cast<double>(row.sample.busy) / 1e6;
    FAIL("no sample");
    return 0.0;
  };
  CHECK(busy_ms(0, core::seconds(30)) == Approx(10).margin(2));
  CHECK(busy_ms(0, core::seconds(90)) == Approx(100).margin(10));
  CHECK(busy_ms(1, core::seconds(90)) == Approx(10).margin(2));  // only subtask 0
  CHECK(busy_ms(0, core::seconds(150)) == Approx(10).margin(2));
}

TEST_CASE("at-phase: an action placed when a CDC source's stream split is assigned, once per run "
          "of the job",
          "[model][anchors]") {
  // A 200k-row snapshot at 50k rows/s, then the binlog; a task of the sink fails 2 s after the
  // switch, once in each run of the job.
  const std::string yaml = R"(
name: phase
duration: 3 min
flink:
  version: "1.17"
  execution.checkpointing.interval: 10 s
  restart-strategy.type: fixed-delay
  restart-strategy.fixed-delay.attempts: 10
  restart-strategy.fixed-delay.delay: 5 s
systems:
  mysql: { kind: mysql, read-rate: 50k rows/s }
job:
  vertices:
    - name: "Source: CDC"
      parallelism: 1
      connector: mysql-cdc
      tables: [{name: app.orders, rows: 200k, changes: 100 rows/s}]
    - { name: Sink, parallelism: 1, input: { from: "Source: CDC", ship: rebalance } }
timeline:
  - { at-phase: stream-started, of: "Source: CDC", after: 2 s, do: fail-task, vertex: Sink }
)";
  const auto loaded = scenario::load_string(yaml, "phase.yaml");
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  const run::RunResult r = run::run(*loaded.scenario);
  core::SimTime switched = -1;
  for (const run::ConnectorRecord& e : r.connector_events)
    if (e.event.kind == model::ConnectorEvent::Kind::cdc_binlog_started && switched < 0) switched = e.time;
  REQUIRE(switched > 0);
  REQUIRE(!r.task_failures.empty());
  CHECK(r.task_failures[0].time == switched + core::seconds(2));
  // Every run restores a checkpoint taken before the switch, switches again and fails 2 s
  // later: one failure per switch.
  int switches = 0;
  for (const run::ConnectorRecord& e : r.connector_events)
    switches += e.event.kind == model::ConnectorEvent::Kind::cdc_binlog_started;
  CHECK(static_cast<int>(r.task_failures.size()) == switches);
}
