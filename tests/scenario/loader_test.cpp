// Tests of YAML -> model::Scenario: Flink keys (flat and nested), version defaults, the job and
// timeline, overlays (base + set), --set overrides, diagnostics format, and the default scenario.
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/scenario/scenario.hpp"
#include "tests/support/files.hpp"

namespace {

using namespace ckptsim;
using scenario::load_string;
using scenario::LoadResult;

const char* const kMinimalJob = "job:\n  vertices:\n    - name: Source\n";

model::Scenario load_ok(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  const LoadResult result = load_string(yaml, "test.yaml", overrides);
  INFO(scenario::format_diagnostics(result.diagnostics));
  REQUIRE(result.ok());
  return *result.scenario;
}

std::string errors_of(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  const LoadResult result = load_string(yaml, "test.yaml", overrides);
  CHECK_FALSE(result.ok());
  CHECK_FALSE(result.scenario.has_value());
  return scenario::format_diagnostics(result.diagnostics);
}

// A scratch directory for overlay files, removed at the end of the test.
class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / "ckptsim-scenario-test") {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string write(const std::string& name, const std::string& text) const {
    const auto file = path_ / name;
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace

TEST_CASE("flat and nested Flink keys give the same configuration") {
  const model::Scenario flat = load_ok(std::string(R"(
flink:
  version: "1.19"
  execution.checkpointing.interval: 3 min
  execution.checkpointing.timeout: 5 min
  execution.checkpointing.min-pause: 10 s
  execution.checkpointing.unaligned.enabled: true
  restart-strategy.type: fixed-delay
  restart-strategy.fixed-delay.attempts: 3
)") + kMinimalJob);
  const model::Scenario nested = load_ok(std::string(R"(
flink:
  version: "1.19"
  execution:
    checkpointing:
      interval: 3 min
      timeout: 5 min
      min-pause: 10 s
      unaligned: { enabled: true }
  restart-strategy:
    type: fixed-delay
    fixed-delay.attempts: 3
)") + kMinimalJob);
  for (const model::Scenario* s : {&flat, &nested}) {
    CHECK(s->flink.version == model::FlinkVersion::v1_19);
    CHECK(s->flink.checkpointing.interval == core::minutes(3));
    CHECK(s->flink.checkpointing.timeout == core::minutes(5));
    CHECK(s->flink.checkpointing.min_pause == core::seconds(10));
    CHECK(s->flink.checkpointing.unaligned);
    CHECK(s->flink.restart.kind == model::RestartStrategyKind::fixed_delay);
    CHECK(s->flink.restart.fixed_delay_attempts == 3);
  }
}

TEST_CASE("Flink 1.17 defaults to fixed-delay restarts with unlimited attempts every second") {
  const model::Scenario s =
      load_ok(std::string("flink:\n  execution.checkpointing.interval: 1 min\n") + kMinimalJob);
  CHECK(s.flink.version == model::FlinkVersion::v1_17);
  CHECK(s.flink.restart.kind == model::RestartStrategyKind::fixed_delay);
  CHECK(s.flink.restart.fixed_delay_attempts == 2147483647);
  CHECK(s.flink.restart.fixed_delay == core::seconds(1));
  CHECK(s.flink.checkpointing.timeout == core::minutes(10));
  CHECK(s.flink.checkpointing.tolerable_failed == 0);
}

TEST_CASE("Flink 1.19 defaults to exponential-delay restarts with 1 min max backoff and 1.5") {
  const model::Scenario s = load_ok(
      std::string("flink:\n  version: \"1.19\"\n  execution.checkpointing.interval: 1 min\n") +
      kMinimalJob);
  CHECK(s.flink.restart.kind == model::RestartStrategyKind::exponential_delay);
  CHECK(s.flink.restart.exp_max_backoff == core::minutes(1));
  CHECK(s.flink.restart.exp_multiplier == Approx(1.5));
}

TEST_CASE("an explicit exponential-delay on Flink 1.18 keeps that version's 5 min and 2.0") {
  const model::Scenario s = load_ok(std::string(R"(
flink:
  version: "1.18"
  execution.checkpointing.interval: 1 min
  restart-strategy: exponential-delay
)") + kMinimalJob);
  CHECK(s.flink.restart.kind == model::RestartStrategyKind::exponential_delay);
  CHECK(s.flink.restart.exp_max_backoff == core::minutes(5));
  CHECK(s.flink.restart.exp_multiplier == Approx(2.0));
}

TEST_CASE("explicit exponential-delay settings win over the version defaults") {
  const model::Scenario s = load_ok(std::string(R"(
flink:
  version: "1.20"
  execution.checkpointing.interval: 1 min
  restart-strategy.type: exponentialdelay
  restart-strategy.exponential-delay.max-backoff: 2 min
  restart-strategy.exponential-delay.backoff-multiplier: 3
  restart-strategy.exponential-delay.attempts-before-reset-backoff: 7
)") + kMinimalJob);
  CHECK(s.flink.restart.exp_max_backoff == core::minutes(2));
  CHECK(s.flink.restart.exp_multiplier == Approx(3.0));
  CHECK(s.flink.restart.exp_attempts_before_reset == 7);
}

TEST_CASE("without checkpointing the default restart strategy is none") {
  const model::Scenario s = load_ok(kMinimalJob);
  CHECK_FALSE(s.flink.checkpointing.interval);
  CHECK(s.flink.restart.kind == model::RestartStrategyKind::none);
}

TEST_CASE("an interval below 10 ms is rejected, as CheckpointConfig.setCheckpointInterval does") {
  const auto below = ckptsim::scenario::load_string(
      std::string("flink:\n  execution.checkpointing.interval: 5 ms\n") + kMinimalJob, "t.yaml");
  REQUIRE(below.diagnostics.size() == 1);
  CHECK(below.diagnostics[0].message == "the checkpoint interval must be at least 10 ms, got '5 ms'");
  const model::Scenario s =
      load_ok(std::string("flink:\n  execution.checkpointing.interval: 10 ms\n") + kMinimalJob);
  CHECK(s.flink.checkpointing.interval == ckptsim::core::milliseconds(10));
}

TEST_CASE("the other Flink options land in their fields") {
  // 1.20: the last version with the exclusive/floating buffer options (removed in 2.0).
  const model::Scenario s = load_ok(std::string(R"(
flink:
  version: "1.20"
  execution.checkpointing.interval: 30 s
  execution.checkpointing.max-concurrent-checkpoints: 2
  execution.checkpointing.tolerable-failed-checkpoints: 3
  execution.checkpointing.mode: at_least_once
  execution.checkpointing.unaligned.forced: true
  execution.checkpointing.alignment-timeout: 2 s
  execution.checkpointing.externalized-checkpoint-retention: RETAIN_ON_CANCELLATION
  state.checkpoints.num-retained: 3
  execution.checkpointing.checkpoints-after-tasks-finish: false
  execution.checkpointing.interval-during-backlog: 0
  restart-strategy.type: failure-rate
  restart-strategy.failure-rate.max-failures-per-interval: 4
  restart-strategy.failure-rate.failure-rate-interval: 5 min
  restart-strategy.failure-rate.delay: 10 s
  state.backend: rocksdb
  state.backend.incremental: true
  state.checkpoints.dir: s3://bucket/checkpoints
  state.savepoints.dir: s3://bucket/savepoints
  web.checkpoints.history: 20
  execution.buffer-timeout: 50 ms
  taskmanager.memory.segment-size: 64 kb
  taskmanager.network.memory.buffers-per-channel: 4
  taskmanager.network.memory.floating-buffers-per-gate: 16
  taskmanager.network.memory.max-buffers-per-channel: 12
  jobmanager.execution.failover-strategy: region
  parallelism.default: 3
)") + kMinimalJob);
  const auto& c = s.flink.checkpointing;
  CHECK(c.max_concurrent == 2);
  CHECK(c.tolerable_failed == 3);
  CHECK(c.mode == model::CheckpointingMode::at_least_once);
  CHECK(c.unaligned_forced);
  CHECK(c.aligned_checkpoint_timeout == core::seconds(2));
  CHECK(c.retention == model::RetentionPolicy::retain_on_cancellation);
  CHECK(c.num_retained == 3);
  CHECK_FALSE(c.checkpoints_after_tasks_finish);
  CHECK(c.interval_during_backlog == 0);
  CHECK(s.flink.restart.kind == model::RestartStrategyKind::failure_rate);
  CHECK(s.flink.restart.failure_rate_max_failures == 4);
  CHECK(s.flink.restart.failure_rate_interval == core::minutes(5));
  CHECK(s.flink.restart.failure_rate_delay == core::seconds(10));
  CHECK(s.flink.state_backend == model::StateBackendKind::rocksdb);
  CHECK(s.flink.incremental);
  // A checkpoint directory without an explicit storage means file system storage.
  CHECK(s.flink.checkpoint_storage == model::CheckpointStorageKind::filesystem);
  CHECK(s.flink.checkpoints_dir == "s3://bucket/checkpoints");
  CHECK(s.flink.savepoints_dir == "s3://bucket/savepoints");
  CHECK(s.flink.web_checkpoints_history == 20);
  CHECK(s.flink.buffer_timeout == core::milliseconds(50));
  CHECK(s.flink.segment_size == 64 * 1024);
  CHECK(s.flink.buffers_per_channel == 4);
  CHECK(s.flink.floating_buffers_per_gate == 16);
  CHECK(s.flink.max_buffers_per_channel == 12);
  REQUIRE(s.job.vertices.size() == 1);
  CHECK(s.job.vertices[0].parallelism == 3);  // parallelism.default
}

TEST_CASE("an explicit checkpoint storage wins over the checkpoint directory") {
  const model::Scenario s = load_ok(std::string(R"(
flink:
  state.checkpoint-storage: jobmanager
  state.checkpoints.dir: file:///tmp/cp
)") + kMinimalJob);
  CHECK(s.flink.checkpoint_storage == model::CheckpointStorageKind::jobmanager);
}

TEST_CASE("top-level keys, cluster, jobmanager, job and timeline are read") {
  const model::Scenario s = load_ok(R"(
name: everything
description: all the keys
seed: 42
start: 2024-07-10 12:30:00
duration: 3 h
expect:
  - checkpoint 1: completed
cluster:
  taskmanagers: 2
  slots-per-taskmanager: 4
  checkpoint-storage: { bandwidth: 100 MB/s, latency: 20 ms }
  deploy-time: 2 s
  rpc-latency: 3 ms
jobmanager:
  hooks:
    - { name: Hook, checkpoint-duration: 10 ms }
  coordinators:
    - name: Enumerator
      checkpoint-duration: 50 ms
      hangs-at: 1 h
      fails-at: 2 h
job:
  name: my-job
  vertices:
    - name: Source
      parallelism: 2
      rate: 50000 rows/s
      record-size: 1.2 kb
      state-size: 10 mb
    - name: Process
      input: { from: Source, ship: hash }
      parallelism: 4
      cost: 40 us/record
      state-growth: 10 b/record
      sync-snapshot: 5 ms
    - name: Sink
      input: Process
      parallelism: 2
      cost: 40us
timeline:
  - { at: 50 min, do: start, state: 3 }
  - { at: 40 min, do: stop-with-savepoint }
  - { at: 40 min, do: trigger-checkpoint }
  - { at: 1 h, do: stall, vertex: Sink, subtask: 1, for: 5 min }
  - { at: 1 h, do: stall, vertex: Sink, for: ever }
  - { at: 2 h, do: fail-task, vertex: Process }
  - { at: 150 min, do: start, state: latest }
  - { at: 151 min, do: trigger-savepoint }
  - { at: 170 min, do: cancel }
)");
  CHECK(s.name == "everything");
  CHECK(s.description == "all the keys");
  CHECK(s.file == "test.yaml");
  CHECK(s.seed == 42);
  CHECK(s.start_epoch_ms == 1720614600000);
  CHECK(s.duration == 3 * core::kHour);
  CHECK(s.cluster.taskmanagers == 2);
  CHECK(s.cluster.slots_per_taskmanager == 4);
  CHECK(s.cluster.checkpoint_storage.bandwidth_bytes_per_second == Approx(100.0 * 1024 * 1024));
  CHECK(s.cluster.checkpoint_storage.latency.median == core::milliseconds(20));
  CHECK(s.cluster.deploy_time == core::seconds(2));
  CHECK(s.cluster.rpc_latency.median == core::milliseconds(3));
  REQUIRE(s.jobmanager.master_steps.size() == 2);
  CHECK(s.jobmanager.master_steps[0].name == "Enumerator");  // coordinators before hooks
  CHECK_FALSE(s.jobmanager.master_steps[0].is_hook);
  CHECK(s.jobmanager.master_steps[0].duration.base == core::milliseconds(50));
  CHECK(s.jobmanager.master_steps[0].hang_from == core::kHour);
  CHECK(s.jobmanager.master_steps[0].fail_from == 2 * core::kHour);
  CHECK(s.jobmanager.master_steps[1].name == "Hook");
  CHECK(s.jobmanager.master_steps[1].is_hook);
  CHECK(s.job.name == "my-job");
  REQUIRE(s.job.vertices.size() == 3);
  const auto& source = s.job.vertices[0];
  CHECK_FALSE(source.input);
  CHECK(source.records_per_second == Approx(50000.0));
  CHECK(source.record_size == 1229);
  CHECK(source.state_size == 10 * 1024 * 1024);
  const auto& process = s.job.vertices[1];
  CHECK(process.input == "Source");
  CHECK(process.ship == model::ShipStrategy::hash);
  CHECK(process.cost_per_record == 40 * core::kMicrosecond);
  CHECK(process.state_growth_per_record == 10);
  CHECK(process.sync_snapshot == core::milliseconds(5));
  const auto& sink = s.job.vertices[2];
  CHECK(sink.input == "Process");
  CHECK(sink.cost_per_record == 40 * core::kMicrosecond);
  // No explicit ship and different parallelism: Flink's default partitioner rebalances.
  CHECK(sink.ship == model::ShipStrategy::rebalance);

  REQUIRE(s.timeline.size() == 9);
  // Sorted by time, stable among equal times.
  CHECK(s.timeline[0].kind == model::ActionKind::stop_with_savepoint);
  CHECK(s.timeline[1].kind == model::ActionKind::trigger_checkpoint);
  CHECK(s.timeline[2].kind == model::ActionKind::start);
  CHECK(s.timeline[2].start_state == model::StartState::checkpoint);
  CHECK(s.timeline[2].checkpoint_id == 3);
  CHECK(s.timeline[3].kind == model::ActionKind::stall);
  CHECK(s.timeline[3].vertex == "Sink");
  CHECK(s.timeline[3].subtask == 1);
  CHECK(s.timeline[3].duration == core::minutes(5));
  CHECK(s.timeline[4].kind == model::ActionKind::stall);
  CHECK_FALSE(s.timeline[4].subtask);
  CHECK_FALSE(s.timeline[4].duration);
  CHECK(s.timeline[5].kind == model::ActionKind::fail_task);
  CHECK(s.timeline[6].start_state == model::StartState::latest);
  CHECK(s.timeline[7].kind == model::ActionKind::trigger_savepoint);
  CHECK(s.timeline[8].kind == model::ActionKind::cancel);
}

// docs/scenario-format.md: "rpc-latency-spread ... (0: always rpc-latency, and no slow RPCs)".
// The default 1 % of slow RPCs used to stay, so no RPC latency read from a file was fixed.
TEST_CASE("rpc-latency-spread 0 makes every RPC take rpc-latency, slow ones included") {
  const model::Scenario spread = load_ok(kMinimalJob);
  CHECK_FALSE(spread.cluster.rpc_latency.is_fixed());
  CHECK(spread.cluster.rpc_latency.slow_share > 0);
  const model::Scenario fixed =
      load_ok(std::string("cluster: {rpc-latency: 3 ms, rpc-latency-spread: 0}\n") + kMinimalJob);
  CHECK(fixed.cluster.rpc_latency.is_fixed());
  CHECK(fixed.cluster.rpc_latency.median == core::milliseconds(3));
}

TEST_CASE("a start without a state starts from the latest savepoint") {
  const model::Scenario s = load_ok(std::string(kMinimalJob) +
                                    "timeline:\n  - {at: 1 min, do: stop-with-savepoint}\n"
                                    "  - {at: 2 min, do: start}\n  - {at: 3 min, do: start, "
                                    "state: savepoint}\n  - {at: 4 min, do: start, state: none}\n");
  REQUIRE(s.timeline.size() == 4);
  CHECK(s.timeline[1].start_state == model::StartState::latest_savepoint);
  CHECK(s.timeline[2].start_state == model::StartState::latest_savepoint);
  CHECK(s.timeline[3].start_state == model::StartState::none);
}

TEST_CASE("--set overrides Flink keys, bare Flink keys, top-level keys and vertices") {
  const std::string yaml = std::string(R"(
seed: 1
flink:
  execution:
    checkpointing:
      timeout: 10 min
)") + "job:\n  vertices:\n    - name: Source\n    - name: Sink\n      input: Source\n";
  const model::Scenario s =
      load_ok(yaml, {"flink.execution.checkpointing.timeout=5min",
                     "execution.checkpointing.interval = 30 s", "seed=9", "duration=2h",
                     "job.vertices[Sink].parallelism=1", "job.vertices[Source].rate=7 records/s",
                     "flink.version=1.19", "cluster.checkpoint-storage.latency=5 ms",
                     "job.vertices[Sink].input={from: Source, ship: rebalance}"});
  CHECK(s.flink.checkpointing.timeout == core::minutes(5));
  CHECK(s.flink.checkpointing.interval == core::seconds(30));
  CHECK(s.seed == 9);
  CHECK(s.duration == 2 * core::kHour);
  CHECK(s.job.vertices[0].records_per_second == Approx(7.0));
  CHECK(s.job.vertices[1].ship == model::ShipStrategy::rebalance);
  CHECK(s.flink.version == model::FlinkVersion::v1_19);
  CHECK(s.cluster.checkpoint_storage.latency.median == core::milliseconds(5));
}

TEST_CASE("floating-buffers-per-gate above what a 64-byte channel counts is reported, not "
          "wrapped (issue 17 item 4)") {
  CHECK(load_ok(kMinimalJob, {"taskmanager.network.memory.floating-buffers-per-gate=32767"})
            .flink.floating_buffers_per_gate == 32767);
  const std::string errors =
      errors_of(kMinimalJob, {"taskmanager.network.memory.floating-buffers-per-gate=40000"});
  CHECK(errors.find("--set:1:") == 0);
  CHECK(errors.find("floating-buffers-per-gate must be at most 32767, got 40000") !=
        std::string::npos);
}

TEST_CASE("a bad --set value is reported at its position in the override") {
  const std::string errors = errors_of(kMinimalJob, {"execution.checkpointing.timeout=-5 min"});
  CHECK(errors ==
        "--set:1:33: error: durations cannot be negative\n"
        "    1 | execution.checkpointing.timeout=-5 min\n"
        "      |                                 ^~~~~~\n"
        "hint: write zero or a positive duration such as '10 min'\n");
  CHECK(errors_of(kMinimalJob, {"seed"}) ==
        "--set:1:1: error: expected KEY=VALUE, got 'seed'\n"
        "    1 | seed\n"
        "      | ^~~~\n"
        "hint: for example: --set execution.checkpointing.timeout=10min\n");
}

TEST_CASE("an overlay takes its base, replaces what it names and applies set:") {
  TempDir dir;
  dir.write("base.yaml", R"(
name: base
seed: 7
flink:
  execution.checkpointing.interval: 10 s
  execution:
    checkpointing:
      timeout: 10 min
job:
  vertices:
    - name: Source
      parallelism: 2
    - name: Sink
      parallelism: 2
      input: Source
expect:
  - checkpoint 1: completed
)");
  const std::string overlay = dir.write("variant.yaml", R"(
base: base.yaml
name: variant
flink:
  execution.checkpointing.timeout: 5 min
set:
  job.vertices[Sink].parallelism: 4
  job.vertices[Sink].input: { from: Source, ship: rebalance }
  execution.checkpointing.min-pause: 3 s
)");
  const LoadResult result = scenario::load_file(overlay, {"seed=8"});
  INFO(scenario::format_diagnostics(result.diagnostics));
  REQUIRE(result.ok());
  const model::Scenario& s = *result.scenario;
  CHECK(s.name == "variant");
  CHECK(s.seed == 8);
  CHECK(s.flink.checkpointing.interval == core::seconds(10));
  CHECK(s.flink.checkpointing.timeout == core::minutes(5));
  CHECK(s.flink.checkpointing.min_pause == core::seconds(3));
  REQUIRE(s.job.vertices.size() == 2);
  CHECK(s.job.vertices[1].parallelism == 4);
  CHECK(s.job.vertices[1].ship == model::ShipStrategy::rebalance);
}

TEST_CASE("errors in a base file are reported with the base file's name") {
  TempDir dir;
  dir.write("base.yaml", "job:\n  vertices:\n    - name: Source\n      paralelism: 2\n");
  const std::string overlay = dir.write("variant.yaml", "base: base.yaml\nname: variant\n");
  const LoadResult result = scenario::load_file(overlay);
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].file.ends_with("base.yaml"));
  CHECK(result.diagnostics[0].line == 4);
  CHECK(result.diagnostics[0].column == 7);
}

TEST_CASE("a base file that includes itself is an error, not a loop") {
  TempDir dir;
  const std::string file = dir.write("loop.yaml", "base: loop.yaml\n");
  const LoadResult result = scenario::load_file(file);
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].message == "base scenario 'loop.yaml' includes itself");
}

TEST_CASE("a missing file is reported without a location") {
  const LoadResult result = scenario::load_file("no/such/scenario.yaml");
  CHECK_FALSE(result.ok());
  CHECK(scenario::format_diagnostics(result.diagnostics) ==
        "no/such/scenario.yaml: error: cannot open scenario file: No such file or directory\n");
}

TEST_CASE("a diagnostic is formatted like a compiler's") {
  scenario::Diagnostic d;
  d.file = "scenarios/x.yaml";
  d.line = 12;
  d.column = 3;
  d.message = "unknown Flink option 'execution.checkpointing.timout'";
  d.hint = "did you mean 'execution.checkpointing.timeout'?";
  d.source_line = "  execution.checkpointing.timout: 10 min";
  d.length = 30;
  CHECK(scenario::format_diagnostic(d) ==
        "scenarios/x.yaml:12:3: error: unknown Flink option 'execution.checkpointing.timout'\n"
        "   12 |   execution.checkpointing.timout: 10 min\n"
        "      |   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
        "hint: did you mean 'execution.checkpointing.timeout'?\n");
}

TEST_CASE("every error of a file is reported, in file order") {
  const LoadResult result = load_string(R"(
durration: 1 h
flink:
  execution.checkpointing.timout: 1 min
job:
  vertices:
    - name: Source
      paralelism: 2
)",
                                        "x.yaml");
  REQUIRE(result.diagnostics.size() == 3);
  CHECK(result.diagnostics[0].line == 2);
  CHECK(result.diagnostics[1].line == 4);
  CHECK(result.diagnostics[2].line == 8);
}

TEST_CASE("garbage input never crashes the loader") {
  for (const char* text : {"[", "{", "- a\n- b\n", "42", "job: 3", "job:\n  vertices: 3",
                           "job:\n  vertices: [3, [1], {}]", "flink: [1]", "timeline: {}", "\t",
                           "a: &x [*x]", "a: &x [*x, *x, {b: *x}]", "? [a]\n: b\n", "---\n---\n",
                           "job: {vertices: "
                           "[{name: A, input: A}]}"}) {
    const LoadResult result = load_string(text, "g.yaml");
    INFO(text);
    CHECK_FALSE(result.ok());
    CHECK_FALSE(result.diagnostics.empty());
  }
}

TEST_CASE("aliases that expand exponentially are cut off with a diagnostic") {
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 8; ++i) {
    // Appends only: g++ 12 warns (-Wrestrict, a known false positive) on "literal" + string.
    std::string prev = "*a";
    prev += std::to_string(i - 1);
    yaml += "a";
    yaml += std::to_string(i);
    yaml += ": &a";
    yaml += std::to_string(i);
    yaml += " [";
    yaml += prev;
    for (int j = 1; j < 10; ++j) {
      yaml += ", ";
      yaml += prev;
    }
    yaml += "]\n";
  }
  const LoadResult result = load_string(yaml, "laughs.yaml");
  CHECK_FALSE(result.ok());
  CHECK(scenario::format_diagnostics(result.diagnostics).find("too many values") !=
        std::string::npos);
}

TEST_CASE("the built-in default scenario is the seed incident file and loads without "
          "diagnostics") {
  const LoadResult result = load_string(scenario::default_scenario_yaml(), "<default>");
  INFO(scenario::format_diagnostics(result.diagnostics));
  REQUIRE(result.ok());
  CHECK(scenario::default_scenario_yaml() ==
        tests::read_file(std::string(CKPTSIM_SOURCE_DIR) +
                         "/scenarios/seed/doris-cdc-table-swap.yaml"));
  const model::Scenario& s = *result.scenario;
  CHECK(s.name == "doris-cdc-table-swap");
  CHECK(s.flink.version == model::FlinkVersion::v1_17);
  CHECK(s.flink.checkpointing.interval == core::seconds(10));
  CHECK(s.flink.checkpointing.timeout == core::minutes(10));
  REQUIRE(s.job.vertices.size() == 3);
  CHECK(s.job.vertices[0].cdc_source.has_value());
  CHECK(s.job.vertices[2].doris.has_value());
}

// The keys Flink 1.15 and 1.16 read (release-1.15/-1.16 RestartStrategyOptions,
// StateBackendOptions, ExecutionCheckpointingOptions, ExecutionOptions): the names before
// FLINK-29372 (1.17) and before execution.buffer-timeout.interval (1.16).
TEST_CASE("Flink 1.15/1.16 option keys: the names before FLINK-29372, with 1.17's defaults") {
  const model::Scenario s = load_ok(std::string(R"(
flink:
  version: "1.15"
  execution.checkpointing.interval: 1 min
  restart-strategy: exponential-delay
  state.backend: rocksdb
  execution.checkpointing.unaligned: true
  execution.checkpointing.checkpoints-after-tasks-finish.enabled: false
  state.checkpoints.num-retained: 2
  execution.buffer-timeout: 20 ms
  pipeline.operator-chaining: false
)") + kMinimalJob);
  CHECK(s.flink.version == model::FlinkVersion::v1_15);
  CHECK(s.flink.restart.kind == model::RestartStrategyKind::exponential_delay);
  // RestartStrategyOptions on release-1.15: max-backoff 5 min, multiplier 2.0.
  CHECK(s.flink.restart.exp_max_backoff == core::minutes(5));
  CHECK(s.flink.restart.exp_multiplier == 2.0);
  CHECK(s.flink.state_backend == model::StateBackendKind::rocksdb);
  CHECK(s.flink.checkpointing.unaligned);
  CHECK_FALSE(s.flink.checkpointing.checkpoints_after_tasks_finish);
  CHECK(s.flink.checkpointing.num_retained == 2);
  CHECK(s.flink.buffer_timeout == core::milliseconds(20));
  CHECK_FALSE(s.flink.operator_chaining);
  // RestartBackoffTimeStrategyFactoryLoader on release-1.16: fixed-delay(MAX_VALUE, 1 s).
  const model::Scenario d = load_ok(
      std::string("flink:\n  version: \"1.16\"\n  execution.checkpointing.interval: 1 min\n") +
      kMinimalJob);
  CHECK(d.flink.restart.kind == model::RestartStrategyKind::fixed_delay);
  CHECK(d.flink.restart.fixed_delay_attempts == 2147483647);
}

TEST_CASE("ExecutionOptions.BUFFER_TIMEOUT: execution.buffer-timeout.interval from 1.16") {
  const std::string yaml = std::string("flink:\n  execution.buffer-timeout.interval: 20 ms\n") +
                           kMinimalJob;
  CHECK(errors_of(yaml, {"flink.version=1.15"})
            .find("'execution.buffer-timeout.interval' needs Flink 1.16 or later") !=
        std::string::npos);
  CHECK(load_ok(yaml, {"flink.version=1.16"}).flink.buffer_timeout == core::milliseconds(20));
}

// FLINK-31996: release-1.18 PipelineOptions.OPERATOR_CHAINING has the key
// pipeline.operator-chaining.enabled (pipeline.operator-chaining deprecated).
TEST_CASE("PipelineOptions.OPERATOR_CHAINING: pipeline.operator-chaining.enabled from 1.18") {
  const std::string yaml = std::string("flink:\n  pipeline.operator-chaining.enabled: false\n") +
                           kMinimalJob;
  CHECK(errors_of(yaml, {"flink.version=1.17"})
            .find("'pipeline.operator-chaining.enabled' needs Flink 1.18 or later") !=
        std::string::npos);
  CHECK_FALSE(load_ok(yaml, {"flink.version=1.18"}).flink.operator_chaining);
  CHECK_FALSE(load_ok(yaml, {"flink.version=1.19"}).flink.operator_chaining);
}

TEST_CASE("Flink 2.1 takes 2.0's rules: defaults, removed buffer options, patch releases") {
  const model::Scenario s = load_ok(
      std::string("flink:\n  version: \"2.1.0\"\n  execution.checkpointing.interval: 1 min\n") +
      kMinimalJob);
  CHECK(s.flink.version == model::FlinkVersion::v2_1);
  CHECK(s.flink.restart.kind == model::RestartStrategyKind::exponential_delay);
  CHECK(s.flink.restart.exp_max_backoff == core::minutes(1));
  CHECK(errors_of(std::string("flink:\n  taskmanager.network.memory.buffers-per-channel: 4\n") +
                      kMinimalJob,
                  {"flink.version=2.1"})
            .find("was removed in Flink 2.0 (FLINK-33750)") != std::string::npos);
  CHECK(load_ok(kMinimalJob, {"flink.version=1.15.4"}).flink.version == model::FlinkVersion::v1_15);
  CHECK(load_ok(kMinimalJob, {"flink.version=1.16"}).flink.version == model::FlinkVersion::v1_16);
}

// CheckpointingOptions on release-1.20 has execution.checkpointing.num-retained and
// ...checkpoints-after-tasks-finish (older names deprecated); release-1.19 does not know them.
TEST_CASE("CheckpointingOptions: execution.checkpointing.num-retained and "
          "...checkpoints-after-tasks-finish from 1.20") {
  for (const char* key : {"execution.checkpointing.num-retained: 3",
                          "execution.checkpointing.checkpoints-after-tasks-finish: false"}) {
    INFO(key);
    const std::string yaml = std::string("flink:\n  ") + key + "\n" + kMinimalJob;
    CHECK(errors_of(yaml, {"flink.version=1.19"}).find("needs Flink 1.20 or later") !=
          std::string::npos);
    load_ok(yaml, {"flink.version=1.20"});
  }
}
