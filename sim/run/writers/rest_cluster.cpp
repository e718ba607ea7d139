// The cluster's REST bodies: GET /config (DashboardConfiguration / DashboardConfigHandler),
// /taskmanagers (TaskManagersInfo / TaskManagersHandler) and /jobmanager/config
// (ClusterConfigurationInfo / ClusterConfigHandler).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "sim/run/writers/flink_stats.hpp"
#include "sim/run/writers/rest_execution.hpp"
#include "sim/run/writers/rest_job.hpp"
#include "sim/run/writers/writers.hpp"

namespace ckptsim::run {

using nlohmann::ordered_json;

namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

// The TaskManagers' memory as Flink derives it from the taskmanager.memory.* options
// (model/task_executor_process_spec.hpp); the loader rejected sizes Flink cannot start with.
model::TaskExecutorProcessSpec taskmanager_memory(const RunResult& r) {
  const auto spec =
      model::process_spec_from_config(r.flink.memory, r.flink.segment_size, r.flink_version);
  const auto* derived = std::get_if<model::TaskExecutorProcessSpec>(&spec);
  return derived ? *derived : model::TaskExecutorProcessSpec{};
}

// ResourceProfileInfo: CPU cores and memory in whole MiB (MemorySize.getMebiBytes rounds down).
ordered_json resource_profile(double cpu_cores, std::int64_t task_heap, std::int64_t task_off_heap,
                              std::int64_t managed, std::int64_t network) {
  ordered_json out;
  out["cpuCores"] = cpu_cores;
  out["taskHeapMemory"] = static_cast<int>(task_heap / kMiB);
  out["taskOffHeapMemory"] = static_cast<int>(task_off_heap / kMiB);
  out["managedMemory"] = static_cast<int>(managed / kMiB);
  out["networkMemory"] = static_cast<int>(network / kMiB);
  out["extendedResources"] = ordered_json::object();
  return out;
}

// Slots of TaskManager `tm` (1-based) the job holds: default slot sharing puts subtask i of
// every vertex into slot i, on TaskManager i mod n (as the Recorder's locations do).
int used_slots(const RunResult& r, int tm) {
  if (model::is_globally_terminal(r.final_status)) return 0;
  int widest = 0;
  for (const VertexInfo& v : r.vertices) widest = std::max(widest, v.parallelism);
  int used = 0;
  for (int i = 0; i < widest; ++i) {
    if (rest::taskmanager_of(r, i) == tm) ++used;
  }
  return used;
}

// TimeUtils.formatWithHighestUnit: the largest unit that divides the value exactly.
std::string duration_text(Duration d) {
  struct Unit {
    Duration size;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{core::kHour * 24, "d"},
                                    {core::kHour, "h"},
                                    {core::minutes(1), "min"},
                                    {core::kSecond, "s"},
                                    {core::kMillisecond, "ms"}};
  if (d == 0) return "0 ms";
  for (const Unit& u : kUnits) {
    if (d % u.size == 0) return fmt::format("{} {}", d / u.size, u.name);
  }
  return fmt::format("{} ms", core::to_millis(d));
}

// MemorySize.toString: the largest unit that divides the size exactly.
std::string size_text(std::int64_t bytes) {
  static constexpr std::pair<std::int64_t, const char*> kUnits[] = {
      {kMiB * 1024 * 1024, "tb"}, {kMiB * 1024, "gb"}, {kMiB, "mb"}, {1024, "kb"}};
  for (const auto& [size, name] : kUnits) {
    if (bytes != 0 && bytes % size == 0) return fmt::format("{} {}", bytes / size, name);
  }
  return fmt::format("{} bytes", bytes);
}

const char* bool_text(bool b) {
  return b ? "true" : "false";
}

// The options ckptsim models, with the values the run used (the scenario's, or the version's
// defaults it resolved to), under the keys the scenario file takes.
std::vector<std::pair<std::string, std::string>> configuration(const RunResult& r) {
  const model::FlinkConfig& f = r.flink;
  const model::CheckpointingConfig& cp = f.checkpointing;
  const model::RestartConfig& rs = f.restart;
  std::vector<std::pair<std::string, std::string>> c;
  const auto put = [&](std::string key, std::string value) {
    c.emplace_back(std::move(key), std::move(value));
  };
  const int slots = r.slots_total / std::max(1, r.taskmanagers);
  // FLINK-29372 (1.17) renamed restart-strategy and state.backend to *.type: before, only the
  // old keys exist (RestartStrategyOptions, StateBackendOptions on release-1.15/-1.16).
  const bool old_keys = r.flink_version < model::FlinkVersion::v1_17;
  const std::string restart_key = old_keys ? "restart-strategy" : "restart-strategy.type";
  // The cluster: what a standalone or Kubernetes deployment writes into the configuration.
  put("jobmanager.rpc.address", "ckptsim-jobmanager");
  put("jobmanager.rpc.port", "6123");
  put("rest.address", "ckptsim-jobmanager");
  put("rest.port", "8081");
  put("jobmanager.memory.process.size", "1600m");
  // The TaskManager's size as written, or the distribution's flink-conf.yaml value.
  const model::TaskManagerMemoryOptions& memory = r.flink.memory;
  if (memory.process_size)
    put("taskmanager.memory.process.size", size_text(*memory.process_size));
  else if (!memory.flink_size && !(memory.task_heap && memory.managed_size))
    put("taskmanager.memory.process.size", "1728m");
  if (memory.flink_size) put("taskmanager.memory.flink.size", size_text(*memory.flink_size));
  put("taskmanager.numberOfTaskSlots", std::to_string(slots));
  // Checkpointing.
  if (cp.interval) put("execution.checkpointing.interval", duration_text(*cp.interval));
  put("execution.checkpointing.timeout", duration_text(cp.timeout));
  put("execution.checkpointing.min-pause", duration_text(cp.min_pause));
  put("execution.checkpointing.max-concurrent-checkpoints", std::to_string(cp.max_concurrent));
  put("execution.checkpointing.tolerable-failed-checkpoints", std::to_string(cp.tolerable_failed));
  put("execution.checkpointing.mode",
      cp.mode == model::CheckpointingMode::exactly_once ? "EXACTLY_ONCE" : "AT_LEAST_ONCE");
  put("execution.checkpointing.unaligned", bool_text(cp.unaligned));
  put("execution.checkpointing.aligned-checkpoint-timeout",
      duration_text(cp.aligned_checkpoint_timeout));
  put("execution.checkpointing.externalized-checkpoint-retention",
      cp.retention == model::RetentionPolicy::never_retain ? "NO_EXTERNALIZED_CHECKPOINTS"
      : cp.retention == model::RetentionPolicy::retain_on_cancellation ? "RETAIN_ON_CANCELLATION"
                                                                       : "DELETE_ON_CANCELLATION");
  put("state.checkpoints.num-retained", std::to_string(cp.num_retained));
  // ...checkpoints-after-tasks-finish is the key from 1.20 (CheckpointingOptions); before, the
  // option is ExecutionCheckpointingOptions' ...checkpoints-after-tasks-finish.enabled.
  put(r.flink_version < model::FlinkVersion::v1_20
          ? "execution.checkpointing.checkpoints-after-tasks-finish.enabled"
          : "execution.checkpointing.checkpoints-after-tasks-finish",
      bool_text(cp.checkpoints_after_tasks_finish));
  // State.
  put(old_keys ? "state.backend" : "state.backend.type",
      f.state_backend == model::StateBackendKind::rocksdb ? "rocksdb" : "hashmap");
  put("state.backend.incremental", bool_text(f.incremental));
  if (f.state_backend == model::StateBackendKind::rocksdb)
    put("state.backend.rocksdb.writebuffer.size", size_text(f.rocksdb_writebuffer_size));
  put("state.checkpoint-storage", f.checkpoint_storage == model::CheckpointStorageKind::filesystem
                                      ? "filesystem"
                                      : "jobmanager");
  if (!f.checkpoints_dir.empty()) put("state.checkpoints.dir", f.checkpoints_dir);
  if (!f.savepoints_dir.empty()) put("state.savepoints.dir", f.savepoints_dir);
  // Restarts, as resolved for the version.
  switch (rs.kind.value_or(model::RestartStrategyKind::none)) {
    case model::RestartStrategyKind::none:
      put(restart_key, "none");
      break;
    case model::RestartStrategyKind::fixed_delay:
      put(restart_key, "fixed-delay");
      put("restart-strategy.fixed-delay.attempts", std::to_string(rs.fixed_delay_attempts));
      put("restart-strategy.fixed-delay.delay", duration_text(rs.fixed_delay));
      break;
    case model::RestartStrategyKind::failure_rate:
      put(restart_key, "failure-rate");
      put("restart-strategy.failure-rate.max-failures-per-interval",
          std::to_string(rs.failure_rate_max_failures));
      put("restart-strategy.failure-rate.failure-rate-interval",
          duration_text(rs.failure_rate_interval));
      put("restart-strategy.failure-rate.delay", duration_text(rs.failure_rate_delay));
      break;
    case model::RestartStrategyKind::exponential_delay:
      put(restart_key, "exponential-delay");
      put("restart-strategy.exponential-delay.initial-backoff",
          duration_text(rs.exp_initial_backoff));
      put("restart-strategy.exponential-delay.max-backoff", duration_text(rs.exp_max_backoff));
      put("restart-strategy.exponential-delay.backoff-multiplier",
          fmt::format("{}", rs.exp_multiplier));
      put("restart-strategy.exponential-delay.reset-backoff-threshold",
          duration_text(rs.exp_reset_threshold));
      put("restart-strategy.exponential-delay.jitter-factor", fmt::format("{}", rs.exp_jitter));
      if (r.flink_version >= model::FlinkVersion::v1_19)
        put("restart-strategy.exponential-delay.attempts-before-reset-backoff",
            std::to_string(rs.exp_attempts_before_reset));
      break;
  }
  // Runtime and network.
  put("web.checkpoints.history", std::to_string(f.web_checkpoints_history));
  put("heartbeat.timeout", std::to_string(core::to_millis(f.heartbeat_timeout)));
  put("execution.buffer-timeout", duration_text(f.buffer_timeout));
  put("pipeline.operator-chaining", bool_text(f.operator_chaining));
  put("taskmanager.memory.segment-size", size_text(f.segment_size));
  put("taskmanager.memory.min-segment-size", size_text(f.min_segment_size));
  // FLINK-33750 removed the exclusive and floating buffer options in 2.0 (2.1 neither:
  // NettyShuffleEnvironmentOptions on release-2.1.2-rc2).
  if (r.flink_version < model::FlinkVersion::v2_0) {
    put("taskmanager.network.memory.buffers-per-channel", std::to_string(f.buffers_per_channel));
    put("taskmanager.network.memory.floating-buffers-per-gate",
        std::to_string(f.floating_buffers_per_gate));
    put("taskmanager.network.memory.max-buffers-per-channel",
        std::to_string(f.max_buffers_per_channel));
  }
  put("taskmanager.network.memory.buffer-debloat.enabled", bool_text(f.debloat_enabled));
  if (f.debloat_enabled) {
    put("taskmanager.network.memory.buffer-debloat.target", duration_text(f.debloat_target));
    put("taskmanager.network.memory.buffer-debloat.period", duration_text(f.debloat_period));
    put("taskmanager.network.memory.buffer-debloat.samples", std::to_string(f.debloat_samples));
    put("taskmanager.network.memory.buffer-debloat.threshold-percentages",
        std::to_string(f.debloat_threshold_percent));
  }
  return c;
}

}  // namespace

