// `ckptsim compare --real`: reads both sides through a JobManager log (the simulation's own, as
// `ckptsim run` writes it), so that the comparison sees behaviour, not two ways of reading.
#include "sim/cli/compare_real.hpp"

#include <filesystem>
#include <iostream>

#include "analysis/import/real_compare.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/scenario_input.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/writers.hpp"

namespace ckptsim::cli {
namespace {

namespace fs = std::filesystem;
constexpr const char* kName = "ckptsim compare";

struct SimulatedSide {
  std::optional<analysis::Imported> imported;
  std::string label;
  int exit_code = kExitOk;
};

// A run's output directory: its jobmanager.log.
SimulatedSide read_run_directory(const CompareRealOptions& o) {
  if (o.seed) {
    std::cerr << kName << ": error: --seed applies to a scenario; " << o.simulated
              << " is a run's output directory, already run with its own seed\n";
    return {std::nullopt, "", kExitUsage};
  }
  std::string error;
  auto read = analysis::import_files({(fs::path(o.simulated) / "jobmanager.log").string()}, error);
  if (!read) {
    std::cerr << kName << ": error: " << o.simulated << " is no ckptsim run output: " << error
              << "\n";
    return {std::nullopt, "", kExitScenarioErrors};
  }
  return {std::move(read), o.simulated + " (a run's output: its jobmanager.log)", kExitOk};
}

// A scenario, run here and read back through the log it writes.
SimulatedSide run_scenario(const CompareRealOptions& o) {
  const scenario::LoadResult loaded = load(o.simulated, o.sets, o.limits);
  if (!loaded.ok()) return {std::nullopt, "", report_errors(loaded)};
  report_warnings(loaded);
  if (const auto why = too_big(*loaded.scenario, o.limits)) {
    std::cerr << kName << ": error: " << *why << "\n";
    return {std::nullopt, "", kExitTooBig};
  }
  const run::RunResult simulated = run::run(*loaded.scenario, o.seed);
  return {analysis::import_log(run::format_flink_log(simulated), o.simulated),
          o.simulated + " (scenario, seed " + std::to_string(simulated.seed) + ")", kExitOk};
}

std::string real_label(const CompareRealOptions& o, const run::RunResult& real) {
  std::string files;
  for (const std::string& f : o.real_files) files += (files.empty() ? "" : ", ") + f;
  return files + " (job " + real.job_name + ", " + real.job_id + ")";
}

bool write_outputs(const std::string& dir, const analysis::RealComparison& c,
                   const analysis::ComparedSides& sides) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  return !ec &&
         write_text_file(dir + "/real-vs-sim.txt", analysis::real_comparison_text(c, sides)) &&
         write_text_file(dir + "/real-vs-sim.md", analysis::real_comparison_markdown(c, sides)) &&
         write_text_file(dir + "/real-vs-sim.csv", analysis::real_comparison_csv(c)) &&
         write_text_file(dir + "/real-vs-sim-failovers.csv",
                         analysis::real_comparison_failovers_csv(c));
}

}  // namespace

int compare_real(const CompareRealOptions& o) {
  const auto real = import_reporting(o.real_files, "compare");
  if (!real) return kExitScenarioErrors;
  const SimulatedSide sim = fs::is_directory(o.simulated) ? read_run_directory(o) : run_scenario(o);
  if (!sim.imported) return sim.exit_code;
  const analysis::RealComparison comparison = analysis::compare_real(*real, *sim.imported);
  const analysis::ComparedSides sides{real_label(o, real->result), sim.label};
  std::cout << analysis::real_comparison_text(comparison, sides);
  if (!o.out.empty() && !write_outputs(o.out, comparison, sides)) {
    std::cerr << kName << ": error: cannot write into " << o.out << "\n";
    return kExitUsage;
  }
  return comparison.first_divergence.empty() ? kExitOk : kExitFailed;
}

}  // namespace ckptsim::cli
