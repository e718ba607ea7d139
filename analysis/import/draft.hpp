// `ckptsim draft`: an imported incident (a real JobManager log and REST JSON read by
// `ckptsim import`) written as a scenario file that reproduces it as far as the files allow.
// What the files do not tell is marked `# TODO` with what to measure on the real job.
#pragma once

#include <string>

#include "analysis/import/import.hpp"
#include "sim/run/result.hpp"

namespace ckptsim::analysis {

// The scenario's YAML text: the Flink version and checkpointing options (configured or measured
// from the log), the job's vertices, stand-ins on the timeline for what the files show but cannot
// explain (a stall for expired checkpoints, a task failure for a failover no checkpoint failure
// explains, savepoints), and an `expect:` block with the real checkpoint pattern, so that
// `ckptsim test` on the draft says whether it reproduces the incident. The text always loads
// without errors. Runs the drafted job briefly once, to place its first checkpoint on the
// imported one's trigger time.
std::string draft_scenario(const run::RunResult& imported, const ImportReport& report);

}  // namespace ckptsim::analysis
