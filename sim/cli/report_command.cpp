// `ckptsim report DIR`: the HTML report of a run's output directory (`ckptsim run --out`) or of a
// sweep's or comparison's directory (its points/), written to DIR/report.html or --out FILE.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "analysis/report.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/sweep_runner.hpp"

namespace ckptsim::cli {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::string dir;
  std::string out;
};

int run_command(const Options& o) {
  const std::string name = "ckptsim report";
  std::string html;
  std::error_code ec;
  if (fs::exists(fs::path(o.dir) / "summary.json", ec)) {
    std::string error;
    const std::optional<analysis::ReportRun> run = analysis::read_run_dir(o.dir, error);
    if (!run) {
      std::cerr << name << ": error: " << error << "\n";
      return 1;
    }
    html = analysis::run_report_html(*run);
  } else if (fs::is_directory(fs::path(o.dir) / "points", ec)) {
    std::string error;
    std::vector<analysis::Point> points = read_point_dir(o.dir, error);
    if (!error.empty()) {
      std::cerr << name << ": error: " << error << "\n";
      return 1;
    }
    if (points.empty()) {
      std::cerr << name << ": error: " << o.dir << "/points holds no point files\n";
      return 1;
    }
    html = analysis::comparison_report_html(analysis::compare(std::move(points), {}, {}));
  } else {
    std::cerr << name << ": error: " << o.dir
              << " is neither a run's output (summary.json) nor a sweep's (points/)\n";
    return 1;
  }
  const std::string path = o.out.empty() ? (fs::path(o.dir) / "report.html").string() : o.out;
  if (!write_file_atomically(path, html)) {
    std::cerr << name << ": error: cannot write " << path << "\n";
    return 1;
  }
  std::cout << "report written to " << path << " (" << html.size() << " bytes)\n";
  return 0;
}

}  // namespace

bool write_text_file(const std::string& path, const std::string& text) {
  return write_file_atomically(path, text);
}

int write_run_report(const std::string& out_dir) {
  std::string error;
  const std::optional<analysis::ReportRun> run = analysis::read_run_dir(out_dir, error);
  const std::string path = (fs::path(out_dir) / "report.html").string();
  if (!run || !write_file_atomically(path, analysis::run_report_html(*run))) {
    std::cerr << "ckptsim: error: " << (run ? "cannot write " + path : error) << "\n";
    return 1;
  }
  return 0;
}

Command add_report_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write one self-contained HTML file (no network, charts inline) for a run's output "
      "directory (ckptsim run --out) or a sweep's or comparison's directory.");
  cmd->add_option("DIR", o->dir, "The directory")->required();
  cmd->add_option("--out", o->out, "The HTML file (default: DIR/report.html)");
  return Command{cmd, [o] { return run_command(*o); }};
}

}  // namespace ckptsim::cli
