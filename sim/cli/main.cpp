// The ckptsim executable: run and validate here, the other subcommands in <name>_command.cpp
// (commands.hpp). Parses the command line (CLI11), loads the scenario, runs it, prints the story
// and writes the outputs. Every command exits with a code of the one table in limits.hpp
// (README "Exit codes"); no exception leaves main.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <new>

#include "analysis/story.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/limits.hpp"
#include "sim/cli/scenario_input.hpp"
#include "sim/model/types.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/trace.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/scenario/scenario.hpp"

namespace {

using ckptsim::cli::Limits;
using ckptsim::scenario::LoadResult;
using ckptsim::cli::load;
using ckptsim::cli::report_errors;
using ckptsim::cli::report_warnings;

std::string version_text() {
  std::string flink;
  for (const ckptsim::model::FlinkVersion v : ckptsim::model::kFlinkVersions)
    flink += std::string(flink.empty() ? "" : ", ") + ckptsim::model::to_string(v);
  return std::string("ckptsim ") + CKPTSIM_VERSION + " (git " + CKPTSIM_GIT_COMMIT +
         ")\nmodels Apache Flink " + flink;
}

// `ckptsim help [COMMAND]`: the same text as --help.
int help(const CLI::App& app, const std::string& command) {
  if (command.empty()) {
    // Not app.help(): with a subcommand selected (this one) it prints that subcommand's help.
    std::cout << app.get_formatter()->make_help(&app, "ckptsim", CLI::AppFormatMode::Normal);
    return ckptsim::cli::kExitOk;
  }
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == command) {
      std::cout << sub->help("ckptsim");
      return ckptsim::cli::kExitOk;
    }
  std::cerr << "ckptsim help: error: no command '" << command << "'; run 'ckptsim help'\n";
  return ckptsim::cli::kExitUsage;
}

struct RunOptions {
  std::string scenario_path;
  std::string out_dir = "ckptsim-out";
  std::optional<std::uint64_t> seed;
  std::vector<std::string> sets;
  std::string network;  // --network: a --set of the scenario's `network`
  bool quiet = false;
  bool report = false;
  bool trace = false;
  std::string trace_window;
  std::optional<double> max_wall_seconds;
  bool verbose = false;
  Limits limits;
};

// Progress on stderr once a run has taken a second (a terminal only), and --max-wall.
// `*shown` tells whether a progress line was drawn (and so still needs its newline).
ckptsim::run::RunControl watch(const RunOptions& o, ckptsim::core::SimTime duration,
                               const std::shared_ptr<bool>& shown) {
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  if (!terminal && !o.max_wall_seconds) return {};
  const auto started = std::chrono::steady_clock::now();
  ckptsim::run::RunControl control;
  control.keep_going = [=](ckptsim::core::SimTime now) {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (terminal && wall >= 1.0) {
      const double done = ckptsim::core::to_seconds(now);
      const double all = std::max(ckptsim::core::to_seconds(duration), 1e-9);
      std::fprintf(stderr, "\rckptsim run: simulated %.0f of %.0f s (%.0f %%) in %.0f s wall",
                   done, all, 100.0 * done / all, wall);
      *shown = true;
    }
    return !o.max_wall_seconds || wall < *o.max_wall_seconds;
  };
  return control;
}

