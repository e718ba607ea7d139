// Numbers read from real files, which may hold anything: integers that saturate instead of
// throwing, and times clamped to what SimTime (int64 nanoseconds) holds.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string_view>

#include "sim/core/time.hpp"

namespace ckptsim::analysis {

// The decimal integer `text` (digits only), saturated at int64's maximum; 0 if not a number.
inline std::int64_t read_integer(std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) return std::numeric_limits<std::int64_t>::max();
  return ec == std::errc() ? v : 0;
}

// Milliseconds as a simulated duration, clamped to +-100 years.
inline core::SimTime sim_ms(std::int64_t ms) {
  constexpr std::int64_t kMax = 100LL * 365 * 24 * 3600 * 1000;
  return core::milliseconds(std::clamp(ms, -kMax, kMax));
}

// a - b without overflow (saturated).
inline std::int64_t difference(std::int64_t a, std::int64_t b) {
  std::int64_t d = 0;
  if (__builtin_sub_overflow(a, b, &d))
    return a > b ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  return d;
}

}  // namespace ckptsim::analysis
