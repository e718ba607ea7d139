// Every REST body ckptsim writes conforms to Flink's 1.20 OpenAPI spec, up to the documented
// differences of the real wire; the checker itself catches what it should.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "sim/run/writers/writers.hpp"
#include "tests/run/openapi_check.hpp"
#include "tests/run/sample_run.hpp"

namespace {

using nlohmann::ordered_json;
using namespace ckptsim;

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  return text;
}

bool mentions(const std::vector<std::string>& violations, const std::string& needle) {
  for (const auto& v : violations) {
    if (v.find(needle) != std::string::npos) return true;
  }
  return false;
}

void check_all_bodies(const run::RunResult& r) {
  INFO("flink " << model::to_string(r.flink_version));
  CHECK(joined(tests::flink_spec().validate(run::rest_overview(r), "ClusterOverviewWithVersion")).empty());
  CHECK(joined(tests::flink_spec().validate(run::rest_jobs_overview(r), "MultipleJobsDetails")).empty());
  CHECK(joined(tests::flink_spec().validate(run::rest_checkpoints(r), "CheckpointingStatistics")).empty());
  CHECK(joined(tests::flink_spec().validate(run::rest_checkpoint_config(r), "CheckpointConfigInfo")).empty());
  for (const auto& c : r.checkpoints) {
    INFO("checkpoint " << c.id);
    CHECK(joined(tests::flink_spec().validate(run::rest_checkpoint_details(r, c), "CheckpointStatistics"))
              .empty());
    for (int v = 0; v < static_cast<int>(r.vertices.size()); ++v) {
      CHECK(joined(tests::flink_spec().validate(run::rest_checkpoint_subtasks(r, c, v),
                                   "TaskCheckpointStatisticsWithSubtaskDetails"))
                .empty());
    }
  }
}

}  // namespace

TEST_CASE("every REST body conforms to Flink's 1.20 OpenAPI spec") {
  run::RunResult r = tests::sample_run();
  check_all_bodies(r);
  r.flink_version = model::FlinkVersion::v2_0;  // adds the 2.x JobDetails fields
  check_all_bodies(r);
  r.checkpoints.clear();  // nulls and "NaN" everywhere
  r.latest_restored.reset();
  r.flink.checkpointing.interval.reset();
  check_all_bodies(r);
}

TEST_CASE("real Flink JSON passes the checker") {
  // reference/real-rest-json 15, 16 and 17 (Flink >= 1.15 archives, exact bytes).
  CHECK(
      joined(
          tests::flink_spec().validate(
              ordered_json::parse(
                  R"({"jobs":[{"jid":"d933fa6c785f0db6dccc6cc05dd43bab","name":"test555","state":"FAILED","start-time":1669348683915,"end-time":1669348702523,"duration":18608,"last-modification":1669348702523,"tasks":{"total":1,"created":0,"scheduled":0,"deploying":0,"running":0,"finished":0,"canceling":0,"canceled":0,"failed":1,"reconciling":0,"initializing":0}}]})"),
              "MultipleJobsDetails"))
          .empty());
  CHECK(
      joined(
          tests::flink_spec().validate(
              ordered_json::parse(
                  R"({"mode":"at_least_once","interval":9223372036854775807,"timeout":600000,"min_pause":0,"max_concurrent":1,"externalization":{"enabled":false,"delete_on_cancellation":true},"state_backend":"HashMapStateBackend","checkpoint_storage":"JobManagerCheckpointStorage","unaligned_checkpoints":false,"tolerable_failed_checkpoints":0,"aligned_checkpoint_timeout":0,"checkpoints_after_tasks_finish":true})"),
              "CheckpointConfigInfo"))
          .empty());
  CHECK(
      joined(
          tests::flink_spec().validate(
              ordered_json::parse(
                  R"({"counts":{"restored":0,"total":0,"in_progress":0,"completed":0,"failed":0},"summary":{"checkpointed_size":{"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"},"state_size":{"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"},"end_to_end_duration":{"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"},"alignment_buffered":{"min":0,"max":0,"avg":0,"p50":0.0,"p90":0.0,"p95":0.0,"p99":0.0,"p999":0.0},"processed_data":{"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"},"persisted_data":{"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"}},"latest":{"completed":null,"savepoint":null,"failed":null,"restored":null},"history":[]})"),
              "CheckpointingStatistics"))
          .empty());
}

