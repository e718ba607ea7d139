// Cancellation that blocks (Task.cancelExecution with its TaskInterrupter and
// TaskCancelerWatchDog; task.cancellation.interval / .timeout): a task thread stuck in a call
// that ignores interrupts keeps the task CANCELING, the restart waits for it, and past the
// timeout the TaskManager shuts down with a fatal error and the job waits for its slots.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/support/run_file.hpp"

namespace ckptsim {
namespace {

const char* const kStalledSink = "scenarios/examples/stalled-sink.yaml";

// The first failover (RUNNING -> RESTARTING) and the time the job ran again after it.
std::pair<core::SimTime, core::SimTime> first_restart(const run::RunResult& r) {
  core::SimTime down = -1;
  for (const auto& c : r.job_status_changes) {
    if (down < 0 && c.to == model::JobStatus::restarting) down = c.time;
    if (down >= 0 && c.to == model::JobStatus::running && c.time > down) return {down, c.time};
  }
  FAIL("no restart");
  return {0, 0};
}

int count(const run::RunResult& r, model::ConnectorEvent::Kind kind) {
  int n = 0;
  for (const auto& e : r.connector_events) n += e.event.kind == kind;
  return n;
}

}  // namespace

TEST_CASE("a stalled task that reacts to the interrupt is cancelled at once", "[cancellation]") {
  const run::RunResult r = tests::run_file(kStalledSink, {"duration=25 min"});
  const auto [down, up] = first_restart(r);
  CHECK(up - down < core::seconds(5));  // 1 s restart delay
  CHECK(count(r, model::ConnectorEvent::Kind::task_cancel_stuck) == 0);
}

TEST_CASE(
    "a task stuck in a call that ignores interrupts: TaskInterrupter warns every "
    "task.cancellation.interval, TaskCancelerWatchDog shuts the TaskManager down after "
    "task.cancellation.timeout, and the redeployment waits for its slots",
    "[cancellation]") {
  const run::RunResult r =
      tests::run_file(kStalledSink, {"duration=30 min", "timeline[0].interruptible=false"});
  const auto [down, up] = first_restart(r);
  // The region restarts once every task is terminal: 180 s of CANCELING.
  CHECK(up - down >= core::seconds(180));
  CHECK(up - down < core::seconds(185));
  // 5 warnings (30 s .. 150 s) per stuck subtask (both sink subtasks share TaskManager 1).
  CHECK(count(r, model::ConnectorEvent::Kind::task_cancel_stuck) == 10);
  CHECK(count(r, model::ConnectorEvent::Kind::taskmanager_fatal_error) >= 1);
  bool disconnect = false;
  for (const auto& line : r.log)
    disconnect = disconnect || line.message ==
                                   "Disconnect TaskExecutor ckptsim-taskmanager-1 "
                                   "because: The TaskExecutor is shutting down.";
  CHECK(disconnect);
  // The TaskManager's process exits 10 s later and a new one registers after
  // cluster.taskmanager-restart (30 s): its tasks leave SCHEDULED only then.
  bool waited = false;
  for (const auto& line : r.log)
    if (line.time >= up + core::seconds(40) && line.time < up + core::seconds(41) &&
        line.message.find("switched from SCHEDULED to DEPLOYING.") != std::string::npos)
      waited = true;
  CHECK(waited);
  // task.cancellation.timeout 0: no watchdog; the stall never ends, so the job never restarts.
  const run::RunResult hung = tests::run_file(
      kStalledSink,
      {"duration=40 min", "timeline[0].interruptible=false", "flink.task.cancellation.timeout=0"});
  int restarts = 0;
  for (const auto& c : hung.job_status_changes) restarts += c.to == model::JobStatus::restarting;
  CHECK(restarts == 1);
  CHECK(hung.job_status_changes.back().to == model::JobStatus::restarting);
  CHECK(count(hung, model::ConnectorEvent::Kind::taskmanager_fatal_error) == 0);
}

TEST_CASE("a burst of timers holds up the cancellation in 1.17 and not from 1.18 (FLINK-31370)",
          "[cancellation]") {
  // The burst runs 62 s .. 68 s; the task fails at 63 s.
  const std::vector<std::string> sets = {
      "timeline=[{at: 62 s, do: fire-timers, vertex: \"Window(day)\", count: 300000, cost: 20 us},"
      " {at: 63 s, do: fail-task, vertex: \"Source: Clicks\"}]",
      "duration=2 min"};
  const run::RunResult v117 = tests::run_file("scenarios/examples/timer-burst.yaml", sets);
  std::vector<std::string> newer = sets;
  newer.push_back("flink.version=1.18");
  const run::RunResult v118 = tests::run_file("scenarios/examples/timer-burst.yaml", newer);
  const auto [down17, up17] = first_restart(v117);
  const auto [down18, up18] = first_restart(v118);
  CHECK(up17 >= core::seconds(68));
  CHECK(up18 < core::seconds(66));
}

}  // namespace ckptsim
