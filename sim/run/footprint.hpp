// A run's memory, estimated from the scenario's shape before it runs (issue 18 item 3), so that
// a job that cannot fit is refused with a message instead of ending in std::bad_alloc.
#pragma once

#include <cstdint>
#include <string>

#include "sim/model/config.hpp"

namespace ckptsim::run {

struct Footprint {
  std::int64_t subtasks = 0;
  std::int64_t channels = 0;  // input channels, one per (producer, consumer) subtask pair
  std::int64_t samples = 0;   // time-series rows, one per subtask and sample period
  std::int64_t bytes = 0;     // the estimate
};

// Upper-bound-ish: every edge counted as a network edge (chaining only saves), each channel at
// the size measured at parallelism 256 all-to-all with its queued buffers (bench/README.md,
// BM_Memory: about 730 bytes), each time-series row as stored.
Footprint estimate_footprint(const model::Scenario& scenario);

// "1.5 GiB", "300 MiB": for messages.
std::string format_bytes(std::int64_t bytes);

}  // namespace ckptsim::run
