// run(): one simulation of a scenario, from a validated Scenario to a RunResult. Pure function
// of (scenario, seed): no globals, no wall clock, so runs can go side by side on many threads.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/model/config.hpp"
#include "sim/run/result.hpp"

namespace ckptsim::run {

// The job id of a scenario: stable across runs and machines (a hash of name and job name).
std::string job_id_for(const model::Scenario& scenario);

RunResult run(const model::Scenario& scenario, std::optional<std::uint64_t> seed = std::nullopt);

}  // namespace ckptsim::run
