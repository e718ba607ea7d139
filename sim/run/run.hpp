// run(): one simulation of a scenario, from a validated Scenario to a RunResult. Pure function
// of (scenario, seed): no globals, no wall clock, so runs can go side by side on many threads.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "sim/model/config.hpp"
#include "sim/run/result.hpp"

namespace ckptsim::run {

// The job id of a scenario: stable across runs and machines (a hash of name and job name).
std::string job_id_for(const model::Scenario& scenario);

RunResult run(const model::Scenario& scenario, std::optional<std::uint64_t> seed = std::nullopt);

// A caller that watches a long run: `keep_going(now)` is asked every `events` events (never
// between two events of one instant's order: the run is the same with or without it); false
// stops the run at `now`, and the result is marked as stopped early (RunResult::stopped_early).
struct RunControl {
  std::function<bool(SimTime now)> keep_going;
  std::uint64_t events = 1u << 20;
};
RunResult run(const model::Scenario& scenario, std::optional<std::uint64_t> seed,
              const RunControl& control);

}  // namespace ckptsim::run
