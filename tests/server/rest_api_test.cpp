// The REST layer of `ckptsim serve` without sockets: the same bytes as `ckptsim run`'s rest/
// files, Flink's error bodies and status codes, and the operations handed to the simulation.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/run/live_run.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/server/rest_api.hpp"

using namespace ckptsim;
namespace fs = std::filesystem;

namespace {

model::Scenario load(const std::string& relative, const std::vector<std::string>& sets = {}) {
  const auto loaded =
      scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) + "/" + relative, sets);
  REQUIRE(loaded.ok());
  return *loaded.scenario;
}

struct Served {
  explicit Served(const model::Scenario& s, core::SimTime until = -1) : live(s, 1) {
    live.advance(until < 0 ? live.duration() : until);
    auto snapshot = std::make_shared<server::Snapshot>();
    snapshot->result = live.snapshot();
    snapshot->finished = live.finished();
    store.publish(snapshot);
  }
  server::HttpResponse get(const std::string& target) const {
    return api.handle({"GET", target, ""});
  }
  const std::string& jid() const { return store.latest()->result.job_id; }
  run::LiveRun live;
  server::SnapshotStore store;
  server::RequestQueue requests;
  server::RestApi api{store, requests};
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string errors_body(const std::string& message) {
  return "{\n  \"errors\": [\n    \"" + message + "\"\n  ]\n}\n";
}

}  // namespace

TEST_CASE("serve answers every rest/ file of the same run byte for byte, with and without /v1") {
  Served served(load("scenarios/seed/doris-cdc-table-swap.yaml"));
  const fs::path dir = fs::temp_directory_path() / ("serve-files-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::string error;
  REQUIRE(run::write_outputs(served.store.latest()->result, dir, &error));
  int compared = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "rest")) {
    if (!e.is_regular_file()) continue;
    std::string url = "/" + fs::relative(e.path(), dir / "rest").generic_string();
    url.resize(url.size() - 5);  // ".json"
    const std::string expected = read(e.path());
    for (const std::string prefix : {"", "/v1"}) {
      const server::HttpResponse r = served.get(prefix + url);
      INFO(prefix + url);
      CHECK(r.status == 200);
      CHECK(r.content_type == "application/json; charset=UTF-8");
      CHECK(r.body == expected);
    }
    ++compared;
  }
  CHECK(compared > 20);
  fs::remove_all(dir);
}

TEST_CASE("serve answers Flink's error bodies and status codes") {
  Served served(load("scenarios/seed/doris-cdc-table-swap.yaml"), core::minutes(5));
  const std::string jid = served.jid();
  auto r = served.get("/no/such/path");
  CHECK(r.status == 404);
  CHECK(r.body == errors_body("Not found: /no/such/path"));  // RouterHandler
  r = served.get("/jobs/ffffffffffffffffffffffffffffffff/checkpoints");
  CHECK(r.status == 404);
  CHECK(r.body == errors_body("Job ffffffffffffffffffffffffffffffff not found"));
  r = served.get("/jobs/not-a-job-id/checkpoints");
  CHECK(r.status == 400);
  CHECK(r.body.find("Cannot resolve path parameter (jobid)") != std::string::npos);
  r = served.get("/jobs/" + jid + "/checkpoints/details/999");
  CHECK(r.status == 404);
  CHECK(r.body == errors_body("Could not find checkpointing statistics for checkpoint 999."));
  r = served.get("/jobs/" + jid + "/checkpoints/details/x1");
  CHECK(r.status == 400);
  r = served.get("/jobs/" + jid + "/vertices/ffffffffffffffffffffffffffffffff");
  CHECK(r.status == 404);
  CHECK(r.body == errors_body("No vertex with ID 'ffffffffffffffffffffffffffffffff' exists."));
  CHECK(served.get("/jobs/" + jid + "/exceptions?maxExceptions=x").status == 400);
  CHECK(served.get("/jobs/" + jid + "/exceptions?maxExceptions=5").status == 200);
  // The metric handlers answer [] for what they hold nothing of.
  r = served.get("/jobs/" + jid + "/vertices/ffffffffffffffffffffffffffffffff/metrics");
  CHECK(r.status == 200);
  CHECK(r.body == "[]\n");
  r = served.api.handle({"DELETE", "/v1/jobs/overview", ""});
  CHECK(r.status == 405);
  CHECK(r.allow == "GET");
  r = served.api.handle({"GET", "/jobs/%zz", ""});
  CHECK(r.status == 400);
}

