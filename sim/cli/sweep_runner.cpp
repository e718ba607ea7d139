// Runs sweep points in parallel (TBB), each a pure function of (scenario files, overrides, seed)
// written to DIR/points/<content hash>.json; shows progress on stderr (a bar on a terminal,
// plain lines otherwise); the comparison is computed from the point files alone.
#include "sim/cli/sweep_runner.hpp"
#include "analysis/report.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <utility>

#include "sim/cli/limits.hpp"
#include "sim/cli/parallel_runs.hpp"
#include "sim/run/run.hpp"
#include "sim/run/stale_files.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckptsim::cli {
namespace {

namespace fs = std::filesystem;

// An exclusive flock(2) on the directory itself: nothing is added to it, and the lock goes with
// the process however it ends.
class OutLock {
 public:
  OutLock() = default;
  explicit OutLock(const std::string& dir)
      : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~OutLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  OutLock(OutLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  OutLock& operator=(OutLock&&) = delete;
  OutLock(const OutLock&) = delete;
  OutLock& operator=(const OutLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// A point file (ckptsim's own output).
std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The scenario file and the files its `base:` chain names: what a point's result depends on
// besides its overrides and seed. The path is normalised, so that `./s.yaml` and `s.yaml` name
// the same points (issue 18 item 6); a file that cannot be read adds its path only (loading it
// reports why).
std::string scenario_inputs(const fs::path& path, std::int64_t max_bytes, int depth = 0) {
  std::string error;
  const std::string text =
      scenario::read_scenario_text(path.generic_string(), error, max_bytes).value_or("");
  std::string all = path.lexically_normal().generic_string() + "\n" + text + "\n";
  if (depth > 8) return all;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    // A `base:` scenario and a `flink-conf:` file are inputs too (the one-line forms).
    const bool conf = line.rfind("flink-conf:", 0) == 0;
    if (line.rfind("base:", 0) != 0 && !conf) continue;
    std::string base = line.substr(conf ? 11 : 5);
    base.erase(0, base.find_first_not_of(" \t"));
    base.erase(base.find_last_not_of(" \t\r") + 1);
    if (base.size() >= 2 && (base.front() == '"' || base.front() == '\''))
      base = base.substr(1, base.size() - 2);
    if (!base.empty()) all += scenario_inputs(path.parent_path() / base, max_bytes, depth + 1);
  }
  return all;
}

// 64-bit FNV-1a, twice with different offsets: 128 bits, enough to name point files.
std::string content_hash(const std::string& text) {
  auto fnv = [&](std::uint64_t h) {
    for (char c : text) {
      h ^= static_cast<unsigned char>(c);
      h *= 0x100000001b3ULL;
    }
    return h;
  };
  return fmt::format("{:016x}{:016x}", fnv(0xcbf29ce484222325ULL), fnv(0x84222325cbf29ce4ULL));
}

struct PointTask {
  std::size_t setting = 0;
  std::uint64_t seed = 0;
  fs::path file;
};

// Progress on stderr: a bar redrawn in place on a terminal, a line per 10 % otherwise.
class Progress {
 public:
  Progress(std::size_t total, std::size_t skipped, std::string name)
      : total_(total),
        done_(skipped),
        skipped_(skipped),
        name_(std::move(name)),
        tty_(::isatty(2) != 0),
        start_(std::chrono::steady_clock::now()) {}

  void point_done() {
    const std::size_t done = ++done_;
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    const bool last = done == total_;
    if (tty_) {
      if (!last && now - last_draw_ < std::chrono::milliseconds(200)) return;
      last_draw_ = now;
      std::cerr << "\r" << line(done, now) << "\x1b[K" << (last ? "\n" : "") << std::flush;
    } else {
      const std::size_t decile = total_ == 0 ? 10 : done * 10 / total_;
      if (decile == last_decile_ && !last) return;
      last_decile_ = decile;
      std::cerr << line(done, now) << "\n";
    }
  }

 private:
  std::string line(std::size_t done, std::chrono::steady_clock::time_point now) const {
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double rate = seconds > 0 ? static_cast<double>(done - skipped_) / seconds : 0;
    const double left = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
    std::string bar;
    if (tty_) {
      const std::size_t filled = total_ == 0 ? 20 : done * 20 / total_;
      bar = "[" + std::string(filled, '#') + std::string(20 - filled, '.') + "] ";
    }
    return fmt::format("{}: {}{}/{} points, {:.1f}/s, {:.0f} s left", name_, bar, done, total_,
                       rate, left);
  }

  std::size_t total_;
  std::atomic<std::size_t> done_;
  std::size_t skipped_;
  std::string name_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
  std::size_t last_decile_ = 0;
  std::mutex mutex_;
};

analysis::Point run_point(const SweepSpec& spec, const PointTask& task,
                          const scenario::LoadResult& loaded) {
  analysis::Point point;
  point.scenario = spec.scenario;
  point.keys = spec.keys;
  point.values = spec.settings[task.setting].values;
  point.setting = task.setting;
  point.settings = spec.settings.size();
  point.seed = task.seed;
  point.metrics.assign(analysis::kMetricCount, std::nullopt);
  if (!loaded.ok()) {
    point.ok = false;
    point.error = scenario::format_diagnostics(loaded.diagnostics);
    return point;
  }
  if (const auto why = too_big(*loaded.scenario, spec.limits)) {
    point.ok = false;
    point.error = *why + "\n";
    return point;
  }
  try {
    point.metrics =
        analysis::point_metrics(run::run(*loaded.scenario, task.seed), *loaded.scenario);
  } catch (const std::exception& e) {
    point.ok = false;
    point.error = std::string("internal error while running: ") + e.what() + "\n";
  }
  return point;
}

}  // namespace

bool write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  bool written = false;
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    written = static_cast<bool>(out.flush());
  }
  std::error_code ec;
  if (written) fs::rename(temporary, path, ec);
  if (!written || ec) fs::remove(temporary, ec);  // a full disk leaves nothing behind
  return written && !ec;
}

