// ckptsim import FILE... [--out DIR] [--quiet]: real JobManager logs and REST JSON into the
// story, summary and REST files a simulated run gets.
#include <iostream>

#include "analysis/import/import.hpp"
#include "analysis/story.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/limits.hpp"
#include "sim/run/writers/writers.hpp"

namespace ckptsim::cli {

namespace {

struct ImportOptions {
  std::vector<std::string> files;
  std::string out_dir;
  bool quiet = false;
};

int run_import(const ImportOptions& o) {
  std::string error;
  const auto imported = import_reporting(o.files, "import");
  if (!imported) return kExitScenarioErrors;
  if (!o.quiet) std::cout << analysis::format_story(imported->result);
  if (!o.out_dir.empty()) {
    if (!run::write_outputs(imported->result, o.out_dir, &error)) {
      std::cerr << "ckptsim import: error: " << error << "\n";
      return kExitUsage;
    }
    if (!o.quiet)
      std::cout << "outputs written to " << o.out_dir
                << "/ (jobmanager.log in Flink's layout, rest/, summary.json)\n";
  }
  return kExitOk;
}

}  // namespace

std::optional<analysis::Imported> import_reporting(const std::vector<std::string>& files,
                                                   const char* command) {
  std::string error;
  auto imported = analysis::import_files(files, error);
  if (!imported) {
    std::cerr << "ckptsim " << command << ": error: " << error << "\n";
    return std::nullopt;
  }
  const analysis::ImportReport& report = imported->report;
  for (const std::string& line : report.files) std::cerr << "read " << line << "\n";
  std::cerr << "Flink version: " << report.flink_version << "\n";
  for (const std::string& p : report.problems) std::cerr << p << "\n";
  if (report.problems_not_shown > 0)
    std::cerr << "and " << report.problems_not_shown << " more lines not read\n";
  return imported;
}

Command add_import_command(CLI::App& app) {
  auto o = std::make_shared<ImportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Read a real Flink JobManager log and REST JSON responses (/jobs/:jid/checkpoints, "
      ".../details/:id, .../checkpoints/config, /jobs/:jid, /jobs/overview, /overview) and tell "
      "their story as ckptsim tells a run's; --out writes the same files a run writes.");
  cmd->add_option("FILE", o->files, "A JobManager log and/or REST JSON files")->required();
  cmd->add_option("--out", o->out_dir, "Write jobmanager.log, rest/ and summary.json here");
  cmd->add_flag("--quiet,-q", o->quiet, "Do not print the story");
  return {cmd, [o] { return run_import(*o); }};
}

}  // namespace ckptsim::cli
