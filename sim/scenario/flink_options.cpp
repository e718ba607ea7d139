// The Flink options a scenario's `flink:` block may set: one table row per key (aliases are rows
// too), with the first Flink version that knows it (v1_15: every modelled version) and how its
// value lands in model::FlinkConfig.
// Keys, defaults and limits follow reference/flink-coordinator.md section 1.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <variant>

#include "sim/scenario/flink_reference.hpp"
#include "sim/scenario/internal.hpp"

namespace ckptsim::scenario::detail {
namespace {

using model::FlinkVersion;

// CheckpointCoordinatorConfiguration.MINIMAL_CHECKPOINT_TIME: shorter intervals and timeouts are
// rejected (CheckpointConfig.setCheckpointInterval / setCheckpointTimeout).
constexpr core::Duration kMinimalCheckpointTime = core::milliseconds(10);

struct FlinkReader {
  Context& ctx;
  model::FlinkConfig& config;
  std::optional<int>& default_parallelism;
  bool max_backoff_set = false;
  bool multiplier_set = false;
  bool storage_set = false;
  bool dir_set = false;
  std::optional<Loc> unaligned_loc;
  std::optional<Loc> memory_loc;  // the first taskmanager.memory.* key
};

using Apply = void (*)(const Node& value, FlinkReader& r);

struct FlinkOption {
  std::string_view key;
  FlinkVersion since;
  Apply apply;
};

void duration_into(const Node& v, FlinkReader& r, core::Duration& target) {
  if (const auto d = read_flink_duration(r.ctx, v)) target = *d;
}

void int_into(const Node& v, FlinkReader& r, std::string_view key, int min, int& target) {
  if (const auto i = read_int(r.ctx, v, key, min)) target = *i;
}

void bool_into(const Node& v, FlinkReader& r, bool& target) {
  if (const auto b = read_bool(r.ctx, v)) target = *b;
}

void unaligned(const Node& v, FlinkReader& r) {
  bool_into(v, r, r.config.checkpointing.unaligned);
  r.unaligned_loc = v.loc;
}

// CheckpointingOptions.FS_SMALL_FILE_THRESHOLD. FileSystemCheckpointStorage.configure ignores a
// value above MAX_FILE_STATE_THRESHOLD (1 MB) with a WARN and keeps the default.
void inline_threshold(const Node& v, FlinkReader& r) {
  const auto size = read_size(r.ctx, v);
  if (!size) return;
  if (*size > 1024 * 1024) {
    r.ctx.warning(v.loc, "Flink ignores an inline threshold above 1 mb and keeps 20 kb",
                  "its log says \"Ignoring invalid file size threshold value\"");
    return;
  }
  r.config.inline_threshold = *size;
}

void retention(const Node& v, FlinkReader& r) {
  using model::RetentionPolicy;
  if (const auto p = read_enum<RetentionPolicy>(
          r.ctx, v, "checkpoint retention",
          {{"NO_EXTERNALIZED_CHECKPOINTS", RetentionPolicy::never_retain},
           {"RETAIN_ON_CANCELLATION", RetentionPolicy::retain_on_cancellation},
           {"DELETE_ON_CANCELLATION", RetentionPolicy::delete_on_cancellation}}))
    r.config.checkpointing.retention = *p;
}

void num_retained(const Node& v, FlinkReader& r) {
  int_into(v, r, "execution.checkpointing.num-retained", 1, r.config.checkpointing.num_retained);
}

void after_tasks_finish(const Node& v, FlinkReader& r) {
  bool_into(v, r, r.config.checkpointing.checkpoints_after_tasks_finish);
}

void aligned_timeout(const Node& v, FlinkReader& r) {
  duration_into(v, r, r.config.checkpointing.aligned_checkpoint_timeout);
}

void restart_type(const Node& v, FlinkReader& r) {
  using model::RestartStrategyKind;
  // RestartBackoffTimeStrategyFactoryLoader accepts these spellings (case-insensitive).
  if (const auto kind = read_enum<RestartStrategyKind>(
          r.ctx, v, "restart strategy",
          {{"none", RestartStrategyKind::none},
           {"off", RestartStrategyKind::none},
           {"disable", RestartStrategyKind::none},
           {"fixed-delay", RestartStrategyKind::fixed_delay},
           {"fixeddelay", RestartStrategyKind::fixed_delay},
           {"failure-rate", RestartStrategyKind::failure_rate},
           {"failurerate", RestartStrategyKind::failure_rate},
           {"exponential-delay", RestartStrategyKind::exponential_delay},
           {"exponentialdelay", RestartStrategyKind::exponential_delay}}))
    r.config.restart.kind = *kind;
}

void state_backend(const Node& v, FlinkReader& r) {
  using model::StateBackendKind;
  if (const auto kind = read_enum<StateBackendKind>(
          r.ctx, v, "state backend",
          {{"hashmap", StateBackendKind::hashmap}, {"rocksdb", StateBackendKind::rocksdb}}))
    r.config.state_backend = *kind;
}

// A Flink option that is read and checked but changes nothing in the simulation (issue 12: no
// inert options): a warning that says why.
void not_modelled(const Node& v, FlinkReader& r, std::string_view what, std::string_view why) {
  r.ctx.warning(v.loc, "'" + std::string(what) + "' is not modelled; it has no effect: " +
                           std::string(why),
                "the run ignores it (validate --strict makes this an error)");
}

void buffer_timeout(const Node& v, FlinkReader& r) {
  duration_into(v, r, r.config.buffer_timeout);
}

// taskmanager.memory.* sizes and fractions (TaskManagerOptions): they decide each TaskManager's
// network memory, checked together after the block (process_spec_from_config).
using model::TaskManagerMemoryOptions;

template <std::optional<std::int64_t> TaskManagerMemoryOptions::*Field>
void memory_size(const Node& v, FlinkReader& r) {
  if (!r.memory_loc) r.memory_loc = v.loc;
  if (const auto size = read_size(r.ctx, v)) r.config.memory.*Field = *size;
}

template <std::optional<float> TaskManagerMemoryOptions::*Field>
void memory_fraction(const Node& v, FlinkReader& r) {
  if (!r.memory_loc) r.memory_loc = v.loc;
  // Configuration.getFloat: Float.parseFloat, so the value is the float nearest the text.
  if (read_double(r.ctx, v, "a memory fraction", 0, 1))
    r.config.memory.*Field = std::strtof(std::string(trim(v.text)).c_str(), nullptr);
}

// The memory keys a MiniCluster ignores: all but network.min/max (and their old spellings).
bool is_cluster_memory_key(std::string_view key) {
  static constexpr std::string_view kKeys[] = {
      "taskmanager.memory.process.size",       "taskmanager.memory.flink.size",
      "taskmanager.memory.task.heap.size",     "taskmanager.memory.managed.size",
      "taskmanager.memory.managed.fraction",   "taskmanager.memory.network.fraction",
      "taskmanager.network.memory.fraction",   "taskmanager.memory.framework.heap.size",
      "taskmanager.memory.framework.off-heap.size", "taskmanager.memory.task.off-heap.size",
      "taskmanager.memory.jvm-metaspace.size", "taskmanager.memory.jvm-overhead.fraction",
      "taskmanager.memory.jvm-overhead.min",   "taskmanager.memory.jvm-overhead.max",
      "taskmanager.network.numberOfBuffers"};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

const std::vector<FlinkOption>& flink_options() {
  static const std::vector<FlinkOption> options = {
      {"execution.checkpointing.interval", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         const auto d = read_flink_duration(r.ctx, v);
         if (!d) return;
         // CheckpointConfig.configure -> setCheckpointInterval throws below 10 ms, in every
         // version from 1.15 to 2.1: the job is not submitted.
         if (*d < kMinimalCheckpointTime) {
           r.ctx.error(v.loc,
                       "the checkpoint interval must be at least 10 ms, got '" + v.text + "'",
                       "Flink rejects it (\"Checkpoint interval must be larger than or equal to "
                       "10 ms\"); to disable periodic checkpoints, leave the interval unset");
           return;
         }
         r.config.checkpointing.interval = *d;
       }},
      {"execution.checkpointing.interval-during-backlog", FlinkVersion::v1_19,
       [](const Node& v, FlinkReader& r) {
         if (const auto d = read_flink_duration(r.ctx, v))
           r.config.checkpointing.interval_during_backlog = *d;
         // FLIP-309: it applies while a source reports isProcessingBacklog, which no modelled
         // source does.
         not_modelled(v, r, "execution.checkpointing.interval-during-backlog",
                      "no modelled source reports a backlog (FLIP-309), so the interval "
                      "never changes");
       }},
      {"execution.checkpointing.timeout", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         const auto d = read_flink_duration(r.ctx, v);
         if (!d) return;
         if (*d < kMinimalCheckpointTime) {
           r.ctx.error(v.loc, "the checkpoint timeout must be at least 10 ms, got '" + v.text + "'",
                       "Flink rejects shorter timeouts; write e.g. '10 min' (the default)");
           return;
         }
         r.config.checkpointing.timeout = *d;
       }},
      {"execution.checkpointing.min-pause", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         duration_into(v, r, r.config.checkpointing.min_pause);
       }},
      {"execution.checkpointing.max-concurrent-checkpoints", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         int_into(v, r, "execution.checkpointing.max-concurrent-checkpoints", 1,
                  r.config.checkpointing.max_concurrent);
       }},
      {"execution.checkpointing.tolerable-failed-checkpoints", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         int_into(v, r, "execution.checkpointing.tolerable-failed-checkpoints", 0,
                  r.config.checkpointing.tolerable_failed);
       }},
      {"execution.checkpointing.mode", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         using model::CheckpointingMode;
         if (const auto m = read_enum<CheckpointingMode>(
                 r.ctx, v, "checkpointing mode",
                 {{"EXACTLY_ONCE", CheckpointingMode::exactly_once},
                  {"AT_LEAST_ONCE", CheckpointingMode::at_least_once}}))
           r.config.checkpointing.mode = *m;
       }},
      // FLINK-29372 (1.17, "Add suffix to all options that conflict with YAML") made
      // unaligned.enabled, restart-strategy.type and state.backend.type the keys and kept the old
      // names as deprecated keys; release-1.15/-1.16 know only the old names
      // (ExecutionCheckpointingOptions.ENABLE_UNALIGNED, RestartStrategyOptions.RESTART_STRATEGY,
      // StateBackendOptions.STATE_BACKEND).
      {"execution.checkpointing.unaligned.enabled", FlinkVersion::v1_17, unaligned},
      {"execution.checkpointing.unaligned.interruptible-timers.enabled", FlinkVersion::v1_20,
       [](const Node& v, FlinkReader& r) { bool_into(v, r, r.config.checkpointing.interruptible_timers); }},
      {"execution.checkpointing.unaligned", FlinkVersion::v1_15, unaligned},
      // An async lookup join's AsyncWaitOperator: the defaults of `calls: {mode: async}`.
      {"table.exec.async-lookup.buffer-capacity", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         int_into(v, r, "table.exec.async-lookup.buffer-capacity", 1,
                  r.config.async_lookup.buffer_capacity);
         if (r.config.async_lookup.buffer_capacity > 100000) {
           r.ctx.error(v.loc, "table.exec.async-lookup.buffer-capacity " + v.text + " is too large",
                       "ckptsim models at most 100000 requests in flight per subtask");
           r.config.async_lookup.buffer_capacity = 100000;
         }
       }},
      {"table.exec.async-lookup.timeout", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         if (const auto d = read_flink_duration(r.ctx, v); d && *d > 0) r.config.async_lookup.timeout = *d;
       }},
      {"table.exec.async-lookup.output-mode", FlinkVersion::v1_16,
       [](const Node& v, FlinkReader& r) {
         if (const auto m = read_enum<bool>(r.ctx, v, "async lookup output mode",
                                            {{"ORDERED", true}, {"ALLOW_UNORDERED", false}}))
           r.config.async_lookup.ordered = *m;
       }},
      {"execution.checkpointing.unaligned.forced", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         bool_into(v, r, r.config.checkpointing.unaligned_forced);
         // It only lifts Flink's refusal of unaligned checkpoints on iterative jobs and
         // non-forward pointwise edges, which scenarios cannot express.
         not_modelled(v, r, "execution.checkpointing.unaligned.forced",
                      "scenarios have no iterative jobs, where it matters");
       }},
      {"execution.checkpointing.aligned-checkpoint-timeout", FlinkVersion::v1_15, aligned_timeout},
      {"execution.checkpointing.alignment-timeout", FlinkVersion::v1_15, aligned_timeout},
      {"execution.checkpointing.externalized-checkpoint-retention", FlinkVersion::v1_15, retention},
      // CheckpointingOptions (1.20) made execution.checkpointing.num-retained and
      // ...checkpoints-after-tasks-finish the keys; up to 1.19 only state.checkpoints.num-retained
      // and ...checkpoints-after-tasks-finish.enabled exist (release-1.19 CheckpointingOptions,
      // ExecutionCheckpointingOptions), so the new names are unknown keys there.
      {"execution.checkpointing.num-retained", FlinkVersion::v1_20, num_retained},
      {"state.checkpoints.num-retained", FlinkVersion::v1_15, num_retained},
      {"execution.checkpointing.checkpoints-after-tasks-finish", FlinkVersion::v1_20,
       after_tasks_finish},
      {"execution.checkpointing.checkpoints-after-tasks-finish.enabled", FlinkVersion::v1_15,
       after_tasks_finish},
      {"restart-strategy.type", FlinkVersion::v1_17, restart_type},
      {"restart-strategy", FlinkVersion::v1_15, restart_type},
      {"restart-strategy.fixed-delay.attempts", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         int_into(v, r, "restart-strategy.fixed-delay.attempts", 0,
                  r.config.restart.fixed_delay_attempts);
       }},
      {"restart-strategy.fixed-delay.delay", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) { duration_into(v, r, r.config.restart.fixed_delay); }},
      {"restart-strategy.failure-rate.max-failures-per-interval", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         int_into(v, r, "restart-strategy.failure-rate.max-failures-per-interval", 1,
                  r.config.restart.failure_rate_max_failures);
       }},
      {"restart-strategy.failure-rate.failure-rate-interval", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         duration_into(v, r, r.config.restart.failure_rate_interval);
       }},
      {"restart-strategy.failure-rate.delay", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         duration_into(v, r, r.config.restart.failure_rate_delay);
       }},
      {"restart-strategy.exponential-delay.initial-backoff", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         duration_into(v, r, r.config.restart.exp_initial_backoff);
       }},
      {"restart-strategy.exponential-delay.max-backoff", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         duration_into(v, r, r.config.restart.exp_max_backoff);
         r.max_backoff_set = true;
       }},
      {"restart-strategy.exponential-delay.backoff-multiplier", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         if (const auto m =
                 read_double(r.ctx, v, "restart-strategy.exponential-delay.backoff-multiplier", 1.0,
                             std::numeric_limits<double>::max()))
           r.config.restart.exp_multiplier = *m;
         r.multiplier_set = true;
       }},
      {"restart-strategy.exponential-delay.reset-backoff-threshold", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         duration_into(v, r, r.config.restart.exp_reset_threshold);
       }},
      {"restart-strategy.exponential-delay.jitter-factor", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         if (const auto j = read_double(
                 r.ctx, v, "restart-strategy.exponential-delay.jitter-factor", 0.0, 1.0))
           r.config.restart.exp_jitter = *j;
       }},
      {"restart-strategy.exponential-delay.attempts-before-reset-backoff", FlinkVersion::v1_19,
       [](const Node& v, FlinkReader& r) {
         int_into(v, r, "restart-strategy.exponential-delay.attempts-before-reset-backoff", 1,
                  r.config.restart.exp_attempts_before_reset);
       }},
      {"state.backend.type", FlinkVersion::v1_17, state_backend},
      {"state.backend", FlinkVersion::v1_15, state_backend},
      {"state.backend.incremental", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) { bool_into(v, r, r.config.incremental); }},
      {"state.backend.rocksdb.writebuffer.size", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         const auto size = read_size(r.ctx, v);
         if (!size) return;
         if (*size <= 0) {
           r.ctx.error(v.loc, "state.backend.rocksdb.writebuffer.size must be positive, got '" +
                                  v.text + "'");
           return;
         }
         r.config.rocksdb_writebuffer_size = *size;
       }},
      {"state.checkpoint-storage", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         using model::CheckpointStorageKind;
         if (const auto kind = read_enum<CheckpointStorageKind>(
                 r.ctx, v, "checkpoint storage",
                 {{"jobmanager", CheckpointStorageKind::jobmanager},
                  {"filesystem", CheckpointStorageKind::filesystem}}))
           r.config.checkpoint_storage = *kind;
         r.storage_set = true;
       }},
      {"state.checkpoints.dir", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         if (const auto dir = read_string(r.ctx, v)) r.config.checkpoints_dir = *dir;
         r.dir_set = true;
       }},
      {"state.storage.fs.memory-threshold", FlinkVersion::v1_15, inline_threshold},
      {"state.backend.fs.memory-threshold", FlinkVersion::v1_15, inline_threshold},
      {"execution.checkpointing.data-inline-threshold", FlinkVersion::v1_20, inline_threshold},
      {"state.savepoints.dir", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         if (const auto dir = read_string(r.ctx, v)) r.config.savepoints_dir = *dir;
       }},
      {"web.checkpoints.history", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         int_into(v, r, "web.checkpoints.history", 1, r.config.web_checkpoints_history);
       }},
      {"heartbeat.timeout", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) { duration_into(v, r, r.config.heartbeat_timeout); }},
      // TaskManagerOptions.TASK_CANCELLATION_INTERVAL / _TIMEOUT (milliseconds up to 1.19, a
      // Duration from 1.20; the old key task.cancellation-interval is a deprecated alias).
      {"task.cancellation.interval", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) { duration_into(v, r, r.config.task_cancellation_interval); }},
      {"task.cancellation-interval", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) { duration_into(v, r, r.config.task_cancellation_interval); }},
      {"task.cancellation.timeout", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) { duration_into(v, r, r.config.task_cancellation_timeout); }},
      // ExecutionOptions.BUFFER_TIMEOUT: key execution.buffer-timeout on release-1.15; 1.16 made
      // it execution.buffer-timeout.interval with the old key deprecated.
      {"execution.buffer-timeout", FlinkVersion::v1_15, buffer_timeout},
      {"execution.buffer-timeout.interval", FlinkVersion::v1_16, buffer_timeout},
      {"taskmanager.memory.segment-size", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         const auto size = read_size(r.ctx, v);
         if (!size) return;
         // ConfigurationParserUtils.getPageSize: an int (MathUtils.checkedDownCast), at least
         // MemoryManager.MIN_PAGE_SIZE, a power of 2.
         if (*size > std::numeric_limits<int>::max()) {
           r.ctx.error(v.loc, "Cannot downcast long value " + std::to_string(*size) + " to integer.",
                       "Flink's TaskManager does not start with it: a segment is at most 1 gb; "
                       "the default is 32 kb");
           return;
         }
         if (*size < 4096 || (*size & (*size - 1)) != 0) {
           r.ctx.error(v.loc,
                       "Invalid configuration value for taskmanager.memory.segment-size : " +
                           std::to_string(*size) +
                           (*size < 4096 ? " - Minimum memory segment size is 4096"
                                         : " - Memory segment size must be a power of 2."),
                       "Flink's TaskManager does not start with it: write a power of 2 of at "
                       "least 4 kb, such as 32 kb (the default)");
           return;
         }
         r.config.segment_size = *size;
       }},
      {"taskmanager.memory.process.size", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::process_size>},
      {"taskmanager.memory.flink.size", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::flink_size>},
      {"taskmanager.memory.task.heap.size", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::task_heap>},
      {"taskmanager.memory.managed.size", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::managed_size>},
      {"taskmanager.memory.managed.fraction", FlinkVersion::v1_15,
       memory_fraction<&TaskManagerMemoryOptions::managed_fraction>},
      // The network keys and their deprecated taskmanager.network.memory.* spellings, which
      // every version up to 2.1 still reads (withDeprecatedKeys).
      {"taskmanager.memory.network.fraction", FlinkVersion::v1_15,
       memory_fraction<&TaskManagerMemoryOptions::network_fraction>},
      {"taskmanager.network.memory.fraction", FlinkVersion::v1_15,
       memory_fraction<&TaskManagerMemoryOptions::network_fraction>},
      {"taskmanager.memory.network.min", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::network_min>},
      {"taskmanager.network.memory.min", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::network_min>},
      {"taskmanager.memory.network.max", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::network_max>},
      {"taskmanager.network.memory.max", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::network_max>},
      {"taskmanager.memory.framework.heap.size", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::framework_heap>},
      {"taskmanager.memory.framework.off-heap.size", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::framework_off_heap>},
      {"taskmanager.memory.task.off-heap.size", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::task_off_heap>},
      {"taskmanager.memory.jvm-metaspace.size", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::metaspace>},
      {"taskmanager.memory.jvm-overhead.fraction", FlinkVersion::v1_15,
       memory_fraction<&TaskManagerMemoryOptions::overhead_fraction>},
      {"taskmanager.memory.jvm-overhead.min", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::overhead_min>},
      {"taskmanager.memory.jvm-overhead.max", FlinkVersion::v1_15,
       memory_size<&TaskManagerMemoryOptions::overhead_max>},
      {"taskmanager.network.numberOfBuffers", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         if (!r.memory_loc) r.memory_loc = v.loc;
         if (const auto n = read_int(r.ctx, v, "taskmanager.network.numberOfBuffers", 1))
           r.config.memory.legacy_buffers = *n;
       }},
      // DeploymentOptions.TARGET: 'local' is a MiniCluster (an IDE, a local runner), whose
      // network memory ignores the sizes above. Every other target is a cluster.
      {"execution.target", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         if (!r.memory_loc) r.memory_loc = v.loc;
         if (const auto target = read_string(r.ctx, v))
           r.config.memory.local_execution = *target == "local";
       }},
      // InputGateSpecUtils (1.17+): a gate's required buffers are capped at this; unset, a
      // streaming gate requires 1 + 2 per remote channel, which is what ckptsim reserves.
      {"taskmanager.network.memory.read-buffer.required-per-gate.max", FlinkVersion::v1_17,
       [](const Node& v, FlinkReader& r) {
         if (read_int(r.ctx, v, "taskmanager.network.memory.read-buffer.required-per-gate.max", 1))
           not_modelled(v, r, "taskmanager.network.memory.read-buffer.required-per-gate.max",
                        "a gate reserves 1 buffer plus buffers-per-channel per remote channel, "
                        "as with the option unset");
       }},
      {"taskmanager.network.memory.buffers-per-channel", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         int_into(v, r, "taskmanager.network.memory.buffers-per-channel", 0,
                  r.config.buffers_per_channel);
       }},
      {"taskmanager.network.memory.floating-buffers-per-gate", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         // A channel counts the floating buffers it holds in 16 bits (a 64-byte Channel): more
         // than 32,767 per gate (a gigabyte of 32 kb segments for one gate) is reported.
         if (const auto n = read_int64(r.ctx, v, "taskmanager.network.memory.floating-buffers-per-gate",
                                       0, model::FlinkConfig::kMaxFloatingBuffersPerGate))
           r.config.floating_buffers_per_gate = static_cast<int>(*n);
       }},
      {"taskmanager.network.memory.max-buffers-per-channel", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         int_into(v, r, "taskmanager.network.memory.max-buffers-per-channel", 0,
                  r.config.max_buffers_per_channel);
       }},
      {"taskmanager.network.memory.buffer-debloat.enabled", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) { bool_into(v, r, r.config.debloat_enabled); }},
      {"taskmanager.network.memory.buffer-debloat.target", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) { duration_into(v, r, r.config.debloat_target); }},
      {"taskmanager.network.memory.buffer-debloat.period", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) { duration_into(v, r, r.config.debloat_period); }},
      {"taskmanager.network.memory.buffer-debloat.samples", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         int_into(v, r, "taskmanager.network.memory.buffer-debloat.samples", 1,
                  r.config.debloat_samples);
       }},
      {"taskmanager.network.memory.buffer-debloat.threshold-percentages", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         int_into(v, r, "taskmanager.network.memory.buffer-debloat.threshold-percentages", 0,
                  r.config.debloat_threshold_percent);
       }},
      {"taskmanager.memory.min-segment-size", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         const auto size = read_size(r.ctx, v);
         if (size && *size > 0) r.config.min_segment_size = *size;
       }},
      {"pipeline.operator-chaining", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) { bool_into(v, r, r.config.operator_chaining); }},
      // PipelineOptions.OPERATOR_CHAINING: key pipeline.operator-chaining.enabled from 1.18
      // (FLINK-31996, release-1.18 PipelineOptions), the old key deprecated.
      {"pipeline.operator-chaining.enabled", FlinkVersion::v1_18,
       [](const Node& v, FlinkReader& r) { bool_into(v, r, r.config.operator_chaining); }},
      {"jobmanager.execution.failover-strategy", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         if (const auto choice = read_choice(r.ctx, v, "failover strategy", {"region", "full"}))
           r.config.failover_strategy =
               *choice == 0u ? model::FailoverStrategyKind::region : model::FailoverStrategyKind::full;
       }},
      {"parallelism.default", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         if (const auto p = read_int(r.ctx, v, "parallelism.default", 1))
           r.default_parallelism = *p;
       }},
      // The cluster's shape: cluster.slots-per-taskmanager, which wins when both are written.
      {"taskmanager.numberOfTaskSlots", FlinkVersion::v1_15,
       [](const Node& v, FlinkReader& r) {
         if (const auto n = read_int(r.ctx, v, "taskmanager.numberOfTaskSlots", 1))
           r.config.task_slots = *n;
       }},
  };
  return options;
}