std::vector<analysis::Point> read_point_dir(const std::string& dir, std::string& error) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::directory_iterator(fs::path(dir) / "points", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec))
    if (it->path().extension() == ".json") files.push_back(it->path());
  if (ec) {
    error = fmt::format("cannot read {}/points: {}", dir, ec.message());
    return {};
  }
  std::sort(files.begin(), files.end());
  std::vector<analysis::Point> points;
  for (const fs::path& f : files) {
    std::optional<analysis::Point> p = analysis::parse_point_file(read_text(f));
    if (!p) {
      error = fmt::format("{} is not a ckptsim point file", f.generic_string());
      return {};
    }
    points.push_back(std::move(*p));
  }
  return points;
}

bool write_comparison(const analysis::Comparison& comparison, const std::string& dir,
                      std::string& error) {
  const fs::path base(dir);
  const std::pair<const char*, std::string> files[] = {
      {"comparison.csv", analysis::comparison_csv(comparison)},
      {"comparison.json", analysis::comparison_json(comparison)},
      {"comparison.md", analysis::comparison_markdown(comparison)}};
  for (const auto& [name, text] : files) {
    if (!write_file_atomically((base / name).string(), text)) {
      error = fmt::format("cannot write {}", (base / name).generic_string());
      return false;
    }
  }
  return true;
}

bool parse_selection(const std::string& objective, const std::vector<std::string>& constraints,
                     SweepSpec& spec, const std::string& command_name) {
  std::string error;
  if (!objective.empty()) {
    auto terms = analysis::parse_objective(objective, error);
    if (!terms) {
      std::cerr << command_name << ": error: " << error << "\n";
      return false;
    }
    spec.objective = std::move(*terms);
  }
  for (const std::string& text : constraints) {
    auto constraint = analysis::parse_constraint(text, error);
    if (!constraint) {
      std::cerr << command_name << ": error: " << error << "\n";
      return false;
    }
    spec.constraints.push_back(std::move(*constraint));
  }
  return true;
}

