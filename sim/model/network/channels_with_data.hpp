// SingleInputGate.inputChannelsWithData: the input channels that hold a buffer or an event, in
// the order they became available. A channel that turns non-empty is queued at the tail
// (queueChannel from notifyChannelNonEmpty); the task reads the head's next buffer
// (getChannel) and queues the channel again at the tail if it holds more. So channels are read
// in turn, in the order data arrived on them, not by their index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/ring_queue.hpp"

namespace ckptsim::model {

class ChannelsWithData {
 public:
  void reset(std::size_t n) {
    flags_.assign(n, 0);
    order_.clear();
  }
  // Input `i` holds something now (or nothing any more).
  void update(int i, bool has_data) {
    std::uint8_t& f = flags_[static_cast<std::size_t>(i)];
    f = static_cast<std::uint8_t>(has_data ? f | kHasData : f & ~kHasData);
    if (has_data && !(f & kQueued)) {
      f |= kQueued;
      order_.push_back(i);
    }
  }
  // The input to read next, taken off the queue (update() queues it again while it holds more);
  // -1 when no input holds anything.
  int poll() {
    while (!order_.empty()) {
      const int i = order_.front();
      order_.pop_front();
      std::uint8_t& f = flags_[static_cast<std::size_t>(i)];
      f &= static_cast<std::uint8_t>(~kQueued);
      if (f & kHasData) return i;
    }
    return -1;
  }
  // The k-th input in the queue (-1: fewer queued), for a prefetch: what poll() returns k reads
  // from now if nothing changes before (poll() skips an input emptied since; peek() does not).
  int peek(std::size_t k) const { return k < order_.size() ? order_[k] : -1; }

 private:
  // Per input, in one array (one cache line for both): queued in order_, holds something.
  static constexpr std::uint8_t kQueued = 1;
  static constexpr std::uint8_t kHasData = 2;
  std::vector<std::uint8_t> flags_;
  core::RingQueue<int> order_;
};

}  // namespace ckptsim::model
