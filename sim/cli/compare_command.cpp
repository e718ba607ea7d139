// `ckptsim compare A.yaml B.yaml ...`: the scenarios side by side, each run with the same seeds,
// compared as a sweep's settings are (mean and 95 % confidence interval over the seeds).
// `ckptsim compare --real FILE... SIM`: a real incident's files against its simulation (a run's
// output directory or a scenario), checkpoint by checkpoint (analysis/import/real_compare.hpp).
#include <iostream>
#include <memory>
#include <optional>

#include "sim/cli/commands.hpp"
#include "sim/cli/compare_real.hpp"
#include "sim/cli/sweep_runner.hpp"

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

int run_command(const Options& o) {
  if (o.real) {
    // With --real the last positional is the simulated side, the others are the real files
    // (CLI11 cannot give --real its own list before a positional of variable length).
    CompareRealOptions real{{o.scenarios.begin(), o.scenarios.end() - 1},
                            o.scenarios.back(),
                            o.sets,
                            o.seed,
                            o.out,
                            o.limits};
    return compare_real(real);
  }
  SweepSpec spec;
  spec.scenario = "compare";
  spec.keys = {"scenario"};
  for (const std::string& path : o.scenarios)
    spec.settings.push_back(Setting{path, o.sets, {path}});
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
      "95 % confidence interval over the seeds). With --real, line a real incident's "
      "checkpoints up with its simulation's and say where they diverge.");
  cmd->add_option("SCENARIO", o->scenarios,
                  "Scenario files (YAML), at least two; with --real, the real files and then the "
                  "simulation (a run's output directory or a scenario)")
      ->required()
      ->expected(2, -1);
  cmd->add_option("--set", o->sets, "Override a value in every scenario: KEY=VALUE")->take_all();
  // What only a comparison of scenarios over seeds uses: refused with --real.
  const std::vector<CLI::Option*> seeded = {
      cmd->add_option("--seeds", o->seeds, "Seeds per scenario")
          ->capture_default_str()
          ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000})),
      cmd->add_option("--first-seed", o->first_seed, "The seeds are N, N+1, ...")
          ->capture_default_str()
          ->check(kSeedCheck),
      cmd->add_option("--threads", o->threads, "Runs in parallel (default: one per core)")
          ->check(CLI::PositiveNumber),
      cmd->add_option("--objective", o->objective, "Metrics to minimise in turn, as for sweep"),
      cmd->add_option("--constraint", o->constraints, "METRIC<=VALUE, as for sweep"),
      cmd->add_flag("--report", o->report,
                    "Also write --out/report.html: each metric per scenario with its 95 % "
                    "confidence interval")};
  cmd->add_option("--out", o->out,
                  "Also write point files and comparison files here; with --real, "
                  "real-vs-sim.{txt,md,csv} and real-vs-sim-failovers.csv");
  CLI::Option* real =
      cmd->add_flag("--real", o->real,
                    "Compare a real incident's files (a JobManager log, REST JSON: all the "
                    "positional arguments but the last) with its simulation (the last: a "
                    "scenario, or a run's --out directory), checkpoint by checkpoint; exit 3 "
                    "when they diverge");
  for (CLI::Option* option : seeded) real->excludes(option);
  cmd->add_option("--seed", o->seed,
                  "With --real and a scenario: its seed (default: the scenario's)")
      ->check(kSeedCheck)
      ->needs(real);
  add_limit_options(*cmd, o->limits);
  return Command{cmd, [o] { return run_command(*o); }};
}

}  // namespace ckptsim::cli
