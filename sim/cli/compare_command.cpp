// `ckptsim compare A.yaml B.yaml ...`: the scenarios side by side, each run with the same seeds,
// compared as a sweep's settings are (mean and 95 % confidence interval over the seeds).
// `ckptsim compare --real FILE... SIM`: a real incident's files against its simulation (a run's
// output directory or a scenario), checkpoint by checkpoint (analysis/import/real_compare.hpp).
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "analysis/import/real_compare.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/scenario_input.hpp"
#include "sim/cli/sweep_runner.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/writers.hpp"

namespace ckptsim::cli {
namespace {

struct Options {
  std::vector<std::string> scenarios;
  std::vector<std::string> sets;
  std::size_t seeds = 5;
  std::uint64_t first_seed = 1;
  int threads = 0;
  std::string out;
  std::string objective;
  std::vector<std::string> constraints;
  bool report = false;
  bool real = false;
  std::optional<std::uint64_t> seed;
  Limits limits;
};

// The simulated side, read back through its jobmanager.log as the real one is read: a run's
// output directory, or a scenario run here.
std::optional<run::RunResult> simulated_side(const Options& o, const std::string& path) {
  namespace fs = std::filesystem;
  std::string error;
  if (fs::is_directory(path)) {
    auto read = analysis::import_files({(fs::path(path) / "jobmanager.log").string()}, error);
    if (!read) {
      std::cerr << "ckptsim compare: error: " << path << " is no ckptsim run output: " << error
                << "\n";
      return std::nullopt;
    }
    return std::move(read->result);
  }
  const scenario::LoadResult loaded = load(path, o.sets, o.limits);
  if (!loaded.ok()) {
    report_errors(loaded);
    return std::nullopt;
  }
  if (const auto why = too_big(*loaded.scenario, o.limits)) {
    std::cerr << "ckptsim compare: error: " << *why << "\n";
    return std::nullopt;
  }
  const run::RunResult simulated = run::run(*loaded.scenario, o.seed);
  return analysis::import_log(run::format_flink_log(simulated), path).result;
}

int run_real(const Options& o) {
  const std::vector<std::string> files(o.scenarios.begin(), o.scenarios.end() - 1);
  const auto real = import_reporting(files, "compare");
  if (!real) return kExitScenarioErrors;
  const auto sim = simulated_side(o, o.scenarios.back());
  if (!sim) return kExitScenarioErrors;
  const analysis::RealComparison comparison = analysis::compare_real(real->result, *sim);
  const std::string text = analysis::real_comparison_text(comparison);
  std::cout << text;
  if (!o.out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec || !write_file_atomically(o.out + "/real-vs-sim.txt", text) ||
        !write_file_atomically(o.out + "/real-vs-sim.csv",
                               analysis::real_comparison_csv(comparison))) {
      std::cerr << "ckptsim compare: error: cannot write into " << o.out << "\n";
      return kExitUsage;
    }
  }
  return comparison.first_divergence.empty() ? kExitOk : kExitFailed;
}

int run_command(const Options& o) {
  if (o.real) return run_real(o);
  SweepSpec spec;
  spec.scenario = "compare";
  spec.keys = {"scenario"};
  for (const std::string& path : o.scenarios) spec.settings.push_back(Setting{path, o.sets, {path}});
  spec.seeds = o.seeds;
  spec.first_seed = o.first_seed;
  spec.threads = o.threads;
  spec.out_dir = o.out;
  spec.report = o.report;
  spec.limits = o.limits;
  if (o.report && o.out.empty()) {
    std::cerr << "ckptsim compare: error: --report writes into --out DIR; give --out\n";
    return 1;
  }
  if (!parse_selection(o.objective, o.constraints, spec, "ckptsim compare")) return 1;
  return run_sweep(spec, "ckptsim compare");
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Run two or more scenarios with the same seeds and compare them side by side (mean and "
      "95 % confidence interval over the seeds).");
  cmd->add_option("SCENARIO", o->scenarios,
                  "Scenario files (YAML), at least two; with --real, the real files and then the "
                  "simulation (a run's output directory or a scenario)")
      ->required()
      ->expected(2, -1);
  cmd->add_option("--set", o->sets, "Override a value in every scenario: KEY=VALUE")->take_all();
  cmd->add_option("--seeds", o->seeds, "Seeds per scenario")->capture_default_str()->check(
      CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
  cmd->add_option("--first-seed", o->first_seed, "The seeds are N, N+1, ...")
      ->capture_default_str()
      ->check(kSeedCheck);
  cmd->add_option("--threads", o->threads, "Runs in parallel (default: one per core)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--out", o->out, "Also write point files and comparison files here");
  cmd->add_option("--objective", o->objective, "Metrics to minimise in turn, as for sweep");
  cmd->add_option("--constraint", o->constraints, "METRIC<=VALUE, as for sweep");
  cmd->add_flag("--report", o->report,
                "Also write --out/report.html: each metric per scenario with its 95 % confidence "
                "interval");
  cmd->add_flag("--real", o->real,
                "Compare a real incident's files (JobManager logs, REST JSON) with its "
                "simulation, the last argument: checkpoint by checkpoint; exit 3 when they "
                "diverge");
  cmd->add_option("--seed", o->seed, "With --real and a scenario: its seed (default: the scenario's)")
      ->check(kSeedCheck);
  add_limit_options(*cmd, o->limits);
  return Command{cmd, [o] { return run_command(*o); }};
}

}  // namespace ckptsim::cli
