// Flink's network stack at buffer granularity, for every subtask of the job:
//  - the writer side (record_writer.cpp): RecordWriter with its ChannelSelector (forward,
//    round robin, hash with key skew, broadcast) filling BufferBuilders, and the OutputFlusher
//    (execution.buffer-timeout);
//  - ResultPartition / PipelinedSubpartition (result_partition.cpp): buffers and events queued
//    per subpartition, LocalBufferPool availability (n*2+8, max-buffers-per-channel),
//    broadcastEvent, priority (unaligned) barriers, credit-based sending (R1, R8, R10);
//  - SingleInputGate with RemoteInputChannel / LocalInputChannel (input_gate.cpp): exclusive
//    credits, floating buffers from the gate's BufferManager, recycling, resumeConsumption;
//  - BufferDebloater with BufferSizeEMA (buffer_debloater.cpp, R19).
// reference/flink-task-network.md sections 1-3. Knows no connector and no barrier-handler rule;
// it tells the task thread when to look again (wake) and the checkpointing side when a barrier
// moves.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "sim/model/network/channel.hpp"
#include "sim/model/network/event_serializer.hpp"
#include "sim/model/network/network_buffer_pool.hpp"
#include "sim/model/task/task_part.hpp"

namespace ckptsim::model {

class Network final : public TaskPart, public core::EventHandler {
 public:
  explicit Network(TaskExecutor& executor) : TaskPart(executor) {}
  // Builds the channels of the job graph (forward i -> i, rescale pointwise, the others all
  // to all) and each task's pools.
  void build(std::vector<Subtask>& subtasks, const std::vector<int>& vertex_first);

  std::vector<Channel> channels_;

  // Drops every buffer in flight and resets credits (a new attempt of every task), or only on
  // the channels of the subtasks `in` marks (a restarting region: no channel leaves it).
  void clear_network();
  void clear_network(const std::vector<char>& in);

  // --- RecordWriter / OutputFlusher
  bool output_available(const Subtask& s) const;
  // Writes records whose mean read time at the sources is `born`.
  void write_records(Subtask& s, std::int64_t records, SimTime born);
  // Finishes every open builder (the flush timer), then adds `event` to every subpartition if
  // given (BufferWritingResultPartition.broadcastEvent); returns the output channel state bytes.
  std::int64_t close_builders(Subtask& s, const Buffer* event);
  void schedule_flush(Subtask& s, int id);
  // Lazy round robin (OutputGroup): a write; handing a position the records due to it (true:
  // its builder holds bytes); its next fill point; a fresh start at `origin`.
  bool take_records(const Subtask& s, OutputGroup& g, int position);
  void update_fill_point(const Subtask& s, OutputGroup& g, int position);
  void reset_round_robin(const Subtask& s, OutputGroup& g, std::size_t origin);

  // --- A channel's queues (Channel::queues): the input channel's received buffers and the
  // subpartition's; the size of the buffers its writer fills (the consumer's debloated size).
  ChannelQueue received(Channel& c) { return {c.queues, arena_, true}; }
  ChannelQueue subpartition(Channel& c) { return {c.queues, arena_, false}; }
  ConstChannelQueue received(const Channel& c) const { return {c.queues, arena_, true}; }
  ConstChannelQueue subpartition(const Channel& c) const { return {c.queues, arena_, false}; }
  std::int64_t received_bytes(const Channel& c) const;
  std::int64_t buffer_size(const Channel& c) const;

  // --- ResultPartition / subpartitions
  std::int64_t add_to_subpartition(int channel, const NetworkBuffer& b);
  void pump(int channel);

  // --- Events in the queues (event_serializer.hpp): a queued event's content; a queued copy
  // read or dropped; a queued copy that now carries `event`.
  const Buffer& event(const NetworkBuffer& b) const { return events_.from_buffer(b); }
  void recycle_event(const NetworkBuffer& b) { events_.recycle(b); }
  NetworkBuffer rewrite_event(const NetworkBuffer& b, const Buffer& event) {
    return events_.rewrite(b, event);
  }
  std::size_t live_events() const { return events_.live(); }
  // The consumer's view of the buffer at the head of `c`'s input queue, taken off the queue.
  Buffer take_received(Channel& c);
  // Asks the CPU to fetch what take_received(c) will read (a hint: nothing in the run changes).
  void prefetch_received(const Channel& c) const {
    if (const NetworkBuffer* head = c.queues.head(arena_)) __builtin_prefetch(head);
  }

