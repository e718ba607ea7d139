// RecordWriter, its ChannelSelectors and the BufferBuilders they fill; the OutputFlusher.
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

bool Network::output_available(const Subtask& s) const {
  // LocalBufferPool availability: a free buffer in the pool and no subpartition holding
  // max-buffers-per-channel buffers (RecordWriter.isAvailable).
  if (s.outputs.empty()) return true;
  return s.partition_buffers < s.pool_size && s.full_subpartitions == 0;
}

void Network::write_records(Subtask& s, std::int64_t records, SimTime born) {
  if (records <= 0) return;
  s.sample.records_out += records;
  const int id = x_.vertex_first_[static_cast<std::size_t>(s.vertex)] + s.index;
  const std::int64_t record_size = std::max<std::int64_t>(1, vertex(s).record_size);
  for (OutputGroup& g : s.outputs) {
    g.written_since_flush = true;
    if (g.round_robin()) {
      write_round_robin(s, id, g, records, born);
    } else if (g.ship == ShipStrategy::hash) {  // skewed keys: each channel its share
      for (std::size_t k = 0; k < g.channels.size(); ++k) {
        g.carry[k] += static_cast<double>(records) * g.weights[k];
        const auto share = static_cast<std::int64_t>(std::floor(g.carry[k]));
        g.carry[k] -= static_cast<double>(share);
        if (share > 0 && append_to_builder(g.channels[k], share, record_size, static_cast<double>(born)))
          schedule_flush(s, id);
      }
    } else {  // forward (one channel) and broadcast: every channel all records
      for (int c : g.channels)
        if (append_to_builder(c, records, record_size, static_cast<double>(born)))
          schedule_flush(s, id);
    }
  }
  if (scenario_.flink.buffer_timeout <= 0) close_builders(s, nullptr);  // execution.buffer-timeout 0
}

namespace {
// Records round robin has given position k (counted from the group's origin) after `written`
// records: the j in [0, written) with j = k mod n.
std::int64_t round_robin_share(std::int64_t written, std::int64_t k, std::int64_t n) {
  return written > k ? (written - k - 1) / n + 1 : 0;
}
constexpr auto kFillsFirst = std::greater<std::pair<std::int64_t, int>>{};
}  // namespace

void Network::write_round_robin(Subtask& s, int id, OutputGroup& g, std::int64_t records,
                                    SimTime born) {
  const auto n = static_cast<std::int64_t>(g.channels.size());
  const std::int64_t before = g.written;
  g.written += records;
  g.born_written += static_cast<double>(records) * static_cast<double>(born - g.born_origin);
  // The positions whose builder fills in this write, in the order round robin reaches them
  // (j: the record of this write that reaches the position first).
  std::vector<std::pair<std::int64_t, int>>& filled = filled_scratch_;
  filled.clear();
  while (g.next_fill <= g.written) {
    const auto [at, position] = g.fills.front();
    std::pop_heap(g.fills.begin(), g.fills.end(), kFillsFirst);
    g.fills.pop_back();
    g.fills_changed();
    auto& current = g.fills_at[static_cast<std::size_t>(position)];
    if (current != at) continue;  // stale
    current = std::numeric_limits<std::int64_t>::max();
    const std::int64_t k = g.offset(static_cast<std::size_t>(position));
    filled.emplace_back(((k - before) % n + n) % n, position);
  }
  std::sort(filled.begin(), filled.end());
  // Record by record, the flush timer starts at the first channel left with an open builder:
  // any reached channel that did not fill, or a filled one with bytes left over.
  const std::int64_t reached = std::min(records, n);
  std::int64_t unfilled = 0;  // the first reached channel that does not fill
  for (const auto& [j, position] : filled) {
    if (j != unfilled) break;
    ++unfilled;
  }
  for (const auto& [j, position] : filled) {
    if (unfilled < j) schedule_flush(s, id);
    if (take_records(s, g, position)) schedule_flush(s, id);
    update_fill_point(s, g, position);
  }
  if (unfilled < reached) schedule_flush(s, id);
}

