// libFuzzer target: raw bytes as an HTTP request through what `ckptsim serve` does with them:
// Beast's parser with the server's limits, then serve's handler (the REST API over a finished
// run's snapshot, then --web-dir). Besides crashes and sanitizer reports it checks that the
// answer's status is one the server documents and that no file outside the web directory (a
// secret beside it, reachable by "..", "%2e%2e", "..%2f" or a symbolic link) is ever served.
#include <utility>  // before Asio (ARCHITECTURE.md)

#include <boost/beast/http.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string_view>

#include "sim/run/live_run.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/server/http_server.hpp"
#include "sim/server/rest_api.hpp"
#include "sim/server/serve.hpp"
#include "sim/server/static_files.hpp"

namespace {

namespace fs = std::filesystem;
namespace http = boost::beast::http;
using namespace ckptsim;

constexpr const char* kSecret = "ckptsim-fuzz-secret-content";

struct World {
  World() {
    const fs::path root = fs::temp_directory_path() / "ckptsim-http-fuzz";
    fs::remove_all(root);
    fs::create_directories(root / "web" / "assets");
    std::ofstream(root / "web" / "index.html") << "<html></html>";
    std::ofstream(root / "web" / "assets" / "app.js") << "1;";
    std::ofstream(root / "secret.txt") << kSecret;
    fs::create_symlink(root / "secret.txt", root / "web" / "escape.txt");
    web.emplace(root / "web");
    const auto loaded = scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) +
                                            "/scenarios/examples/timer-burst.yaml");
    if (!loaded.ok()) __builtin_trap();
    run::LiveRun live(*loaded.scenario, 1);
    live.advance(core::minutes(2));  // a few checkpoints: bodies stay cheap to build
    auto snapshot = std::make_shared<server::Snapshot>();
    snapshot->result = live.snapshot();
    store.publish(snapshot);
    handler = server::make_handler(api, web);
  }
  server::SnapshotStore store;
  server::RequestQueue requests;
  server::RestApi api{store, requests};
  std::optional<server::StaticFiles> web;
  server::HttpServer::Handler handler;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static World world;
  const server::ServerLimits limits;
  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(limits.header_bytes));
  parser.body_limit(limits.body_bytes);
  parser.eager(true);
  boost::beast::error_code ec;
  parser.put(boost::asio::buffer(data, size), ec);
  if (!ec && !parser.is_done()) parser.put_eof(ec);
  if (ec || !parser.is_done()) return 0;  // the server answers 400/431/413 and closes
  const auto& req = parser.get();
  const server::HttpResponse r = world.handler(
      {std::string(req.method_string()), std::string(req.target()), req.body()});
  static const std::set<unsigned> documented = {200, 202, 400, 404, 405, 503};
  if (documented.count(r.status) == 0) __builtin_trap();
  // The secret may only come back if the request itself carried it (a 404 or 405 echoes the path
  // or the method).
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (r.body.find(kSecret) != std::string::npos && input.find(kSecret) == std::string_view::npos)
    __builtin_trap();
  // Requests stay queued for a simulation thread that never comes: keep memory bounded.
  (void)world.requests.take();
  return 0;
}