int run_command(RunOptions& o) {
  ckptsim::run::TraceOptions trace_options;
  if (!o.trace_window.empty()) {
    o.trace = true;
    const std::size_t dots = o.trace_window.find("..");
    const auto from = dots == std::string::npos
                          ? std::nullopt
                          : ckptsim::scenario::parse_duration(o.trace_window.substr(0, dots));
    const auto to = dots == std::string::npos
                        ? std::nullopt
                        : ckptsim::scenario::parse_duration(o.trace_window.substr(dots + 2));
    if (!from || !to || *to < *from) {
      std::cerr << "ckptsim run: error: --trace-window takes FROM..TO with FROM <= TO, e.g. "
                   "10min..12min, got '"
                << o.trace_window << "'\n";
      return ckptsim::cli::kExitUsage;
    }
    trace_options.from = *from;
    trace_options.to = *to;
  }
  if (!o.network.empty()) o.sets.push_back("network=" + o.network);
  const LoadResult loaded = load(o.scenario_path, o.sets, o.limits);
  if (!loaded.ok()) return report_errors(loaded);
  if (o.verbose) ckptsim::cli::report_notes(loaded);
  report_warnings(loaded);
  if (const auto why = ckptsim::cli::too_big(*loaded.scenario, o.limits)) {
    std::cerr << "ckptsim run: error: " << *why << "\n";
    return ckptsim::cli::kExitTooBig;
  }
  const auto progress_shown = std::make_shared<bool>(false);
  const ckptsim::run::RunResult result = ckptsim::run::run(
      *loaded.scenario, o.seed, watch(o, loaded.scenario->duration, progress_shown));
  if (*progress_shown) std::fputc('\n', stderr);  // after the progress line
  if (result.stopped_early)
    std::cerr << "ckptsim run: stopped by --max-wall at simulated "
              << ckptsim::core::to_seconds(result.end_time)
              << " s; the outputs cover that part of the run (summary.json: stopped_early)\n";
  if (!o.quiet) std::cout << ckptsim::analysis::format_story(result);
  std::string error;
  if (!ckptsim::run::write_outputs(result, o.out_dir, &error)) {
    std::cerr << "ckptsim: error: " << error << "\n";
    return ckptsim::cli::kExitUsage;
  }
  if (o.trace &&
      !ckptsim::cli::write_text_file(o.out_dir + "/trace.json",
                                     ckptsim::run::trace_json(result, trace_options))) {
    std::cerr << "ckptsim: error: cannot write " << o.out_dir << "/trace.json\n";
    return ckptsim::cli::kExitUsage;
  }
  if (o.report && ckptsim::cli::write_run_report(o.out_dir) != 0) return ckptsim::cli::kExitUsage;
  if (!o.quiet)
    std::cout << "outputs written to " << o.out_dir << "/ (jobmanager.log, rest/, summary.json"
              << (o.report ? ", report.html" : "") << (o.trace ? ", trace.json" : "") << ")\n";
  return ckptsim::cli::kExitOk;
}

struct ValidateOptions {
  std::string path;
  std::vector<std::string> sets;
  bool strict = false;
  bool verbose = false;
  Limits limits;
};

int validate_command(const ValidateOptions& o) {
  LoadResult loaded = load(o.path, o.sets, o.limits);
  if (o.strict) {
    for (ckptsim::scenario::Diagnostic& w : loaded.warnings) {
      w.severity = ckptsim::scenario::Diagnostic::Severity::error;
      loaded.diagnostics.push_back(std::move(w));
    }
    loaded.warnings.clear();
  }
  if (!loaded.ok()) return report_errors(loaded);
  if (o.verbose) ckptsim::cli::report_notes(loaded);
  report_warnings(loaded);
  if (const auto why = ckptsim::cli::too_big(*loaded.scenario, o.limits)) {
    std::cerr << o.path << ": error: " << *why << "\n";
    return ckptsim::cli::kExitTooBig;
  }
  std::cout << o.path << ": ok\n";
  return ckptsim::cli::kExitOk;
}

