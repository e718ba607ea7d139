// The built-in scenario: what `ckptsim run` simulates without a file. It is the seed incident,
// scenarios/seed/doris-cdc-table-swap.yaml, embedded at build time (sim/scenario/CMakeLists.txt)
// so the two cannot drift apart. It must load without a diagnostic (tests/scenario checks it).
#include "sim/scenario/scenario.hpp"

#include "default_scenario_text.hpp"  // generated: kDefaultScenarioText

namespace ckptsim::scenario {

std::string_view default_scenario_yaml() { return kDefaultScenarioText; }

}  // namespace ckptsim::scenario
