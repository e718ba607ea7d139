#include "sim/cli/scenario_input.hpp"

#include <iostream>

namespace ckptsim::cli {

namespace {

std::string count(std::size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

scenario::LoadResult load(const std::string& path, const std::vector<std::string>& sets,
                const Limits& limits) {
  if (path.empty())
    return scenario::load_string(scenario::default_scenario_yaml(),
                                          "<built-in default scenario>", sets, limits.load);
  return scenario::load_file(path, sets, limits.load);
}


// Errors (the run cannot start) and warnings (options that have no effect), a compiler's way.
int report_errors(const scenario::LoadResult& loaded) {
  std::cerr << scenario::format_diagnostics(loaded.diagnostics)
            << scenario::format_diagnostics(loaded.warnings);
  const std::size_t shown = loaded.diagnostics.size() - (loaded.errors_not_shown > 0 ? 1 : 0);
  std::cerr << count(shown + loaded.errors_not_shown, "error");
  if (!loaded.warnings.empty()) std::cerr << " and " << count(loaded.warnings.size(), "warning");
  std::cerr << " generated.\n";
  return kExitScenarioErrors;
}

void report_notes(const scenario::LoadResult& loaded) {
  std::cerr << scenario::format_diagnostics(loaded.notes);
}

void report_warnings(const scenario::LoadResult& loaded) {
  if (loaded.warnings.empty()) return;
  std::cerr << scenario::format_diagnostics(loaded.warnings)
            << count(loaded.warnings.size(), "warning") << " generated.\n";
}

}  // namespace ckptsim::cli