int main_checked(int argc, char** argv, std::string& doing) {
  CLI::App app{"ckptsim: a discrete-event simulator of Apache Flink checkpointing.\n"
               "It replays a scenario (job, Flink configuration, timeline) and tells what Flink "
               "would do.\nExit codes: 0 ok, 1 usage or I/O error, 2 scenario errors, 3 failed "
               "expectations or points, or a real incident diverging from its simulation "
               "(compare --real), 4 too big for --max-memory."};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text());

  RunOptions run;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "Run a scenario (the built-in default one without SCENARIO), print its story and "
             "write jobmanager.log, rest/ and summary.json into --out.");
  run_cmd->add_option("SCENARIO", run.scenario_path, "Scenario file (YAML)");
  run_cmd->add_option("--out", run.out_dir, "Output directory")->capture_default_str();
  run_cmd->add_option("--seed", run.seed, "Random seed (overrides the scenario's seed)")
      ->check(ckptsim::cli::kSeedCheck);
  run_cmd->add_option("--set", run.sets,
                      "Override a value: KEY=VALUE, e.g. execution.checkpointing.timeout=5min")
      ->take_all();
  run_cmd->add_option("--network", run.network,
                      "How the network moves data: exact (every buffer) or hybrid (steady "
                      "periods skipped); overrides the scenario's 'network'")
      ->check(CLI::IsMember({"exact", "hybrid"}));
  run_cmd->add_flag("--quiet,-q", run.quiet, "Do not print the story");
  run_cmd->add_flag("--verbose,-v", run.verbose,
                    "Also list each Flink option accepted without effect on checkpointing");
  run_cmd->add_flag("--report", run.report,
                    "Also write --out/report.html, one self-contained HTML file with charts");
  run_cmd->add_flag("--trace", run.trace,
                    "Also write --out/trace.json (Chrome trace-event format: Perfetto, "
                    "chrome://tracing)");
  run_cmd->add_option("--trace-window", run.trace_window,
                      "FROM..TO: only this span of simulated time in trace.json, e.g. "
                      "10min..12min (implies --trace)");
  run_cmd->add_option("--max-wall", run.max_wall_seconds,
                      "Stop after this many wall-clock seconds and write the outputs of the part "
                      "simulated so far, marked as partial")
      ->check(CLI::PositiveNumber);
  ckptsim::cli::add_limit_options(*run_cmd, run.limits);

  ValidateOptions validate;
  CLI::App* validate_cmd =
      app.add_subcommand("validate", "Check a scenario file and report every error in it.");
  validate_cmd->add_option("SCENARIO", validate.path, "Scenario file (YAML)")->required();
  validate_cmd->add_option("--set", validate.sets, "Override a value: KEY=VALUE")->take_all();
  validate_cmd->add_flag("--strict", validate.strict,
                         "Treat warnings (options that have no effect in the simulation) as "
                         "errors");
  validate_cmd->add_flag("--verbose,-v", validate.verbose,
                         "Also list each Flink option accepted without effect on checkpointing");
  ckptsim::cli::add_limit_options(*validate_cmd, validate.limits);

  std::string help_topic;
  CLI::App* help_cmd = app.add_subcommand("help", "Show the help of ckptsim or of one command.");
  help_cmd->add_option("COMMAND", help_topic, "A command, e.g. run");

  const std::vector<ckptsim::cli::Command> commands = {
      ckptsim::cli::add_test_command(app), ckptsim::cli::add_sweep_command(app),
      ckptsim::cli::add_compare_command(app), ckptsim::cli::add_merge_command(app),
      ckptsim::cli::add_report_command(app), ckptsim::cli::add_serve_command(app),
      ckptsim::cli::add_import_command(app), ckptsim::cli::add_draft_command(app),
      ckptsim::cli::add_advise_command(app)};

  // A first word that is no command gets its own message (CLI11 says "A subcommand is
  // required", which reads as if none was given).
  const auto is_command = [&](const std::string& word) {
    const auto subs = app.get_subcommands({});
    return std::any_of(subs.begin(), subs.end(),
                       [&](const CLI::App* sub) { return sub->get_name() == word; });
  };
  if (argc > 1 && argv[1][0] != '-' && !is_command(argv[1])) {
    std::cerr << "ckptsim: error: unknown command '" << argv[1]
              << "'; the commands are run, validate, test, sweep, compare, merge, report, "
                 "serve, import, draft, advise and help\n";
    return ckptsim::cli::kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version: 0
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message
    return ckptsim::cli::kExitUsage;
  }
  for (const CLI::App* sub : app.get_subcommands()) doing = "running 'ckptsim " + sub->get_name();
  if (!doing.empty()) doing += "'";
  for (const ckptsim::cli::Command& command : commands)
    if (*command.app) return command.run();
  if (*help_cmd) return help(app, help_topic);
  if (*validate_cmd) return validate_command(validate);
  return run_command(run);
}

}  // namespace

int main(int argc, char** argv) {
  std::string doing = "reading the command line";
  // One handler for what no command catches itself, naming what was being done.
  try {
    return main_checked(argc, argv, doing);
  } catch (const std::bad_alloc&) {
    std::cerr << "ckptsim: error: out of memory while " << doing
              << "; lower the scenario's parallelism or duration\n";
    return ckptsim::cli::kExitTooBig;
  } catch (const std::exception& e) {
    std::cerr << "ckptsim: internal error while " << doing << ": " << e.what() << "\n";
    return ckptsim::cli::kExitUsage;
  }
}