  // --- InputGate / input channels
  void recycle(int channel);
  void resume_consumption(int channel);
  void unblock_all_inputs(Subtask& s, int keep_blocked = -1);
  // Keeps the consumer's InputSets in step with a channel's queue, credits and blocking.
  void note_received(const Channel& c);
  void note_floating_wish(Channel& c);

  // --- Queueing statistics, for the channels a caller tracks (QueueStatistics in channel.hpp)
  void track_queue(int channel);
  const QueueStatistics* queue_statistics(int channel) const;

  // --- NetworkBufferPool, one per TaskManager (network_buffer_pool.hpp)
  // Task.setupPartitionsAndGates at the end of DEPLOYING: a LocalBufferPool per result
  // partition (M + 1 required, M * buffers-per-channel + floating-buffers-per-gate at most) and
  // one for the input gate (1 required, floating-buffers-per-gate at most). The IOException's
  // message if the TaskManager's pool cannot hold them (what was taken is given back).
  std::optional<std::string> setup_partitions_and_gates(int id);
  // SingleInputGate.requestPartitions when the task starts reading: each remote channel's
  // exclusive buffers (RemoteInputChannel.setup); local channels take none.
  std::optional<std::string> request_exclusive_buffers(int id);
  // Task.releaseResources: the pools are destroyed, the exclusive buffers recycled.
  void release_buffers(int id);
  const NetworkBufferPool& buffer_pool(int taskmanager) const {
    return buffer_pools_[static_cast<std::size_t>(taskmanager)];
  }

  // --- BufferDebloater
  void start_debloating(int id);

  std::uint64_t buffers_transferred() const { return buffers_transferred_; }

  // --- The hybrid network (hybrid_network.hpp): events that move data; a skipped period's
  // records handed to a round-robin writer's channels; everything in flight moved `by` later.
  static bool moves_data(std::uint32_t kind) { return kind == kFlush; }
  void skip_round_robin(const Subtask& s, OutputGroup& g, std::int64_t records);
  void delay_data(Duration by);

  void on_event(std::uint32_t kind, std::uint64_t arg) override;

 private:
  friend class HybridNetwork;  // its counters include buffers_transferred_
  enum Event : std::uint32_t { kFlush, kDebloat };
  void write_round_robin(Subtask& s, int id, OutputGroup& g, std::int64_t records, SimTime born);
  // Adds records to a channel's BufferBuilder, finishing every full buffer; true if bytes are
  // left in the builder (the flush timer has something to do).
  bool append_to_builder(int channel, std::int64_t records, std::int64_t record_size,
                         double born);
  bool finish_builder(int channel);  // true if it held bytes (a buffer was added)
  void request_floating(int channel);
  void change_backlog(Channel& c, int delta);
  void recalculate_buffer_size(int id);
  // Reads the TaskManager's pool sizes into its tasks after a redistribution (all of them if
  // a pool other than `own`'s changed), and wakes what the larger pools let go on.
  void apply_pool_sizes(int taskmanager, int own);
  void apply_pool_sizes(Subtask& s, int id);

  QueueStatistics* tracked(const Channel& c);
  void note_enqueued(const Channel& c);
  void note_read(const Channel& c);
  static void occupancy_change(QueueStatistics& q, SimTime now, int delta);

  // The producer's OutputGroup holding `channel`, and its position there.
  std::pair<OutputGroup*, int> output_of(int channel);

  BufferArena arena_;  // every channel's queued buffers
  EventSerializer events_;
  std::vector<QueueStatistics> queue_statistics_;     // the tracked channels'
  std::vector<NetworkBufferPool> buffer_pools_;       // by TaskManager
  std::vector<std::vector<int>> taskmanager_tasks_;   // subtask ids by TaskManager

  std::uint64_t buffers_transferred_ = 0;
  std::vector<std::pair<std::int64_t, int>> filled_scratch_;  // write_round_robin's
};

}  // namespace ckptsim::model
