// The story `ckptsim run` prints: one row per checkpoint and one per job status change, in time
// order, fitting a 100-column terminal; then the totals. Reads only the plain RunResult.
#pragma once

#include <string>

#include "sim/run/result.hpp"

namespace ckptsim::analysis {

std::string format_story(const run::RunResult& result);

// "1 h 2 min 3.004 s"-style short durations for humans: "850 ms", "12.3 s", "10 min 0 s".
std::string human_duration(core::Duration d);

}  // namespace ckptsim::analysis
