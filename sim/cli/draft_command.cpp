// ckptsim draft FILE... [--out FILE]: a real incident (JobManager log and REST JSON, as `ckptsim
// import` reads them) written as a scenario that reproduces it, with `# TODO` where it guesses.
#include <iostream>

#include "analysis/import/draft.hpp"
#include "analysis/import/import.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/limits.hpp"

namespace ckptsim::cli {

namespace {

struct DraftOptions {
  std::vector<std::string> files;
  std::string out;
};

int run_draft(const DraftOptions& o) {
  const auto imported = import_reporting(o.files, "draft");
  if (!imported) return kExitScenarioErrors;
  const analysis::ImportReport& report = imported->report;
  const std::string text = analysis::draft_scenario(imported->result, report);
  if (o.out.empty()) {
    std::cout << text;
    return kExitOk;
  }
  if (!write_text_file(o.out, text)) {
    std::cerr << "ckptsim draft: error: cannot write " << o.out << "\n";
    return kExitUsage;
  }
  std::cerr << "draft written to " << o.out << " (check it with: ckptsim test " << o.out << ")\n";
  return kExitOk;
}

}  // namespace

Command add_draft_command(CLI::App& app) {
  auto o = std::make_shared<DraftOptions>();
  CLI::App* cmd = app.add_subcommand(
      "draft",
      "Write a scenario that reproduces a real incident from its JobManager log and REST JSON "
      "(the files `ckptsim import` reads): options and job as far as the files tell, stand-ins "
      "for what they cannot explain, the real checkpoint pattern as `expect:`; unknowns are "
      "marked '# TODO'.");
  cmd->add_option("FILE", o->files, "A JobManager log and/or REST JSON files")->required();
  cmd->add_option("--out", o->out, "Write the scenario here (default: standard output)");
  return {cmd, [o] { return run_draft(*o); }};
}

}  // namespace ckptsim::cli
