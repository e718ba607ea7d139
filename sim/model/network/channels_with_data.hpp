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
    queued_.assign(n, 0);
    has_data_.assign(n, 0);
    order_.clear();
  }
  // Input `i` holds something now (or nothing any more).
  void update(int i, bool has_data) {
    const auto k = static_cast<std::size_t>(i);
    has_data_[k] = has_data ? 1 : 0;
    if (has_data && !queued_[k]) {
      queued_[k] = 1;
      order_.push_back(i);
    }
  }
  // The input to read next, taken off the queue (update() queues it again while it holds more);
  // -1 when no input holds anything.
  int poll() {
    while (!order_.empty()) {
      const int i = order_.front();
      order_.pop_front();
      const auto k = static_cast<std::size_t>(i);
      queued_[k] = 0;
      if (has_data_[k]) return i;
    }
    return -1;
  }
  // The k-th input in the queue (-1: fewer queued): what poll() returns k reads from now if
  // nothing changes before (it skips one emptied since). For a prefetch.
  int peek(std::size_t k) const { return k < order_.size() ? order_[k] : -1; }

 private:
  std::vector<std::uint8_t> queued_;
  std::vector<std::uint8_t> has_data_;
  core::RingQueue<int> order_;
};

}  // namespace ckptsim::model
