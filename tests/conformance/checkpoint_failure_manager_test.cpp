// Ports of flink-runtime CheckpointFailureManagerTest (coordinator notes 8.1, rules 4.1-4.2):
// job-level failures reported straight to the CheckpointFailureManager.
#include <catch2/catch.hpp>

#include "tests/conformance/fixture.hpp"

namespace ckptsim::conformance {
namespace {

using R = CheckpointFailureReason;

// failureManager.handleJobLevelCheckpointException(forCheckpoint(...), new
// CheckpointException(reason), id)
void job_level(CheckpointFailureManager& m, R reason, std::int64_t id) {
  m.handle_checkpoint_exception(id, false, false, CheckpointException{reason}, std::nullopt);
}

constexpr R kAllReasons[] = {
    R::periodic_scheduler_shutdown, R::too_many_checkpoint_requests,
    R::minimum_time_between_checkpoints, R::not_all_required_tasks_running, R::io_exception,
    R::blocking_output_exist, R::checkpoint_async_exception,
    R::channel_state_shared_stream_exception, R::checkpoint_expired, R::checkpoint_subsumed,
    R::checkpoint_declined, R::checkpoint_declined_task_not_ready,
    R::checkpoint_declined_task_closing, R::checkpoint_declined_subsumed,
    R::checkpoint_declined_on_cancellation_barrier, R::checkpoint_declined_input_end_of_stream,
    R::checkpoint_coordinator_shutdown, R::checkpoint_coordinator_suspend,
    R::job_failover_region, R::task_failure, R::task_checkpoint_failure,
    R::unknown_task_checkpoint_notification_failure, R::finalize_checkpoint_failure,
    R::trigger_checkpoint_failure};

}  // namespace

// T1: CheckpointFailureManagerTest.testIgnoresPastCheckpoints
TEST_CASE("CheckpointFailureManagerTest.testIgnoresPastCheckpoints", "[conformance]") {
  FakeFailJobCallback callback;
  CheckpointFailureManager m(2, callback);
  job_level(m, R::checkpoint_expired, 1);
  job_level(m, R::checkpoint_expired, 2);
  m.handle_checkpoint_success(2);
  CHECK(m.continuous_failure_counter() == 0);
  job_level(m, R::checkpoint_expired, 1);  // older than the last success: ignored
  CHECK(m.continuous_failure_counter() == 0);
  job_level(m, R::checkpoint_expired, 3);
  job_level(m, R::checkpoint_expired, 4);
  CHECK(m.continuous_failure_counter() == 2);  // 2 is not > 2
  CHECK(callback.invoke_counter() == 0);
}

// T2: CheckpointFailureManagerTest.testContinuousFailure
TEST_CASE("CheckpointFailureManagerTest.testContinuousFailure", "[conformance]") {
  FakeFailJobCallback callback;
  CheckpointFailureManager m(2, callback);
  job_level(m, R::checkpoint_declined, 1);
  job_level(m, R::checkpoint_declined, 2);
  job_level(m, R::job_failover_region, 3);  // ignored
  CHECK(callback.invoke_counter() == 0);
  job_level(m, R::checkpoint_declined, 4);
  CHECK(callback.invoke_counter() == 1);
  CHECK(callback.fail_job_calls == 1);
  CHECK(callback.last_message == tolerable_failure_message(R::checkpoint_declined));
  CHECK(m.continuous_failure_counter() == 0);  // clearCount() before failing the job
}

// T3: CheckpointFailureManagerTest.testBreakContinuousFailure
TEST_CASE("CheckpointFailureManagerTest.testBreakContinuousFailure", "[conformance]") {
  FakeFailJobCallback callback;
  CheckpointFailureManager m(2, callback);
  job_level(m, R::io_exception, 1);
  job_level(m, R::checkpoint_declined, 2);
  job_level(m, R::job_failover_region, 3);  // ignored
  CHECK(m.continuous_failure_counter() == 2);
  m.handle_checkpoint_success(4);  // reset
  CHECK(m.continuous_failure_counter() == 0);
  job_level(m, R::checkpoint_expired, 5);
  CHECK(m.continuous_failure_counter() == 1);
  CHECK(callback.invoke_counter() == 0);
}

// T4: CheckpointFailureManagerTest.testTotalCountValue
TEST_CASE("CheckpointFailureManagerTest.testTotalCountValue", "[conformance]") {
  FakeFailJobCallback callback;
  CheckpointFailureManager m(0, callback);
  std::vector<R> failing;
  for (R reason : kAllReasons) {
    const int before = callback.invoke_counter();
    job_level(m, reason, -2);
    if (callback.invoke_counter() > before) failing.push_back(reason);
    CHECK(m.continuous_failure_counter() == 0);  // the counter clears after each job failure
  }
  // IO_EXCEPTION, CHECKPOINT_DECLINED, FINALIZE_CHECKPOINT_FAILURE, CHECKPOINT_EXPIRED and
  // CHECKPOINT_ASYNC_EXCEPTION
  CHECK(callback.invoke_counter() == 5);
  CHECK(failing == std::vector<R>{R::io_exception, R::checkpoint_async_exception,
                                  R::checkpoint_expired, R::checkpoint_declined,
                                  R::finalize_checkpoint_failure});
}

// T5: CheckpointFailureManagerTest.testIgnoreOneCheckpointRepeatedlyCountMultiTimes
TEST_CASE("CheckpointFailureManagerTest.testIgnoreOneCheckpointRepeatedlyCountMultiTimes",
          "[conformance]") {
  FakeFailJobCallback callback;
  CheckpointFailureManager m(2, callback);
  job_level(m, R::checkpoint_declined, 1);
  job_level(m, R::checkpoint_declined, 2);
  job_level(m, R::job_failover_region, 3);  // ignored
  job_level(m, R::checkpoint_declined, 2);  // the same checkpoint again: counted once
  CHECK(m.continuous_failure_counter() == 2);
  CHECK(callback.invoke_counter() == 0);
}

// CheckpointFailureManager routing (coordinator notes 4.1, 4.3): the unknown id -1 always counts,
// task-level failures go to failJobDueToTaskFailure, savepoints are ignored at job level, and
// unlimited tolerance never fails the job. (No single Flink test; guards the rules T41/T44 use.)
TEST_CASE("CheckpointFailureManager routing: job-level vs task-level, unknown id, unlimited",
          "[conformance]") {
  FakeFailJobCallback callback;
  CheckpointFailureManager m(1, callback);
  job_level(m, R::io_exception, kUnknownCheckpointId);
  job_level(m, R::io_exception, kUnknownCheckpointId);
  CHECK(callback.fail_job_calls == 1);
  // savepoint, job-level: ignored
  m.handle_checkpoint_exception(7, true, false, CheckpointException{R::checkpoint_expired},
                                std::nullopt);
  CHECK(m.continuous_failure_counter() == 0);
  // task-level checkpoint failures count and fail through failJobDueToTaskFailure
  const TaskRef t{1, 2, 3};
  m.handle_checkpoint_exception(8, false, false, CheckpointException{R::checkpoint_declined}, t);
  m.handle_checkpoint_exception(9, false, false, CheckpointException{R::checkpoint_declined}, t);
  CHECK(callback.fail_job_due_to_task_failure_calls == 1);
  REQUIRE(callback.last_attempt);
  CHECK(callback.last_attempt->subtask == 2);
  // a pre-flight reason with an attempt is still job-level
  FakeFailJobCallback cb2;
  CheckpointFailureManager m2(0, cb2);
  m2.handle_checkpoint_exception(3, false, false, CheckpointException{R::io_exception}, t);
  CHECK(cb2.fail_job_calls == 1);
  CHECK(cb2.fail_job_due_to_task_failure_calls == 0);
  FakeFailJobCallback cb3;
  CheckpointFailureManager unlimited(kUnlimitedTolerableFailures, cb3);
  for (int i = 1; i < 50; ++i) job_level(unlimited, R::checkpoint_expired, i);
  CHECK(cb3.invoke_counter() == 0);
  CHECK(unlimited.continuous_failure_counter() == 0);
}

}  // namespace ckptsim::conformance

