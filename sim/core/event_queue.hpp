// The pending-event set: a 4-ary min-heap of (time, sequence) keys with payloads in a slot
// arena, so pushing and popping never allocates once the arena has grown, and any event can be
// cancelled in O(1) by bumping its slot's generation. Knows nothing about Flink.
#pragma once

#include <cassert>
#include <cstdint>
#include <vector>

#include "sim/core/time.hpp"

namespace ckptsim::core {

class EventHandler;

// Identifies one scheduled event; stale once the event ran or was cancelled.
struct EventId {
  std::uint32_t slot = 0;  // 0 = no event
  std::uint32_t generation = 0;
  bool valid() const { return slot != 0; }
};

struct EventPayload {
  EventHandler* target = nullptr;
  std::uint32_t kind = 0;
  std::uint32_t generation = 0;
  std::uint64_t arg = 0;
};

class EventQueue {
 public:
  EventQueue() { slots_.push_back({}); }  // slot 0 is the "no event" sentinel

  EventId push(SimTime time, EventHandler* target, std::uint32_t kind, std::uint64_t arg) {
    std::uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.push_back({});
    }
    EventPayload& p = slots_[slot];
    p.target = target;
    p.kind = kind;
    p.arg = arg;
    heap_.push_back(Entry{time, next_seq_++, slot});
    sift_up(heap_.size() - 1);
    ++live_;
    return EventId{slot, p.generation};
  }

  // Returns false when the event already ran or was cancelled (harmless).
  bool cancel(EventId id) {
    if (!id.valid() || id.slot >= slots_.size()) return false;
    EventPayload& p = slots_[id.slot];
    if (p.generation != id.generation || p.target == nullptr) return false;
    p.target = nullptr;  // the heap entry stays; pop skips it (lazy deletion)
    ++p.generation;
    --live_;
    return true;
  }

  bool is_pending(EventId id) const {
    return id.valid() && id.slot < slots_.size() && slots_[id.slot].generation == id.generation &&
           slots_[id.slot].target != nullptr;
  }

  bool empty() const { return live_ == 0; }
  std::size_t size() const { return live_; }

  // Time of the earliest live event; requires !empty().
  SimTime next_time() {
    drop_cancelled_head();
    return heap_.front().time;
  }

  struct Popped {
    SimTime time;
    EventPayload payload;
  };
  // Removes the earliest live event; requires !empty().
  Popped pop() {
    drop_cancelled_head();
    const Entry top = heap_.front();
    remove_head();
    EventPayload& p = slots_[top.slot];
    Popped out{top.time, p};
    p.target = nullptr;
    ++p.generation;
    free_.push_back(top.slot);
    --live_;
    return out;
  }

  void reserve(std::size_t n) {
    heap_.reserve(n);
    slots_.reserve(n + 1);
    free_.reserve(n);
  }

 private:
  struct Entry {
    SimTime time;
    std::uint64_t seq;
    std::uint32_t slot;
  };
  static bool before(const Entry& a, const Entry& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }

  void drop_cancelled_head() {
    while (slots_[heap_.front().slot].target == nullptr) {
      free_.push_back(heap_.front().slot);
      remove_head();
    }
  }
  void remove_head() {
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
  }
  void sift_up(std::size_t i) {
    const Entry e = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void sift_down(std::size_t i) {
    const Entry e = heap_[i];
    const std::size_t n = heap_.size();
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t last = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < last; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Entry> heap_;
  std::vector<EventPayload> slots_;
  std::vector<std::uint32_t> free_;
  std::uint64_t next_seq_ = 0;
  std::size_t live_ = 0;
};

}  // namespace ckptsim::core
