// The ckptsim executable: run and validate here, the other subcommands in <name>_command.cpp
// (commands.hpp). Parses the command line (CLI11), loads the scenario,
// runs it, prints the story and writes the outputs. Exit codes: 0 ok, 1 I/O or usage error,
// 2 the scenario has errors.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "analysis/story.hpp"
#include "sim/cli/commands.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/trace.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/scenario/scenario.hpp"

namespace {

using ckptsim::scenario::LoadResult;

LoadResult load(const std::string& path, const std::vector<std::string>& sets) {
  if (path.empty())
    return ckptsim::scenario::load_string(ckptsim::scenario::default_scenario_yaml(),
                                          "<built-in default scenario>", sets);
  return ckptsim::scenario::load_file(path, sets);
}

std::string count(std::size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// Errors (the run cannot start) and warnings (options that have no effect), a compiler's way.
int report_errors(const LoadResult& loaded) {
  std::cerr << ckptsim::scenario::format_diagnostics(loaded.diagnostics)
            << ckptsim::scenario::format_diagnostics(loaded.warnings);
  std::cerr << count(loaded.diagnostics.size(), "error");
  if (!loaded.warnings.empty()) std::cerr << " and " << count(loaded.warnings.size(), "warning");
  std::cerr << " generated.\n";
  return 2;
}

void report_warnings(const LoadResult& loaded) {
  if (loaded.warnings.empty()) return;
  std::cerr << ckptsim::scenario::format_diagnostics(loaded.warnings)
            << count(loaded.warnings.size(), "warning") << " generated.\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ckptsim: a discrete-event simulator of Apache Flink checkpointing.\n"
               "It replays a scenario (job, Flink configuration, timeline) and tells what Flink "
               "would do."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ckptsim 0.1.0");

  std::string scenario_path;
  std::string out_dir = "ckptsim-out";
  std::optional<std::uint64_t> seed;
  std::vector<std::string> sets;
  bool quiet = false;
  bool report = false;
  bool trace = false;
  std::string trace_window;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "Run a scenario (the built-in default one without SCENARIO), print its story and "
             "write jobmanager.log, rest/ and summary.json into --out.");
  run_cmd->add_option("SCENARIO", scenario_path, "Scenario file (YAML)");
  run_cmd->add_option("--out", out_dir, "Output directory")->capture_default_str();
  run_cmd->add_option("--seed", seed, "Random seed (overrides the scenario's seed)");
  run_cmd->add_option("--set", sets,
                      "Override a value: KEY=VALUE, e.g. execution.checkpointing.timeout=5min")
      ->take_all();
  run_cmd->add_flag("--quiet,-q", quiet, "Do not print the story");
  run_cmd->add_flag("--report", report,
                    "Also write --out/report.html, one self-contained HTML file with charts");
  run_cmd->add_flag("--trace", trace,
                    "Also write --out/trace.json (Chrome trace-event format: Perfetto, "
                    "chrome://tracing)");
  run_cmd->add_option("--trace-window", trace_window,
                      "FROM..TO: only this span of simulated time in trace.json, e.g. "
                      "10min..12min (implies --trace)");

  std::string validate_path;
  std::vector<std::string> validate_sets;
  CLI::App* validate_cmd =
      app.add_subcommand("validate", "Check a scenario file and report every error in it.");
  validate_cmd->add_option("SCENARIO", validate_path, "Scenario file (YAML)")->required();
  validate_cmd->add_option("--set", validate_sets, "Override a value: KEY=VALUE")->take_all();
  bool strict = false;
  validate_cmd->add_flag("--strict", strict,
                         "Treat warnings (options that have no effect in the simulation) as "
                         "errors");

  const std::vector<ckptsim::cli::Command> commands = {
      ckptsim::cli::add_test_command(app), ckptsim::cli::add_sweep_command(app),
      ckptsim::cli::add_compare_command(app), ckptsim::cli::add_merge_command(app),
      ckptsim::cli::add_report_command(app)};

  CLI11_PARSE(app, argc, argv);
  for (const ckptsim::cli::Command& command : commands)
    if (*command.app) return command.run();

  if (*validate_cmd) {
    LoadResult loaded = load(validate_path, validate_sets);
    if (strict) {
      for (ckptsim::scenario::Diagnostic& w : loaded.warnings) {
        w.severity = ckptsim::scenario::Diagnostic::Severity::error;
        loaded.diagnostics.push_back(std::move(w));
      }
      loaded.warnings.clear();
    }
    if (!loaded.ok()) return report_errors(loaded);
    report_warnings(loaded);
    std::cout << validate_path << ": ok\n";
    return 0;
  }

  ckptsim::run::TraceOptions trace_options;
  if (!trace_window.empty()) {
    trace = true;
    const std::size_t dots = trace_window.find("..");
    const auto from = dots == std::string::npos
                          ? std::nullopt
                          : ckptsim::scenario::parse_duration(trace_window.substr(0, dots));
    const auto to = dots == std::string::npos
                        ? std::nullopt
                        : ckptsim::scenario::parse_duration(trace_window.substr(dots + 2));
    if (!from || !to || *to < *from) {
      std::cerr << "ckptsim run: error: --trace-window takes FROM..TO with FROM <= TO, e.g. "
                   "10min..12min, got '"
                << trace_window << "'\n";
      return 1;
    }
    trace_options.from = *from;
    trace_options.to = *to;
  }
  const LoadResult loaded = load(scenario_path, sets);
  if (!loaded.ok()) return report_errors(loaded);
  report_warnings(loaded);
  const ckptsim::run::RunResult result = ckptsim::run::run(*loaded.scenario, seed);
  if (!quiet) std::cout << ckptsim::analysis::format_story(result);
  std::string error;
  if (!ckptsim::run::write_outputs(result, out_dir, &error)) {
    std::cerr << "ckptsim: error: " << error << "\n";
    return 1;
  }
  if (trace && !ckptsim::cli::write_text_file(out_dir + "/trace.json",
                                               ckptsim::run::trace_json(result, trace_options))) {
    std::cerr << "ckptsim: error: cannot write " << out_dir << "/trace.json\n";
    return 1;
  }
  if (report && ckptsim::cli::write_run_report(out_dir) != 0) return 1;
  if (!quiet)
    std::cout << "outputs written to " << out_dir << "/ (jobmanager.log, rest/, summary.json"
              << (report ? ", report.html" : "") << (trace ? ", trace.json" : "") << ")\n";
  return 0;
}