namespace ckptsim::conformance {

// Issue 14 item 8: CheckpointFailureManager.checkFailureAgainstCounter counts a failure only when
// checkpointId > lastSucceededCheckpointId; a failure of exactly the last successful id (a late
// abort of a checkpoint that completed) is not counted. Fails on '<' in place of '<='.
TEST_CASE("CheckpointFailureManager: a failure of exactly the last successful checkpoint id is "
          "not counted",
          "[conformance]") {
  FakeFailJobCallback callback;
  CheckpointFailureManager m(5, callback);
  m.handle_checkpoint_success(5);
  job_level(m, R::checkpoint_expired, 5);
  CHECK(m.continuous_failure_counter() == 0);
  job_level(m, R::checkpoint_expired, 6);
  CHECK(m.continuous_failure_counter() == 1);
  CHECK(callback.invoke_counter() == 0);
}

}  // namespace ckptsim::conformance

namespace ckptsim::conformance {

// release-1.15 CheckpointFailureManager.checkFailureCounter lists FINALIZE_CHECKPOINT_FAILURE
// among the ignored reasons; FLINK-27570 (release-1.16) counts it.
TEST_CASE("CheckpointFailureManager.checkFailureCounter counts FINALIZE_CHECKPOINT_FAILURE from "
          "1.16 (FLINK-27570)",
          "[conformance]") {
  for (const FlinkVersion v : {FlinkVersion::v1_15, FlinkVersion::v1_16, FlinkVersion::v2_1}) {
    INFO("flink " << to_string(v));
    FakeFailJobCallback callback;
    CheckpointFailureManager m(0, callback, v);
    job_level(m, R::finalize_checkpoint_failure, 1);
    CHECK(callback.invoke_counter() == (v >= FlinkVersion::v1_16 ? 1 : 0));
  }
}

// release-1.15/-1.16 checkFailureAgainstCounter: new FlinkRuntimeException(
// EXCEEDED_CHECKPOINT_TOLERABLE_FAILURE_MESSAGE); FLINK-29969 (1.17) appends the latest reason.
TEST_CASE("CheckpointFailureManager.checkFailureAgainstCounter: the message before and after "
          "FLINK-29969",
          "[conformance]") {
  for (const FlinkVersion v : kFlinkVersions) {
    INFO("flink " << to_string(v));
    FakeFailJobCallback callback;
    CheckpointFailureManager m(0, callback, v);
    job_level(m, R::checkpoint_expired, 1);
    REQUIRE(callback.fail_job_calls == 1);
    if (v < FlinkVersion::v1_17)
      CHECK(callback.last_message == "Exceeded checkpoint tolerable failure threshold.");
    else
      CHECK(callback.last_message ==
            "Exceeded checkpoint tolerable failure threshold. The latest checkpoint failed due to "
            "Checkpoint expired before completing., view the Checkpoint History tab or the Job "
            "Manager log to find out why continuous checkpoints failed.");
  }
}

}  // namespace ckptsim::conformance
