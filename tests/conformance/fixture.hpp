// Test doubles for porting Flink's CheckpointCoordinator tests: a recording gateway (Flink's
// CheckpointRecorderTaskManagerGateway), failure callbacks counting failJob calls
// (TestFailJobCallback) and an observer keeping the facts the tests assert on, with
// CheckpointStatsCounts derived from them. Knows nothing about YAML or the Recorder.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/core/random.hpp"
#include "sim/core/simulation.hpp"
#include "sim/model/checkpoint_coordinator.hpp"

namespace ckptsim::conformance {

using namespace ckptsim::model;
using core::Duration;
using core::SimTime;

struct TriggeredCheckpoint {
  std::int64_t id;
  SimTime timestamp;
  CheckpointProperties props;
  SimTime at;  // simulated time of the RPC
};
struct NotifiedCheckpoint {
  std::int64_t id;
  std::int64_t latest_completed_id;  // -1 for notifyCheckpointComplete
  SimTime timestamp;
};

class FakeGateway final : public CheckpointCoordinatorGateway {
 public:
  // Which subtasks the checkpoint waits for; all of them are sources (tasks to trigger) unless
  // a test says otherwise through source_running.
  std::vector<TaskRef> tasks{{0, 0, 0}};
  bool source_running = true;
  std::string source_name = "Source: src (1/1)";
  // Called from trigger_tasks, e.g. to make the RPC fail as if the task finished meanwhile.
  CheckpointCoordinator* coordinator = nullptr;
  std::optional<CheckpointException> fail_trigger_rpc;

  std::vector<TriggeredCheckpoint> triggered;
  std::vector<NotifiedCheckpoint> completed;
  std::vector<NotifiedCheckpoint> aborted;
  const core::Simulation* sim = nullptr;

  std::optional<PlanFailure> checkpoint_plan_failure() override {
    if (source_running) return std::nullopt;
    return PlanFailure{source_name};
  }
  std::vector<TaskRef> tasks_to_wait_for() override { return tasks; }
  void trigger_tasks(std::int64_t id, SimTime timestamp, const CheckpointProperties& props) override {
    triggered.push_back({id, timestamp, props, sim ? sim->now() : 0});
    if (fail_trigger_rpc && coordinator) coordinator->trigger_rpc_failed(id, *fail_trigger_rpc);
  }
  void notify_checkpoint_complete(std::int64_t id, SimTime timestamp) override {
    completed.push_back({id, -1, timestamp});
  }
  void notify_checkpoint_aborted(std::int64_t id, std::int64_t latest_completed_id,
                                 SimTime timestamp) override {
    aborted.push_back({id, latest_completed_id, timestamp});
  }
  void reset_count() { triggered.clear(); }
};

// CheckpointFailureManager.FailJobCallback: counts both kinds of calls.
class FakeFailJobCallback final : public CheckpointFailureManager::Callbacks {
 public:
  int fail_job_calls = 0;
  int fail_job_due_to_task_failure_calls = 0;
  std::string last_message;
  std::optional<TaskRef> last_attempt;
  int invoke_counter() const { return fail_job_calls + fail_job_due_to_task_failure_calls; }

  void fail_job(const std::string& message) override {
    ++fail_job_calls;
    last_message = message;
  }
  void fail_job_due_to_task_failure(const std::string& message, TaskRef attempt) override {
    ++fail_job_due_to_task_failure_calls;
    last_message = message;
    last_attempt = attempt;
  }
};

struct FailureHandled {
  std::int64_t id;
  CheckpointException ex;
  int counter_before;
  bool had_pending_stats;
};
struct Aborted {
  std::int64_t id;
  CheckpointException ex;
};

// Records facts and derives CheckpointStatsCounts (CheckpointStatsCounts.java): triggered =>
// total+1, in_progress+1; completed => in_progress-1, completed+1; aborted => in_progress-1,
// failed+1; a failure without pending stats => total+1, failed+1
// (reportFailedCheckpointsWithoutInProgress).
class RecordingObserver final : public Observer {
 public:
  std::vector<CheckpointStart> triggered_checkpoints;
  std::vector<std::int64_t> completed_ids;
  std::vector<Aborted> aborted;
  std::vector<std::int64_t> expired_ids;
  std::vector<FailureHandled> failures;
  std::vector<Duration> queue_times;
  std::vector<std::int64_t> late_ids;
  std::vector<std::pair<std::int64_t, SubtaskAck>> late_stats;  // reportStats of late acks
  std::vector<std::int64_t> acknowledged_ids;
  int total = 0, in_progress = 0, completed = 0, failed = 0;