SweepPoints run_points(const SweepSpec& spec, const std::string& command_name) {
  const bool files = !spec.out_dir.empty();
  const fs::path points_dir = fs::path(spec.out_dir) / "points";
  std::error_code ec;
  if (files) fs::create_directories(points_dir, ec);
  if (ec) {
    std::cerr << command_name << ": error: cannot create " << points_dir.generic_string() << ": "
              << ec.message() << "\n";
    return {kExitUsage, {}};
  }
  // One sweep at a time per directory: a second one would redo every point the first has not
  // written yet (issue 18 item 6). The lock goes with the process, however it ends.
  const OutLock lock = files ? OutLock(spec.out_dir) : OutLock();
  if (files && !lock.held()) {
    std::cerr << command_name << ": error: another ckptsim is writing into " << spec.out_dir
              << " (it holds a lock on the directory); wait for it, or give another --out\n";
    return {kExitUsage, {}};
  }
  if (files)
    run::remove_stale_files(points_dir, ".tmp");  // "<point>.json.tmp<pid>" of a killed sweep
  // The grid, this shard's part of it, and which points already have a result.
  std::vector<std::string> inputs;
  for (const Setting& s : spec.settings)
    inputs.push_back(scenario_inputs(s.scenario, spec.limits.load.max_input_bytes));
  std::vector<PointTask> mine;
  std::vector<PointTask> to_run;
  for (std::size_t setting = 0; setting < spec.settings.size(); ++setting) {
    for (std::size_t k = 0; k < spec.seeds; ++k) {
      const std::size_t index = setting * spec.seeds + k;
      if (index % spec.shard_count != spec.shard_index) continue;
      PointTask task{setting, spec.first_seed + k, {}};
      std::string identity = "ckptsim point v2\n" + inputs[setting];
      for (const std::string& conf : spec.limits.load.flink_conf)
        identity += "--flink-conf " + scenario_inputs(conf, spec.limits.load.max_input_bytes, 9);
      for (const std::string& o : spec.settings[setting].overrides) identity += "--set " + o + "\n";
      identity += "seed " + std::to_string(task.seed) + "\n";
      task.file = points_dir / (content_hash(identity) + ".json");
      mine.push_back(task);
      if (!files || !fs::exists(task.file, ec) || !analysis::parse_point_file(read_text(task.file)))
        to_run.push_back(task);
    }
  }
  // Load each needed setting once; a setting that does not load makes failing points.
  std::vector<std::optional<scenario::LoadResult>> loaded(spec.settings.size());
  for (const PointTask& t : to_run)
    if (!loaded[t.setting])
      loaded[t.setting] = scenario::load_file(spec.settings[t.setting].scenario,
                                              spec.settings[t.setting].overrides, spec.limits.load);

  if (mine.size() != to_run.size())
    std::cerr << command_name << ": " << mine.size() - to_run.size() << " of " << mine.size()
              << " points already done in " << spec.out_dir << ", skipped\n";
  Progress progress(mine.size(), mine.size() - to_run.size(), command_name);
  std::vector<analysis::Point> results(to_run.size());
  std::atomic<bool> write_failed{false};
  run_in_parallel(spec.threads, to_run.size(), [&](std::size_t i) {
    results[i] = run_point(spec, to_run[i], *loaded[to_run[i].setting]);
    if (files &&
        !write_file_atomically(to_run[i].file.string(), analysis::point_file_text(results[i])))
      write_failed = true;
    progress.point_done();
  });
  if (write_failed) {
    std::cerr << command_name << ": error: cannot write point files into "
              << points_dir.generic_string() << "\n";
    return {kExitUsage, {}};
  }
  // The comparison comes from the point files (or, without files, from their text), so a
  // resumed sweep gives the same bytes as an uninterrupted one.
  // Points run now use the text just written (reading a thousand files back would be a serial
  // tail longer than the runs); only skipped points are read.
  std::vector<analysis::Point> points;
  for (std::size_t i = 0, ran = 0; i < mine.size(); ++i) {
    const bool just_run = ran < to_run.size() && to_run[ran].file == mine[i].file;
    const std::string text =
        just_run ? analysis::point_file_text(results[ran++]) : read_text(mine[i].file);
    if (auto p = analysis::parse_point_file(text)) points.push_back(std::move(*p));
  }
  return {kExitOk, std::move(points)};
}

int run_sweep(const SweepSpec& spec, const std::string& command_name) {
  const SweepPoints run = run_points(spec, command_name);
  if (run.exit_code != kExitOk) return run.exit_code;
  const std::vector<analysis::Point>& points = run.points;
  const bool files = !spec.out_dir.empty();
  std::size_t failed = 0;
  for (const analysis::Point& p : points) failed += !p.ok;
  const analysis::Comparison comparison =
      analysis::compare(points, spec.objective, spec.constraints);
  std::cout << analysis::format_comparison_table(comparison);
  if (failed > 0) std::cout << failed << " of " << points.size() << " points failed\n";
  if (spec.shard_count > 1)
    std::cout << "shard " << spec.shard_index << "/" << spec.shard_count << ": " << points.size()
              << " of " << spec.settings.size() * spec.seeds
              << " points; combine the shards with ckptsim merge\n";
  if (files) {
    std::string error;
    if (!write_comparison(comparison, spec.out_dir, error)) {
      std::cerr << command_name << ": error: " << error << "\n";
      return 1;
    }
    if (spec.report) {
      const std::string path = (fs::path(spec.out_dir) / "report.html").string();
      if (!write_file_atomically(path, analysis::comparison_report_html(comparison))) {
        std::cerr << command_name << ": error: cannot write " << path << "\n";
        return 1;
      }
    }
    std::cout << "results in " << spec.out_dir
              << "/ (points/, comparison.csv, comparison.json, comparison.md"
              << (spec.report ? ", report.html" : "") << ")\n";
  }
  // A sweep whose points failed must not look like a success to a CI (issue 18 item 5).
  return failed > 0 ? kExitFailed : kExitOk;
}

}  // namespace ckptsim::cli
