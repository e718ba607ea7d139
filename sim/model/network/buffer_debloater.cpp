// BufferDebloater and BufferSizeEMA (R19): every debloat period the gate's throughput sets the
// buffer size announced to its upstreams.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "sim/model/checkpointing/barrier_handler.hpp"
#include "sim/model/checkpointing/subtask_checkpoint_coordinator.hpp"
#include "sim/model/network/network.hpp"
#include "sim/model/task/stream_task.hpp"
#include "sim/model/task/task_executor.hpp"

namespace ckptsim::model {

void Network::recalculate_buffer_size(int id) {
  // BufferDebloater.recalculateBufferSize with BufferSizeEMA.calculateBufferSize (R19).
  Subtask& s = sub(id);
  const FlinkConfig& f = scenario_.flink;
  tasks().account(s);
  // ThroughputCalculator pauses while the gate has no data.
  const Duration measured = std::max<Duration>(core::kMillisecond, f.debloat_period - s.debloat_idle);
  const double throughput = static_cast<double>(s.debloat_bytes) / (static_cast<double>(measured) / 1e9);
  s.debloat_throughput = throughput;
  s.debloat_bytes = 0;
  s.debloat_idle = 0;
  // RemoteInputChannel.getBuffersInUseCount summed over the gate: queued buffers plus
  // max(0, numRequiredBuffers - initialCredit), i.e. the sender's announced backlog.
  int in_use = 0;
  for (int c : s.inputs) in_use += static_cast<int>(chan(c).received.size()) + chan(c).backlog;
  // desirable = totalBufferSizeInBytes / totalBuffers in long arithmetic, at most twice the last.
  const auto desired_total = static_cast<std::int64_t>(
      std::floor(throughput * static_cast<double>(f.debloat_target / core::kMillisecond) / 1e3));
  const double alpha = 2.0 / (f.debloat_samples + 1);
  const double desirable = std::min(static_cast<double>(desired_total / std::max(1, in_use)),
                                    2 * s.debloat_size);
  s.debloat_size += alpha * (desirable - s.debloat_size);
  // Flink 1.15-1.20 keep the EMA in an int (`lastBufferSize += ...` truncates every step;
  // BufferDebloater.java on release-1.16 is byte-identical to 1.17's); 2.0 and 2.1 keep a double
  // and round the size it returns (FLINK-36555).
  const bool int_ema = f.version < FlinkVersion::v2_0;
  if (int_ema) s.debloat_size = std::trunc(s.debloat_size);
  const double lo = static_cast<double>(std::min(f.min_segment_size, f.segment_size));
  s.debloat_size = std::clamp(s.debloat_size, lo, static_cast<double>(f.segment_size));
  const auto size = int_ema ? static_cast<std::int64_t>(s.debloat_size) : std::llround(s.debloat_size);
  const bool at_bound = size == static_cast<std::int64_t>(lo) || size == f.segment_size;
  const double change =
      std::abs(1.0 - static_cast<double>(s.debloat_announced) / static_cast<double>(size)) * 100;
  if (size == s.debloat_announced || (change < f.debloat_threshold_percent && !at_bound)) return;
  s.debloat_announced = size;
  for (int c : s.inputs) {  // announceBufferSize to the upstreams
    Channel& ch = chan(c);
    Subtask& producer = sub(ch.producer);
    OutputGroup& g = producer.outputs[static_cast<std::size_t>(ch.output_group)];
    if (!g.round_robin()) {
      ch.buffer_size = size;
      continue;
    }
    // The records written so far went into builders of the old size.
    take_records(producer, g, ch.output_position);
    ch.buffer_size = size;
    update_fill_point(producer, g, ch.output_position);
  }
}

}  // namespace ckptsim::model