ordered_json rest_dashboard_config(const RunResult& r) {
  ordered_json features;
  // ckptsim serves no jar upload, cancel or rescale, and is a JobManager, not a HistoryServer.
  features["web-submit"] = false;
  features["web-cancel"] = false;
  // DashboardConfiguration.Features: web-rescale came with 1.18 (FLINK-31471), web-history with
  // 1.16 (release-1.15 has only web-submit and web-cancel).
  if (r.flink_version >= model::FlinkVersion::v1_18) features["web-rescale"] = false;
  if (r.flink_version >= model::FlinkVersion::v1_16) features["web-history"] = false;
  ordered_json out;
  out["refresh-interval"] = std::int64_t{3000};  // web.refresh-interval's default
  // The JobManager's default time zone: ckptsim reports UTC. Offset in ms.
  out["timezone-name"] = "Coordinated Universal Time";
  out["timezone-offset"] = 0;
  out["flink-version"] = model::flink_release(r.flink_version);
  // EnvironmentInformation.getRevisionInformation(): "<commit id> @ <commit date>"; both
  // synthetic, like /overview's flink-commit.
  out["flink-revision"] =
      std::string(synthetic_flink_commit(r.flink_version)) + " @ 1970-01-01T00:00:00+00:00";
  out["features"] = std::move(features);
  return out;
}

