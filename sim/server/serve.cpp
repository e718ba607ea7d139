#include "sim/server/serve.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <thread>

#include "analysis/import/import.hpp"
#include "sim/run/live_run.hpp"
#include "sim/run/result_at.hpp"
#include "sim/server/static_files.hpp"
#include "sim/server/url.hpp"

namespace ckptsim::server {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

std::string clock_text(core::SimTime t) {
  const std::int64_t s = t / core::kSecond;
  char text[32];
  std::snprintf(text, sizeof text, "%02lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  return text;
}

std::string fmt_speed(double speed) {
  char text[32];
  std::snprintf(text, sizeof text, "%gx", speed);
  return text;
}

const char* kind_name(model::ActionKind k) {
  switch (k) {
    case model::ActionKind::trigger_savepoint: return "savepoint";
    case model::ActionKind::stop_with_savepoint: return "stop with savepoint";
    case model::ActionKind::trigger_checkpoint: return "checkpoint";
    case model::ActionKind::cancel: return "cancel";
    default: return "action";
  }
}

// The simulation thread: paces the run, carries out the API's requests, publishes snapshots.
class Pacer {
 public:
  Pacer(const model::Scenario& scenario, const ServeOptions& o, SnapshotStore& store,
        RequestQueue& requests, std::ostream& log)
      : live_(scenario, o.seed), options_(o), store_(store), requests_(requests), log_(log) {
    live_.set_retention(o.retention);
    publish();
  }

  void run(const std::atomic<bool>& stop) {
    const Clock::time_point wall0 = Clock::now();
    Clock::time_point published = wall0;
    bool announced = false;
    while (!stop) {
      const bool acted = carry_out_requests();
      const core::SimTime target =
          options_.speed <= 0
              ? live_.duration()
              : static_cast<core::SimTime>(
                    std::chrono::duration<double>(Clock::now() - wall0).count() *
                    options_.speed * static_cast<double>(core::kSecond));
      const core::SimTime before = live_.now();
      const bool reached = live_.advance(target, 1u << 16);
      const bool due = Clock::now() - published >=
                       std::chrono::duration<double>(options_.publish_interval_s);
      const bool moved = live_.now() != before || acted;
      // A snapshot copies the run so far: at most one per publish interval, and the last.
      if (moved && (due || live_.finished())) {
        publish();
        published = Clock::now();
      }
      if (live_.finished() && !announced) {
        if (!moved) publish();
        announced = true;
        log_ << "ckptsim serve: the scenario's " << clock_text(live_.duration())
             << " are over; serving the final state (Ctrl-C to stop)" << std::endl;
        if (options_.exit_when_finished) return;
      }
      if (reached) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

 private:
  bool carry_out_requests() {
    bool any = false;
    for (PendingRequest& p : requests_.take()) {
      const std::uint64_t id = live_.request(p.action);
      operations_[p.trigger_id] = {p.trigger_id, p.action.kind, {}};
      ids_[p.trigger_id] = id;
      log_ << "ckptsim serve: " << kind_name(p.action.kind) << " requested through the REST API "
           << "at simulated " << clock_text(live_.now()) << " (trigger id " << p.trigger_id
           << ")" << std::endl;
      any = true;
    }
    return any;
  }

  void publish() {
    auto s = std::make_shared<Snapshot>();
    s->result = live_.snapshot();
    s->finished = live_.finished();
    for (auto& [trigger, op] : operations_) {
      op.status = live_.operation(ids_[trigger]);
      s->operations[trigger] = op;
    }
    store_.publish(std::move(s));
  }

  run::LiveRun live_;
  const ServeOptions& options_;
  SnapshotStore& store_;
  RequestQueue& requests_;
  std::ostream& log_;
  std::map<std::string, Operation> operations_;
  std::map<std::string, std::uint64_t> ids_;
};

struct Listening {
  std::unique_ptr<HttpServer> api;
  std::unique_ptr<HttpServer> metrics;
};

// Binds the API (and the metrics port); logs where, and says so when it is not loopback.
std::optional<Listening> listen(asio::io_context& io, const ServeOptions& o,
                                const HttpServer::Handler& handler, std::ostream& log) {
  boost::system::error_code ec;
  const asio::ip::address address = asio::ip::make_address(o.bind, ec);
  if (ec) {
    log << "ckptsim serve: error: --bind " << o.bind << " is not an IP address\n";
    return std::nullopt;
  }
  Listening l;
  try {
    l.api = std::make_unique<HttpServer>(io, tcp::endpoint(address, o.port), handler, o.limits,
                                         o.cors_origin);
    if (o.metrics_port) {
      // The reporter's port answers /metrics only (PrometheusReporter's HTTPServer).
      auto metrics_only = [handler](const HttpRequest& r) {
        if (split_target(r.target).first != "/metrics")
          return error_response(404, "Not found: " + r.target);
        return handler(r);
      };
      l.metrics = std::make_unique<HttpServer>(io, tcp::endpoint(address, *o.metrics_port),
                                               metrics_only, o.limits, o.cors_origin);
    }
  } catch (const boost::system::system_error& e) {
    log << "ckptsim serve: error: cannot listen on " << o.bind << ": " << e.code().message()
        << " (another server on the port? choose one with --port)\n";
    return std::nullopt;
  }
  log << "ckptsim serve: listening on http://" << o.bind << ":" << l.api->port()
      << (address.is_loopback() ? " (this machine only; --bind 0.0.0.0 to open it to the network)"
                                : " (open to the network)");
  if (l.metrics) log << "; Prometheus metrics on port " << l.metrics->port();
  log << std::endl;
  return l;
}

// Listens, runs `work` (what publishes the snapshots) on this thread while the API answers on
// another, and stops gracefully on SIGINT/SIGTERM (no new connections; responses being written
// finish; a second later the connections still open, idle keep-alive ones, are dropped) or,
// with --exit-when-finished, once `work` returns.
int serve_until_stopped(const ServeOptions& o, const HttpServer::Handler& handler,
                        std::ostream& log,
                        const std::function<void(const std::atomic<bool>& stop)>& work) {
  asio::io_context io(1);
  auto listening = listen(io, o, handler, log);
  if (!listening) return 1;
  std::atomic<bool> stop{false};
  asio::signal_set signals(io, SIGINT, SIGTERM);
  asio::steady_timer grace(io);
  auto shut_down = [&] {
    stop = true;
    listening->api->stop();
    if (listening->metrics) listening->metrics->stop();
    signals.cancel();
    grace.expires_after(std::chrono::seconds(1));
    grace.async_wait([&io](const boost::system::error_code&) { io.stop(); });
  };
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    log << "ckptsim serve: " << (signal == SIGINT ? "SIGINT" : "SIGTERM") << ": stopping"
        << std::endl;
    shut_down();
  });
  std::thread io_thread([&io] { io.run(); });
  work(stop);
  if (!stop && o.exit_when_finished) asio::post(io, shut_down);
  io_thread.join();
  return 0;
}

}  // namespace

HttpServer::Handler make_handler(const RestApi& api, const std::optional<StaticFiles>& web) {
  return [&api, &web](const HttpRequest& request) {
    const auto [raw_path, query] = split_target(request.target);
    const auto path = percent_decode(raw_path);
    if (web && path && !RestApi::is_api_path(*path)) {
      if (request.method != "GET") {
        HttpResponse r = error_response(405, "Method " + request.method + " is not allowed.");
        r.allow = "GET";
        return r;
      }
      if (auto file = web->serve(*path)) return *file;
      return error_response(404, "Not found: " + raw_path);
    }
    return api.handle(request);
  };
}

int serve(const model::Scenario& scenario, const ServeOptions& o, std::ostream& log) {
  SnapshotStore store;
  RequestQueue requests;
  std::optional<StaticFiles> web;
  if (!o.web_dir.empty()) {
    try {
      web.emplace(o.web_dir);
    } catch (const std::exception& e) {
      log << "ckptsim serve: error: " << e.what() << "\n";
      return 1;
    }
  }
  Pacer pacer(scenario, o, store, requests, log);
  RestApi api(store, requests);
  return serve_until_stopped(o, make_handler(api, web), log, [&](const std::atomic<bool>& stop) {
    log << "ckptsim serve: simulating '" << scenario.name << "' ("
        << clock_text(scenario.duration) << ") at "
        << (o.speed <= 0 ? std::string("full speed") : fmt_speed(o.speed)) << std::endl;
    pacer.run(stop);
  });
}

namespace {

// What `ckptsim import` reads back from an output directory: its jobmanager.log, the job's
// details (vertices) and its checkpointing configuration.
std::optional<run::RunResult> read_run(const std::string& out_dir, std::ostream& log) {
  std::vector<std::string> files = {(fs::path(out_dir) / "jobmanager.log").string()};
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(out_dir) / "rest" / "jobs", ec)) {
    if (e.path().extension() != ".json" || e.path().stem().string().size() != 32) continue;
    files.push_back(e.path().string());
    const fs::path config = e.path().parent_path() / e.path().stem() / "checkpoints" / "config.json";
    if (fs::exists(config, ec)) files.push_back(config.string());
  }
  std::string error;
  auto imported = analysis::import_files(files, error);
  if (!imported) {
    log << "ckptsim serve: error: cannot replay " << out_dir << ": " << error << "\n";
    return std::nullopt;
  }
  return std::move(imported->result);
}

