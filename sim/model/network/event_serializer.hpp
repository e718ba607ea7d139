// EventSerializer: events travel through the network as buffers (toBuffer / fromEvent). The
// simulator keeps each broadcast event once, in a table, and every subpartition queues a
// 16-byte NetworkBuffer holding its index. An entry lives while a copy is queued: it is freed
// when the last copy is read or dropped, and its slot is reused.
#pragma once

#include <cassert>
#include <vector>

#include "sim/model/network/network_buffer.hpp"

namespace ckptsim::model {

class EventSerializer {
 public:
  // A new entry for `event`, held once by the caller until it calls recycle (a broadcast holds
  // it while it adds the copies).
  NetworkBuffer to_buffer(const Buffer& event) {
    int index;
    if (free_.empty()) {
      index = static_cast<int>(entries_.size());
      entries_.push_back({event, 1});
    } else {
      index = free_.back();
      free_.pop_back();
      entries_[static_cast<std::size_t>(index)] = {event, 1};
    }
    return NetworkBuffer::event(event.kind, index);
  }
  // One more queued copy of `b`.
  NetworkBuffer copy(const NetworkBuffer& b) {
    ++entry(b).copies;
    return b;
  }
  const Buffer& from_buffer(const NetworkBuffer& b) const {
    return entries_[static_cast<std::size_t>(b.event_index())].event;
  }
  // A copy read or dropped; data buffers have nothing to give back.
  void recycle(const NetworkBuffer& b) {
    if (b.is_data()) return;
    Entry& e = entry(b);
    assert(e.copies > 0);
    if (--e.copies == 0) free_.push_back(b.event_index());
  }
  // `b`'s copy now carries `event` (a barrier turned unaligned in one queue): a new entry, so
  // the other queues' copies keep theirs.
  NetworkBuffer rewrite(const NetworkBuffer& b, const Buffer& event) {
    const NetworkBuffer fresh = to_buffer(event);
    recycle(b);
    return fresh;
  }
  std::size_t live() const { return entries_.size() - free_.size(); }

 private:
  struct Entry {
    Buffer event;
    int copies = 0;
  };
  Entry& entry(const NetworkBuffer& b) {
    return entries_[static_cast<std::size_t>(b.event_index())];
  }

  std::vector<Entry> entries_;
  std::vector<int> free_;
};

}  // namespace ckptsim::model
