// What every command that loads or runs scenarios bounds (issue 18 items 2-3): the size of a
// scenario file and a run's estimated memory, with the command-line options that raise them,
// and the exit codes all commands share.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "sim/model/config.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckptsim::cli {

// The one table of exit codes (README "Exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,           // a usage error, or a file that cannot be read or written
  kExitScenarioErrors = 2,  // a scenario has errors (or warnings, with validate --strict)
  kExitFailed = 3,          // expectations failed (test), points failed (sweep, compare),
                            // real and simulated checkpoints diverge (compare --real)
  kExitTooBig = 4,          // a run would not fit in --max-memory, or memory ran out
};

struct Limits {
  static constexpr std::int64_t kDefaultMaxMemory = std::int64_t{8} << 30;
  scenario::LoadLimits load;
  std::int64_t max_memory = kDefaultMaxMemory;
};

// A seed: a whole number from 0 to 2^64-1 (CLI11 would turn -1 into 2^64-1 silently).
extern const CLI::Validator kSeedCheck;

// Adds --max-input-size, --max-memory and --flink-conf (what every scenario is read with) to
// `cmd`.
void add_limit_options(CLI::App& cmd, Limits& limits);

// Why `scenario` would not fit in limits.max_memory, or nullopt when it fits.
std::optional<std::string> too_big(const model::Scenario& scenario, const Limits& limits);

}  // namespace ckptsim::cli
