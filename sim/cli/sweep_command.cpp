// `ckptsim sweep SCENARIO --vary KEY=V1,V2 ...`: the cross product of the varied values times the
// seeds, run in parallel into DIR (resumable, shardable), then the comparison per setting.
#include <iostream>
#include <memory>
#include <sstream>

#include "sim/cli/commands.hpp"
#include "sim/cli/sweep_runner.hpp"

namespace ckptsim::cli {
namespace {

struct Options {
  std::string scenario;
  std::vector<std::string> vary;
  std::size_t seeds = 5;
  std::uint64_t first_seed = 1;
  int threads = 0;
  std::string shard = "0/1";
  std::string out = "ckptsim-sweep";
  std::string objective;
  std::vector<std::string> constraints;
  bool report = false;
  Limits limits;
};

// "5min,10min,{from: A, ship: hash}": commas inside {} or [] belong to the value.
std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> values;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      values.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  values.push_back(current);
  return values;
}

int run_command(const Options& o) {
  const std::string name = "ckptsim sweep";
  SweepSpec spec;
  spec.scenario = o.scenario;
  spec.seeds = o.seeds;
  spec.first_seed = o.first_seed;
  spec.threads = o.threads;
  spec.out_dir = o.out;
  spec.report = o.report;
  spec.limits = o.limits;
  std::size_t index = 0, count = 0;
  char slash = 0;
  std::istringstream shard(o.shard);
  if (!(shard >> index >> slash >> count) || slash != '/' || count == 0 || index >= count ||
      !shard.eof()) {
    std::cerr << name << ": error: --shard takes I/N with 0 <= I < N, got '" << o.shard << "'\n";
    return 1;
  }
  spec.shard_index = index;
  spec.shard_count = count;
  if (!parse_selection(o.objective, o.constraints, spec, name)) return 1;
  // The cross product, the first --vary varying slowest.
  spec.settings.push_back(Setting{o.scenario, {}, {}});
  for (const std::string& vary : o.vary) {
    const std::size_t equals = vary.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == vary.size()) {
      std::cerr << name << ": error: --vary takes KEY=V1,V2,..., got '" << vary << "'\n";
      return 1;
    }
    const std::string key = vary.substr(0, equals);
    spec.keys.push_back(key);
    std::vector<Setting> next;
    for (const Setting& s : spec.settings) {
      for (const std::string& value : split_values(vary.substr(equals + 1))) {
        Setting grown = s;
        grown.overrides.push_back(key + "=" + value);
        grown.values.push_back(value);
        next.push_back(std::move(grown));
      }
    }
    spec.settings = std::move(next);
  }
  return run_sweep(spec, name);
}

}  // namespace

Command add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Run SCENARIO for every combination of the --vary values, each with --seeds seeds, in "
      "parallel; write one result file per point into --out (points already there are skipped, "
      "so an interrupted sweep resumes) and compare the settings: mean and 95 % confidence "
      "interval over the seeds.");
  cmd->add_option("SCENARIO", o->scenario, "Scenario file (YAML)")->required();
  cmd->add_option("--vary", o->vary,
                  "KEY=V1,V2,...: the values of one key (the paths of --set), e.g. "
                  "execution.checkpointing.timeout=5min,10min; repeat for a cross product")
      ->required();
  cmd->add_option("--seeds", o->seeds, "Seeds per setting")->capture_default_str()->check(
      CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
  cmd->add_option("--first-seed", o->first_seed, "The seeds are N, N+1, ...")
      ->capture_default_str()
      ->check(kSeedCheck);
  cmd->add_option("--threads", o->threads, "Points run in parallel (default: one per core)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--shard", o->shard,
                  "I/N: run only the points i with i % N == I (I from 0); combine the shards' "
                  "directories with ckptsim merge")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Directory of the point files and comparison files")
      ->capture_default_str();
  cmd->add_option("--objective", o->objective,
                  "Metrics to minimise in turn (min: or max: before a name), e.g. "
                  "failovers,p99_duration");
  cmd->add_option("--constraint", o->constraints,
                  "METRIC<=VALUE the best setting must meet (on its mean), e.g. "
                  "replayed_records<=1M; repeatable");
  cmd->add_flag("--report", o->report,
                "Also write --out/report.html: each metric against each varied key, with its "
                "95 % confidence interval");
  add_limit_options(*cmd, o->limits);
  return Command{cmd, [o] { return run_command(*o); }};
}

}  // namespace ckptsim::cli
