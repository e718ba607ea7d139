// Restart strategies as in flink-runtime .../executiongraph/failover/*RestartBackoffTimeStrategy.
#include "sim/model/restart_strategy.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace ckptsim::model {
namespace {

std::int64_t ms(Duration d) { return core::to_millis(d); }

class NoRestart final : public RestartBackoffTimeStrategy {
 public:
  bool notify_failure(SimTime) override { return true; }
  bool can_restart() const override { return false; }
  Duration backoff_time() const override { return 0; }
  std::string to_string() const override { return "NoRestartBackoffTimeStrategy"; }
};

// FixedDelayRestartBackoffTimeStrategy: attempt++ per failure; canRestart = attempt <= max.
class FixedDelay final : public RestartBackoffTimeStrategy {
 public:
  FixedDelay(int max_attempts, Duration delay) : max_(max_attempts), delay_(delay) {}
  bool notify_failure(SimTime) override {
    ++attempt_;
    return true;
  }
  bool can_restart() const override { return attempt_ <= max_; }
  Duration backoff_time() const override { return delay_; }
  std::string to_string() const override {
    return "FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=" +
           std::to_string(max_) + ", backoffTimeMS=" + std::to_string(ms(delay_)) + ")";
  }

 private:
  int max_;
  Duration delay_;
  long long attempt_ = 0;
};

// FailureRateRestartBackoffTimeStrategy (1.17+): keeps the last max+1 failure timestamps and
// refuses once more than max failures fall within the interval (notifyFailure is called before
// canRestart, so max failures within the interval are still restarted).
class FailureRate final : public RestartBackoffTimeStrategy {
 public:
  FailureRate(int max_failures, Duration interval, Duration delay)
      : max_(max_failures), interval_(interval), delay_(delay) {}
  bool notify_failure(SimTime now) override {
    if (full()) timestamps_.pop_front();
    timestamps_.push_back(now);
    last_ = now;
    return true;
  }
  bool can_restart() const override {
    if (full()) return ms(last_ - timestamps_.front()) > ms(interval_);
    return true;
  }
  Duration backoff_time() const override { return delay_; }
  std::string to_string() const override {
    // sic: Flink prints the class name twice and one closing parenthesis.
    return "FailureRateRestartBackoffTimeStrategy(FailureRateRestartBackoffTimeStrategy("
           "failuresIntervalMS=" +
           std::to_string(ms(interval_)) + ",backoffTimeMS=" + std::to_string(ms(delay_)) +
           ",maxFailuresPerInterval=" + std::to_string(max_) + ")";
  }

 private:
  bool full() const { return static_cast<int>(timestamps_.size()) > max_; }
  int max_;
  Duration interval_;
  Duration delay_;
  std::deque<SimTime> timestamps_;
  SimTime last_ = 0;
};

// Java's Double.toString for the option values Flink prints (1.5 -> "1.5", 2.0 -> "2.0").
std::string java_double(double v) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string out(buf, res.ptr);
  if (out.find_first_of(".eE") == std::string::npos) out += ".0";
  return out;
}

// calculateJitterBackoffMS: offset = (long) (backoff * jitterFactor), uniform in [-offset, offset].
std::int64_t jitter_ms(std::int64_t backoff_ms, double jitter_factor, core::RandomStream& rng) {
  if (jitter_factor == 0) return 0;
  const auto offset = static_cast<std::int64_t>(static_cast<double>(backoff_ms) * jitter_factor);
  return rng.uniform_int(-offset, offset);
}

// 1.15-1.18 (flip1.ExponentialDelayRestartBackoffTimeStrategy): always restartable. The first
// failure, and any failure at least threshold + currentBackoff after the previous one, resets the
// backoff to the initial value; otherwise it grows by the multiplier (truncated to whole ms) up
// to the maximum. getBackoffTime adds the jitter and caps at the maximum (no lower bound), and
// toString is fixed at construction.
class ExponentialDelayLegacy final : public RestartBackoffTimeStrategy {
 public:
  ExponentialDelayLegacy(const RestartConfig& c, core::RandomStream rng)
      : c_(c), rng_(rng), current_ms_(ms(c.exp_initial_backoff)) {
    description_ = "ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS=" +
                   std::to_string(ms(c_.exp_initial_backoff)) +
                   ", maxBackoffMS=" + std::to_string(ms(c_.exp_max_backoff)) +
                   ", backoffMultiplier=" + java_double(c_.exp_multiplier) +
                   ", resetBackoffThresholdMS=" + std::to_string(ms(c_.exp_reset_threshold)) +
                   ", jitterFactor=" + java_double(c_.exp_jitter) +
                   ", currentBackoffMS=" + std::to_string(current_ms_) +
                   ", lastFailureTimestamp=0)";
  }
  bool notify_failure(SimTime now) override {
    const std::int64_t initial = ms(c_.exp_initial_backoff);
    const std::int64_t max = ms(c_.exp_max_backoff);
    // lastFailureTimestamp starts at 0 (the epoch), so the first failure always resets.
    if (!has_failed_ || ms(now - last_failure_) >= ms(c_.exp_reset_threshold) + current_ms_) {
      current_ms_ = initial;
    } else {
      if (current_ms_ < max)
        current_ms_ = static_cast<std::int64_t>(static_cast<double>(current_ms_) * c_.exp_multiplier);
      current_ms_ = std::max(initial, std::min(current_ms_, max));
    }
    has_failed_ = true;
    last_failure_ = now;
    backoff_ms_ = std::min(current_ms_ + jitter_ms(current_ms_, c_.exp_jitter, rng_), max);
    return true;
  }
  bool can_restart() const override { return true; }
  Duration backoff_time() const override { return backoff_ms_ * core::kMillisecond; }
  std::string to_string() const override { return description_; }