// Options a later Flink version removed: setting them there is a mistake the user should hear
// about, not a value to apply.
struct RemovedOption {
  std::string_view key;
  FlinkVersion in;
  std::string_view ticket;
  std::string_view instead;
};

const RemovedOption* removed_option(std::string_view key) {
  // FLINK-33750 (2.0) removed the exclusive/floating buffer options deprecated in 1.20
  // (FLINK-35461): NettyShuffleEnvironmentConfiguration.fromConfiguration fixes them at 2, 8
  // and 10. It also removed the legacy taskmanager.network.numberOfBuffers.
  static constexpr std::string_view kFixed =
      "2.0 fixes the buffers at 2 per channel, 8 floating per gate and at most 10 per channel";
  static constexpr RemovedOption kRemoved[] = {
      {"taskmanager.network.memory.buffers-per-channel", FlinkVersion::v2_0, "FLINK-33750",
       kFixed},
      {"taskmanager.network.memory.floating-buffers-per-gate", FlinkVersion::v2_0, "FLINK-33750",
       kFixed},
      {"taskmanager.network.memory.max-buffers-per-channel", FlinkVersion::v2_0, "FLINK-33750",
       kFixed},
      {"taskmanager.network.numberOfBuffers", FlinkVersion::v2_0, "FLINK-33750",
       "size the network memory with taskmanager.memory.network.min/max/fraction"},
  };
  for (const RemovedOption& r : kRemoved)
    if (r.key == key) return &r;
  return nullptr;
}

