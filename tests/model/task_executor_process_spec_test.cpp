// A TaskManager's memory as Flink derives it (TaskExecutorProcessUtils, ProcessMemoryUtils,
// TaskExecutorFlinkMemoryUtils), checked against the sizes real TaskManagers print at start-up
// ("-D taskmanager.memory.network.min=134217730b ... managed.size=536870920b" for the
// distribution's 1728m) and against the worked examples of each derivation path.
#include <catch2/catch.hpp>

#include <limits>
#include <string>
#include <variant>

#include "sim/model/config.hpp"
#include "sim/model/task_executor_process_spec.hpp"
#include "sim/scenario/scenario.hpp"

namespace {

namespace model = ckptsim::model;
using model::FlinkVersion;
using model::TaskManagerMemoryOptions;
constexpr std::int64_t kMiB = 1024 * 1024;
constexpr std::int64_t kSegment = 32 * 1024;

model::TaskExecutorProcessSpec derive(const TaskManagerMemoryOptions& o,
                                      FlinkVersion v = FlinkVersion::v1_17) {
  const auto spec = model::process_spec_from_config(o, kSegment, v);
  if (const auto* error = std::get_if<std::string>(&spec)) FAIL(*error);
  return std::get<model::TaskExecutorProcessSpec>(spec);
}

std::string failure(const TaskManagerMemoryOptions& o, FlinkVersion v = FlinkVersion::v1_17) {
  const auto spec = model::process_spec_from_config(o, kSegment, v);
  REQUIRE(std::holds_alternative<std::string>(spec));
  return std::get<std::string>(spec);
}

}  // namespace

TEST_CASE("MemorySize.multiply is exact and truncates; fractions are floats widened to double",
          "[memory]") {
  CHECK(model::multiply_size(1280 * kMiB, static_cast<double>(0.1F)) == 134217730);
  CHECK(model::multiply_size(1280 * kMiB, static_cast<double>(0.4F)) == 536870920);
  CHECK(model::multiply_size(1280 * kMiB, 0.1) == 134217728);
  CHECK(model::multiply_size(7, 0.5) == 3);
  CHECK(model::human_readable_size(128 * kMiB) == "128.000mb (134217728 bytes)");
  CHECK(model::human_readable_size(1024 * kMiB) == "1024.000mb (1073741824 bytes)");
  CHECK(model::human_readable_size(0) == "0 bytes");
}

TEST_CASE("TaskExecutorProcessUtils: the distribution's process.size 1728m gives 4096 buffers",
          "[memory]") {
  const auto s = derive({});  // nothing set: flink-conf.yaml's taskmanager.memory.process.size
  CHECK(s.overhead == 192 * kMiB);  // 10 % is 172.8m, below jvm-overhead.min
  CHECK(s.total_flink == 1280 * kMiB);
  CHECK(s.network == 134217730);
  CHECK(s.managed == 536870920);
  CHECK(s.task_heap == 402653174);
  CHECK(s.network_buffers == 4096);
  CHECK(s.total_process == 1728 * kMiB);
}

TEST_CASE("TaskExecutorProcessUtils: network memory by derivation path and version", "[memory]") {
  TaskManagerMemoryOptions o;
  o.process_size = 4096 * kMiB;
  CHECK(derive(o).network == 359703515);
  CHECK(derive(o).network_buffers == 10977);
  // network.max: 1 GiB until 1.16, unlimited from 1.17 (FLINK-30472).
  o.process_size = 16384 * kMiB;
  CHECK(derive(o, FlinkVersion::v1_17).network == 1583769214);
  CHECK(derive(o, FlinkVersion::v1_17).network_buffers == 48332);
  CHECK(derive(o, FlinkVersion::v1_16).network == 1024 * kMiB);
  CHECK(derive(o, FlinkVersion::v1_16).network_buffers == 32768);
  o.process_size = 1024 * kMiB;  // 10 % of 576m is below network.min 64m
  CHECK(derive(o).network == 64 * kMiB);

  TaskManagerMemoryOptions flink;  // deriveFromTotalFlinkMemory
  flink.flink_size = 4096 * kMiB;
  CHECK(derive(flink).network == 429496736);
  CHECK(derive(flink).network_buffers == 13107);
  CHECK(derive(flink).overhead == 507044758);  // (F + metaspace) x f / (1 - f)

  TaskManagerMemoryOptions fine;  // deriveFromRequiredFineGrainedOptions
  fine.task_heap = 1024 * kMiB;
  fine.managed_size = 512 * kMiB;
  CHECK(derive(fine).network == 208783135);  // 1792m x 0.11111111295076065
  CHECK(derive(fine).network_buffers == 6371);

  TaskManagerMemoryOptions fraction;
  fraction.network_fraction = 0.2F;
  CHECK(derive(fraction).network == 268435460);
  CHECK(derive(fraction).network_buffers == 8192);

  TaskManagerMemoryOptions legacy;  // taskmanager.network.numberOfBuffers, up to 1.20
  legacy.legacy_buffers = 3000;
  legacy.flink_size = 1280 * kMiB;
  CHECK(derive(legacy, FlinkVersion::v1_20).network_buffers == 3000);
  CHECK(derive(legacy, FlinkVersion::v2_0).network_buffers == 4096);
}

