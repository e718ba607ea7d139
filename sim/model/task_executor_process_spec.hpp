// A TaskManager's memory as Flink derives it from the taskmanager.memory.* options
// (TaskExecutorProcessUtils.processSpecFromConfig -> ProcessMemoryUtils.memoryProcessSpecFromConfig
// -> TaskExecutorFlinkMemoryUtils), and the number of network buffers that follows from it
// (NettyShuffleEnvironmentConfiguration.calculateNumberOfNetworkBuffers). The rules are the same
// from 1.15 to 2.1 except network.max's default (1 GiB before 1.17, FLINK-30472) and the legacy
// taskmanager.network.numberOfBuffers (gone in 2.0, FLINK-33750).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace ckptsim::model {

enum class FlinkVersion;

// The options as written (unset = Flink's default). Fractions are Java floats: Flink reads them
// with getFloat and widens them to double, so 0.1 is 0.10000000149011612 in every product.
struct TaskManagerMemoryOptions {
  std::optional<std::int64_t> process_size;        // taskmanager.memory.process.size
  std::optional<std::int64_t> flink_size;          // taskmanager.memory.flink.size
  std::optional<std::int64_t> task_heap;           // taskmanager.memory.task.heap.size
  std::optional<std::int64_t> managed_size;        // taskmanager.memory.managed.size
  std::optional<float> managed_fraction;           // taskmanager.memory.managed.fraction
  std::optional<float> network_fraction;           // taskmanager.memory.network.fraction
  std::optional<std::int64_t> network_min;         // taskmanager.memory.network.min
  std::optional<std::int64_t> network_max;         // taskmanager.memory.network.max
  std::optional<std::int64_t> framework_heap;      // taskmanager.memory.framework.heap.size
  std::optional<std::int64_t> framework_off_heap;  // taskmanager.memory.framework.off-heap.size
  std::optional<std::int64_t> task_off_heap;       // taskmanager.memory.task.off-heap.size
  std::optional<std::int64_t> metaspace;           // taskmanager.memory.jvm-metaspace.size
  std::optional<float> overhead_fraction;          // taskmanager.memory.jvm-overhead.fraction
  std::optional<std::int64_t> overhead_min;        // taskmanager.memory.jvm-overhead.min
  std::optional<std::int64_t> overhead_max;        // taskmanager.memory.jvm-overhead.max
  std::optional<int> legacy_buffers;               // taskmanager.network.numberOfBuffers (<= 1.20)
  // execution.target: local. A MiniCluster (TaskExecutorResourceUtils.adjustForLocalExecution)
  // ignores the fractions and total sizes: network memory is network.min/max, else 64 MiB.
  bool local_execution = false;
};

// The derived sizes, in bytes (TaskExecutorProcessSpec).
struct TaskExecutorProcessSpec {
  std::int64_t framework_heap = 0;
  std::int64_t framework_off_heap = 0;
  std::int64_t task_heap = 0;
  std::int64_t task_off_heap = 0;
  std::int64_t managed = 0;
  std::int64_t network = 0;
  std::int64_t metaspace = 0;
  std::int64_t overhead = 0;
  std::int64_t total_flink = 0;
  std::int64_t total_process = 0;
  int network_buffers = 0;  // network / segment size, rounded down
};

// The spec, or the message Flink fails the TaskManager's start with ("TaskManager memory
// configuration failed: ..."). With none of process.size, flink.size and task.heap + managed
// set, the distribution's flink-conf.yaml value applies: process.size 1728m.
std::variant<TaskExecutorProcessSpec, std::string> process_spec_from_config(
    const TaskManagerMemoryOptions& options, std::int64_t segment_size, FlinkVersion version);

// MemorySize.toHumanReadableString: "128.000mb (134217728 bytes)", "0 bytes".
std::string human_readable_size(std::int64_t bytes);

// MemorySize.multiply(double): the exact decimal product of the byte count and the double's
// shortest decimal form (BigDecimal.valueOf), truncated toward zero.
std::int64_t multiply_size(std::int64_t bytes, double multiplier);

}  // namespace ckptsim::model
