// ckptsim serve [SCENARIO] [--speed X|max] [--bind ADDR] [--port N] [--metrics-port N]
//               [--replay OUT_DIR] [--web-dir DIR] [--cors ORIGIN]
#include <cstdlib>
#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/cli/limits.hpp"
#include "sim/cli/scenario_input.hpp"
#include "sim/server/serve.hpp"

namespace ckptsim::cli {

namespace {

struct ServeCommandOptions {
  std::string scenario_path;
  std::vector<std::string> sets;
  std::string speed;  // empty: 1 for a scenario; for --replay, the final state
  std::string replay;
  server::ServeOptions serve;
  Limits limits;
  int max_connections = 1024;
};

int run_serve(ServeCommandOptions& o) {
  // --replay with --speed replays the run's history over wall time; without, its final state.
  o.serve.replay_over_time = !o.replay.empty() && !o.speed.empty() && o.speed != "max";
  if (o.speed.empty()) o.speed = "1";
  if (o.speed == "max") {
    o.serve.speed = 0;
  } else {
    char* end = nullptr;
    const double speed = std::strtod(o.speed.c_str(), &end);
    if (end == o.speed.c_str() || *end != '\0' || !(speed > 0) || speed > 1e9) {
      std::cerr << "ckptsim serve: error: --speed takes a positive factor (60 = one simulated "
                   "minute per second) or 'max', got '"
                << o.speed << "'\n";
      return kExitUsage;
    }
    o.serve.speed = speed;
  }
  o.serve.limits.max_connections = o.max_connections;
  if (!o.replay.empty()) {
    if (!o.scenario_path.empty()) {
      std::cerr << "ckptsim serve: error: give a SCENARIO or --replay OUT_DIR, not both\n";
      return kExitUsage;
    }
    return server::serve_replay(o.replay, o.serve, std::cerr) == 0 ? kExitOk : kExitUsage;
  }
  const scenario::LoadResult loaded = load(o.scenario_path, o.sets, o.limits);
  if (!loaded.ok()) return report_errors(loaded);
  report_warnings(loaded);
  if (const auto why = too_big(*loaded.scenario, o.limits)) {
    std::cerr << "ckptsim serve: error: " << *why << "\n";
    return kExitTooBig;
  }
  return server::serve(*loaded.scenario, o.serve, std::cerr) == 0 ? kExitOk : kExitUsage;
}

}  // namespace

Command add_serve_command(CLI::App& app) {
  auto o = std::make_shared<ServeCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Run a scenario in scaled wall time behind Flink's REST API and Prometheus endpoint, so "
      "tools that watch Flink can watch the incident unfold (Ctrl-C to stop).");
  cmd->add_option("SCENARIO", o->scenario_path,
                  "Scenario file (YAML); the built-in default scenario without it");
  cmd->add_option("--set", o->sets, "Override a value: KEY=VALUE")->take_all();
  cmd->add_option("--seed", o->serve.seed, "Random seed (overrides the scenario's seed)")
      ->check(kSeedCheck);
  cmd->add_option("--speed", o->speed,
                  "Simulated seconds per wall second (60: a minute per second), or 'max': run "
                  "to the end at once and serve the final state (default 1; with --replay, "
                  "replay the run's history at this speed instead of serving its final state)");
  cmd->add_option("--bind", o->serve.bind,
                  "Address to listen on (127.0.0.1: this machine only; 0.0.0.0: every "
                  "interface)")
      ->capture_default_str();
  cmd->add_option("--port", o->serve.port, "REST port (Flink's rest.port; 0: any free port)")
      ->capture_default_str();
  cmd->add_option("--metrics-port", o->serve.metrics_port,
                  "Also serve Prometheus /metrics on this port, as Flink's PrometheusReporter "
                  "does (9249 is its default)");
  cmd->add_option("--replay", o->replay,
                  "Serve the rest/ files of a finished run's --out directory (or of `ckptsim "
                  "import --out`) instead of running; with --speed, its history over time");
  cmd->add_option("--web-dir", o->serve.web_dir,
                  "Serve a static web application from DIR at / (e.g. the web dashboard of a "
                  "Flink distribution)");
  cmd->add_option("--cors", o->serve.cors_origin,
                  "Send Access-Control-Allow-Origin: ORIGIN (no CORS headers without it)");
  cmd->add_option("--max-connections", o->max_connections,
                  "Open connections beyond this are answered 503")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_flag("--exit-when-finished", o->serve.exit_when_finished,
                "Stop once the scenario's duration is over (scripts, tests)");
  add_limit_options(*cmd, o->limits);
  return {cmd, [o] { return run_serve(*o); }};
}

}  // namespace ckptsim::cli