// Publishes the run as it stood at each instant of scaled wall time, then its last state.
void replay_history(const run::RunResult& full, const ServeOptions& o, SnapshotStore& store,
                    const std::atomic<bool>& stop) {
  const Clock::time_point wall0 = Clock::now();
  for (bool finished = false; !finished && !stop;) {
    const auto t = static_cast<core::SimTime>(
        std::chrono::duration<double>(Clock::now() - wall0).count() * o.speed *
        static_cast<double>(core::kSecond));
    finished = t >= full.end_time;
    auto s = std::make_shared<Snapshot>();
    s->result = run::result_at(full, t);
    s->finished = finished;
    store.publish(std::move(s));
    std::this_thread::sleep_for(std::chrono::duration<double>(o.publish_interval_s));
  }
}

int serve_history(const std::string& out_dir, const ServeOptions& o, std::ostream& log) {
  const auto full = read_run(out_dir, log);
  if (!full) return 1;
  SnapshotStore store;
  RequestQueue requests;  // nobody takes from it: a replay answers GET only
  std::optional<StaticFiles> web;
  if (!o.web_dir.empty()) web.emplace(o.web_dir);
  RestApi api(store, requests);
  const HttpServer::Handler api_handler = make_handler(api, web);
  auto handler = [&api_handler](const HttpRequest& request) {
    if (request.method != "GET") {
      HttpResponse r = error_response(405, "A replayed run answers GET only.");
      r.allow = "GET";
      return r;
    }
    return api_handler(request);
  };
  auto first = std::make_shared<Snapshot>();
  first->result = run::result_at(*full, 0);
  store.publish(std::move(first));
  return serve_until_stopped(o, handler, log, [&](const std::atomic<bool>& stop) {
    log << "ckptsim serve: replaying the history of " << out_dir << " ("
        << clock_text(full->end_time) << ") at " << fmt_speed(o.speed) << std::endl;
    replay_history(*full, o, store, stop);
    if (!stop)
      log << "ckptsim serve: the replay is over; serving its last state (Ctrl-C to stop)"
          << std::endl;
  });
}

}  // namespace

