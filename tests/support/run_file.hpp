// A scenario file of the repository, run once for a test.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckptsim::tests {

// `relative` to the source tree, with --set overrides.
inline run::RunResult run_file(const std::string& relative,
                               const std::vector<std::string>& sets = {}) {
  const auto loaded = scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) + "/" + relative, sets);
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

// The same, stopped after `duration` of simulated time (a snapshot of the run at that instant).
inline run::RunResult run_file_until(const std::string& relative, core::Duration duration) {
  const auto loaded = scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) + "/" + relative);
  REQUIRE(loaded.ok());
  model::Scenario s = *loaded.scenario;
  s.duration = duration;
  return run::run(s);
}

}  // namespace ckptsim::tests
