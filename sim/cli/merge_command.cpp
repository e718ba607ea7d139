// `ckptsim merge DIR...`: combines the point files of sweep shards (or of sweeps run on several
// machines) into one directory and writes the comparison, byte-identical to an unsharded sweep's.
#include <filesystem>
#include <iostream>
#include <memory>

#include "sim/cli/commands.hpp"
#include "sim/cli/sweep_runner.hpp"

namespace ckptsim::cli {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::vector<std::string> dirs;
  std::string out;
  std::string objective;
  std::vector<std::string> constraints;
};

int run_command(const Options& o) {
  const std::string name = "ckptsim merge";
  SweepSpec spec;
  if (!parse_selection(o.objective, o.constraints, spec, name)) return 1;
  const std::string out = o.out.empty() ? o.dirs.front() : o.out;
  std::error_code ec;
  fs::create_directories(fs::path(out) / "points", ec);
  std::size_t copied = 0;
  for (const std::string& dir : o.dirs) {
    std::string error;
    read_point_dir(dir, error);  // checks that every file there is a point file
    if (!error.empty()) {
      std::cerr << name << ": error: " << error << "\n";
      return 1;
    }
    for (const auto& entry : fs::directory_iterator(fs::path(dir) / "points", ec)) {
      if (entry.path().extension() != ".json") continue;
      const fs::path target = fs::path(out) / "points" / entry.path().filename();
      if (fs::exists(target, ec)) continue;  // the same name is the same point
      fs::copy_file(entry.path(), target, ec);
      if (ec) {
        std::cerr << name << ": error: cannot copy " << entry.path().generic_string() << " to "
                  << target.generic_string() << ": " << ec.message() << "\n";
        return 1;
      }
      ++copied;
    }
  }
  std::string error;
  const std::vector<analysis::Point> points = read_point_dir(out, error);
  if (!error.empty() || points.empty()) {
    std::cerr << name << ": error: " << (error.empty() ? "no point files found" : error) << "\n";
    return 1;
  }
  for (const analysis::Point& p : points) {
    if (p.scenario != points.front().scenario || p.keys != points.front().keys ||
        p.settings != points.front().settings) {
      std::cerr << name << ": error: the directories hold points of different sweeps ("
                << points.front().scenario << " and " << p.scenario << ")\n";
      return 1;
    }
  }
  const analysis::Comparison comparison = analysis::compare(points, spec.objective, spec.constraints);
  std::cout << analysis::format_comparison_table(comparison);
  if (!write_comparison(comparison, out, error)) {
    std::cerr << name << ": error: " << error << "\n";
    return 1;
  }
  std::cout << points.size() << " points (" << copied << " copied) in " << out
            << "/ (points/, comparison.csv, comparison.json, comparison.md)\n";
  return 0;
}

}  // namespace

Command add_merge_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "Combine the point files of sweep shards into one directory and compare them.");
  cmd->add_option("DIR", o->dirs, "Sweep output directories (--out of each shard)")->required();
  cmd->add_option("--out", o->out, "Where to merge (default: the first DIR)");
  cmd->add_option("--objective", o->objective, "Metrics to minimise in turn, as for sweep");
  cmd->add_option("--constraint", o->constraints, "METRIC<=VALUE, as for sweep");
  return Command{cmd, [o] { return run_command(*o); }};
}

}  // namespace ckptsim::cli
