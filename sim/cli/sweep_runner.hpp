// What `ckptsim sweep`, `compare` and `merge` share: running a grid of points (settings x seeds)
// in parallel into point files named by a content hash (existing ones are skipped, so a sweep
// resumes), with progress, and writing the comparison files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/sweep.hpp"
#include "sim/cli/limits.hpp"

namespace ckptsim::cli {

struct Setting {
  std::string scenario;                // the file to load
  std::vector<std::string> overrides;  // KEY=VALUE, as --set takes them
  std::vector<std::string> values;     // what the comparison shows, one per key
};

struct SweepSpec {
  std::string scenario;  // shown in the comparison
  std::vector<std::string> keys;
  std::vector<Setting> settings;
  std::size_t seeds = 1;
  std::uint64_t first_seed = 1;  // the seeds are first_seed, first_seed + 1, ...
  int threads = 0;               // 0: one per core
  std::size_t shard_index = 0;   // this process runs the points i with i % count == index
  std::size_t shard_count = 1;
  std::string out_dir;  // empty: no files (ckptsim compare without --out)
  std::vector<analysis::ObjectiveTerm> objective;
  std::vector<analysis::Constraint> constraints;
  bool report = false;  // also write out_dir/report.html
  Limits limits;        // per point
};

// Runs the points of the spec's shard that have no result file yet (with progress on stderr) and
// returns every point of the shard, in grid order: the ones run now and the ones read back.
struct SweepPoints {
  int exit_code = 0;  // kExitUsage when out_dir cannot be created, locked or written
  std::vector<analysis::Point> points;
};
SweepPoints run_points(const SweepSpec& spec, const std::string& command_name);

// run_points, then prints the comparison and writes comparison.{csv,json,md} into out_dir.
// Returns the exit code.
int run_sweep(const SweepSpec& spec, const std::string& command_name);

// The point files in DIR/points, sorted by name; `error` names a file that is not a point file.
std::vector<analysis::Point> read_point_dir(const std::string& dir, std::string& error);

// Writes comparison.csv, comparison.json and comparison.md into `dir`; false and `error` on
// failure.
bool write_comparison(const analysis::Comparison& comparison, const std::string& dir,
                      std::string& error);

// Writes `text` to `path` through a temporary file and a rename, so a reader (or an interrupted
// sweep) never sees half a file.
bool write_file_atomically(const std::string& path, const std::string& text);

// "--objective" and "--constraint" texts; false after printing the error.
bool parse_selection(const std::string& objective, const std::vector<std::string>& constraints,
                     SweepSpec& spec, const std::string& command_name);

}  // namespace ckptsim::cli
