// `ckptsim serve`: a run paced in wall time (or replayed from a finished run's outputs) behind
// Flink's REST API and Prometheus endpoint.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "sim/model/config.hpp"
#include "sim/server/http_server.hpp"

namespace ckptsim::server {

struct ServeOptions {
  double speed = 1.0;                 // simulated seconds per wall second; <= 0: as fast as it can
  std::string bind = "127.0.0.1";
  unsigned short port = 8081;         // Flink's rest.port; 0 = any free port
  std::optional<unsigned short> metrics_port;  // Prometheus on its own port too (9249 is Flink's)
  std::string web_dir;                // static web app at "/" (empty: none)
  std::string cors_origin;            // Access-Control-Allow-Origin (empty: no CORS headers)
  std::optional<std::uint64_t> seed;
  ServerLimits limits;
  double publish_interval_s = 0.05;   // how often a moving run publishes a new snapshot
  bool exit_when_finished = false;    // stop serving once the scenario's duration is over
  // The run keeps its time series bounded (run/retention.hpp): rows older than this are merged
  // (the answers do not change). 0: keep every row.
  core::Duration retention = core::minutes(10);
  // --replay: serve the run's history over wall time at `speed` (read back from its
  // jobmanager.log and REST files), instead of its final rest/ files.
  bool replay_over_time = false;
};

class RestApi;
class StaticFiles;
// The request handler of `serve`: the API, then the static web app (if any), else Flink's 404.
HttpServer::Handler make_handler(const RestApi& api, const std::optional<StaticFiles>& web);

// Serves `scenario` live until SIGINT/SIGTERM (or, with exit_when_finished, its end); logs to
// `log`. Returns the process exit code (cli/limits.hpp).
int serve(const model::Scenario& scenario, const ServeOptions& options, std::ostream& log);

// Serves the rest/ files of a finished run's output directory (`ckptsim run --out DIR`) at the
// URLs they mirror, read-only.
int serve_replay(const std::string& out_dir, const ServeOptions& options, std::ostream& log);

}  // namespace ckptsim::server
