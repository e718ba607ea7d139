// `ckptsim advise SCENARIO`: runs the scenario once to see what it shows, sweeps the settings
// that could address it against the scenario as it is (the baseline) over seeds, and prints
// which to set, with the numbers and the mechanism (analysis/advise.hpp, docs/advise.md).
#include <iostream>
#include <memory>

#include "analysis/advise.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/scenario_input.hpp"
#include "sim/cli/sweep_runner.hpp"
#include "sim/run/run.hpp"

namespace ckptsim::cli {
namespace {

constexpr const char* kName = "ckptsim advise";

struct Options {
  std::string scenario;
  std::vector<std::string> sets;
  std::size_t seeds = 10;
  std::uint64_t first_seed = 1;
  int threads = 0;
  std::string out = "ckptsim-advice";
  std::string objective;  // empty: analysis::default_objective
  std::vector<std::string> constraints;
  Limits limits;
};

SweepSpec sweep_spec(const Options& o, const std::vector<analysis::Candidate>& candidates) {
  SweepSpec spec;
  spec.scenario = o.scenario;
  spec.keys = analysis::candidate_keys(candidates);
  spec.settings.push_back(
      Setting{o.scenario, o.sets, std::vector<std::string>(spec.keys.size(), analysis::kAsIs)});
  for (const analysis::Candidate& c : candidates) {
    Setting s{o.scenario, o.sets, analysis::candidate_values(c, spec.keys)};
    s.overrides.insert(s.overrides.end(), c.overrides.begin(), c.overrides.end());
    spec.settings.push_back(std::move(s));
  }
  spec.seeds = o.seeds;
  spec.first_seed = o.first_seed;
  spec.threads = o.threads;
  spec.out_dir = o.out;
  spec.limits = o.limits;
  return spec;
}

int run_command(const Options& o) {
  const scenario::LoadResult loaded = load(o.scenario, o.sets, o.limits);
  if (!loaded.ok()) return report_errors(loaded);
  report_warnings(loaded);
  if (const auto why = too_big(*loaded.scenario, o.limits)) {
    std::cerr << kName << ": error: " << *why << "\n";
    return kExitTooBig;
  }
  const run::RunResult baseline = run::run(*loaded.scenario, o.first_seed);
  const analysis::Findings findings = analysis::find(baseline, *loaded.scenario);
  std::vector<analysis::Candidate> candidates, not_tried;
  for (analysis::Candidate& c : analysis::candidates(findings, *loaded.scenario))
    (c.tried ? candidates : not_tried).push_back(std::move(c));
  SweepSpec spec = sweep_spec(o, candidates);
  const std::string objective =
      o.objective.empty() ? analysis::default_objective(findings) : o.objective;
  if (!parse_selection(objective, o.constraints, spec, kName)) return kExitUsage;
  analysis::Comparison comparison;
  comparison.objective = spec.objective;
  if (!candidates.empty()) {
    const SweepPoints swept = run_points(spec, kName);
    if (swept.exit_code != kExitOk) return swept.exit_code;
    comparison = analysis::compare(swept.points, spec.objective, spec.constraints);
  }
  const analysis::Verdict verdict = analysis::judge(comparison, candidates.size());
  const std::string text = analysis::advice_text(o.scenario, findings, candidates, not_tried,
                                                 comparison, verdict, o.seeds, o.first_seed);
  std::cout << text;
  if (candidates.empty()) return kExitOk;
  std::string error;
  if (!write_comparison(comparison, o.out, error) ||
      !write_file_atomically(o.out + "/advice.txt", text)) {
    std::cerr << kName
              << ": error: " << (error.empty() ? "cannot write " + o.out + "/advice.txt" : error)
              << "\n";
    return kExitUsage;
  }
  std::cout << "\nthe sweep is in " << o.out
            << "/ (points/, comparison.csv, comparison.json, comparison.md, advice.txt)\n";
  std::size_t failed = 0;
  for (const analysis::SettingSummary& s : comparison.settings) failed += s.errors;
  return failed > 0 ? kExitFailed : kExitOk;
}

}  // namespace

Command add_advise_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "advise",
      "Run a scenario, find what its checkpoints wait for, and sweep the settings that could "
      "address it against the scenario as it is: which setting wins beyond noise, and why.");
  cmd->add_option("SCENARIO", o->scenario, "Scenario file (YAML)")->required();
  cmd->add_option("--set", o->sets, "Override a value in the baseline and every setting: KEY=VALUE")
      ->take_all();
  cmd->add_option("--seeds", o->seeds, "Seeds per setting")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
  cmd->add_option("--first-seed", o->first_seed,
                  "The seeds are N, N+1, ...; the baseline run "
                  "that chooses the settings uses N")
      ->capture_default_str()
      ->check(kSeedCheck);
  cmd->add_option("--threads", o->threads, "Runs in parallel (default: one per core)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--out", o->out, "Where the sweep and advice.txt go")->capture_default_str();
  cmd->add_option("--objective", o->objective,
                  "Metrics to minimise in turn, as for sweep (default: lost_records, failovers, "
                  "failed_checkpoints, latency_p99, overhead; max:completed_checkpoints second "
                  "when the scenario completes no checkpoint)");
  cmd->add_option("--constraint", o->constraints, "METRIC<=VALUE, as for sweep");
  add_limit_options(*cmd, o->limits);
  return Command{cmd, [o] { return run_command(*o); }};
}

}  // namespace ckptsim::cli
