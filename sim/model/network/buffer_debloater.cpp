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
  for (int c : s.inputs) in_use += static_cast<int>(chan(c).received_size()) + chan(c).backlog;
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
  // announceBufferSize to the upstreams: every channel's writer fills buffers of the new size
  // (Network::buffer_size). The records a round-robin writer owes a channel went into builders
  // of the old size.
  for (int c : s.inputs)
    if (const auto [g, position] = output_of(c); g->round_robin())
      take_records(sub(chan(c).producer), *g, position);
  s.debloat_announced = size;
  for (int c : s.inputs)
    if (const auto [g, position] = output_of(c); g->round_robin())
      update_fill_point(sub(chan(c).producer), *g, position);
}

std::int64_t Network::buffer_size(const Channel& c) const {
  const std::int64_t announced = sub(c.consumer).debloat_announced;
  return announced > 0 ? announced : std::max<std::int64_t>(1, scenario_.flink.segment_size);
}

std::pair<OutputGroup*, int> Network::output_of(int channel) {
  const Channel& c = chan(channel);
  Subtask& producer = sub(c.producer);
  // All to all, a group's channels go to the consumers in subtask order.
  const auto guess = static_cast<std::size_t>(sub(c.consumer).index);
  for (OutputGroup& g : producer.outputs) {
    if (g.channels.empty() || sub(chan(g.channels.front()).consumer).vertex != sub(c.consumer).vertex)
      continue;
    if (guess < g.channels.size() && g.channels[guess] == channel)
      return {&g, static_cast<int>(guess)};
    for (std::size_t p = 0; p < g.channels.size(); ++p)
      if (g.channels[p] == channel) return {&g, static_cast<int>(p)};
  }
  return {nullptr, -1};  // not reached: every channel is in its producer's outputs
}

}  // namespace ckptsim::model
