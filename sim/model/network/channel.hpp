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
#include <utility>
#include <vector>

#include "sim/core/ring_queue.hpp"
#include "sim/model/config.hpp"
#include "sim/model/network/buffer.hpp"

namespace ckptsim::model {

// The fields a buffer's way through the network touches come first (two cache lines with the
// queues).
struct Channel {
  int producer = 0;
  int consumer = 0;
  int input_index = 0;           // position in the consumer's inputs
  int backlog = 0;               // data buffers in the subpartition
  int credits = 0;               // buffers the receiver can still accept
  int floating = 0;              // floating buffers this channel holds
  bool local = false;            // same TaskManager: no credits beyond the subpartition
  bool blocked = false;          // an aligned barrier was handed out: nothing more is sent
  bool finished = false;         // the producer FINISHED: EndOfPartition was consumed
  core::RingQueue<Buffer> subpartition;
  core::RingQueue<Buffer> received;
  std::int64_t received_bytes = 0;  // data bytes in `received`
  std::int64_t drained_bytes = 0;   // consumed by the receiver (for drain rates)
  // Queueing statistics (never reset): occupancy integral in buffer-ns, sojourn in ns.
  int occupancy = 0;
  SimTime occupancy_since = 0;
  double occupancy_integral = 0;
  double sojourn_total = 0;
  std::int64_t consumed = 0;
  // The BufferBuilder being filled, and the size of new buffers (debloating shrinks it).
  std::int64_t open_bytes = 0;
  std::int64_t open_records = 0;
  double open_born = 0;          // sum over its records of their read time (ns)
  std::int64_t buffer_size = 0;
  int output_group = 0;          // the producer's OutputGroup holding this channel ...
  int output_position = 0;       // ... and its position there
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