 private:
  RestartConfig c_;
  core::RandomStream rng_;
  std::int64_t current_ms_;
  bool has_failed_ = false;
  SimTime last_failure_ = 0;
  std::int64_t backoff_ms_ = 0;
  std::string description_;
};

// 1.19+ (FLINK-32895): failures up to the scheduled restart are merged into one attempt; the
// attempt count resets when now - nextRestart >= threshold; backoff =
// max(initial, min((long) (initial * mult^attempt) + jitter, max)); getBackoffTime is the time
// left until nextRestartTimestamp.
class ExponentialDelay final : public RestartBackoffTimeStrategy {
 public:
  ExponentialDelay(const RestartConfig& c, core::RandomStream rng) : c_(c), rng_(rng) {}
  bool notify_failure(SimTime now) override {
    if (has_restart_ && now <= next_restart_) {
      backoff_ = next_restart_ - now;
      return false;
    }
    if (has_restart_ && now - next_restart_ >= c_.exp_reset_threshold) attempt_ = 0;
    const std::int64_t initial = ms(c_.exp_initial_backoff);
    const auto current = static_cast<std::int64_t>(
        static_cast<double>(initial) * std::pow(c_.exp_multiplier, static_cast<double>(attempt_)));
    const std::int64_t actual = std::max(
        initial, std::min(current + jitter_ms(current, c_.exp_jitter, rng_), ms(c_.exp_max_backoff)));
    backoff_ = actual * core::kMillisecond;
    next_restart_ = now + backoff_;
    has_restart_ = true;
    ++attempt_;
    return true;
  }
  bool can_restart() const override { return attempt_ <= c_.exp_attempts_before_reset; }
  Duration backoff_time() const override { return backoff_; }
  std::string to_string() const override {
    // nextRestartTimestamp: Integer.MIN_VALUE until the first failure; afterwards printed in
    // simulated ms (Flink prints epoch ms; the strategy does not know the scenario's epoch).
    return "ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS=" +
           std::to_string(ms(c_.exp_initial_backoff)) +
           ", maxBackoffMS=" + std::to_string(ms(c_.exp_max_backoff)) +
           ", backoffMultiplier=" + java_double(c_.exp_multiplier) +
           ", resetBackoffThresholdMS=" + std::to_string(ms(c_.exp_reset_threshold)) +
           ", jitterFactor=" + java_double(c_.exp_jitter) +
           ", attemptsBeforeResetBackoff=" + std::to_string(c_.exp_attempts_before_reset) +
           ", currentRestartAttempt=" + std::to_string(attempt_) +
           ", nextRestartTimestamp=" +
           std::to_string(has_restart_ ? ms(next_restart_) : -2147483648LL) + ")";
  }

 private:
  RestartConfig c_;
  core::RandomStream rng_;
  long long attempt_ = 0;
  bool has_restart_ = false;
  SimTime next_restart_ = 0;
  Duration backoff_ = 0;
};

}  // namespace

std::unique_ptr<RestartBackoffTimeStrategy> create_restart_strategy(const FlinkConfig& config,
                                                                    core::RandomStream rng) {
  const RestartConfig& r = config.restart;
  switch (r.kind.value_or(RestartStrategyKind::none)) {
    case RestartStrategyKind::none: return std::make_unique<NoRestart>();
    case RestartStrategyKind::fixed_delay:
      return std::make_unique<FixedDelay>(r.fixed_delay_attempts, r.fixed_delay);
    case RestartStrategyKind::failure_rate:
      return std::make_unique<FailureRate>(r.failure_rate_max_failures, r.failure_rate_interval,
                                           r.failure_rate_delay);
    case RestartStrategyKind::exponential_delay:
      // flip1/ExponentialDelayRestartBackoffTimeStrategy is byte-identical on release-1.15,
      // -1.16 and -1.17; 1.19 rewrote it (FLINK-32895), 2.1 keeps 2.0's.
      if (config.version < FlinkVersion::v1_19)
        return std::make_unique<ExponentialDelayLegacy>(r, rng);
      return std::make_unique<ExponentialDelay>(r, rng);
  }
  return std::make_unique<NoRestart>();
}

}  // namespace ckptsim::model
