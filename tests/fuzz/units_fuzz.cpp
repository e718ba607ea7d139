// libFuzzer target: the parsers of quantities with units (parse_duration, parse_size, parse_rate,
// parse_count), each given the whole input. Besides crashes and sanitizer reports it checks
// what scenario.hpp promises: no negative value, no NaN, no rate above 1 PB (2^50)
// per second.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  namespace s = ckptsim::scenario;
  if (const auto duration = s::parse_duration(text); duration && *duration < 0) __builtin_trap();
  if (const auto bytes = s::parse_size(text); bytes && *bytes < 0) __builtin_trap();
  if (const auto count = s::parse_count(text); count && *count < 0) __builtin_trap();
  if (const auto rate = s::parse_rate(text); rate && !(*rate >= 0 && *rate <= 0x1p50))
    __builtin_trap();
  return 0;
}
