// A user's real Flink configuration (issue 14 items 9 and 10): every key of Flink's
// configuration reference for the version is accepted (the ones ckptsim models take effect, the
// rest are counted in one warning and listed as notes), --flink-conf / flink-conf: lay a real
// flink-conf.yaml or config.yaml under the scenario's flink block.
#include <catch2/catch.hpp>

#include <string>

#include "sim/scenario/flink_reference.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;
using core::seconds;

namespace {

const std::string kData = std::string(CKPTSIM_SOURCE_DIR) + "/tests/data/flink-conf/";

const std::string kJob =
    "job:\n  vertices:\n    - { name: Source }\n    - { name: Sink, input: Source }\n";

scenario::LoadResult load(const std::string& yaml, const std::vector<std::string>& conf = {},
                          const std::string& name = "conf_test.yaml") {
  scenario::LoadLimits limits;
  limits.flink_conf = conf;
  return scenario::load_string(yaml, name, {}, limits);
}

std::string text(const std::vector<scenario::Diagnostic>& d) {
  return scenario::format_diagnostics(d);
}

}  // namespace

TEST_CASE(
    "a production flink-conf.yaml of 42 keys loads under a scenario: modelled keys take "
    "effect, the scenario's own keys win, the rest are counted once",
    "[flink-conf]") {
  const auto r = load("flink: {version: '1.17', execution.checkpointing.timeout: 2 min}\n" + kJob,
                      {kData + "flink-conf.yaml"});
  INFO(text(r.diagnostics) + text(r.warnings));
  REQUIRE(r.ok());
  const model::Scenario& s = *r.scenario;
  CHECK(s.flink.checkpointing.timeout == core::minutes(2));  // the scenario's
  CHECK(s.flink.checkpointing.interval == seconds(60));      // the file's
  CHECK(s.flink.checkpointing.min_pause == seconds(30));
  CHECK(s.flink.checkpointing.tolerable_failed == 3);
  CHECK(s.flink.checkpointing.num_retained == 3);
  CHECK(s.flink.restart.kind == model::RestartStrategyKind::fixed_delay);
  CHECK(s.flink.restart.fixed_delay_attempts == 10);
  CHECK(s.flink.state_backend == model::StateBackendKind::rocksdb);
  CHECK(s.flink.incremental);
  CHECK(s.cluster.slots_per_taskmanager == 4);            // taskmanager.numberOfTaskSlots
  CHECK(s.job.vertices.front().parallelism == 2);         // parallelism.default
  CHECK(s.cluster.checkpoint_storage.profile == "hdfs");  // from state.checkpoints.dir
  // The TaskManager's memory sizes bound its network buffers (TaskExecutorProcessUtils).
  CHECK(s.flink.memory.process_size == std::int64_t{4096} * 1024 * 1024);
  CHECK(s.flink.memory.network_max == std::int64_t{1024} * 1024 * 1024);
  // One warning counts the keys without effect; one note each names them (--verbose).
  const std::string warnings = text(r.warnings);
  CHECK(warnings.find(std::to_string(r.notes.size()) +
                      " Flink options have no effect on checkpointing and were ignored") !=
        std::string::npos);
  CHECK(r.notes.size() >= 20);
  const std::string notes = text(r.notes);
  for (const char* key : {"'rest.port'", "'jobmanager.memory.process.size'",
                          "'metrics.reporter.prom.port'", "'high-availability.zookeeper.quorum'"})
    CHECK(notes.find(key) != std::string::npos);
  CHECK(notes.find("flink-conf.yaml:") != std::string::npos);  // located in the file
  // cluster.slots-per-taskmanager wins over taskmanager.numberOfTaskSlots.
  const auto both =
      load("cluster: {slots-per-taskmanager: 1}\n" + kJob, {kData + "flink-conf.yaml"});
  REQUIRE(both.ok());
  CHECK(both.scenario->cluster.slots_per_taskmanager == 1);
}

TEST_CASE("flink-conf: a Flink 1.19 config.yaml (nested keys), relative to the scenario file",
          "[flink-conf]") {
  const auto r = load("flink-conf: nested/config.yaml\nflink: {version: '1.19'}\n" + kJob, {},
                      kData + "scenario.yaml");
  INFO(text(r.diagnostics));
  REQUIRE(r.ok());
  CHECK(r.scenario->flink.checkpointing.interval == seconds(30));
  CHECK(r.scenario->flink.checkpointing.timeout == core::minutes(5));
  CHECK(r.scenario->cluster.slots_per_taskmanager == 2);
  // A file that is not there is named, at the key that names it.
  const auto missing = load("flink-conf: nowhere.yaml\n" + kJob, {}, kData + "scenario.yaml");
  CHECK_FALSE(missing.ok());
  CHECK(text(missing.diagnostics)
            .find("scenario.yaml:1:13: error: cannot open Flink "
                  "configuration file") != std::string::npos);
  const auto missing_cli = load(kJob, {kData + "nowhere.yaml"});
  CHECK_FALSE(missing_cli.ok());
  CHECK(text(missing_cli.diagnostics).find("nowhere.yaml: error: cannot open") !=
        std::string::npos);
}

TEST_CASE(
    "Flink's configuration reference per version: documented keys are accepted, keys of "
    "other versions warn, unknown keys are errors with a hint from the reference",
    "[flink-conf]") {
  using scenario::detail::look_up_flink_key;
  using scenario::detail::ReferenceStatus;
  CHECK(look_up_flink_key("rest.port", model::FlinkVersion::v1_17).status ==
        ReferenceStatus::documented);
  CHECK(look_up_flink_key("metrics.reporter.prom.port", model::FlinkVersion::v2_0).status ==
        ReferenceStatus::documented);  // metrics.reporter.<name>.<parameter>
  CHECK(look_up_flink_key("state.backend.type", model::FlinkVersion::v1_17).status ==
        ReferenceStatus::documented);
  // Removed in 2.0 (renamed to ...executing.cooldown-after-rescaling and others).
  const auto removed = look_up_flink_key("jobmanager.adaptive-scheduler.min-parallelism-increase",
                                         model::FlinkVersion::v2_0);
  CHECK(removed.status == ReferenceStatus::other_versions);
  CHECK(std::find(removed.versions.begin(), removed.versions.end(), "1.20") !=
        removed.versions.end());
  CHECK(look_up_flink_key("rest.prot", model::FlinkVersion::v1_17).status ==
        ReferenceStatus::unknown);

  const auto other =
      load("flink: {version: '2.0', jobmanager.adaptive-scheduler.min-parallelism-increase: 1}\n" +
           kJob);
  REQUIRE(other.ok());
  CHECK(text(other.warnings).find("is not in Flink 2.0's configuration reference") !=
        std::string::npos);
  const auto typo = load("flink: {rest.prot: 8081}\n" + kJob);
  CHECK_FALSE(typo.ok());
  CHECK(text(typo.diagnostics).find("did you mean 'rest.port'") != std::string::npos);
}