int serve_replay(const std::string& out_dir, const ServeOptions& o, std::ostream& log) {
  if (o.replay_over_time) return serve_history(out_dir, o, log);
  const fs::path rest = fs::path(out_dir) / "rest";
  std::error_code ec;
  if (!fs::is_directory(rest, ec)) {
    log << "ckptsim serve: error: " << out_dir
        << " holds no rest/ directory; give the --out directory of a `ckptsim run`\n";
    return 1;
  }
  const StaticFiles files(rest);
  std::optional<StaticFiles> web;
  if (!o.web_dir.empty()) web.emplace(o.web_dir);
  // The API path P is the file rest/P.json (the layout write_outputs documents).
  auto handler = [&files, &web](const HttpRequest& request) {
    const auto [raw_path, query] = split_target(request.target);
    auto path = percent_decode(raw_path).value_or("");
    std::vector<std::string> segments = split_path(path);
    if (!segments.empty() && segments.front() == "v1") segments.erase(segments.begin());
    std::string file;
    for (const std::string& s : segments) file += "/" + s;
    if (request.method == "GET" && !file.empty()) {
      if (auto found = files.serve(file + ".json")) {
        found->content_type = "application/json; charset=UTF-8";
        return *found;
      }
    }
    if (web && request.method == "GET")
      if (auto page = web->serve(path)) return *page;
    if (request.method != "GET") {
      HttpResponse r = error_response(405, "A replayed run answers GET only.");
      r.allow = "GET";
      return r;
    }
    return error_response(404, "Not found: " + raw_path);
  };
  return serve_until_stopped(o, handler, log, [&](const std::atomic<bool>&) {
    log << "ckptsim serve: replaying " << out_dir << std::endl;
  });
}

}  // namespace ckptsim::server
