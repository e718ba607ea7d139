// Restart strategies (coordinator notes 1.2, 5.1, 5.2): ports of FixedDelay-, FailureRate- and
// ExponentialDelayRestartBackoffTimeStrategyTest and RestartBackoffTimeStrategyFactoryLoaderTest,
// with the 1.17/1.18 vs 1.19+ exponential-delay variants and version defaults.
#include <catch2/catch.hpp>

#include "sim/model/restart_strategy.hpp"

namespace ckptsim::conformance {
namespace {

using namespace ckptsim::model;
using core::milliseconds;
using core::seconds;

FlinkConfig resolved(FlinkVersion v, bool checkpointing) {
  FlinkConfig c;
  c.version = v;
  if (checkpointing) c.checkpointing.interval = seconds(10);
  resolve_defaults(c, false, false);
  return c;
}
std::unique_ptr<RestartBackoffTimeStrategy> make(const FlinkConfig& c, std::uint64_t seed = 7) {
  return create_restart_strategy(c, core::RandomStream(seed, "restart"));
}

}  // namespace

// RestartBackoffTimeStrategyFactoryLoaderTest.testNoStrategySpecifiedWhenCheckpointingDisabled,
// ...WhenCheckpointingEnabled (1.17/1.18: fixed-delay(Integer.MAX_VALUE, 1 s); 1.19+:
// exponential-delay, FLINK-33738) and the FLINK-33736 exponential defaults.
TEST_CASE("RestartBackoffTimeStrategyFactoryLoaderTest.testNoStrategySpecifiedWhenCheckpointingDisabled, "
          "testNoStrategySpecifiedWhenCheckpointingEnabled (version defaults)",
          "[conformance]") {
  for (FlinkVersion v : kFlinkVersions) {
    const FlinkConfig c = resolved(v, false);
    REQUIRE(c.restart.kind == RestartStrategyKind::none);
    auto s = make(c);
    s->notify_failure(0);
    CHECK_FALSE(s->can_restart());
    CHECK(s->to_string() == "NoRestartBackoffTimeStrategy");
  }
  // 1.15 and 1.16 too: RestartBackoffTimeStrategyFactoryLoader and RestartStrategyOptions are
  // identical on release-1.15, -1.16 and -1.17.
  for (FlinkVersion v : {FlinkVersion::v1_15, FlinkVersion::v1_16, FlinkVersion::v1_17,
                         FlinkVersion::v1_18}) {
    INFO("flink " << to_string(v));
    const FlinkConfig c = resolved(v, true);
    CHECK(c.restart.kind == RestartStrategyKind::fixed_delay);
    CHECK(make(c)->to_string() ==
          "FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=2147483647, "
          "backoffTimeMS=1000)");
    CHECK(c.restart.exp_max_backoff == core::minutes(5));
    CHECK(c.restart.exp_multiplier == 2.0);
  }
  for (FlinkVersion v :
       {FlinkVersion::v1_19, FlinkVersion::v1_20, FlinkVersion::v2_0, FlinkVersion::v2_1}) {
    INFO("flink " << to_string(v));
    const FlinkConfig c = resolved(v, true);
    CHECK(c.restart.kind == RestartStrategyKind::exponential_delay);
    CHECK(c.restart.exp_max_backoff == core::minutes(1));
    CHECK(c.restart.exp_multiplier == 1.5);
    CHECK(make(c)->to_string() ==
          "ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS=1000, maxBackoffMS=60000, "
          "backoffMultiplier=1.5, resetBackoffThresholdMS=3600000, jitterFactor=0.1, "
          "attemptsBeforeResetBackoff=2147483647, currentRestartAttempt=0, "
          "nextRestartTimestamp=-2147483648)");
  }
}

// FixedDelayRestartBackoffTimeStrategyTest.testNumberOfRestarts, testBackoffTime
TEST_CASE("FixedDelayRestartBackoffTimeStrategyTest.testNumberOfRestarts, testBackoffTime",
          "[conformance]") {
  FlinkConfig c;
  c.restart.kind = RestartStrategyKind::fixed_delay;
  c.restart.fixed_delay_attempts = 3;
  c.restart.fixed_delay = milliseconds(1234);
  auto s = make(c);
  for (int i = 0; i < 3; ++i) {
    CHECK(s->notify_failure(0));
    CHECK(s->can_restart());
    CHECK(s->backoff_time() == milliseconds(1234));
  }
  s->notify_failure(0);
  CHECK_FALSE(s->can_restart());
  CHECK(s->to_string() ==
        "FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=3, backoffTimeMS=1234)");
}

// FailureRateRestartBackoffTimeStrategyTest.testManyFailuresWithinRate, testFailuresExceedingRate,
// testBackoffTime
TEST_CASE("FailureRateRestartBackoffTimeStrategyTest.testManyFailuresWithinRate, "
          "testFailuresExceedingRate, testBackoffTime",
          "[conformance]") {
  {
    FlinkConfig c;
    c.restart.kind = RestartStrategyKind::failure_rate;
    c.restart.failure_rate_max_failures = 1;
    c.restart.failure_rate_interval = milliseconds(1);
    c.restart.failure_rate_delay = 0;
    auto s = make(c);
    SimTime now = 0;
    for (int i = 0; i < 3; ++i) {
      s->notify_failure(now);
      CHECK(s->can_restart());
      now += milliseconds(2);
    }
  }
  {
    FlinkConfig c;
    c.restart.kind = RestartStrategyKind::failure_rate;
    c.restart.failure_rate_max_failures = 3;
    c.restart.failure_rate_interval = seconds(10);
    c.restart.failure_rate_delay = milliseconds(10000);
    auto s = make(c);
    for (int i = 0; i < 3; ++i) {
      s->notify_failure(0);
      CHECK(s->can_restart());
      CHECK(s->backoff_time() == seconds(10));
    }
    s->notify_failure(0);
    CHECK_FALSE(s->can_restart());
    CHECK(s->to_string() ==
          "FailureRateRestartBackoffTimeStrategy(FailureRateRestartBackoffTimeStrategy("
          "failuresIntervalMS=10000,backoffTimeMS=10000,maxFailuresPerInterval=3)");
  }
}

// ExponentialDelayRestartBackoffTimeStrategyTest (1.19+): testMaxAttempts, testNotCallNotifyFailure
// merging, testMultipleSettings (growth and cap), testResetBackoff, testJitter bounds.
TEST_CASE("ExponentialDelayRestartBackoffTimeStrategyTest (1.19+): merging, growth, cap, reset, "
          "attempts",
          "[conformance]") {
  FlinkConfig c = resolved(FlinkVersion::v1_19, true);
  c.restart.exp_jitter = 0;
  c.restart.exp_initial_backoff = seconds(1);
  c.restart.exp_max_backoff = seconds(5);
  c.restart.exp_multiplier = 2.0;
  c.restart.exp_reset_threshold = seconds(100);
  c.restart.exp_attempts_before_reset = 4;
  auto s = make(c);
  SimTime now = 0;
  std::vector<Duration> backoffs;
  for (int i = 0; i < 4; ++i) {
    CHECK(s->notify_failure(now));
    CHECK(s->can_restart());
    backoffs.push_back(s->backoff_time());
    // a second failure before the scheduled restart is merged into the same attempt
    CHECK_FALSE(s->notify_failure(now + milliseconds(10)));
    CHECK(s->backoff_time() == backoffs.back() - milliseconds(10));
    now += backoffs.back() + milliseconds(1);
  }
  CHECK(backoffs == std::vector<Duration>{seconds(1), seconds(2), seconds(4), seconds(5)});
  CHECK(s->notify_failure(now));
  CHECK_FALSE(s->can_restart());  // attempt 5 > attempts-before-reset 4
  // the attempt count resets once now - nextRestart >= threshold
  now += s->backoff_time() + seconds(100);
  CHECK(s->notify_failure(now));
  CHECK(s->can_restart());
  CHECK(s->backoff_time() == seconds(1));

  // jitter: within +-10 % of the un-jittered value, never below initial nor above max
  FlinkConfig j = resolved(FlinkVersion::v1_19, true);
  for (std::uint64_t seed = 1; seed < 40; ++seed) {
    auto js = make(j, seed);
    SimTime t = 0;
    for (int i = 0; i < 15; ++i) {
      js->notify_failure(t);
      const double base = std::min(1000.0 * std::pow(1.5, i), 60000.0);
      const double b = static_cast<double>(core::to_millis(js->backoff_time()));
      CHECK(b >= std::max(1000.0, std::floor(base * 0.9) - 1));
      CHECK(b <= std::min(60000.0, std::ceil(base * 1.1) + 1));
      t += js->backoff_time() + 1;
    }
  }
}

// ExponentialDelayRestartBackoffTimeStrategyTest as of 1.17/1.18 (flip1): always restartable,
// no merging, growth per failure, reset after threshold + current backoff, fixed toString.
TEST_CASE("ExponentialDelayRestartBackoffTimeStrategyTest (1.17/1.18): growth, reset, "
          "always restartable",
          "[conformance]") {
  FlinkConfig c = resolved(FlinkVersion::v1_17, true);
  c.restart.kind = RestartStrategyKind::exponential_delay;
  c.restart.exp_jitter = 0;
  c.restart.exp_reset_threshold = seconds(100);
  auto s = make(c);
  const std::string description = s->to_string();
  CHECK(description ==
        "ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS=1000, maxBackoffMS=300000, "
        "backoffMultiplier=2.0, resetBackoffThresholdMS=100000, jitterFactor=0.0, "
        "currentBackoffMS=1000, lastFailureTimestamp=0)");
  std::vector<std::int64_t> backoffs;
  SimTime now = 0;
  for (int i = 0; i < 11; ++i) {
    CHECK(s->notify_failure(now));  // every failure is a new attempt
    CHECK(s->can_restart());
    backoffs.push_back(core::to_millis(s->backoff_time()));
    now += milliseconds(10);  // failures close together: no reset
  }
  CHECK(backoffs == std::vector<std::int64_t>{1000, 2000, 4000, 8000, 16000, 32000, 64000,
                                              128000, 256000, 300000, 300000});
  // reset when now - lastFailure >= threshold + currentBackoff
  now += seconds(100) + seconds(300);
  s->notify_failure(now);
  CHECK(s->backoff_time() == seconds(1));
  CHECK(s->to_string() == description);  // generated once in the constructor
}

}  // namespace ckptsim::conformance

