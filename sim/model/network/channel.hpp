// One edge of the shuffle between two subtasks, and the writer side of a task's output to one
// downstream vertex. A Channel is a PipelinedSubpartition of the producer's ResultPartition
// together with the consumer's RemoteInputChannel / LocalInputChannel (credits, floating
// buffers, backlog) and the BufferBuilder being filled for it. An OutputGroup is the
// RecordWriter's ChannelSelector state for one downstream vertex (forward, rebalance / rescale
// round robin, hash with key skew, broadcast). InputSet is a bit set over a task's input
// channels (the gate's availability queues). Plain data; the rules are in network.hpp.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "sim/core/ring_queue.hpp"
#include "sim/core/split_ring.hpp"
#include "sim/model/config.hpp"
#include "sim/model/network/network_buffer.hpp"

namespace ckptsim::model {

// 64 bytes, a cache line's size: what an idle channel costs (issue 17, item 4). The queued buffers
// live in the network's BufferArena; the buffer size is the consumer's (BufferDebloater
// announces one size to all its channels, Network::buffer_size); the queueing statistics are
// kept only for tracked channels (QueueStatistics).
struct Channel {
  // The queued buffers, in one ring: the input channel's received buffers first
  // (RemoteInputChannel.receivedBuffers), then the subpartition's (PipelinedSubpartition
  // .buffers). Handing the subpartition's head to the input channel costs nothing.
  core::SplitRing<NetworkBuffer> queues;
  int producer = 0;
  int consumer = 0;
  int input_index = 0;           // position in the consumer's inputs
  int backlog = 0;               // data buffers in the subpartition
  int credits = 0;               // buffers the receiver can still accept
  std::int16_t floating = 0;     // floating buffers this channel holds (FlinkConfig's limit)
  bool local : 1 = false;        // same TaskManager: no credits beyond the subpartition
  bool blocked : 1 = false;      // an aligned barrier was handed out: nothing more is sent
  bool finished : 1 = false;     // the producer FINISHED: EndOfPartition was consumed
  bool tracked : 1 = false;      // keeps queueing statistics (Network::track_queue)
  bool wishes_floating : 1 = false;  // its bit in the consumer's wants_floating (kept here: a
                                     // check that changes nothing need not reach the consumer)
  // The BufferBuilder being filled: less than a segment (at most 1 gb) of records of at least
  // 1 byte each.
  std::int32_t open_bytes = 0;
  std::int32_t open_records = 0;
  double open_born = 0;          // sum over its records of their read time (ns)
  std::int64_t drained_bytes = 0;  // consumed by the receiver (for drain rates)

  std::size_t received_size() const { return queues.front_size(); }
  std::size_t subpartition_size() const { return queues.back_size(); }
};
static_assert(FlinkConfig::kMaxFloatingBuffersPerGate <= 32767);
static_assert(sizeof(Channel) <= 64, "an idle channel is at most 64 bytes (issue 17, item 4)");

using BufferArena = core::SlotArena<NetworkBuffer>;

// One of a channel's two queues, over the ring they share.
template <class Ring, class Arena>
class BasicChannelQueue {
 public:
  BasicChannelQueue(Ring& ring, Arena& arena, bool received)
      : ring_(ring), arena_(arena), received_(received) {}
  std::size_t size() const { return received_ ? ring_.front_size() : ring_.back_size(); }
  bool empty() const { return size() == 0; }
  auto& operator[](std::size_t i) const { return ring_.at(arena_, offset() + i); }
  auto& front() const { return (*this)[0]; }
  // The queue's head: the ring's head for the received queue, the slot after the received
  // buffers for the subpartition.
  void push_front(const NetworkBuffer& b) const {
    if (received_) ring_.push_front(arena_, b);
    else ring_.insert(arena_, ring_.front_size(), b);
  }
  void erase(std::size_t i) const { ring_.erase(arena_, offset() + i); }

