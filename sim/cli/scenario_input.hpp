// Loading the scenario a command names (or the built-in default one) and reporting its errors
// and warnings the compiler's way, for every command that runs one scenario.
#pragma once

#include <string>
#include <vector>

#include "sim/cli/limits.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckptsim::cli {

// SCENARIO, or the built-in default scenario when `path` is empty; --set overrides applied.
scenario::LoadResult load(const std::string& path, const std::vector<std::string>& sets,
                          const Limits& limits);
// Prints the errors (and warnings) on stderr; returns kExitScenarioErrors.
int report_errors(const scenario::LoadResult& loaded);
// Prints the warnings, if any, on stderr.
void report_warnings(const scenario::LoadResult& loaded);
// Prints the notes (--verbose: each Flink option accepted without effect) on stderr.
void report_notes(const scenario::LoadResult& loaded);

}  // namespace ckptsim::cli
