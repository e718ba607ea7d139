// The ckptsim subcommands that live in files of their own (<name>_command.cpp). Each adds its
// subcommand to the application and returns how to run it once the command line is parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <vector>

#include "analysis/import/import.hpp"
#include <functional>
#include <string>

namespace ckptsim::cli {

struct Command {
  CLI::App* app = nullptr;   // the subcommand: `*app` is true when the user chose it
  std::function<int()> run;  // runs it; returns the exit code
};

// ckptsim test [PATH...] [--junit FILE] [--threads N]
Command add_test_command(CLI::App& app);
// ckptsim sweep SCENARIO --vary KEY=V1,V2 [--vary ...] [--seeds N] [--threads N] [--shard I/N]
//               [--out DIR] [--objective ...] [--constraint ...]
Command add_sweep_command(CLI::App& app);
// ckptsim compare A.yaml B.yaml [--seeds N] ...
Command add_compare_command(CLI::App& app);
// ckptsim merge DIR... [--out DIR]
Command add_merge_command(CLI::App& app);
// ckptsim report DIR [--out FILE]
Command add_report_command(CLI::App& app);
// ckptsim import FILE... [--out DIR]
Command add_import_command(CLI::App& app);
// The files imported for `ckptsim COMMAND`, with what was read (and not) reported on stderr;
// nullopt after an error message.
std::optional<analysis::Imported> import_reporting(const std::vector<std::string>& files,
                                                   const char* command);
// ckptsim draft FILE... [--out FILE]
Command add_draft_command(CLI::App& app);
// ckptsim advise SCENARIO [--seeds N] [--out DIR] [--objective ...]
Command add_advise_command(CLI::App& app);
// ckptsim serve [SCENARIO] [--speed X|max] [--port N] [--replay OUT_DIR] ...
Command add_serve_command(CLI::App& app);

// Writes `text` to `path` (through a temporary file); false on failure.
bool write_text_file(const std::string& path, const std::string& text);

// Writes OUT_DIR/report.html for a run's output directory; returns the exit code.
int write_run_report(const std::string& out_dir);

}  // namespace ckptsim::cli
