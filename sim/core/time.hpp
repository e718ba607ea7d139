// Simulated time: signed 64-bit nanoseconds since the start of a run. No Flink words here.
#pragma once

#include <cstdint>
#include <limits>

namespace ckptsim::core {

using SimTime = std::int64_t;      // an instant, ns since the run started
using Duration = std::int64_t;     // a span, ns

inline constexpr Duration kNanosecond = 1;
inline constexpr Duration kMicrosecond = 1'000;
inline constexpr Duration kMillisecond = 1'000'000;
inline constexpr Duration kSecond = 1'000'000'000;
inline constexpr Duration kMinute = 60 * kSecond;
inline constexpr Duration kHour = 60 * kMinute;
// "Never": far enough that adding any realistic duration cannot overflow.
inline constexpr SimTime kNever = std::numeric_limits<SimTime>::max() / 4;

constexpr Duration microseconds(std::int64_t us) { return us * kMicrosecond; }
constexpr Duration milliseconds(std::int64_t ms) { return ms * kMillisecond; }
constexpr Duration seconds(std::int64_t s) { return s * kSecond; }
constexpr Duration minutes(std::int64_t m) { return m * kMinute; }
// Whole milliseconds, truncated toward zero as Java's TimeUnit.NANOSECONDS.toMillis does.
constexpr std::int64_t to_millis(Duration d) { return d / kMillisecond; }
constexpr double to_seconds(Duration d) { return static_cast<double>(d) / kSecond; }

}  // namespace ckptsim::core
