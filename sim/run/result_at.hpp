// A finished run (or an imported real one) as it stood at an earlier instant: what Flink would
// have answered then. `ckptsim serve --replay OUT_DIR --speed X` replays a run's history over
// wall time by serving this at each instant.
#pragma once

#include "sim/run/result.hpp"

namespace ckptsim::run {

// The result cut at `t`: checkpoints triggered by t (those that ended later are IN_PROGRESS,
// with only the acknowledgements that came by t), counts of those, job status changes, failures,
// log lines, samples and connector events up to t, the failover and restart counts they imply,
// the job's status then. Counters only a whole run knows (replayed records, latency) are kept.
RunResult result_at(const RunResult& full, SimTime t);

}  // namespace ckptsim::run