std::vector<std::string> option_names() {
  std::vector<std::string> names{"version"};
  for (const FlinkOption& option : flink_options()) names.emplace_back(option.key);
  return names;
}

std::vector<std::string> version_names() {
  std::vector<std::string> names;
  for (const model::FlinkVersion v : model::kFlinkVersions) names.emplace_back(model::to_string(v));
  return names;
}

}  // namespace

bool is_leaf_flink_option(std::string_view key) {
  bool known = false;
  for (const FlinkOption& option : flink_options()) {
    if (option.key == key) known = true;
    if (option.key.size() > key.size() && option.key.starts_with(key) &&
        option.key[key.size()] == '.')
      return false;
  }
  return known;
}

void read_flink(Context& ctx, const Node& flink, model::FlinkConfig& config,
                std::optional<int>& default_parallelism) {
  FlinkReader reader{ctx,   config, default_parallelism, false, false, false, false,
                     std::nullopt, std::nullopt};
  // The version comes first: it decides which keys exist and the defaults of the others.
  if (const Entry* version = flink.find("version")) {
    if (const auto text = read_string(ctx, version->value)) {
      if (const auto v = model::parse_flink_version(*text)) {
        config.version = *v;
      } else {
        ctx.error(version->value.loc, "unsupported Flink version '" + *text + "'",
                  "supported versions: " + join(version_names(), ", "));
      }
    }
  }
  int ignored = 0;
  for (const Entry& entry : flink.entries) {
    if (entry.key == "version") continue;
    const auto& options = flink_options();
    const auto option = std::find_if(options.begin(), options.end(),
                                     [&](const FlinkOption& o) { return o.key == entry.key; });
    if (option == options.end()) {
      // A key of Flink's own reference that does not touch checkpointing: accepted, counted.
      const ReferenceLookup reference = look_up_flink_key(entry.key, config.version);
      if (reference.status == ReferenceStatus::documented) {
        ctx.note(entry.key_loc, "'" + entry.key + "' has no effect on checkpointing; ignored");
        ++ignored;
        continue;
      }
      if (reference.status == ReferenceStatus::other_versions) {
        ctx.warning(entry.key_loc,
                    "'" + entry.key + "' is not in Flink " + model::to_string(config.version) +
                        "'s configuration reference (it is in " + join(reference.versions, ", ") +
                        "'s); it has no effect here",
                    "Flink may still read it as a deprecated key of a renamed option: check the "
                    "release notes, or set the version the configuration was written for");
        continue;
      }
      // Past the error limit an error is only counted: no hint to look for (a 4 MiB file of
      // unknown keys spent 30 s on hints nobody sees).
      std::string hint;
      if (ctx.error_count() < ctx.limits().max_errors) {
        std::vector<std::string> names = option_names();
        const auto& documented = reference_keys(config.version);
        names.insert(names.end(), documented.begin(), documented.end());
        hint = did_you_mean(entry.key, names);
      }
      if (hint.empty())
        hint = "neither ckptsim nor Flink " + std::string(model::to_string(config.version)) +
               "'s configuration reference knows it (docs/scenario-format.md lists the options "
               "that change the simulation)";
      ctx.error(entry.key_loc, "unknown Flink option '" + entry.key + "'", hint);
      continue;
    }
    if (const RemovedOption* removed = removed_option(entry.key);
        removed != nullptr && config.version >= removed->in) {
      const char* in = model::to_string(removed->in);
      ctx.error(entry.key_loc,
                "Flink option '" + entry.key + "' was removed in Flink " + in + " (" +
                    std::string(removed->ticket) + "); Flink " + model::to_string(config.version) +
                    " ignores it, so it cannot change this job",
                std::string("remove it, or set a version before ") + in +
                    " in the flink block; " + std::string(removed->instead));
      continue;
    }
    if (config.version < option->since) {
      const char* since = model::to_string(option->since);
      ctx.error(
          entry.key_loc,
          "Flink option '" + entry.key + "' needs Flink " + since +
              " or later; this scenario uses Flink " + model::to_string(config.version),
          std::string("set 'version: \"") + since + "\"' in the flink block, or remove the option");
      continue;
    }
    option->apply(entry.value, reader);
  }
  // CheckpointCoordinatorConfiguration: "maxConcurrentCheckpoints can't be > 1 if
  // UnalignedCheckpoints enabled".
  if (config.checkpointing.unaligned && config.checkpointing.max_concurrent > 1 &&
      reader.unaligned_loc)
    ctx.error(*reader.unaligned_loc,
              "unaligned checkpoints need execution.checkpointing.max-concurrent-checkpoints: 1",
              "Flink rejects the job: \"maxConcurrentCheckpoints can't be > 1 if "
              "UnalignedCheckpoints enabled\"");
  if (ignored > 0)
    ctx.warning(flink.loc,
                std::to_string(ignored) + " Flink option" + (ignored == 1 ? " has" : "s have") +
                    " no effect on checkpointing and " + (ignored == 1 ? "was" : "were") +
                    " ignored",
                "list them with --verbose");
  // The TaskManager's memory as Flink derives it: a configuration its TaskManager cannot start
  // with is rejected here, before any job runs.
  const auto spec =
      model::process_spec_from_config(config.memory, config.segment_size, config.version);
  if (const auto* error = std::get_if<std::string>(&spec))
    ctx.error(reader.memory_loc.value_or(flink.loc), *error,
              "Flink's TaskManager does not start with these taskmanager.memory.* sizes "
              "(TaskExecutorProcessUtils); docs/scenario-format.md shows how they add up");
  // TaskExecutorResourceUtils.adjustForLocalExecution: a MiniCluster's network memory is
  // network.min/max alone; the other sizes and every fraction change nothing there.
  if (config.memory.local_execution)
    for (const Entry& entry : flink.entries)
      if (is_cluster_memory_key(entry.key))
        ctx.warning(entry.key_loc,
                    "'" + entry.key + "' has no effect in local execution (execution.target: local)",
                    "a MiniCluster's network memory is taskmanager.memory.network.min/max, 64 mb "
                    "unless set (TaskExecutorResourceUtils.adjustForLocalExecution)");
  // A checkpoint directory without an explicit storage means file system storage, as in Flink.
  if (reader.dir_set && !reader.storage_set)
    config.checkpoint_storage = model::CheckpointStorageKind::filesystem;
  model::resolve_defaults(config, reader.max_backoff_set, reader.multiplier_set);
}

}  // namespace ckptsim::scenario::detail
