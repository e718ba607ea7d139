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