namespace ckptsim::conformance {

// Issue 14 item 8: FailureRateRestartBackoffTimeStrategy.canRestart is
// `now - earliestFailure > failuresIntervalMS`: max+1 failures exactly one interval apart are
// still within the rate (refused), one millisecond more is outside it. Fails on '>='.
TEST_CASE("FailureRateRestartBackoffTimeStrategy: the interval's boundary is exclusive",
          "[conformance]") {
  FlinkConfig c;
  c.restart.kind = RestartStrategyKind::failure_rate;
  c.restart.failure_rate_max_failures = 2;
  c.restart.failure_rate_interval = seconds(10);
  c.restart.failure_rate_delay = 0;
  auto at_boundary = make(c);
  for (const SimTime t : {SimTime{0}, milliseconds(5000), milliseconds(10000)})
    at_boundary->notify_failure(t);
  CHECK_FALSE(at_boundary->can_restart());
  auto past_boundary = make(c);
  for (const SimTime t : {SimTime{0}, milliseconds(5000), milliseconds(10001)})
    past_boundary->notify_failure(t);
  CHECK(past_boundary->can_restart());
}

}  // namespace ckptsim::conformance

namespace ckptsim::conformance {

// flip1/ExponentialDelayRestartBackoffTimeStrategy is byte-identical on release-1.15, -1.16 and
// -1.17: 1.15 and 1.16 take the legacy strategy; 2.1 keeps 2.0's (identical on release-2.0 and
// release-2.1.2-rc2).
TEST_CASE("ExponentialDelayRestartBackoffTimeStrategy: legacy in 1.15/1.16, 2.0's in 2.1",
          "[conformance]") {
  for (const FlinkVersion v : kFlinkVersions) {
    INFO("flink " << to_string(v));
    FlinkConfig c = resolved(v, true);
    c.restart.kind = RestartStrategyKind::exponential_delay;
    const std::string description = make(c)->to_string();
    const bool legacy = description.find("currentBackoffMS=") != std::string::npos;
    CHECK(legacy == (v < FlinkVersion::v1_19));
  }
}

}  // namespace ckptsim::conformance