bool Network::take_records(const Subtask& s, OutputGroup& g, int position) {
  const auto pos = static_cast<std::size_t>(position);
  const auto n = static_cast<std::int64_t>(g.channels.size());
  const std::int64_t k = g.offset(pos);
  const std::int64_t due = round_robin_share(g.written, k, n) - g.taken[pos];
  if (due <= 0) return chan(g.channels[pos]).open_bytes > 0;
  g.taken[pos] += due;
  auto& [written_then, born_then] = g.born_taken[pos];
  const double born = static_cast<double>(g.born_origin) +
                      (g.born_written - born_then) / static_cast<double>(g.written - written_then);
  written_then = g.written;
  born_then = g.born_written;
  return append_to_builder(g.channels[pos], due, std::max<std::int64_t>(1, vertex(s).record_size),
                           born);
}

void Network::update_fill_point(const Subtask& s, OutputGroup& g, int position) {
  // The builder fills with the record that brings it to the buffer size: `need` more records
  // to this position, the first of them at least.
  const auto pos = static_cast<std::size_t>(position);
  const Channel& c = chan(g.channels[pos]);
  const std::int64_t record_size = std::max<std::int64_t>(1, vertex(s).record_size);
  const std::int64_t room = buffer_size(c) - c.open_bytes;
  const std::int64_t need = room <= 0 ? 1 : (room + record_size - 1) / record_size;
  const auto n = static_cast<std::int64_t>(g.channels.size());
  const std::int64_t k = g.offset(pos);
  const std::int64_t at = k + (g.taken[pos] + need - 1) * n + 1;
  g.fills_at[pos] = at;
  if (g.fills.size() >= 4 * g.channels.size()) {  // mostly stale: rebuild
    g.fills.clear();
    for (std::size_t p = 0; p < g.fills_at.size(); ++p)
      if (g.fills_at[p] != std::numeric_limits<std::int64_t>::max())
        g.fills.emplace_back(g.fills_at[p], static_cast<int>(p));
    std::make_heap(g.fills.begin(), g.fills.end(), kFillsFirst);
    g.fills_changed();
    return;
  }
  g.fills.emplace_back(at, position);
  std::push_heap(g.fills.begin(), g.fills.end(), kFillsFirst);
  g.fills_changed();
}

void Network::reset_round_robin(const Subtask& s, OutputGroup& g, std::size_t origin) {
  const std::size_t n = g.channels.size();
  g.origin = origin % n;
  g.written = 0;
  g.taken.assign(n, 0);
  g.born_origin = sim_.now();
  g.born_written = 0;
  g.born_taken.assign(n, {0, 0.0});
  g.fills_at.assign(n, 0);
  g.fills.clear();
  g.fills_changed();
  for (std::size_t p = 0; p < n; ++p) update_fill_point(s, g, static_cast<int>(p));
}

void Network::skip_round_robin(const Subtask& s, OutputGroup& g, std::int64_t records) {
  // The records were written and sent meanwhile: each position gets its round-robin share of
  // them, so what is due to its builder (and its mean read time) stays as it was.
  if (records <= 0 || !g.round_robin()) return;
  const auto n = static_cast<std::int64_t>(g.channels.size());
  const std::int64_t before = g.written;
  g.written += records;
  for (std::size_t p = 0; p < g.channels.size(); ++p) {
    const std::int64_t k = g.offset(p);
    g.taken[p] += round_robin_share(g.written, k, n) - round_robin_share(before, k, n);
    g.born_taken[p].first += records;
  }
  g.fills.clear();
  g.fills_changed();
  for (std::size_t p = 0; p < g.channels.size(); ++p) update_fill_point(s, g, static_cast<int>(p));
}

void Network::delay_data(Duration by) {
  const auto later = static_cast<double>(by);
  for (Channel& c : channels_) {
    c.open_born += static_cast<double>(c.open_records) * later;
    for (std::size_t i = 0; i < c.queues.size(); ++i)
      if (NetworkBuffer& b = c.queues.at(arena_, i); b.is_data()) b.born += by;
  }
  for (QueueStatistics& q : queue_statistics_) {
    q.occupancy_since += by;
    for (std::size_t i = 0; i < q.enqueued.size(); ++i) q.enqueued[i] += by;
  }
  for (Subtask& s : x_.subtasks_)
    for (OutputGroup& g : s.outputs) g.born_origin += by;
}

