// The memory estimate of a run from its job graph and duration (footprint.hpp).
#include "sim/run/footprint.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <limits>
#include <unordered_map>

namespace ckptsim::run {
namespace {

constexpr std::int64_t kBytesPerChannel = 1024;   // 430-550 measured, with headroom
constexpr std::int64_t kBytesPerSubtask = 16384;  // the subtask record, its gates and stats
constexpr std::int64_t kBytesPerSample = 128;     // one time-series row of one subtask
constexpr std::int64_t kBaseBytes = 64 << 20;     // the program, the log, the REST history

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// a * b, saturating: a hostile scenario must not overflow the estimate back into range.
std::int64_t times(std::int64_t a, std::int64_t b) {
  if (a != 0 && b > kMax / a) return kMax;
  return a * b;
}

std::int64_t plus(std::int64_t a, std::int64_t b) { return b > kMax - a ? kMax : a + b; }

}  // namespace

Footprint estimate_footprint(const model::Scenario& scenario) {
  Footprint f;
  std::unordered_map<std::string, std::int64_t> parallelism;
  for (const model::VertexSpec& v : scenario.job.vertices) {
    parallelism[v.name] = v.parallelism;
    f.subtasks = plus(f.subtasks, v.parallelism);
    if (!v.input) continue;
    const auto up = parallelism.find(*v.input);
    if (up == parallelism.end()) continue;
    const std::int64_t producers = up->second;
    const std::int64_t consumers = v.parallelism;
    using S = model::ShipStrategy;
    switch (v.ship) {
      case S::forward:
        f.channels = plus(f.channels, consumers);
        break;
      case S::rescale:
        f.channels = plus(f.channels, std::max(producers, consumers));
        break;
      case S::rebalance:
      case S::hash:
      case S::broadcast:
        f.channels = plus(f.channels, times(producers, consumers));
        break;
    }
  }
  if (scenario.sample_period > 0)
    f.samples = times(f.subtasks, scenario.duration / scenario.sample_period + 1);
  f.bytes = plus(kBaseBytes, plus(times(f.channels, kBytesPerChannel),
                                  plus(times(f.subtasks, kBytesPerSubtask),
                                       times(f.samples, kBytesPerSample))));
  return f;
}

std::string format_bytes(std::int64_t bytes) {
  static const char* const kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, kUnits[unit]);
  return text;
}

}  // namespace ckptsim::run