TEST_CASE(
    "TaskExecutorResourceUtils.adjustForLocalExecution: a MiniCluster has 64m of network "
    "memory unless network.min/max say otherwise",
    "[memory]") {
  TaskManagerMemoryOptions local;
  local.local_execution = true;
  local.process_size = 8192 * kMiB;  // ignored locally
  local.network_fraction = 0.5F;     // ignored locally
  CHECK(derive(local).network_buffers == 2048);
  local.network_max = 512 * kMiB;  // min copies max
  CHECK(derive(local).network_buffers == 16384);
  local.network_min = 256 * kMiB;
  CHECK(failure(local) ==
        "The network memory min (256.000mb (268435456 bytes)) and max (512.000mb (536870912 "
        "bytes)) mismatch, the network memory has to be resolved and set to a fixed value before "
        "task executor starts");
}

TEST_CASE("TaskExecutorProcessUtils: sizes a TaskManager cannot start with", "[memory]") {
  TaskManagerMemoryOptions small;
  small.process_size = 512 * kMiB;
  CHECK(failure(small) ==
        "TaskManager memory configuration failed: Sum of configured Framework Heap Memory "
        "(128.000mb (134217728 bytes)), Framework Off-Heap Memory (128.000mb (134217728 bytes)), "
        "Task Off-Heap Memory (0 bytes), Managed Memory (25.600mb (26843546 bytes)) and Network "
        "Memory (64.000mb (67108864 bytes)) exceed configured Total Flink Memory (64.000mb "
        "(67108864 bytes)).");
  small.process_size = 400 * kMiB;
  CHECK(failure(small) ==
        "TaskManager memory configuration failed: Sum of configured JVM Metaspace (256.000mb "
        "(268435456 bytes)) and JVM Overhead (192.000mb (201326592 bytes)) exceed configured "
        "Total Process Memory (400.000mb (419430400 bytes)).");
  TaskManagerMemoryOptions range;
  range.network_min = 512 * kMiB;
  range.network_max = 256 * kMiB;
  CHECK(failure(range).starts_with(
      "TaskManager memory configuration failed: Inconsistently configured Key: "
      "'taskmanager.memory.network.fraction' , default: 0.1 (fallback keys: "
      "[{key=taskmanager.network.memory.fraction, isDeprecated=true}]) (0.10000000149011612) and "
      "its min (512.000mb (536870912 bytes)), max (256.000mb (268435456 bytes)) value"));
}

TEST_CASE(
    "The loader rejects a memory configuration Flink's TaskManager would not start with, "
    "at the key",
    "[memory][scenario]") {
  const auto loaded = ckptsim::scenario::load_string(R"(
name: small-tm
flink:
  taskmanager.memory.process.size: 400m
job: { vertices: [ { name: Source } ] }
)",
                                                     "small.yaml");
  CHECK_FALSE(loaded.ok());
  const std::string text = ckptsim::scenario::format_diagnostics(loaded.diagnostics);
  CHECK(text.find("small.yaml:4:36: error: TaskManager memory configuration failed: Sum of "
                  "configured JVM Metaspace") != std::string::npos);
}

TEST_CASE("Sizes up to Long.MAX_VALUE neither overflow nor crash (bounded at 4 PiB)", "[memory]") {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  TaskManagerMemoryOptions huge;
  huge.process_size = kMax;
  huge.metaspace = kMax;
  CHECK(failure(huge).starts_with("TaskManager memory configuration failed: Sum of configured JVM "
                                  "Metaspace"));
  TaskManagerMemoryOptions flink;
  flink.flink_size = kMax;
  flink.task_heap = kMax;
  flink.framework_heap = kMax;
  const auto spec = model::process_spec_from_config(flink, kSegment, FlinkVersion::v1_17);
  CHECK(std::holds_alternative<std::string>(spec));
  TaskManagerMemoryOptions local;
  local.local_execution = true;
  local.network_min = kMax;
  local.framework_heap = kMax;
  CHECK(derive(local).network_buffers == std::numeric_limits<int>::max());
}
