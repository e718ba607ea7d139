// Ports of flink-runtime CheckpointCoordinatorTest (coordinator notes 8.4, rules 3-4): acks,
// declines, completion, subsumption, expiry, savepoints, failure counting and statistics.
// Flink's manuallyTriggeredScheduledExecutor.getScheduledTasks() is sim.pending() here (the
// CheckpointCanceller timers once the queue has been drained).
#include <catch2/catch.hpp>

#include "tests/conformance/fixture.hpp"

namespace ckptsim::conformance {
namespace {

using R = CheckpointFailureReason;
const TaskRef kTask1{0, 0, 0};
const TaskRef kTask2{1, 0, 0};

CheckpointCoordinatorConfig two_tasks_config() {
  auto config = default_config();
  config.checkpointing.timeout = core::minutes(10);
  return config;
}

}  // namespace

// T27: CheckpointCoordinatorTest.testTriggerAndDeclineSyncCheckpointFailureSimple and
// testTriggerAndDeclineAsyncCheckpointFailureSimple
TEST_CASE("CheckpointCoordinatorTest.testTriggerAndDeclineSyncCheckpointFailureSimple, "
          "testTriggerAndDeclineAsyncCheckpointFailureSimple",
          "[conformance]") {
  for (R reason : {R::checkpoint_declined, R::checkpoint_async_exception}) {
    Fixture f(two_tasks_config(), {kTask1, kTask2});
    const auto r = f.cc().trigger_checkpoint(false);
    f.run_now();
    CHECK_FALSE(f.failed(r));
    CHECK(f.cc().number_of_pending_checkpoints() == 1);
    CHECK(f.cc().completed_checkpoints().empty());
    CHECK(f.sim.pending() == 1);  // the canceller
    REQUIRE(f.gateway.triggered.size() == 1);
    const std::int64_t id = f.gateway.triggered[0].id;
    CHECK(f.cc().acknowledged_tasks(id) == 0);

    CHECK(f.ack(id, kTask2).result == AcknowledgeResult::success);
    CHECK(f.cc().acknowledged_tasks(id) == 1);
    // acknowledge the same task again (should not matter)
    CHECK(f.ack(id, kTask2).result == AcknowledgeResult::duplicate);
    CHECK(f.cc().acknowledged_tasks(id) == 1);
    CHECK(f.cc().is_pending(id));

    // decline from the other task: cancels the checkpoint
    f.decline(id, kTask1, reason);
    CHECK_FALSE(f.cc().is_pending(id));
    CHECK(f.failure(r) == reason);
    CHECK(f.sim.pending() == 0);  // the canceller is also removed
    CHECK(f.cc().number_of_pending_checkpoints() == 0);
    CHECK(f.cc().completed_checkpoints().empty());
    CHECK(f.gateway.triggered.size() == 1);  // no new checkpoint

    // decline again, nothing should happen
    f.decline(id, kTask1, reason);
    f.decline(id, kTask2, reason);
    CHECK(f.observer.aborted.size() == 1);
    CHECK(f.gateway.aborted.size() == 1);
    CHECK(f.callbacks.invoke_counter() == 1);  // tolerable 0: the failure callback exactly once
    CHECK(f.callbacks.fail_job_due_to_task_failure_calls == 1);
  }
}

// T28: CheckpointCoordinatorTest.testTriggerAndDeclineCheckpointComplex
TEST_CASE("CheckpointCoordinatorTest.testTriggerAndDeclineCheckpointComplex", "[conformance]") {
  Fixture f(two_tasks_config(), {kTask1, kTask2});
  CHECK(f.sim.pending() == 0);
  const auto r1 = f.cc().trigger_checkpoint(false);
  f.run_now();
  const auto r2 = f.cc().trigger_checkpoint(false);
  f.run_now();
  CHECK_FALSE(f.failed(r1));
  CHECK_FALSE(f.failed(r2));
  CHECK(f.cc().pending_checkpoint_ids() == std::vector<std::int64_t>{1, 2});
  CHECK(f.sim.pending() == 2);
  REQUIRE(f.gateway.triggered.size() == 2);
  CHECK(f.gateway.triggered[0].id == 1);
  CHECK(f.gateway.triggered[1].id == 2);

  f.decline(1, kTask1);
  REQUIRE(f.gateway.aborted.size() == 1);
  CHECK(f.gateway.aborted[0].id == 1);
  // only one pending checkpoint left: the same second one, untouched
  CHECK(f.cc().pending_checkpoint_ids() == std::vector<std::int64_t>{2});
  CHECK(f.cc().acknowledged_tasks(2) == 0);
  CHECK_FALSE(f.failed(r2));
  CHECK(f.sim.pending() == 1);
  CHECK(f.gateway.triggered.size() == 2);

  // decline again, nothing happens; abort is not notified again
  f.decline(1, kTask1);
  f.decline(1, kTask2);
  CHECK(f.gateway.aborted.size() == 1);
  f.cc().shutdown();
}

// T29: CheckpointCoordinatorTest.testTriggerAndConfirmSimpleCheckpoint
TEST_CASE("CheckpointCoordinatorTest.testTriggerAndConfirmSimpleCheckpoint", "[conformance]") {
  Fixture f(two_tasks_config(), {kTask1, kTask2});
  const auto r = f.cc().trigger_checkpoint(false);
  f.run_now();
  CHECK(f.sim.pending() == 1);
  f.ack(1, kTask2);
  CHECK(f.cc().is_pending(1));
  CHECK(f.gateway.completed.empty());
  f.ack(1, kTask1);
  CHECK(f.cc().outcome(r).state == RequestOutcome::State::completed);
  CHECK(f.cc().number_of_pending_checkpoints() == 0);
  REQUIRE(f.cc().completed_checkpoints().size() == 1);
  CHECK(f.cc().completed_checkpoints().back().id == 1);
  CHECK(f.sim.pending() == 0);  // canceller gone
  REQUIRE(f.gateway.completed.size() == 1);  // notifyCheckpointComplete to every task
  CHECK(f.gateway.completed[0].id == 1);
  CHECK(f.gateway.completed[0].timestamp == f.gateway.triggered[0].timestamp);

  // the next checkpoint replaces it (retained 1)
  f.cc().trigger_checkpoint(false);
  f.run_now();
  f.ack(2, kTask1);
  f.ack(2, kTask2);
  REQUIRE(f.cc().completed_checkpoints().size() == 1);
  CHECK(f.cc().completed_checkpoints().back().id == 2);
  REQUIRE(f.gateway.completed.size() == 2);
  CHECK(f.gateway.completed[1].id == 2);
  CHECK(f.sim.pending() == 0);
}

// T30: CheckpointCoordinatorTest.testMultipleConcurrentCheckpoints
TEST_CASE("CheckpointCoordinatorTest.testMultipleConcurrentCheckpoints", "[conformance]") {
  auto config = two_tasks_config();
  config.checkpointing.num_retained = 2;
  Fixture f(config, {kTask1, kTask2});
  f.cc().trigger_checkpoint(false);
  f.run_now();
  f.ack(1, kTask1);
  f.cc().trigger_checkpoint(false);
  f.run_now();
  CHECK(f.cc().pending_checkpoint_ids() == std::vector<std::int64_t>{1, 2});
  f.ack(2, kTask1);
  f.ack(1, kTask2);  // completes 1
  CHECK(f.observer.completed_ids == std::vector<std::int64_t>{1});
  CHECK(f.cc().pending_checkpoint_ids() == std::vector<std::int64_t>{2});
  CHECK(f.cc().acknowledged_tasks(2) == 1);
  REQUIRE(f.gateway.completed.size() == 1);
  CHECK(f.gateway.completed[0].id == 1);
  f.ack(2, kTask2);
  CHECK(f.observer.completed_ids == std::vector<std::int64_t>{1, 2});
  REQUIRE(f.gateway.completed.size() == 2);
  CHECK(f.gateway.completed[1].id == 2);
  REQUIRE(f.cc().completed_checkpoints().size() == 2);
  CHECK(f.cc().completed_checkpoints()[0].id == 1);
  CHECK(f.cc().completed_checkpoints()[1].id == 2);
}

// T31: CheckpointCoordinatorTest.testSuccessfulCheckpointSubsumesUnsuccessful
TEST_CASE("CheckpointCoordinatorTest.testSuccessfulCheckpointSubsumesUnsuccessful",
          "[conformance]") {
  auto config = two_tasks_config();
  config.checkpointing.num_retained = 10;
  Fixture f(config, {kTask1, kTask2});
  const auto r1 = f.cc().trigger_checkpoint(false);
  f.run_now();
  f.ack(1, kTask1, 100);  // cp1 partially acknowledged
  f.cc().trigger_checkpoint(false);
  f.run_now();
  f.ack(2, kTask1, 10);
  f.ack(2, kTask2, 20);  // cp2 complete
  CHECK(f.failure(r1) == R::checkpoint_subsumed);
  CHECK(f.observer.abort_reason(1) == R::checkpoint_subsumed);
  CHECK(f.cc().number_of_pending_checkpoints() == 0);
  REQUIRE(f.cc().completed_checkpoints().size() == 1);  // cp1's state is not retained
  CHECK(f.cc().completed_checkpoints()[0].id == 2);
  CHECK(f.cc().completed_checkpoints()[0].state_size == 30);
  // a late ack for cp1 is discarded
  CHECK(f.ack(1, kTask2, 1000).result == AcknowledgeResult::unknown_checkpoint);
  CHECK(f.cc().completed_checkpoints().size() == 1);
  CHECK(f.observer.completed_ids == std::vector<std::int64_t>{2});
  CHECK(f.callbacks.invoke_counter() == 0);  // SUBSUMED is never counted
}

// T32: CheckpointCoordinatorTest.testCheckpointTimeoutIsolated
TEST_CASE("CheckpointCoordinatorTest.testCheckpointTimeoutIsolated", "[conformance]") {
  auto config = two_tasks_config();
  config.checkpointing.timeout = core::milliseconds(200);
  Fixture f(config, {kTask1, kTask2});
  const auto r = f.cc().trigger_checkpoint(false);
  f.run_now();
  f.ack(1, kTask1);
  f.advance(core::milliseconds(199));
  CHECK(f.cc().is_pending(1));
  f.advance(core::milliseconds(1));  // the canceller fires
  CHECK(f.failure(r) == R::checkpoint_expired);
  CHECK(f.observer.expired_ids == std::vector<std::int64_t>{1});
  CHECK(f.cc().number_of_pending_checkpoints() == 0);
  CHECK(f.cc().completed_checkpoints().empty());
  CHECK(f.gateway.completed.empty());  // no notifyCheckpointComplete
  REQUIRE(f.gateway.aborted.size() == 1);
  // expiry is a job-level failure: tolerable 0 fails the job
  CHECK(f.callbacks.fail_job_calls == 1);
}

// T33: CheckpointCoordinatorTest.testHandleMessagesForNonExistingCheckpoints and
// testStateCleanupForLateOrUnknownMessages
TEST_CASE("CheckpointCoordinatorTest.testHandleMessagesForNonExistingCheckpoints, "
          "testStateCleanupForLateOrUnknownMessages",
          "[conformance]") {
  auto config = two_tasks_config();
  config.checkpointing.timeout = core::seconds(1);
  Fixture f(config, {kTask1, kTask2});
  f.cc().trigger_checkpoint(false);
  f.run_now();
  // unknown checkpoint id: not associated, nothing changes
  CHECK(f.ack(1337, kTask1).result == AcknowledgeResult::unknown_checkpoint);
  CHECK_FALSE(f.ack(1337, kTask1).associated());
  f.decline(1337, kTask1);
  CHECK(f.cc().is_pending(1));
  // unknown attempt (a task the checkpoint does not wait for): state discarded, not counted
  CHECK(f.ack(1, TaskRef{0, 0, 7}).result == AcknowledgeResult::unknown_attempt);
  CHECK(f.ack(1, TaskRef{5, 0, 0}).result == AcknowledgeResult::unknown_attempt);
  CHECK(f.cc().acknowledged_tasks(1) == 0);
  // duplicate ack keeps the first state
  CHECK(f.ack(1, kTask1, 42).result == AcknowledgeResult::success);
  CHECK(f.ack(1, kTask1, 99).result == AcknowledgeResult::duplicate);
  CHECK(f.cc().acknowledged_tasks(1) == 1);
  // late message after expiry: associated (returns true), WARN fact, nothing completes
  f.advance(core::seconds(1));
  REQUIRE_FALSE(f.cc().is_pending(1));
  const auto late = f.ack(1, kTask2);
  CHECK(late.result == AcknowledgeResult::late);
  CHECK(late.associated());
  CHECK_FALSE(late.thrown);
  CHECK(f.observer.late_ids == std::vector<std::int64_t>{1});
  CHECK(f.observer.completed_ids.empty());
}

// T33 (version rule 3.1): up to 1.18 the late-message ring remembered every removed
// checkpoint, so late acks after completion or decline also WARN; 1.19+ only expired ones.
TEST_CASE("CheckpointCoordinatorTest.testStateCleanupForLateOrUnknownMessages "
          "(late acks after completion: 1.15-1.18 vs 1.19+, FLINK-15922)",
          "[conformance]") {
  for (FlinkVersion v : kFlinkVersions) {
    INFO("flink " << to_string(v));
    auto config = two_tasks_config();
    config.version = v;
    Fixture f(config, {kTask1, kTask2});
    f.cc().trigger_checkpoint(false);
    f.run_now();
    f.ack(1, kTask1);
    f.ack(1, kTask2);
    f.cc().trigger_checkpoint(false);
    f.run_now();
    f.decline(2, kTask1);
    const bool legacy = v < FlinkVersion::v1_19;
    CHECK(f.ack(1, kTask1).result ==
          (legacy ? AcknowledgeResult::late : AcknowledgeResult::unknown_checkpoint));
    CHECK(f.ack(2, kTask2).result ==
          (legacy ? AcknowledgeResult::late : AcknowledgeResult::unknown_checkpoint));
    CHECK(f.observer.late_ids.size() == (legacy ? 2u : 0u));
  }
}

// T34: CheckpointCoordinatorTest.testMaxConcurrentAttempts1/2/5
TEST_CASE("CheckpointCoordinatorTest.testMaxConcurrentAttempts1, testMaxConcurrentAttempts2, "
          "testMaxConcurrentAttempts5",
          "[conformance]") {
  for (int n : {1, 2, 5}) {
    auto config = default_config();
    config.checkpointing.interval = core::milliseconds(10);
    config.checkpointing.timeout = core::seconds(200);
    config.checkpointing.max_concurrent = n;
    Fixture f(config);
    f.cc().start_checkpoint_scheduler();
    for (int i = 0; i < n; ++i) f.fire_periodic();
    CHECK(f.gateway.triggered.size() == static_cast<std::size_t>(n));
    // no further checkpoints: the periodic request stays queued
    f.fire_periodic();
    CHECK(f.gateway.triggered.size() == static_cast<std::size_t>(n));
    CHECK(f.cc().queued_requests() == 1);
    // once one checkpoint is acknowledged, the next one is triggered
    f.ack(1, kTask1);
    CHECK(f.gateway.triggered.size() == static_cast<std::size_t>(n + 1));
    CHECK(f.cc().queued_requests() == 0);
    // no further checkpoints should happen
    f.fire_periodic();
    f.fire_periodic();
    CHECK(f.gateway.triggered.size() == static_cast<std::size_t>(n + 1));
    f.cc().shutdown();
  }
}

// T35: CheckpointCoordinatorTest.testMaxConcurrentAttemptsWithSubsumption
TEST_CASE("CheckpointCoordinatorTest.testMaxConcurrentAttemptsWithSubsumption", "[conformance]") {
  auto config = default_config();
  config.checkpointing.interval = core::milliseconds(10);
  config.checkpointing.timeout = core::seconds(200);
  config.checkpointing.max_concurrent = 2;
  Fixture f(config);
  f.cc().start_checkpoint_scheduler();
  f.fire_periodic();
  f.fire_periodic();
  CHECK(f.cc().pending_checkpoint_ids() == std::vector<std::int64_t>{1, 2});
  f.fire_periodic();  // queued
  CHECK(f.cc().pending_checkpoint_ids() == std::vector<std::int64_t>{1, 2});
  // completing 2 subsumes 1 and frees both slots
  f.ack(2, kTask1);
  CHECK(f.observer.abort_reason(1) == R::checkpoint_subsumed);
  while (f.cc().number_of_pending_checkpoints() < 2) f.fire_periodic();
  CHECK(f.cc().pending_checkpoint_ids() == std::vector<std::int64_t>{3, 4});
  f.cc().shutdown();
}

// T36: CheckpointCoordinatorTest.testTriggerAndConfirmSimpleSavepoint
TEST_CASE("CheckpointCoordinatorTest.testTriggerAndConfirmSimpleSavepoint", "[conformance]") {
  Fixture f(two_tasks_config(), {kTask1, kTask2});
  const auto r = f.cc().trigger_savepoint();
  f.run_now();
  REQUIRE(f.gateway.triggered.size() == 1);
  CHECK(f.gateway.triggered[0].props.is_savepoint());
  CHECK_FALSE(f.gateway.triggered[0].props.can_be_subsumed());
  f.ack(1, kTask1);
  f.ack(1, kTask2);
  CHECK(f.cc().outcome(r).state == RequestOutcome::State::completed);
  CHECK(f.cc().completed_checkpoints().empty());  // not retained in the store
  REQUIRE(f.cc().latest_savepoint());
  CHECK(f.cc().latest_savepoint()->id == 1);
  CHECK(f.gateway.completed.empty());  // no notifyCheckpointComplete
  CHECK(f.observer.completed_ids == std::vector<std::int64_t>{1});  // stats: COMPLETED
  CHECK(f.observer.completed == 1);
  CHECK(f.observer.in_progress == 0);
}

// T37: CheckpointCoordinatorTest.testSavepointsAreNotSubsumed
TEST_CASE("CheckpointCoordinatorTest.testSavepointsAreNotSubsumed", "[conformance]") {
  auto config = two_tasks_config();
  config.checkpointing.num_retained = 10;
  Fixture f(config, {kTask1, kTask2});
  const auto sp1 = f.cc().trigger_savepoint();  // id 1
  f.run_now();
  const auto cp2 = f.cc().trigger_checkpoint(false);  // id 2
  f.run_now();
  const auto sp3 = f.cc().trigger_savepoint();  // id 3
  f.run_now();
  const auto cp4 = f.cc().trigger_checkpoint(false);  // id 4
  f.run_now();
  CHECK(f.cc().pending_checkpoint_ids() == std::vector<std::int64_t>{1, 2, 3, 4});
  // a savepoint completing aborts nothing, not even older checkpoints
  f.ack(3, kTask1);
  f.ack(3, kTask2);
  CHECK(f.cc().outcome(sp3).state == RequestOutcome::State::completed);
  CHECK(f.cc().pending_checkpoint_ids() == std::vector<std::int64_t>{1, 2, 4});
  CHECK_FALSE(f.failed(cp2));
  // a checkpoint completing aborts older checkpoints but not the pending savepoint
  f.ack(4, kTask1);
  f.ack(4, kTask2);
  CHECK(f.failure(cp2) == R::checkpoint_subsumed);
  CHECK_FALSE(f.failed(sp1));
  CHECK(f.cc().pending_checkpoint_ids() == std::vector<std::int64_t>{1});
  f.ack(1, kTask1);
  f.ack(1, kTask2);
  CHECK(f.cc().outcome(sp1).state == RequestOutcome::State::completed);
  CHECK(f.cc().outcome(cp4).state == RequestOutcome::State::completed);
}

// T38: CheckpointCoordinatorTest.testConcurrentSavepoints and testMinDelayBetweenSavepoints
TEST_CASE("CheckpointCoordinatorTest.testConcurrentSavepoints, testMinDelayBetweenSavepoints",
          "[conformance]") {
  {
    auto config = default_config();
    config.checkpointing.max_concurrent = 1;
    Fixture f(config);
    f.cc().trigger_checkpoint(false);
    f.run_now();
    for (int i = 0; i < 5; ++i) f.cc().trigger_savepoint();
    f.run_now();
    // max-concurrent 1 does not block savepoints
    CHECK(f.cc().number_of_pending_checkpoints() == 6);
    CHECK(f.gateway.triggered.size() == 6);
    CHECK(f.cc().queued_requests() == 0);
  }
  {
    auto config = default_config();
    config.checkpointing.min_pause = 365 * 24 * core::kHour;  // a huge min pause
    config.checkpointing.interval = core::seconds(1);
    Fixture f(config);
    const auto sp1 = f.cc().trigger_savepoint();
    f.run_now();
    f.ack(1, kTask1);
    REQUIRE(f.cc().outcome(sp1).state == RequestOutcome::State::completed);
    const auto sp2 = f.cc().trigger_savepoint();
    f.run_now();
    CHECK_FALSE(f.failed(sp2));
    CHECK(f.cc().is_pending(2));  // not delayed by the min pause
  }
}

// T39: CheckpointCoordinatorTest.testSavepointScheduledInUnalignedMode
TEST_CASE("CheckpointCoordinatorTest.testSavepointScheduledInUnalignedMode", "[conformance]") {
  auto config = default_config();
  config.checkpointing.unaligned = true;
  config.checkpointing.max_concurrent = 1;
  Fixture f(config);
  f.cc().trigger_checkpoint(false);
  f.run_now();
  f.cc().trigger_checkpoint(false);
  f.cc().trigger_checkpoint(false);
  const auto sp = f.cc().trigger_savepoint();
  f.run_now();
  // non-forced: queued behind the pending checkpoint
  CHECK(f.cc().queued_requests() == 3);
  CHECK(f.gateway.triggered.size() == 1);
  CHECK_FALSE(f.failed(sp));
  // the pending checkpoint aborts: the savepoint (prioritised) triggers first
  f.decline(1, kTask1, R::checkpoint_declined_task_not_ready);
  REQUIRE(f.gateway.triggered.size() == 2);
  CHECK(f.gateway.triggered[1].props.is_savepoint());
  CHECK_FALSE(f.gateway.triggered[1].props.forced);
  CHECK(f.cc().queued_requests() == 2);
}

// T40: CheckpointCoordinatorTest.testPeriodicSchedulingWithInactiveTasks,
// testCheckpointAbortsIfTriggerTasksAreNotExecuted, testCheckpointAbortsIfTriggerTasksAreFinished
TEST_CASE("CheckpointCoordinatorTest.testPeriodicSchedulingWithInactiveTasks, "
          "testCheckpointAbortsIfTriggerTasksAreNotExecuted, "
          "testCheckpointAbortsIfTriggerTasksAreFinished",
          "[conformance]") {
  {
    Fixture f;
    f.gateway.source_running = false;  // not executed / finished
    const auto r = f.cc().trigger_checkpoint(false);
    f.run_now();
    CHECK(f.failure(r) == R::not_all_required_tasks_running);
    CHECK(f.cc().number_of_pending_checkpoints() == 0);
    CHECK(f.cc().completed_checkpoints().empty());
    CHECK(f.cc().next_checkpoint_id() == 1);  // plan failures consume no id
    REQUIRE(f.observer.failures.size() == 1);
    CHECK(f.observer.failures[0].id == kUnknownCheckpointId);
    CHECK_FALSE(f.observer.failures[0].had_pending_stats);
    CHECK(f.callbacks.invoke_counter() == 0);  // not counted
  }
  {
    auto config = default_config();
    config.checkpointing.interval = core::milliseconds(10);
    Fixture f(config);
    f.gateway.source_running = false;
    f.cc().start_checkpoint_scheduler();
    for (int i = 0; i < 3; ++i) f.fire_periodic();
    CHECK(f.cc().number_of_pending_checkpoints() == 0);
    CHECK(f.observer.total == 3);  // each attempt: failed+1, total+1
    CHECK(f.observer.failed == 3);
    f.gateway.source_running = true;
    f.fire_periodic();
    CHECK(f.cc().number_of_pending_checkpoints() == 1);
    CHECK(f.gateway.triggered.size() == 1);
  }
}

// T41: CheckpointCoordinatorTest.testExpiredCheckpointExceedsTolerableFailureNumber,
// testIOExceptionCheckpointExceedsTolerableFailureNumber,
// testTriggerAndDeclineCheckpointThenFailureManagerThrowsException
TEST_CASE("CheckpointCoordinatorTest.testExpiredCheckpointExceedsTolerableFailureNumber, "
          "testIOExceptionCheckpointExceedsTolerableFailureNumber, "
          "testTriggerAndDeclineCheckpointThenFailureManagerThrowsException",
          "[conformance]") {
  {
    Fixture f(two_tasks_config(), {kTask1, kTask2});
    f.cc().trigger_checkpoint(false);
    f.run_now();
    f.cc().abort_pending_checkpoints(R::checkpoint_expired);
    CHECK(f.callbacks.fail_job_calls == 1);
    CHECK(f.callbacks.last_message == tolerable_failure_message(R::checkpoint_expired));
  }
  {
    Fixture f(two_tasks_config(), {kTask1, kTask2});
    f.cc().trigger_checkpoint(false);
    f.run_now();
    f.cc().abort_pending_checkpoints(R::io_exception);
    CHECK(f.callbacks.fail_job_calls == 1);
    CHECK(f.callbacks.last_message == tolerable_failure_message(R::io_exception));
  }
  {
    Fixture f(two_tasks_config(), {kTask1, kTask2});
    f.cc().trigger_checkpoint(false);
    f.run_now();
    f.ack(1, kTask2);
    f.decline(1, kTask1);
    CHECK(f.callbacks.fail_job_due_to_task_failure_calls == 1);
    REQUIRE(f.callbacks.last_attempt);
    CHECK(f.callbacks.last_attempt->vertex == kTask1.vertex);
    CHECK(f.callbacks.fail_job_calls == 0);
  }
}

// T42: CheckpointCoordinatorTest.testTriggerCheckpointWithCounterIOException
TEST_CASE("CheckpointCoordinatorTest.testTriggerCheckpointWithCounterIOException",
          "[conformance]") {
  Fixture f;
  f.cc().fail_next_id_allocations(1, true);  // IOException from the CheckpointIDCounter
  const auto r = f.cc().trigger_checkpoint(false);
  f.run_now();
  CHECK(f.failure(r) == R::io_exception);
  CHECK(f.callbacks.fail_job_calls == 1);
  CHECK(f.observer.total == 1);
  CHECK(f.observer.failed == 1);
  CHECK(f.observer.in_progress == 0);
  CHECK(f.observer.triggered_checkpoints.empty());  // no pending stats
  REQUIRE(f.observer.failures.size() == 1);
  CHECK_FALSE(f.observer.failures[0].had_pending_stats);
  CHECK(f.observer.failures[0].id == kUnknownCheckpointId);
}

// T42b: CheckpointCoordinatorTest.testTriggerCheckpointAfterCheckpointStorageIOException
TEST_CASE("CheckpointCoordinatorTest.testTriggerCheckpointAfterCheckpointStorageIOException",
          "[conformance]") {
  Fixture f;
  f.cc().fail_next_storage_initializations(1);
  const auto r = f.cc().trigger_checkpoint(false);
  f.run_now();
  CHECK(f.failure(r) == R::io_exception);
  CHECK(f.callbacks.fail_job_calls == 1);
  // pending stats for checkpoint 1 exist and become FAILED
  REQUIRE(f.observer.triggered_checkpoints.size() == 1);
  CHECK(f.observer.triggered_checkpoints[0].id == 1);
  CHECK(f.observer.abort_reason(1) == R::io_exception);
  CHECK(f.observer.total == 1);
  CHECK(f.observer.failed == 1);
  CHECK(f.observer.in_progress == 0);
  CHECK(f.gateway.triggered.empty());
}

// T43: CheckpointCoordinatorTest.testExceptionInStoringCompletedCheckpointIsReportedToFailureManager
TEST_CASE("CheckpointCoordinatorTest."
          "testExceptionInStoringCompletedCheckpointIsReportedToFailureManager",
          "[conformance]") {
  Fixture f;
  f.cc().fail_next_store_additions(1);
  const auto r = f.cc().trigger_checkpoint(false);
  f.run_now();
  const auto out = f.ack(1, kTask1);
  REQUIRE(out.thrown);  // receiveAcknowledgeMessage throws
  CHECK(out.thrown->reason == R::finalize_checkpoint_failure);
  CHECK(out.thrown->get_message() ==
        "Could not complete the pending checkpoint 1. Failure reason: Failure to finalize "
        "checkpoint.");
  CHECK(f.failure(r) == R::finalize_checkpoint_failure);
  CHECK(f.callbacks.fail_job_calls == 1);
  CHECK(f.observer.total == 1);
  CHECK(f.observer.failed == 1);
  CHECK(f.observer.completed == 0);
  CHECK(f.cc().completed_checkpoints().empty());
  REQUIRE(f.gateway.aborted.size() == 1);
  CHECK(f.gateway.completed.empty());
}

// Release-1.15/-1.16/-1.17 CheckpointCoordinator.finalizeCheckpoint calls
// failureManager.handleCheckpointSuccess before addCompletedCheckpointToStoreAndSubsumeOldest, and
// a failed add only reports the stats as failed and throws: the failure manager neither logs nor
// counts it, so tolerable 0 does not fail the job. FLINK-32347 (1.18) moved the success report
// after the add and hands a failed add to the failure manager (the test above, 1.19).
TEST_CASE("CheckpointCoordinator.addCompletedCheckpointToStoreAndSubsumeOldest: a failed add "
          "bypasses the CheckpointFailureManager up to 1.17 (FLINK-32347)",
          "[conformance]") {
  for (const FlinkVersion v : kFlinkVersions) {
    INFO("flink " << to_string(v));
    auto config = default_config();
    config.version = v;
    Fixture f(config);
    f.cc().fail_next_store_additions(1);
    const auto r = f.cc().trigger_checkpoint(false);
    f.run_now();
    const auto out = f.ack(1, kTask1);
    REQUIRE(out.thrown);
    CHECK(out.thrown->reason == R::finalize_checkpoint_failure);
    CHECK(f.failure(r) == R::finalize_checkpoint_failure);
    CHECK(f.observer.failed == 1);
    CHECK(f.gateway.aborted.size() == 1);
    const bool before_1_18 = v < FlinkVersion::v1_18;
    CHECK(f.observer.failures.empty() == before_1_18);
    CHECK(f.callbacks.fail_job_calls == (before_1_18 ? 0 : 1));
  }
}

// T44: CheckpointCoordinatorTest.jobFailsIfInFlightSynchronousSavepointIsDiscarded
TEST_CASE("CheckpointCoordinatorTest.jobFailsIfInFlightSynchronousSavepointIsDiscarded",
          "[conformance]") {
  auto config = two_tasks_config();
  config.checkpointing.tolerable_failed = 100;  // failJob regardless of the counter
  Fixture f(config, {kTask1, kTask2});
  f.cc().trigger_synchronous_savepoint();
  f.run_now();
  REQUIRE(f.cc().is_pending(1));
  f.decline(1, kTask1);
  CHECK(f.callbacks.fail_job_calls == 1);
  CHECK(f.callbacks.fail_job_due_to_task_failure_calls == 0);
  f.decline(1, kTask2);
  CHECK(f.callbacks.fail_job_calls == 1);
}

// T44b: CheckpointCoordinatorTest.testTriggerCheckpointAfterStopping
TEST_CASE("CheckpointCoordinatorTest.testTriggerCheckpointAfterStopping", "[conformance]") {
  Fixture f;
  f.cc().start_checkpoint_scheduler();
  const auto r = f.cc().trigger_checkpoint(true);
  // StoppingCheckpointIDCounter: the scheduler stops right after the id is taken
  while (f.cc().next_checkpoint_id() == 1) f.sim.step();
  f.cc().stop_checkpoint_scheduler();
  f.run_now();
  CHECK(f.failure(r) == R::periodic_scheduler_shutdown);
  CHECK(f.gateway.triggered.empty());
  CHECK(f.callbacks.invoke_counter() == 0);
  // the id stays consumed: a gap
  f.cc().trigger_checkpoint(false);
  f.run_now();
  REQUIRE(f.gateway.triggered.size() == 1);
  CHECK(f.gateway.triggered[0].id == 2);
}

// T45: CheckpointCoordinatorTest.testReportLatestCompletedCheckpointIdWithAbort,
// testNotifyCheckpointAbortionInOperatorCoordinator, testCheckpointStatsUpdatedAfterFailure,
// testTasksFinishDuringTriggering
TEST_CASE("CheckpointCoordinatorTest.testReportLatestCompletedCheckpointIdWithAbort",
          "[conformance]") {
  Fixture f(two_tasks_config(), {kTask1, kTask2});
  f.cc().trigger_checkpoint(false);
  f.run_now();
  f.ack(1, kTask1);
  f.ack(1, kTask2);
  f.cc().trigger_checkpoint(false);
  f.run_now();
  f.decline(2, kTask1);
  REQUIRE(f.gateway.aborted.size() == 1);
  CHECK(f.gateway.aborted[0].id == 2);
  CHECK(f.gateway.aborted[0].latest_completed_id == 1);
}

TEST_CASE("CheckpointCoordinatorTest.testNotifyCheckpointAbortionInOperatorCoordinator",
          "[conformance]") {
  auto config = two_tasks_config();
  MasterStepSpec coordinator;
  coordinator.name = "source coordinator";
  config.master_steps.push_back(coordinator);
  Fixture f(config, {kTask1, kTask2});
  f.cc().trigger_checkpoint(false);
  f.run_now();
  f.cc().trigger_checkpoint(false);
  f.run_now();
  f.decline(1, kTask1);
  f.ack(2, kTask1);
  f.ack(2, kTask2);
  CHECK(f.cc().master_notifications() == std::vector<std::string>{"abort:1", "complete:2"});
}

TEST_CASE("CheckpointCoordinatorTest.testCheckpointStatsUpdatedAfterFailure", "[conformance]") {
  Fixture f(two_tasks_config(), {kTask1, kTask2});
  f.cc().trigger_checkpoint(false);
  f.run_now();
  f.decline(1, kTask1);
  CHECK(f.observer.failed == 1);
  // The late report of the other subtask (testReportStatsAfterFailure's metrics): no pending
  // checkpoint takes it, but reportStats hands its metrics to the stats tracker, which records
  // them in the failed checkpoint's statistics (run/recorder_test checks the REST entry).
  SubtaskAck late;
  late.task = kTask2;
  late.checkpointed_size = 18;
  late.state_size = 18;
  late.processed_bytes = 19;
  late.async_duration = core::milliseconds(20);
  late.alignment_duration = core::milliseconds(123);
  late.start_delay = core::milliseconds(567);
  const auto out = f.cc().receive_acknowledge(1, kTask2, late, TaskSnapshot{});
  f.run_now();
  CHECK(out.result == AcknowledgeResult::unknown_checkpoint);
  CHECK(f.observer.acknowledged_ids.empty());
  REQUIRE(f.observer.late_stats.size() == 1);
  CHECK(f.observer.late_stats[0].first == 1);
  const SubtaskAck& reported = f.observer.late_stats[0].second;
  CHECK(reported.task.vertex == kTask2.vertex);
  CHECK(reported.checkpointed_size == 18);
  CHECK(reported.processed_bytes == 19);
  CHECK(reported.async_duration == core::milliseconds(20));
  CHECK(reported.alignment_duration == core::milliseconds(123));
  CHECK(reported.start_delay == core::milliseconds(567));
  CHECK(f.observer.failed == 1);
  CHECK(f.observer.completed == 0);
}

TEST_CASE("CheckpointCoordinatorTest.testTasksFinishDuringTriggering", "[conformance]") {
  Fixture f(two_tasks_config(), {kTask1, kTask2});
  // the source finishes between the plan and the trigger RPC
  f.gateway.fail_trigger_rpc = CheckpointException{R::task_checkpoint_failure};
  const auto r = f.cc().trigger_checkpoint(false);
  f.run_now();
  CHECK(f.failure(r) == R::task_checkpoint_failure);
  CHECK(f.cc().number_of_pending_checkpoints() == 0);
  REQUIRE(f.gateway.aborted.size() == 1);
  CHECK(f.gateway.aborted[0].id == 1);
}

// FLINK-34519 (1.20): startCheckpointScheduler stops the scheduler first only if periodic
// checkpointing had started; before it, starting the scheduler aborted a savepoint triggered
// before the job reached RUNNING with CHECKPOINT_COORDINATOR_SUSPEND.
TEST_CASE("CheckpointCoordinator.startCheckpointScheduler: a savepoint pending before the "
          "scheduler starts survives from 1.20 (FLINK-34519), is suspended before",
          "[conformance]") {
  for (const FlinkVersion version : {FlinkVersion::v1_19, FlinkVersion::v1_20}) {
    auto config = two_tasks_config();
    config.version = version;
    Fixture f(config, {kTask1, kTask2});
    const auto r = f.cc().trigger_savepoint();
    f.run_now();
    REQUIRE(f.cc().is_pending(1));
    f.cc().start_checkpoint_scheduler();
    if (version == FlinkVersion::v1_20) {
      CHECK(f.cc().is_pending(1));
      CHECK_FALSE(f.failure(r));
    } else {
      CHECK_FALSE(f.cc().is_pending(1));
      CHECK(f.failure(r) == R::checkpoint_coordinator_suspend);
    }
  }
}

}  // namespace ckptsim::conformance
