// The JobMaster main thread as one FIFO executor (RpcEndpoint.getMainThreadExecutor): what the
// checkpoint timer thread hands to it runs in that order. Flink's rule this ports: after an
// expiry exceeds the tolerable failures, DefaultExecutionGraph's FailJobCallback.failJob only
// hands failGlobal to the main thread; the queued periodic request then computes its plan there
// after failGlobal ran (DefaultCheckpointPlanCalculator.calculateCheckpointPlan ->
// checkTasksStarted), finds the tasks CANCELING and fails with NOT_ALL_REQUIRED_TASKS_RUNNING
// before CheckpointCoordinator.startTriggeringCheckpoint reads the id counter.
#include <catch2/catch.hpp>

#include "sim/model/main_thread_executor.hpp"
#include "tests/conformance/fixture.hpp"

namespace ckptsim::conformance {
namespace {

using R = CheckpointFailureReason;

struct Recorded final : core::EventHandler {
  core::Simulation* sim = nullptr;
  std::vector<std::pair<std::uint64_t, SimTime>> runs;  // (arg, when)
  MainThreadExecutor* executor = nullptr;
  Duration hold = 0;
  void on_event(std::uint32_t kind, std::uint64_t arg) override {
    runs.emplace_back(arg, sim->now());
    if (kind == 1 && hold > 0) executor->continue_after(hold, this, 2, arg + 100);
  }
};

}  // namespace

TEST_CASE("MainThreadExecutor runs runnables in the order handed in, even when a later one "
          "could start sooner",
          "[conformance][main-thread]") {
  core::Simulation sim;
  MainThreadExecutor executor(sim);
  Recorded r;
  r.sim = &sim;
  executor.execute(&r, 0, 1, core::milliseconds(27));  // failGlobal's way to the main thread
  sim.run_until(core::milliseconds(19));
  executor.execute(&r, 0, 2, 0);  // handed in later, ready at once
  sim.run_until(core::seconds(1));
  REQUIRE(r.runs.size() == 2);
  CHECK(r.runs[0] == std::make_pair<std::uint64_t, SimTime>(1, core::milliseconds(27)));
  CHECK(r.runs[1] == std::make_pair<std::uint64_t, SimTime>(2, core::milliseconds(27)));
}

TEST_CASE("MainThreadExecutor: a runnable that continues after a while keeps the thread",
          "[conformance][main-thread]") {
  core::Simulation sim;
  MainThreadExecutor executor(sim);
  Recorded r;
  r.sim = &sim;
  r.executor = &executor;
  r.hold = core::milliseconds(6);
  executor.execute(&r, 1, 1, 0);  // handleGlobalFailure, then the failure handling
  executor.execute(&r, 0, 2, 0);
  sim.run_until(core::seconds(1));
  REQUIRE(r.runs.size() == 3);
  CHECK(r.runs[0] == std::make_pair<std::uint64_t, SimTime>(1, 0));
  CHECK(r.runs[1] == std::make_pair<std::uint64_t, SimTime>(101, core::milliseconds(6)));
  CHECK(r.runs[2] == std::make_pair<std::uint64_t, SimTime>(2, core::milliseconds(6)));
}

namespace {

// FailJobCallback as DefaultExecutionGraph implements it: failJob hands failGlobal to the main
// thread; failGlobal cancels the tasks (they are no longer RUNNING).
class MainThreadFailJobCallback final : public CheckpointFailureManager::Callbacks,
                                        public core::EventHandler {
 public:
  MainThreadFailJobCallback(MainThreadExecutor& main_thread, FakeGateway& gateway,
                            core::Simulation& sim)
      : main_thread_(main_thread), gateway_(gateway), sim_(sim) {}
  int fail_global_calls = 0;
  SimTime fail_global_at = -1;
  void fail_job(const std::string&) override {
    main_thread_.execute(this, 0, 0, core::milliseconds(27));
  }
  void fail_job_due_to_task_failure(const std::string&, TaskRef) override {
    main_thread_.execute(this, 0, 0, core::milliseconds(27));
  }
  void on_event(std::uint32_t, std::uint64_t) override {
    ++fail_global_calls;
    fail_global_at = sim_.now();
    gateway_.source_running = false;  // RUNNING -> CANCELING
  }

 private:
  MainThreadExecutor& main_thread_;
  FakeGateway& gateway_;
  core::Simulation& sim_;
};

}  // namespace

TEST_CASE("DefaultCheckpointPlanCalculator.checkTasksStarted: a queued request whose plan runs on "
          "the main thread after failGlobal fails NOT_ALL_REQUIRED_TASKS_RUNNING and uses no "
          "checkpoint id",
          "[conformance][main-thread]") {
  core::Simulation sim;
  MainThreadExecutor main_thread(sim);
  FakeGateway gateway;
  gateway.sim = &sim;
  MainThreadFailJobCallback callbacks(main_thread, gateway, sim);
  RecordingObserver observer;
  auto config = default_config();
  config.checkpointing.max_concurrent = 1;
  config.checkpointing.interval = core::kHour;
  config.checkpointing.min_pause = core::kHour;
  config.checkpointing.timeout = core::minutes(10);
  config.abort_handling = core::milliseconds(19);
  CheckpointCoordinator cc(sim, config, gateway, callbacks, observer,
                           core::RandomStream(42, "checkpoint-coordinator"), &main_thread);
  cc.trigger_checkpoint(false);
  sim.run_until(sim.now());
  REQUIRE(gateway.triggered.size() == 1);
  REQUIRE(gateway.triggered[0].id == 1);
  sim.run_until(core::seconds(10));
  cc.trigger_checkpoint(false);  // at the limit: queued
  sim.run_until(sim.now());
  REQUIRE(cc.queued_requests() == 1);

  // Checkpoint 1 expires at 10 min: the failure manager's failJob hands failGlobal to the main
  // thread (27 ms); the timer thread takes the queued request 19 ms after the abort.
  sim.run_until(core::minutes(10) + core::seconds(1));
  CHECK(observer.expired_ids == std::vector<std::int64_t>{1});
  CHECK(observer.queue_times == std::vector<Duration>{core::minutes(10) - core::seconds(10) +
                                                      core::milliseconds(19)});
  CHECK(callbacks.fail_global_calls == 1);
  CHECK(callbacks.fail_global_at == core::minutes(10) + core::milliseconds(27));
  // The plan ran after failGlobal: nothing triggered, no pending checkpoint, no id used.
  CHECK(gateway.triggered.size() == 1);
  CHECK(observer.triggered_checkpoints.size() == 1);
  CHECK(cc.next_checkpoint_id() == 2);
  REQUIRE(observer.failures.size() == 2);
  CHECK(observer.failures[0].ex.reason == R::checkpoint_expired);
  const FailureHandled& plan = observer.failures[1];
  CHECK(plan.id == kUnknownCheckpointId);
  CHECK(plan.ex.reason == R::not_all_required_tasks_running);
  CHECK_FALSE(plan.had_pending_stats);
  CHECK(plan.ex.get_message() ==
        "Checkpoint triggering task Source: src (1/1) of job " + config.job_id +
            " is not being executed at the moment. Aborting checkpoint. Failure reason: Not all "
            "required tasks are currently running.");
  // Stats: the expired checkpoint, then the trigger failure without a pending checkpoint.
  CHECK(observer.total == 2);
  CHECK(observer.failed == 2);
}

// Not a Flink rule: the hybrid network (core::EventHandler::quiet) asks whether an event is quiet
// before it runs; the main thread's next step is as quiet as the runnable it runs and everything
// queued behind it.
TEST_CASE("MainThreadExecutor is as quiet as what it runs next", "[conformance][main-thread]") {
  struct Quiet final : core::EventHandler {
    void on_event(std::uint32_t, std::uint64_t) override {}
    bool quiet(std::uint32_t kind) const override { return kind == 7; }
  } handler;
  core::Simulation sim;
  MainThreadExecutor executor(sim);
  const auto next_is_quiet = [&] {
    bool quiet = false;
    int pending = 0;
    sim.for_each_pending([&](SimTime, const core::EventHandler* target, std::uint32_t kind) {
      if (target == &executor) {
        quiet = target->quiet(kind);
        ++pending;
      }
    });
    REQUIRE(pending == 1);
    return quiet;
  };
  executor.execute(&handler, 7, 0, core::milliseconds(5));
  CHECK(next_is_quiet());
  executor.execute(&handler, 3, 0, core::milliseconds(10));
  CHECK_FALSE(next_is_quiet());  // a quiet head, and behind it one that is not
  sim.run_until(core::milliseconds(5));  // the quiet one ran; the other is next
  CHECK_FALSE(next_is_quiet());
  sim.run_until(core::milliseconds(10));
  executor.execute(&handler, 7, 0, core::milliseconds(1));
  CHECK(next_is_quiet());
}

}  // namespace ckptsim::conformance