  void checkpoint_triggered(SimTime, const CheckpointStart& s) override {
    triggered_checkpoints.push_back(s);
    ++total;
    ++in_progress;
  }
  void checkpoint_acknowledged(SimTime, std::int64_t id, const SubtaskAck&) override {
    acknowledged_ids.push_back(id);
  }
  void checkpoint_completed(SimTime, std::int64_t id, std::int64_t, Duration, Duration,
                            const std::string&) override {
    completed_ids.push_back(id);
    --in_progress;
    ++completed;
  }
  void checkpoint_expired(SimTime, std::int64_t id) override { expired_ids.push_back(id); }
  void checkpoint_aborted(SimTime, std::int64_t id, const CheckpointException& ex) override {
    aborted.push_back({id, ex});
    --in_progress;
    ++failed;
  }
  void late_message(SimTime, std::int64_t id, TaskRef) override { late_ids.push_back(id); }
  void late_subtask_stats(SimTime, std::int64_t id, const SubtaskAck& a) override {
    late_stats.push_back({id, a});
  }
  void request_queue_time(SimTime, Duration waited) override { queue_times.push_back(waited); }
  void checkpoint_failure_handled(SimTime, std::int64_t id, const CheckpointException& ex,
                                  int counter_before, bool had_pending_stats) override {
    failures.push_back({id, ex, counter_before, had_pending_stats});
    if (!had_pending_stats) {
      ++total;
      ++failed;
    }
  }
  std::optional<CheckpointFailureReason> abort_reason(std::int64_t id) const {
    for (const Aborted& a : aborted)
      if (a.id == id) return a.ex.reason;
    return std::nullopt;
  }
};

// CheckpointCoordinatorTestingUtils.CheckpointCoordinatorBuilder defaults: interval 10 s,
// timeout 10 s, min pause 0, max concurrent Integer.MAX_VALUE, tolerable 0, one running source.
inline CheckpointCoordinatorConfig default_config() {
  CheckpointCoordinatorConfig c;
  c.checkpointing.interval = core::seconds(10);
  c.checkpointing.timeout = core::seconds(10);
  c.checkpointing.min_pause = 0;
  c.checkpointing.max_concurrent = 2147483647;
  c.checkpointing.tolerable_failed = 0;
  c.version = FlinkVersion::v1_19;
  c.job_id = "a1b2c3d4e5f60718293a4b5c6d7e8f90";
  return c;
}

struct Fixture {
  explicit Fixture(CheckpointCoordinatorConfig config = default_config(),
                   std::vector<TaskRef> tasks = {{0, 0, 0}}) {
    gateway.tasks = std::move(tasks);
    gateway.sim = &sim;
    coordinator.emplace(sim, std::move(config), gateway, callbacks, observer,
                        core::RandomStream(42, "checkpoint-coordinator"));
    gateway.coordinator = &*coordinator;
  }

  CheckpointCoordinator& cc() { return *coordinator; }
  // ManuallyTriggeredScheduledExecutor.triggerAll(): everything due now.
  void run_now() { sim.run_until(sim.now()); }
  void advance(Duration d) { sim.run_until(sim.now() + d); }
  // triggerPeriodicScheduledTasks() + triggerAll(): jump to the next ScheduledTrigger firing.
  void fire_periodic() {
    const SimTime next = coordinator->next_periodic_trigger();
    REQUIRE(next < core::kNever);
    sim.run_until(next);
  }
  AcknowledgeOutcome ack(std::int64_t id, TaskRef task, std::int64_t state_size = 0) {
    SubtaskAck metrics;
    metrics.task = task;
    TaskSnapshot snapshot;
    snapshot.state_size = state_size;
    auto out = coordinator->receive_acknowledge(id, task, metrics, snapshot);
    run_now();
    return out;
  }
  void ack_all(std::int64_t id) {
    for (const TaskRef& t : gateway.tasks) ack(id, t);
  }
  void decline(std::int64_t id, TaskRef task,
               CheckpointFailureReason reason = CheckpointFailureReason::checkpoint_declined) {
    coordinator->receive_decline(id, task, CheckpointException{reason});
    run_now();
  }
  bool failed(std::uint64_t request) const {
    return coordinator->outcome(request).state == RequestOutcome::State::failed;
  }
  std::optional<CheckpointFailureReason> failure(std::uint64_t request) const {
    return coordinator->outcome(request).failure;
  }

  core::Simulation sim;
  FakeGateway gateway;
  FakeFailJobCallback callbacks;
  RecordingObserver observer;
  std::optional<CheckpointCoordinator> coordinator;
};

}  // namespace ckptsim::conformance
