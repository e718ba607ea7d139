// `ckptsim serve` as a user runs it, with a real HTTP client over loopback: the seed incident
// unfolds in wall time (a checkpoint IN_PROGRESS, then FAILED, the job RESTARTING, then RUNNING
// again), requests change the running job, hostile input gets its status and nothing else, and
// SIGTERM stops it cleanly.
#include <catch2/catch.hpp>

#include <boost/asio/write.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "http_client.hpp"

using namespace ckptsim::tests;
using nlohmann::json;

namespace {

std::string job_id(unsigned short port) {
  return json::parse(http(port, "GET", "/jobs/overview").body)["jobs"][0]["jid"];
}

// Raw bytes on a fresh connection; what the server answers before it closes.
std::string raw(unsigned short port, const std::string& bytes) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket(io);
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  boost::asio::write(socket, boost::asio::buffer(bytes));
  std::string answer;
  boost::system::error_code ec;
  char chunk[4096];
  for (;;) {
    const std::size_t n = socket.read_some(boost::asio::buffer(chunk), ec);
    if (ec) break;
    answer.append(chunk, n);
  }
  return answer;  // the read ends when the server closes: it did
}

}  // namespace

TEST_CASE("serve: the seed incident unfolds over wall time and SIGTERM stops the server") {
  // The seed with a 20 s checkpoint timeout: checkpoint 3 expires 20 s after its trigger, the
  // job fails over (RESTARTING for the 1 s restart delay) and runs again; at 10x that is seconds.
  ServeProcess serve({std::string(CKPTSIM_SOURCE_DIR) + "/scenarios/seed/doris-cdc-table-swap.yaml",
                      "--speed", "10", "--set", "execution.checkpointing.timeout=20s"});
  REQUIRE(serve.port() != 0);
  const unsigned short port = serve.port();
  const std::string jid = job_id(port);
  std::set<std::string> cp3_seen;
  std::vector<std::string> job_states;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    const json cps = json::parse(http(port, "GET", "/v1/jobs/" + jid + "/checkpoints").body);
    for (const json& c : cps["history"])
      if (c["id"] == 3) cp3_seen.insert(c["status"].get<std::string>());
    const std::string state =
        json::parse(http(port, "GET", "/jobs/overview").body)["jobs"][0]["state"];
    if (job_states.empty() || job_states.back() != state) job_states.push_back(state);
    if (job_states.size() >= 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(cp3_seen.count("IN_PROGRESS") == 1);
  CHECK(cp3_seen.count("FAILED") == 1);
  REQUIRE(job_states.size() >= 3);
  CHECK(job_states[0] == "RUNNING");
  CHECK(job_states[1] == "RESTARTING");
  CHECK(job_states[2] == "RUNNING");
  CHECK(serve.terminate() == 0);
  CHECK(serve.log().find("SIGTERM: stopping") != std::string::npos);
  CHECK(serve.log().find("this machine only") != std::string::npos);  // bound to loopback
}

TEST_CASE("serve: a savepoint and a cancel through the REST API change the running job") {
  ServeProcess serve({std::string(CKPTSIM_SOURCE_DIR) + "/scenarios/examples/kafka-catch-up.yaml",
                      "--speed", "120"});
  REQUIRE(serve.port() != 0);
  const unsigned short port = serve.port();
  const std::string jid = job_id(port);
  // Asked before the tasks run, a savepoint fails (Not all required tasks are currently
  // running), as in Flink: wait for the first completed checkpoint.
  for (int i = 0; i < 500; ++i) {
    const json cps = json::parse(http(port, "GET", "/jobs/" + jid + "/checkpoints").body);
    if (cps["counts"]["completed"].get<int>() > 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const HttpAnswer posted = http(port, "POST", "/jobs/" + jid + "/savepoints", "{}");
  REQUIRE(posted.status == 202);
  const std::string trigger = json::parse(posted.body)["request-id"];
  json status;
  for (int i = 0; i < 500; ++i) {
    status = json::parse(http(port, "GET", "/jobs/" + jid + "/savepoints/" + trigger).body);
    if (status["status"]["id"] == "COMPLETED") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(status["status"]["id"] == "COMPLETED");
  INFO(status.dump());
  REQUIRE(status["operation"].contains("location"));  // not a failure-cause
  const json cps = json::parse(http(port, "GET", "/jobs/" + jid + "/checkpoints").body);
  CHECK(cps["latest"]["savepoint"]["external_path"] == status["operation"]["location"]);
  CHECK(serve.log().find("savepoint requested through the REST API") != std::string::npos);

  CHECK(http(port, "PATCH", "/jobs/" + jid + "?mode=cancel").status == 202);
  std::string state;
  for (int i = 0; i < 500 && state != "CANCELED"; ++i) {
    state = json::parse(http(port, "GET", "/jobs/overview").body)["jobs"][0]["state"];
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(state == "CANCELED");
}

TEST_CASE("serve: malformed and hostile requests get their status, the connection closes, and "
          "nothing outside --web-dir is served") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("serve-web-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "web" / "assets");
  std::ofstream(root / "web" / "index.html") << "<html>dashboard</html>";
  std::ofstream(root / "web" / "assets" / "app.js") << "let x = 1;";
  std::ofstream(root / "secret.txt") << "TOP-SECRET-CONTENT";
  fs::create_symlink(root / "secret.txt", root / "web" / "link.txt");
  ServeProcess serve({std::string(CKPTSIM_SOURCE_DIR) + "/scenarios/examples/kafka-catch-up.yaml",
                      "--speed", "max", "--web-dir", (root / "web").string()});
  REQUIRE(serve.port() != 0);
  const unsigned short port = serve.port();

  const HttpAnswer index = http(port, "GET", "/");
  CHECK(index.status == 200);
  CHECK(index.body == "<html>dashboard</html>");
  CHECK(index.content_type == "text/html; charset=UTF-8");
  CHECK(http(port, "GET", "/assets/app.js").content_type == "application/javascript");
  for (const std::string evil : {"/../secret.txt", "/..%2fsecret.txt", "/assets/..%2f..%2fsecret.txt",
                                 "/%2e%2e/secret.txt", "/link.txt", "/assets/%00x"}) {
    const HttpAnswer a = http(port, "GET", evil);
    INFO(evil);
    CHECK(a.status != 200);
    CHECK(a.body.find("TOP-SECRET-CONTENT") == std::string::npos);
  }
  // The API still answers beside the web app.
  CHECK(http(port, "GET", "/v1/overview").status == 200);

  CHECK(raw(port, "BLAH\r\n\r\n").rfind("HTTP/1.1 400", 0) == 0);
  CHECK(raw(port, "GET / HTTP/1.1\r\nHost: x\r\nX: " + std::string(40000, 'a') + "\r\n\r\n")
            .rfind("HTTP/1.1 431", 0) == 0);
  CHECK(raw(port, "POST /jobs/x/savepoints HTTP/1.1\r\nHost: x\r\nContent-Length: 9999999\r\n\r\n")
            .rfind("HTTP/1.1 413", 0) == 0);
  // A truncated request: the server waits for the rest, then gives up (request timeout) without
  // answering anything but a close; a normal client is served meanwhile.
  CHECK(http(port, "GET", "/overview").status == 200);
  CHECK(serve.terminate() == 0);
  fs::remove_all(root);
}

TEST_CASE("serve --replay answers a real incident imported with `ckptsim import --out`") {
  namespace fs = std::filesystem;
  const fs::path out = fs::temp_directory_path() / ("serve-replay-" + std::to_string(::getpid()));
  fs::remove_all(out);
  const std::string command = std::string(CKPTSIM_BINARY) + " import -q " + CKPTSIM_SOURCE_DIR +
                              "/tests/data/real/07-doris-45965-completed-1.18.1.log --out " +
                              out.string() + " 2>/dev/null";
  REQUIRE(std::system(command.c_str()) == 0);
  ServeProcess serve({"--replay", out.string()});
  REQUIRE(serve.port() != 0);
  const std::string jid = "560d874a798fafe761d41e2b5a33af03";
  const HttpAnswer cps = http(serve.port(), "GET", "/v1/jobs/" + jid + "/checkpoints");
  CHECK(cps.status == 200);
  const json body = json::parse(cps.body);
  CHECK(body["counts"]["completed"] == 2);
  CHECK(body["history"][1]["checkpointed_size"] == 91130);
  CHECK(http(serve.port(), "GET", "/jobs/" + jid).status == 200);
  CHECK(http(serve.port(), "POST", "/jobs/" + jid + "/savepoints", "{}").status == 405);
  CHECK(serve.terminate() == 0);
  fs::remove_all(out);
}

TEST_CASE("serve --replay --speed replays a run's history: a checkpoint IN_PROGRESS, then FAILED") {
  namespace fs = std::filesystem;
  const fs::path out = fs::temp_directory_path() / ("serve-history-" + std::to_string(::getpid()));
  fs::remove_all(out);
  // The seed with a 20 s timeout: checkpoint 3 is in progress for 20 s, then expires.
  const std::string command = std::string(CKPTSIM_BINARY) + " run " + CKPTSIM_SOURCE_DIR +
                              "/scenarios/seed/doris-cdc-table-swap.yaml --set "
                              "execution.checkpointing.timeout=20s --set duration=2min --out " +
                              out.string() + " >/dev/null 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  ServeProcess serve({"--replay", out.string(), "--speed", "10"});
  REQUIRE(serve.port() != 0);
  const std::string jid = job_id(serve.port());
  std::vector<std::string> cp3;  // the statuses checkpoint 3 went through, in order
  std::int64_t total = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    const json cps = json::parse(http(serve.port(), "GET", "/jobs/" + jid + "/checkpoints").body);
    CHECK(cps["counts"]["total"].get<std::int64_t>() >= total);  // the history only grows
    total = cps["counts"]["total"];
    for (const json& c : cps["history"])
      if (c["id"] == 3 && (cp3.empty() || cp3.back() != c["status"])) cp3.push_back(c["status"]);
    if (!cp3.empty() && cp3.back() == "FAILED") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(cp3 == std::vector<std::string>{"IN_PROGRESS", "FAILED"});
  CHECK(http(serve.port(), "PATCH", "/jobs/" + jid + "?mode=cancel").status == 405);
  CHECK(serve.terminate() == 0);
  CHECK(serve.log().find("replaying the history of") != std::string::npos);
  fs::remove_all(out);
}
