// `ckptsim compare --real FILE... SIM`: a real incident's files (as `ckptsim import` reads them)
// against its simulation, a scenario run here or a run's output directory; the comparison
// itself is analysis/import/real_compare.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/cli/limits.hpp"

namespace ckptsim::cli {

struct CompareRealOptions {
  std::vector<std::string> real_files;
  std::string simulated;  // a scenario file, or the --out directory of `ckptsim run`
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;  // a scenario's; default: the scenario's own
  std::string out;                    // real-vs-sim.{txt,md,csv} and real-vs-sim-failovers.csv
  Limits limits;
};

// Prints the side-by-side table and the verdict; returns kExitOk when they agree, kExitFailed
// when they diverge, another code of limits.hpp when a side cannot be read or run.
int compare_real(const CompareRealOptions& options);

}  // namespace ckptsim::cli
