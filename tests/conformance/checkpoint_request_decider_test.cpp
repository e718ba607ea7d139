// Ports of flink-runtime CheckpointRequestDeciderTest (coordinator notes 8.2, rules 2.4): the
// decider alone, with a fake context standing in for the coordinator's suppliers and clock.
#include <catch2/catch.hpp>

#include "tests/conformance/fixture.hpp"

#include <map>

namespace ckptsim::conformance {
namespace {

using R = CheckpointFailureReason;

struct FakeContext final : CheckpointRequestDecider::Context {
  SimTime clock = core::kHour * 24;  // ManualClock advanced by one day
  int pending = 0;
  int cleaning = 0;
  std::vector<Duration> rescheduled;
  std::map<std::uint64_t, R> dropped;  // the requests' futures completed exceptionally

  SimTime now() const override { return clock; }
  int pending_checkpoints() const override { return pending; }
  int checkpoints_being_cleaned() const override { return cleaning; }
  void reschedule_trigger(Duration delay) override { rescheduled.push_back(delay); }
  void request_dropped(const CheckpointTriggerRequest& r, R reason) override {
    dropped[r.request_id] = reason;
  }
  void request_time_in_queue(Duration) override {}
};

std::uint64_t next_request_id = 1;
CheckpointTriggerRequest make(CheckpointProperties props, bool periodic, SimTime ts) {
  CheckpointTriggerRequest r;
  r.request_id = next_request_id++;
  r.timestamp = ts;
  r.props = props;
  r.periodic = periodic;
  return r;
}
// CheckpointRequestDeciderTest's request factories
CheckpointTriggerRequest regular_checkpoint(SimTime ts = 0) {
  return make(CheckpointProperties::checkpoint(), true, ts);
}
CheckpointTriggerRequest manual_checkpoint(SimTime ts = 0) {
  return make(CheckpointProperties::checkpoint(), false, ts);
}
CheckpointTriggerRequest savepoint_request(bool force, bool periodic, SimTime ts = 0) {
  CheckpointProperties p = CheckpointProperties::savepoint(!force);
  REQUIRE(p.forced == force);
  return make(p, periodic, ts);
}
CheckpointTriggerRequest regular_savepoint() { return savepoint_request(true, false); }
CheckpointTriggerRequest periodic_savepoint() { return savepoint_request(true, true); }
CheckpointTriggerRequest non_forced_periodic_savepoint() { return savepoint_request(false, true); }
CheckpointTriggerRequest non_forced_savepoint() { return savepoint_request(false, false); }

bool same(const std::optional<CheckpointTriggerRequest>& chosen, const CheckpointTriggerRequest& r) {
  return chosen && chosen->request_id == r.request_id;
}

// testRequestsOrdering: queue everything while triggering, then dequeue in the expected order.
void check_ordering(const std::vector<CheckpointTriggerRequest>& requests,
                    const std::vector<CheckpointTriggerRequest>& expected_order) {
  FakeContext ctx;
  CheckpointRequestDecider decider(1, 1, 10, ctx);
  for (const auto& r : requests) CHECK_FALSE(decider.choose_request_to_execute(r, true, 123));
  for (const auto& r : expected_order)
    CHECK(same(decider.choose_queued_request_to_execute(false, 123), r));
}

}  // namespace

// T6: CheckpointRequestDeciderTest.testForce
TEST_CASE("CheckpointRequestDeciderTest.testForce", "[conformance]") {
  FakeContext ctx;
  ctx.pending = 1;
  CheckpointRequestDecider decider(1, 2147483647 * core::kMillisecond, 1, ctx);
  const auto request = periodic_savepoint();
  CHECK(same(decider.choose_request_to_execute(request, false, 123), request));
}

// T7: CheckpointRequestDeciderTest.testEnqueueOnTooManyPending
TEST_CASE("CheckpointRequestDeciderTest.testEnqueueOnTooManyPending", "[conformance]") {
  FakeContext ctx;
  ctx.pending = 1;
  CheckpointRequestDecider decider(1, core::kMillisecond, 2147483647, ctx);
  const auto request = regular_checkpoint();
  CHECK_FALSE(decider.choose_request_to_execute(request, false, 0));
  CHECK(ctx.dropped.empty());  // queued, not failed
  CHECK(decider.queued() == 1);
  ctx.pending = 0;
  CHECK(same(decider.choose_queued_request_to_execute(false, 0), request));
}

// T8: CheckpointRequestDeciderTest.testNonForcedEnqueueOnTooManyPending
TEST_CASE("CheckpointRequestDeciderTest.testNonForcedEnqueueOnTooManyPending", "[conformance]") {
  FakeContext ctx;
  ctx.pending = 1;
  CheckpointRequestDecider decider(1, core::kMillisecond, 2147483647, ctx);
  const auto request = non_forced_savepoint();
  CHECK_FALSE(decider.choose_request_to_execute(request, false, 0));
  CHECK(ctx.dropped.empty());
  ctx.pending = 0;
  CHECK(same(decider.choose_queued_request_to_execute(false, 0), request));
}

// T9: CheckpointRequestDeciderTest.testEnqueueOnTooManyCleaning
TEST_CASE("CheckpointRequestDeciderTest.testEnqueueOnTooManyCleaning", "[conformance]") {
  FakeContext ctx;
  const int max_concurrent = 10;
  ctx.cleaning = max_concurrent + 1;  // the "too many cleaning" threshold is max concurrent
  CheckpointRequestDecider decider(max_concurrent, core::kMillisecond, 10, ctx);
  const auto request = regular_checkpoint();
  CHECK_FALSE(decider.choose_request_to_execute(request, false, 0));
  --ctx.cleaning;  // a checkpoint has been cleaned
  CHECK(same(decider.choose_queued_request_to_execute(false, 0), request));
}

// T10: CheckpointRequestDeciderTest.testUserSubmittedPrioritized and
// testNonForcedUserSubmittedPrioritized
TEST_CASE("CheckpointRequestDeciderTest.testUserSubmittedPrioritized, "
          "testNonForcedUserSubmittedPrioritized",
          "[conformance]") {
  {
    const auto user_submitted = regular_savepoint();
    const auto periodic = periodic_savepoint();
    check_ordering({periodic, user_submitted}, {user_submitted, periodic});
  }
  {
    const auto user_submitted = non_forced_savepoint();
    const auto periodic = non_forced_periodic_savepoint();
    check_ordering({periodic, user_submitted}, {user_submitted, periodic});
  }
}

// T11: CheckpointRequestDeciderTest.testSavepointPrioritized and
// testNonForcedSavepointPrioritized
TEST_CASE("CheckpointRequestDeciderTest.testSavepointPrioritized, "
          "testNonForcedSavepointPrioritized",
          "[conformance]") {
  {
    const auto savepoint = regular_savepoint();
    const auto checkpoint = regular_checkpoint();
    check_ordering({checkpoint, savepoint}, {savepoint, checkpoint});
  }
  {
    const auto savepoint = non_forced_savepoint();
    const auto checkpoint = regular_checkpoint();
    check_ordering({checkpoint, savepoint}, {savepoint, checkpoint});
  }
  // and among equals, the older request first (compare: timestamp)
  const auto older = manual_checkpoint(5);
  const auto newer = manual_checkpoint(9);
  check_ordering({newer, older}, {older, newer});
}

// Issue 14 item 8: CheckpointRequestDecider's comparator checks isForce before isPeriodic, so a
// forced periodic request goes before a non-forced user-submitted one (the tests above never
// pit the two criteria against each other: swapping them went unnoticed).
TEST_CASE("CheckpointRequestDecider comparator: forced before user-submitted", "[conformance]") {
  const auto forced_periodic = periodic_savepoint();
  const auto user_not_forced = non_forced_savepoint();
  check_ordering({user_not_forced, forced_periodic}, {forced_periodic, user_not_forced});
}

// T12: CheckpointRequestDeciderTest.testQueueSizeLimit
TEST_CASE("CheckpointRequestDeciderTest.testQueueSizeLimit", "[conformance]") {
  FakeContext ctx;
  const int max_queued = 10;
  CheckpointRequestDecider decider(1, core::kMillisecond, max_queued, ctx);
  int num_added = 0;
  for (int i = 0; i <= max_queued; ++i) {
    CHECK_FALSE(decider.choose_request_to_execute(regular_checkpoint(), true, 0));
    for (const auto& [id, reason] : ctx.dropped) CHECK(reason == R::too_many_checkpoint_requests);
    CHECK(static_cast<int>(ctx.dropped.size()) == std::max(++num_added - max_queued, 0));
  }
  CHECK(decider.queued() == static_cast<std::size_t>(max_queued));
}

// T13: CheckpointRequestDeciderTest.testQueueSizeLimitPriority
TEST_CASE("CheckpointRequestDeciderTest.testQueueSizeLimitPriority", "[conformance]") {
  FakeContext ctx;
  CheckpointRequestDecider decider(1, core::kMillisecond, 1, ctx);
  const auto checkpoint = regular_checkpoint();
  const auto savepoint = regular_savepoint();
  decider.choose_request_to_execute(checkpoint, true, 0);
  decider.choose_request_to_execute(savepoint, true, 0);
  REQUIRE(ctx.dropped.count(checkpoint.request_id) == 1);
  CHECK(ctx.dropped[checkpoint.request_id] == R::too_many_checkpoint_requests);
  CHECK(ctx.dropped.count(savepoint.request_id) == 0);
  // and with only user-submitted requests queued, the new one is rejected
  const auto manual = manual_checkpoint();
  decider.choose_request_to_execute(manual, true, 0);
  CHECK(ctx.dropped.count(manual.request_id) == 1);
  CHECK(ctx.dropped.count(savepoint.request_id) == 0);
}

namespace {
enum class Expect { immediately, dropped };
// testTiming: minPause 10 ms and the last completion just now.
void check_timing(const CheckpointTriggerRequest& request, Expect expectation) {
  FakeContext ctx;
  const Duration pause = core::milliseconds(10);
  CheckpointRequestDecider decider(1, pause, 2147483647, ctx);
  const SimTime last_completion = ctx.clock;
  if (expectation == Expect::immediately) {
    CHECK(same(decider.choose_request_to_execute(request, false, last_completion), request));
    CHECK(ctx.dropped.empty());
  } else {
    CHECK_FALSE(decider.choose_request_to_execute(request, false, last_completion));
    REQUIRE(ctx.dropped.count(request.request_id) == 1);
    CHECK(ctx.dropped[request.request_id] == R::minimum_time_between_checkpoints);
    // rescheduleTrigger with the rest of the pause
    CHECK(ctx.rescheduled == std::vector<Duration>{pause});
    CHECK(decider.queued() == 0);
  }
}
}  // namespace

// T14: CheckpointRequestDeciderTest.testSavepointTiming
TEST_CASE("CheckpointRequestDeciderTest.testSavepointTiming", "[conformance]") {
  check_timing(regular_savepoint(), Expect::immediately);
  check_timing(periodic_savepoint(), Expect::immediately);
  check_timing(non_forced_savepoint(), Expect::immediately);
}

// T15 and T15b: CheckpointRequestDeciderTest.testCheckpointTiming
TEST_CASE("CheckpointRequestDeciderTest.testCheckpointTiming", "[conformance]") {
  check_timing(regular_checkpoint(), Expect::dropped);     // T15: periodic
  check_timing(manual_checkpoint(), Expect::immediately);  // T15b: manual
}

}  // namespace ckptsim::conformance