TEST_CASE("serve hands a savepoint to the simulation thread under a trigger id and reports it") {
  Served served(load("scenarios/examples/kafka-catch-up.yaml"), core::minutes(2));
  const std::string jid = served.jid();
  auto r = served.api.handle({"POST", "/jobs/" + jid + "/savepoints", "{\"cancel-job\":false}"});
  REQUIRE(r.status == 202);
  const auto trigger = nlohmann::json::parse(r.body).at("request-id").get<std::string>();
  CHECK(trigger.size() == 32);
  // Not yet carried out: IN_PROGRESS, as Flink answers while the operation runs.
  r = served.get("/jobs/" + jid + "/savepoints/" + trigger);
  CHECK(r.status == 200);
  CHECK(nlohmann::json::parse(r.body) ==
        nlohmann::json::parse(R"({"status":{"id":"IN_PROGRESS"},"operation":null})"));
  // The simulation thread's part (serve's Pacer): take the request, run on, publish.
  const auto pending = served.requests.take();
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].action.kind == model::ActionKind::trigger_savepoint);
  const std::uint64_t id = served.live.request(pending[0].action);
  served.live.advance(core::minutes(4));
  auto snapshot = std::make_shared<server::Snapshot>();
  snapshot->result = served.live.snapshot();
  snapshot->operations[trigger] = {trigger, pending[0].action.kind, served.live.operation(id)};
  served.store.publish(snapshot);
  const auto done = nlohmann::json::parse(served.get("/jobs/" + jid + "/savepoints/" + trigger).body);
  CHECK(done["status"]["id"] == "COMPLETED");
  CHECK(done["operation"]["location"].get<std::string>().find("savepoint-") != std::string::npos);
  // Unknown trigger ids, and a checkpoint trigger id asked of the savepoint route.
  r = served.get("/jobs/" + jid + "/savepoints/00000000000000000000000000000000");
  CHECK(r.status == 404);
  CHECK(r.body.find("There is no savepoint operation with triggerId=") != std::string::npos);
  // Bodies Flink would not parse, and options ckptsim does not model, are refused.
  CHECK(served.api.handle({"POST", "/jobs/" + jid + "/savepoints", "{nope"}).status == 400);
  CHECK(served.api.handle({"POST", "/jobs/" + jid + "/savepoints", R"({"cancel-job":true})"})
            .status == 400);
  CHECK(served.api.handle({"PATCH", "/jobs/" + jid + "?mode=stop", ""}).status == 400);
  CHECK(served.api.handle({"PATCH", "/jobs/" + jid + "?mode=cancel", ""}).status == 202);
}

// FLINK-27101 (commit 5d66e82915e) added CheckpointHandlers.CheckpointTriggerHandler, which
// WebMonitorEndpoint registers on release-1.17; release-1.15/-1.16 have no such route.
TEST_CASE("WebMonitorEndpoint: POST /jobs/:jid/checkpoints exists from Flink 1.17 (FLINK-27101)") {
  for (const char* version : {"1.15", "1.16", "1.17", "1.18", "1.19", "2.1"}) {
    INFO("flink " << version);
    Served served(load("scenarios/examples/kafka-catch-up.yaml",
                       {std::string("flink.version=") + version}),
                  core::minutes(2));
    const std::string path = "/jobs/" + served.jid() + "/checkpoints";
    const auto r = served.api.handle({"POST", path, ""});
    const bool exists = std::string(version) >= "1.17";
    CHECK(r.status == (exists ? 202 : 404));
    if (!exists) CHECK(r.body == errors_body("Not found: " + path));
  }
}