bool Network::append_to_builder(int channel, std::int64_t records, std::int64_t record_size,
                                    double born) {
  Channel& c = chan(channel);
  const std::int64_t segment = buffer_size(c);
  // The builder holds less than a segment between calls; a large write passes through 64 bits.
  std::int64_t open_records = c.open_records + records;
  std::int64_t open_bytes = c.open_bytes + records * record_size;
  c.open_born += static_cast<double>(records) * born;
  while (open_bytes >= segment) {  // a full BufferBuilder becomes a finished buffer
    const double mean_born = c.open_born / static_cast<double>(open_records);
    const std::int64_t taken = std::max<std::int64_t>(
        1, std::min(open_records,
                    static_cast<std::int64_t>(std::llround(static_cast<double>(open_records) *
                                                          static_cast<double>(segment) /
                                                          static_cast<double>(open_bytes)))));
    const NetworkBuffer b =
        NetworkBuffer::data(segment, taken, static_cast<SimTime>(std::llround(mean_born)));
    open_bytes -= segment;
    open_records -= taken;
    c.open_born -= static_cast<double>(taken) * mean_born;
    if (open_records <= 0) {
      open_records = 0;
      open_bytes = 0;
      c.open_born = 0;
    }
    add_to_subpartition(channel, b);  // reads nothing of the builder
  }
  c.open_records = static_cast<std::int32_t>(open_records);
  c.open_bytes = static_cast<std::int32_t>(open_bytes);
  return c.open_bytes > 0;
}

bool Network::finish_builder(int channel) {
  Channel& c = chan(channel);
  if (c.open_bytes <= 0) return false;
  const NetworkBuffer b = NetworkBuffer::data(
      c.open_bytes, c.open_records,
      c.open_records > 0
          ? static_cast<SimTime>(std::llround(c.open_born / static_cast<double>(c.open_records)))
          : sim_.now());
  c.open_bytes = c.open_records = 0;
  c.open_born = 0;
  add_to_subpartition(channel, b);
  return true;
}

void Network::schedule_flush(Subtask& s, int id) {
  // The OutputFlusher flushes every buffer timeout: started by the first write, it ticks while
  // the task runs (see kFlush).
  if (s.flush_scheduled || s.flush_with_step || scenario_.flink.buffer_timeout <= 0) return;
  s.flush_scheduled = true;
  sim_.schedule_in(scenario_.flink.buffer_timeout, this, kFlush, arg(id));
}

std::int64_t Network::close_builders(Subtask& s, const Buffer* event) {
  // BufferWritingResultPartition.broadcastEvent finishes the open builders first, so an event
  // queues right behind the data written before it (or, unaligned, overtakes all of it). The
  // event is serialized once; every subpartition queues a copy.
  std::int64_t persisted = 0;
  const NetworkBuffer serialized = event ? events_.to_buffer(*event) : NetworkBuffer{};
  for (OutputGroup& g : s.outputs) {
    if (!event && !g.written_since_flush) continue;
    g.written_since_flush = false;
    const bool round_robin = g.round_robin();
    for (std::size_t p = 0; p < g.channels.size(); ++p) {
      const auto position = static_cast<int>(p);
      const std::int64_t taken = round_robin ? g.taken[p] : 0;
      if (round_robin) take_records(s, g, position);
      const bool finished = finish_builder(g.channels[p]);
      if (event) persisted += add_to_subpartition(g.channels[p], events_.copy(serialized));
      if (round_robin && (finished || g.taken[p] != taken)) update_fill_point(s, g, position);
    }
    if (round_robin) {  // every record was taken: the read-time sums start again from now
      g.born_origin = sim_.now();
      g.born_written = 0;
      for (auto& taken_at : g.born_taken) taken_at.second = 0;
    }
  }
  if (event) events_.recycle(serialized);  // the broadcast's own hold
  return persisted;
}

}  // namespace ckptsim::model