ordered_json rest_taskmanagers(const RunResult& r) {
  const int count = std::max(1, r.taskmanagers);
  const int slots = r.slots_total / count;
  const model::TaskExecutorProcessSpec mem = taskmanager_memory(r);
  const std::int64_t now = epoch_ms(r, r.end_time);
  // Heartbeats every heartbeat.interval (10 s by default): the latest one before now.
  const std::int64_t heartbeat = now - (core::to_millis(r.end_time) % 10000);
  // 1.18 moved the RPC system from Akka to Pekko (FLINK-32468); 1.15-1.17 use Akka.
  const char* scheme = r.flink_version < model::FlinkVersion::v1_18 ? "akka" : "pekko";

  std::vector<ordered_json> infos;
  std::vector<std::int32_t> hashes;
  for (int tm = 1; tm <= count; ++tm) {
    const int free = std::max(0, slots - used_slots(r, tm));
    const double share = slots > 0 ? static_cast<double>(free) / slots : 0.0;
    const auto part = [&](std::int64_t bytes) {
      return static_cast<std::int64_t>(std::floor(static_cast<double>(bytes) * share));
    };
    ordered_json hardware;
    hardware["cpuCores"] = 4;
    hardware["physicalMemory"] = std::int64_t{8} * 1024 * kMiB;
    hardware["freeMemory"] = mem.framework_heap + mem.task_heap;  // the JVM's max heap
    hardware["managedMemory"] = mem.managed;
    ordered_json memory;
    memory["frameworkHeap"] = mem.framework_heap;
    memory["taskHeap"] = mem.task_heap;
    memory["frameworkOffHeap"] = mem.framework_off_heap;
    memory["taskOffHeap"] = mem.task_off_heap;
    memory["networkMemory"] = mem.network;
    memory["managedMemory"] = mem.managed;
    memory["jvmMetaspace"] = mem.metaspace;
    memory["jvmOverhead"] = mem.overhead;
    memory["totalFlinkMemory"] = mem.total_flink;
    memory["totalProcessMemory"] = mem.total_process;

    ordered_json info;
    info["id"] = rest::taskmanager_id(tm);
    info["path"] = fmt::format("{}.tcp://flink@{}:6122/user/rpc/taskmanager_0", scheme,
                               rest::taskmanager_host(tm));
    info["dataPort"] = 6121;
    info["jmxPort"] = -1;
    // Despite its name, the timestamp of the last heartbeat (epoch ms).
    info["timeSinceLastHeartbeat"] = heartbeat;
    info["slotsNumber"] = slots;
    info["freeSlots"] = free;
    // taskmanager.cpu.cores defaults to the number of slots.
    info["totalResource"] =
        resource_profile(slots, mem.task_heap, mem.task_off_heap, mem.managed, mem.network);
    info["freeResource"] =
        resource_profile(slots * share, part(mem.task_heap), part(mem.task_off_heap),
                         part(mem.managed), part(mem.network));
    info["hardware"] = std::move(hardware);
    info["memoryConfiguration"] = std::move(memory);
    // blocked is @JsonInclude(NON_DEFAULT): false is omitted.
    infos.push_back(std::move(info));
    hashes.push_back(java_string_hash(rest::taskmanager_id(tm)));
  }
  // The ResourceManager's taskExecutors, a HashMap<ResourceID, ...>; ResourceID hashes as its
  // string.
  ordered_json list = ordered_json::array();
  for (std::size_t i : java_hashmap_order(hashes, std::nullopt)) list.push_back(infos[i]);
  ordered_json out;
  out["taskmanagers"] = std::move(list);
  return out;
}

ordered_json rest_jobmanager_config(const RunResult& r) {
  // ClusterConfigurationInfo.from(configuration) walks Configuration.toMap(), a HashMap sized
  // for its entries: its iteration order, deterministic for the keys.
  const std::vector<std::pair<std::string, std::string>> entries = configuration(r);
  std::vector<std::int32_t> hashes;
  for (const auto& [key, value] : entries) hashes.push_back(java_string_hash(key));
  const auto capacity =
      static_cast<std::size_t>(std::ceil(static_cast<double>(entries.size()) / 0.75));
  ordered_json out = ordered_json::array();
  for (std::size_t i : java_hashmap_order(hashes, capacity)) {
    ordered_json entry;
    entry["key"] = entries[i].first;
    entry["value"] = entries[i].second;
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace ckptsim::run