  class Iterator {
   public:
    Iterator(const BasicChannelQueue* q, std::size_t i) : q_(q), i_(i) {}
    auto& operator*() const { return (*q_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return i_ != o.i_; }

   private:
    const BasicChannelQueue* q_;
    std::size_t i_;
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

 private:
  std::size_t offset() const { return received_ ? 0 : ring_.front_size(); }
  Ring& ring_;
  Arena& arena_;
  bool received_;
};
using ChannelQueue = BasicChannelQueue<core::SplitRing<NetworkBuffer>, BufferArena>;
using ConstChannelQueue =
    BasicChannelQueue<const core::SplitRing<NetworkBuffer>, const BufferArena>;

// A tracked channel's queueing statistics, from a data buffer's entry into the subpartition to
// its read by the consumer (never reset): occupancy integral in buffer-ns, sojourn in ns. Kept
// only for the channels a caller asks for, so that a channel needs no room for them.
struct QueueStatistics {
  int channel = -1;
  SimTime since = 0;  // tracked from
  int occupancy = 0;
  SimTime occupancy_since = 0;
  double occupancy_integral = 0;
  double sojourn_total = 0;
  std::int64_t consumed = 0;
  core::RingQueue<SimTime> enqueued;  // the queued data buffers' entry times, oldest first
};

struct OutputGroup {  // the subpartitions to one downstream vertex
  ShipStrategy ship = ShipStrategy::forward;
  std::vector<int> channels;
  int buffer_pool = -1;              // the result partition's LocalBufferPool (set up: >= 0)
  bool written_since_flush = false;  // else every builder is empty: a flush has nothing to do
  std::vector<double> weights;   // hash edges with skewed keys: share of each channel
  std::vector<double> carry;     // fractional records owed to each channel
  // Round robin (rebalance, rescale, uniform keys), record by record as RebalancePartitioner,
  // written lazily: records are only counted here and reach a channel's BufferBuilder when it
  // fills, or before anything reads the builders (flush, event, new buffer size). The buffers
  // and their times are those of writing record by record, at a cost per buffer, not per
  // record (issue 3: cost follows buffers, not records).
  std::size_t origin = 0;             // the position that got the first record
  std::int64_t written = 0;           // records written to the group since then
  std::vector<std::int64_t> taken;    // per position: records handed to its builder
  std::vector<std::int64_t> fills_at; // per position: `written` at which its builder fills
  // Read times: their sum over the records written (relative to born_origin, moved to each
  // flush so the sum stays exact), and per position (written, that sum) at its last take; a
  // take gives the records the mean read time of the group's records since.
  SimTime born_origin = 0;
  double born_written = 0;
  std::vector<std::pair<std::int64_t, double>> born_taken;
  // (fills_at, position), smallest first; entries whose fills_at changed since are stale.
  std::vector<std::pair<std::int64_t, int>> fills;
  // The smallest's fills_at, kept here (fills_changed()): every write reads it, and the heap
  // lies elsewhere in a big job's memory.
  std::int64_t next_fill = std::numeric_limits<std::int64_t>::max();
  void fills_changed() {
    next_fill = fills.empty() ? std::numeric_limits<std::int64_t>::max() : fills.front().first;
  }
  bool round_robin() const { return ship != ShipStrategy::forward &&
                                    ship != ShipStrategy::broadcast && weights.empty(); }
  // A position's place in the round-robin order, counted from the origin.
  std::int64_t offset(std::size_t position) const {
    return static_cast<std::int64_t>((position + channels.size() - origin) % channels.size());
  }
};

// A set of a subtask's input channels by input index: round-robin look-ups in O(P / 64).
class InputSet {
 public:
  void reset(std::size_t n) { words_.assign((n + 63) / 64, 0); }
  void set(int i, bool member) {
    const std::uint64_t bit = std::uint64_t{1} << (static_cast<unsigned>(i) % 64);
    auto& w = words_[static_cast<std::size_t>(i) / 64];
    w = member ? (w | bit) : (w & ~bit);
  }
  // The first member at or after `from`, wrapping around; -1 if the set is empty.
  int next(std::size_t from) const {
    const std::size_t n = words_.size();
    if (n == 0) return -1;
    std::size_t w = from / 64;
    if (w >= n) w = 0, from = 0;
    std::uint64_t bits = words_[w] & (~std::uint64_t{0} << (from % 64));
    for (std::size_t step = 0; step <= n; ++step) {
      if (bits) return static_cast<int>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
      w = w + 1 == n ? 0 : w + 1;
      bits = words_[w];
    }
    return -1;
  }
  // The first member other than `except`; -1 if none.
  int first_except(int except) const {
    for (std::size_t w = 0; w < words_.size(); ++w) {
      std::uint64_t bits = words_[w];
      if (static_cast<std::size_t>(except) / 64 == w)
        bits &= ~(std::uint64_t{1} << (static_cast<unsigned>(except) % 64));
      if (bits) return static_cast<int>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
    }
    return -1;
  }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace ckptsim::model