TEST_CASE("the schema checker rejects wrong types, unknown fields and bad enums") {
  const run::RunResult r = tests::sample_run();

  ordered_json body = run::rest_checkpoints(r);
  body["counts"]["total"] = "5";
  auto violations = tests::flink_spec().validate(body, "CheckpointingStatistics");
  CHECK(mentions(violations, "$.counts.total: expected integer but got string"));

  body = run::rest_checkpoints(r);
  body["history"][0]["num_subtasks"] = 4.5;
  CHECK(mentions(tests::flink_spec().validate(body, "CheckpointingStatistics"), "$.history[0].num_subtasks"));

  body = run::rest_checkpoints(r);
  body["history"][1]["is_savepoint"] = "false";
  CHECK(mentions(tests::flink_spec().validate(body, "CheckpointingStatistics"),
                 "$.history[1].is_savepoint: expected boolean"));

  body = run::rest_checkpoints(r);
  body["history"][0]["surprise"] = 1;
  CHECK(mentions(tests::flink_spec().validate(body, "CheckpointingStatistics"),
                 "$.history[0].surprise: field not in schema PendingCheckpointStatistics"));

  body = run::rest_checkpoints(r);
  body["history"][0].erase("className");
  CHECK(mentions(tests::flink_spec().validate(body, "CheckpointingStatistics"), "missing discriminator"));

  body = run::rest_checkpoints(r);
  body["history"][0]["className"] = "aborted";
  CHECK(mentions(tests::flink_spec().validate(body, "CheckpointingStatistics"), "unknown className"));

  body = run::rest_checkpoints(r);
  body["latest"]["completed"]["className"] = "failed";
  CHECK(mentions(tests::flink_spec().validate(body, "CheckpointingStatistics"),
                 "is not the type id of CompletedCheckpointStatistics"));

  body = run::rest_checkpoints(r);
  body["history"][2]["status"] = "Failed";
  CHECK(mentions(tests::flink_spec().validate(body, "CheckpointingStatistics"), "\"Failed\" is not one of"));

  body = run::rest_checkpoints(r);
  body["summary"]["state_size"]["p50"] = "1.5";
  CHECK(mentions(tests::flink_spec().validate(body, "CheckpointingStatistics"),
                 "$.summary.state_size.p50: expected number"));

  body = run::rest_checkpoints(r);
  body["counts"]["completed"] = nullptr;
  CHECK(mentions(tests::flink_spec().validate(body, "CheckpointingStatistics"), "null is not allowed"));

  body = run::rest_checkpoint_config(r);
  body["mode"] = "EXACTLY_ONCE";  // the spec's spelling, but not the wire's
  CHECK(mentions(tests::flink_spec().validate(body, "CheckpointConfigInfo"), "is not one of"));

  body = run::rest_jobs_overview(r);
  body["jobs"][0]["jid"] = "not-a-job-id";
  CHECK(mentions(tests::flink_spec().validate(body, "MultipleJobsDetails"), "does not match"));
  body = run::rest_jobs_overview(r);
  body["jobs"][0]["tasks"]["running"] = "4";
  CHECK(mentions(tests::flink_spec().validate(body, "MultipleJobsDetails"), "$.jobs[0].tasks.running"));

  body = run::rest_overview(r);
  body["slots-total"] = std::int64_t{1} << 40;
  CHECK(mentions(tests::flink_spec().validate(body, "ClusterOverviewWithVersion"), "int32 out of range"));

  body = run::rest_checkpoint_subtasks(r, r.checkpoints[0], 0);
  body["subtasks"][0]["checkpoint"]["sync"] = true;
  CHECK(mentions(tests::flink_spec().validate(body, "TaskCheckpointStatisticsWithSubtaskDetails"),
                 "$.subtasks[0].checkpoint.sync: expected integer"));

  // Without the documented wire differences, Flink's own quirks are violations.
  const std::vector<tests::WireDifference> none;
  CHECK(mentions(tests::flink_spec().validate(run::rest_checkpoint_config(r), "CheckpointConfigInfo", none),
                 "\"exactly_once\" is not one of"));
  CHECK(mentions(tests::flink_spec().validate(run::rest_checkpoint_subtasks(r, r.checkpoints[0], 0),
                                 "TaskCheckpointStatisticsWithSubtaskDetails", none),
                 "expected number but got string \"NaN\""));
}

TEST_CASE("check_rest_dir validates a written rest/ directory by path") {
  const run::RunResult r = tests::sample_run();
  const auto dir = std::filesystem::temp_directory_path() / "ckptsim-rest-schema-test";
  std::filesystem::remove_all(dir);
  std::string error;
  REQUIRE(run::write_outputs(r, dir, &error));
  CHECK(joined(tests::check_rest_dir(dir / "rest")).empty());

  CHECK(tests::schema_for_rest_path("jobs/overview.json") == "MultipleJobsDetails");
  CHECK(tests::schema_for_rest_path(std::string("jobs/") + tests::kSampleJobId +
                                    "/checkpoints/details/12/subtasks/" + tests::kSinkId +
                                    ".json") == "TaskCheckpointStatisticsWithSubtaskDetails");
  CHECK_FALSE(tests::schema_for_rest_path("jobs/xyz/checkpoints.json"));

  const auto config = dir / "rest" / "jobs" / tests::kSampleJobId / "checkpoints" / "config.json";
  {
    ordered_json body = run::rest_checkpoint_config(r);
    body["timeout"] = "10 min";
    std::ofstream(config) << body.dump(2) << "\n";
  }
  { std::ofstream(dir / "rest" / "stray.json") << "{}\n"; }
  { std::ofstream(dir / "rest" / "overview.json") << "{\"taskmanagers\": \n"; }
  const auto violations = tests::check_rest_dir(dir / "rest");
  CHECK(mentions(violations, "checkpoints/config.json: $.timeout: expected integer"));
  CHECK(mentions(violations, "stray.json: no schema known for this path"));
  CHECK(mentions(violations, "overview.json: invalid JSON"));
  CHECK(violations.size() == 3);
  std::filesystem::remove_all(dir);
}
