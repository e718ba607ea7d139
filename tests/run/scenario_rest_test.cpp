// End to end: every JSON file a real run writes under rest/ conforms to Flink's 1.20 OpenAPI
// spec, allowing only the documented wire differences (reference/flink-rest.md section 3).
#include <catch2/catch.hpp>

#include <filesystem>

#include "openapi_check.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;

TEST_CASE("the REST files of the stalled-sink and default scenarios match Flink's OpenAPI spec",
          "[e2e][rest]") {
  const auto dir = std::filesystem::temp_directory_path() / "ckptsim-rest-e2e";
  for (const std::string& file : {std::string("scenarios/examples/stalled-sink.yaml"),
                                  std::string("")}) {
    const auto loaded =
        file.empty() ? scenario::load_string(scenario::default_scenario_yaml(), "default.yaml")
                     : scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) + "/" + file);
    REQUIRE(loaded.ok());
    std::filesystem::remove_all(dir);
    const run::RunResult r = run::run(*loaded.scenario);
    std::string error;
    REQUIRE(run::write_outputs(r, dir, &error));
    // A failed, a completed and (stalled sink) an in-progress checkpoint are all written.
    REQUIRE(std::filesystem::exists(dir / "rest" / "jobs" / r.job_id / "checkpoints.json"));
    const auto violations = tests::check_rest_dir(dir / "rest");
    for (const std::string& v : violations) UNSCOPED_INFO(v);
    CHECK(violations.empty());
  }
  std::filesystem::remove_all(dir);
}

// CheckpointCoordinatorTest.testCheckpointStatsUpdatedAfterFailure end to end: in the slow-database
// run the JDBC sinks acknowledge checkpoints that had already expired. Flink records those late
// metrics in the failed checkpoint's statistics
// (DefaultCheckpointStatsTracker.reportIncompleteStats into the FailedCheckpointStats), so REST
// shows each such subtask as "completed" with "aborted": true
// (TaskCheckpointStatisticDetailsHandler: aborted = !isCompleted()), while the acknowledged count
// stays what it was. Its async part runs from its own sync end, not from a later checkpoint's.
TEST_CASE("a late acknowledgement's stats land in the failed checkpoint, aborted, not acknowledged",
          "[e2e][rest]") {
  const auto loaded = scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) +
                                          "/scenarios/examples/jdbc-slow-database.yaml");
  REQUIRE(loaded.ok());
  const run::RunResult r = run::run(*loaded.scenario);
  int late = 0;
  for (const run::CheckpointRecord& c : r.checkpoints) {
    for (std::size_t v = 0; v < c.subtasks.size(); ++v)
      for (const run::SubtaskStats& s : c.subtasks[v]) {
        if (!s.aborted) continue;
        ++late;
        CHECK(c.status == run::CheckpointStatus::failed);
        CHECK_FALSE(s.acknowledged);
        CHECK(s.ack_time > c.end_time);
        CHECK(s.async_duration >= 0);
        CHECK(s.sync_duration + s.async_duration <= s.ack_time - c.trigger_time);
        const auto details = run::rest_checkpoint_subtasks(r, c, static_cast<int>(v));
        bool shown = false;
        for (const auto& sub : details["subtasks"])
          shown |= sub["status"] == "completed" && sub["aborted"] == true;
        CHECK(shown);
        int acknowledged = 0;
        for (const run::SubtaskStats& other : c.subtasks[v]) acknowledged += other.acknowledged;
        CHECK(details["num_acknowledged_subtasks"] == acknowledged);
      }
  }
  CHECK(late > 0);
}
