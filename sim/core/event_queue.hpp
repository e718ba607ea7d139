// The pending-event set: a monotone radix queue over integer times (the multi-level bucket form
// of the radix heap of Ahuja, Mehlhorn, Orlin and Tarjan, 1990). Knows nothing about Flink.
//
// Keys and buckets. A time maps to an unsigned key with the same order. `floor_` is the key of the
// event handed out last (or peeked at); every stored key is >= floor_. Keys are read as base-64
// digits. An entry whose highest digit differing from floor_ is digit l sits on level l, in the
// bucket of its own digit l; level 0 holds the keys that differ from floor_ in digit 0 only, one
// exact key per bucket. Every key on level l is below every key on level l + 1, and on one level
// the buckets are ordered by digit, so the earliest events are in the lowest non-empty bucket
// (found with one bit mask per level and one mask of levels).
//
// Popping reads the current bucket, the level-0 bucket of floor_ itself, front to back. When it is
// empty, floor_ moves to the next level-0 bucket if any (no entry moves), or else to the smallest
// key of the lowest non-empty bucket on a higher level, whose entries are then re-placed relative
// to the new floor_: each lands on a lower level, so an entry moves at most once per level (in
// the hold benchmark, delays of about 1 us, 1.2 moves per event).
//
// Equal times pop in scheduling order (determinism depends on it) without a sequence number:
// equal keys always share a bucket; a push appends; and entries are only ever re-placed into
// buckets that are empty at the time (all levels below the bucket being re-placed), in order. So
// within a bucket the entries of one key stay in the order they were scheduled.
//
// Scheduling below floor_ (after next_time() peeked past the clock, as the end of run_until does)
// lowers floor_. With h the highest digit in which the new key and floor_ differ, the buckets on
// level h and above stay valid, bucket (h, digit h of floor_) is empty (a key on level h differs
// from floor_ in digit h), and everything on the levels below h moves into it: the entries
// within the peeked digit, usually a few.
//
// Storage. Buckets are chains of fixed-size blocks from one pool, so memory follows the number of
// stored entries rather than the history of every bucket's peak (per-bucket vectors kept 5 to 7
// times the entries' size at 1e6 pending in a trial). A block is returned to the pool as soon as it
// has been read, and the next block needed takes the most recently returned one, which is still in
// cache. Entries (32 bytes) carry the payload, so popping reads nothing but the entry and one
// 32-bit generation per slot: EventId{slot, generation} (generation odd while pending) gives O(1)
// is_pending and cancel. The generations of the next entries to pop are prefetched: with 1e6
// pending they are a random access into 4 MB.
//
// Cancellation is lazy: the entry stays where it is and is dropped, and its slot freed, when it
// comes up. When cancelled entries outnumber pending ones (and there are at least kCompactAt of
// them) after a cancel or a pop, one pass drops them all, so timers that are nearly always
// cancelled (checkpoint timeouts) cannot pile up. Nothing allocates once the pool and the slot
// arena have grown.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
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
  EventQueue() { gen_.push_back(0); }  // slot 0 is the "no event" sentinel
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  EventId push(SimTime time, EventHandler* target, std::uint32_t kind, std::uint64_t arg) {
    std::uint32_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(gen_.size());
      gen_.push_back(0);
    }
    const std::uint32_t generation = gen_[slot] + 1;  // free slots hold even generations
    gen_[slot] = generation;
    const std::uint64_t key = to_key(time);
    if (key < floor_) [[unlikely]]
      lower_floor(key);
    place(Entry{key, target, arg, kind, slot});
    ++live_;
    return EventId{slot, generation};
  }

  // Returns false when the event already ran or was cancelled (harmless).
  bool cancel(EventId id) {
    if (!is_pending(id)) return false;
    ++gen_[id.slot];  // even: the entry is dead; its slot stays taken until the entry is dropped
    --live_;
    ++dead_;
    maybe_compact();
    return true;
  }

  bool is_pending(EventId id) const {
    return id.valid() && id.slot < gen_.size() && gen_[id.slot] == id.generation &&
           (id.generation & 1U) != 0;
  }

  bool empty() const { return live_ == 0; }
  std::size_t size() const { return live_; }
  // Entries held, including cancelled ones not dropped yet (for tests of the compaction bound).
  std::size_t stored() const { return live_ + dead_; }

  // Time of the earliest live event; requires !empty().
  SimTime next_time() {
    settle();
    return from_key(floor_);
  }

  struct Popped {
    SimTime time;
    EventPayload payload;
  };
  // Removes the earliest live event (the first scheduled among equal times); requires !empty().
  Popped pop() {
    const Entry* const lim = settle();
    if (lim - read_ > kPrefetch) __builtin_prefetch(&gen_[read_[kPrefetch].slot], 1);
    const Entry& e = *read_++;
    const std::uint32_t generation = gen_[e.slot];
    gen_[e.slot] = generation + 1;
    free_slots_.push_back(e.slot);
    --live_;
    const Popped out{from_key(e.key), EventPayload{e.target, e.kind, generation, e.arg}};
    if (dead_ > live_) [[unlikely]]
      maybe_compact();
    return out;
  }

  // Calls f(time, target, kind) for every live event, in no particular order.
  template <class F>
  void for_each_live(F&& f) const {
    const unsigned cur_digit = digit(floor_, 0);
    for (unsigned level = 0; level < kLevels; ++level) {
      for (std::uint64_t m = occupied_[level]; m != 0; m &= m - 1) {
        const auto d = static_cast<unsigned>(std::countr_zero(m));
        const Bucket& b = buckets_[level * kWidth + d];
        // The current bucket's entries before read_ were popped (their slots may be reused).
        const Entry* from = level == 0 && d == cur_digit ? read_ : b.head->entries;
        for (const Block* blk = b.head; blk != nullptr; blk = blk == b.tail ? nullptr : blk->next) {
          const Entry* const stop = blk == b.tail ? b.end : blk->entries + kBlockEntries;
          for (const Entry* e = from; e != stop; ++e)
            if (is_live(*e)) f(from_key(e->key), e->target, e->kind);
          if (blk != b.tail) from = blk->next->entries;
        }
      }
    }
  }

  // Moves every live event earlier than `limit` later, each by delay(time, target, kind, arg),
  // keeping its EventId and, among equal times, its order (they are taken out in pop order and
  // put back in that order, those that stay first). If delay throws, every event stays where it
  // was.
  template <class F>
  void delay_before(SimTime limit, F&& delay) {
    std::vector<Entry> moved;
    while (live_ > 0) {
      settle();
      if (from_key(read_->key) >= limit) break;
      moved.push_back(*read_++);  // as pop(), but the slot stays taken: the EventId holds
      --live_;
    }
    std::vector<std::uint64_t> keys;
    keys.reserve(moved.size());
    try {
      for (const Entry& e : moved)
        keys.push_back(to_key(from_key(e.key) + delay(from_key(e.key), e.target, e.kind, e.arg)));
    } catch (...) {
      for (const Entry& e : moved) put_back(e);
      throw;
    }
    for (std::size_t i = 0; i < moved.size(); ++i)
      if (keys[i] == moved[i].key) put_back(moved[i]);
    for (std::size_t i = 0; i < moved.size(); ++i) {
      if (keys[i] == moved[i].key) continue;
      moved[i].key = keys[i];
      put_back(moved[i]);
    }
  }

  void reserve(std::size_t n) {
    gen_.reserve(n + 1);
    free_slots_.reserve(n);
    const std::size_t blocks = n / kBlockEntries + 2 * kLevels;
    if (blocks > blocks_owned_) add_blocks(blocks - blocks_owned_);
  }

 private:
  struct Entry {
    std::uint64_t key;  // to_key(time)
    EventHandler* target;
    std::uint64_t arg;
    std::uint32_t kind;
    std::uint32_t slot;
  };
  static_assert(sizeof(Entry) == 32);

  // An entry taken out by delay_before back in the queue, its slot still taken.
  void put_back(const Entry& e) {
    if (e.key < floor_) lower_floor(e.key);  // settle() may have peeked past it
    place(e);
    ++live_;
  }

  static constexpr unsigned kDigitBits = 6;
  static constexpr unsigned kWidth = 1U << kDigitBits;  // buckets per level
  static constexpr unsigned kLevels = (64 + kDigitBits - 1) / kDigitBits;
  static_assert(kDigitBits >= 1 && kDigitBits <= 6, "one 64-bit mask per level");
  static constexpr std::size_t kBlockEntries = 127;
  static constexpr std::ptrdiff_t kPrefetch = 16;
  static constexpr std::size_t kCompactAt = 1024;
  static constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;

  // 4 KiB; `next` shares the first cache line with the first entry (most buckets are short).
  struct Block {
    Block* next;
    std::uint64_t padding[3];
    Entry entries[kBlockEntries];
  };
  static_assert(sizeof(Block) == 4096);
  // Blocks head..tail; all but the tail are full; `end` is the tail's first free entry and
  // `limit` the tail's end. Empty: all null.
  struct Bucket {
    Entry* end = nullptr;
    Entry* limit = nullptr;
    Block* head = nullptr;
    Block* tail = nullptr;
  };

  // Order-preserving map of signed times onto unsigned keys.
  static std::uint64_t to_key(SimTime t) { return static_cast<std::uint64_t>(t) ^ kSignBit; }
  static SimTime from_key(std::uint64_t k) { return static_cast<SimTime>(k ^ kSignBit); }
  // The level of a key relative to floor_, from x = key ^ floor_.
  static unsigned level_of(std::uint64_t x) {
    return (static_cast<unsigned>(std::bit_width(x | 1)) - 1) / kDigitBits;
  }
  static unsigned digit(std::uint64_t key, unsigned level) {
    return static_cast<unsigned>(key >> (kDigitBits * level)) & (kWidth - 1);
  }
  static std::uint64_t bit(unsigned i) { return std::uint64_t{1} << i; }
  // End of the readable entries of a bucket's head block.
  static Entry* head_end(const Bucket& b) {
    return b.head == b.tail ? b.end : b.head->entries + kBlockEntries;
  }

  bool is_live(const Entry& e) const { return (gen_[e.slot] & 1U) != 0; }
  Bucket& current() { return buckets_[digit(floor_, 0)]; }

  void place(const Entry& e) {
    const unsigned level = level_of(e.key ^ floor_);
    const unsigned d = digit(e.key, level);
    append(buckets_[level * kWidth + d], e);
    occupied_[level] |= bit(d);
    levels_ |= bit(level);
  }
  void append(Bucket& b, const Entry& e) {
    if (b.end == b.limit) [[unlikely]]
      grow(b);
    *b.end++ = e;
  }
  void grow(Bucket& b) {
    Block* blk = take_block();
    blk->next = nullptr;
    if (b.tail != nullptr) {
      b.tail->next = blk;
    } else {
      b.head = blk;
      if (&b == &current()) read_ = blk->entries;  // the current bucket was empty
    }
    b.tail = blk;
    b.end = blk->entries;
    b.limit = blk->entries + kBlockEntries;
  }
  // Resets bucket `b` (level l, digit d) to empty and clears its mask bits; the caller releases
  // its blocks (possibly after reading them from a copy of `b`).
  void mark_empty(Bucket& b, unsigned level, unsigned d) {
    b = Bucket{};
    occupied_[level] &= ~bit(d);
    if (occupied_[level] == 0) levels_ &= ~bit(level);
  }

  // Makes *read_ the earliest live entry and returns the end of its block's readable entries;
  // requires live_ > 0.
  Entry* settle() {
    assert(live_ > 0);
    for (;;) {
      Bucket& cur = current();
      if (cur.head != nullptr) {
        for (;;) {
          Entry* const lim = head_end(cur);
          for (; read_ != lim; ++read_) {
            if (dead_ == 0 || is_live(*read_)) return lim;
            free_slots_.push_back(read_->slot);
            --dead_;
          }
          if (cur.head == cur.tail) break;
          Block* const next = cur.head->next;
          give_block(cur.head);
          cur.head = next;
          read_ = next->entries;
        }
        give_block(cur.head);
        mark_empty(cur, 0, digit(floor_, 0));
      }
      advance();
    }
  }

  // Moves floor_ to the smallest stored key; the current bucket is empty.
  void advance() {
    assert(levels_ != 0);
    if (occupied_[0] != 0) {
      floor_ = (floor_ & ~std::uint64_t{kWidth - 1}) |
               static_cast<unsigned>(std::countr_zero(occupied_[0]));
    } else {
      const auto level = static_cast<unsigned>(std::countr_zero(levels_));
      const auto d = static_cast<unsigned>(std::countr_zero(occupied_[level]));
      Bucket& b = buckets_[level * kWidth + d];
      const Bucket src = b;
      mark_empty(b, level, d);
      std::uint64_t m = src.head->entries[0].key;
      for (Block* blk = src.head; blk != nullptr; blk = blk->next) {
        const Entry* const stop = blk == src.tail ? src.end : blk->entries + kBlockEntries;
        for (const Entry* e = blk->entries; e != stop; ++e) m = e->key < m ? e->key : m;
      }
      floor_ = m;
      // Every entry lands on a level below `level`, all empty now: placing them in order keeps
      // the scheduling order of equal keys.
      release(src, src.head->entries, [this](const Entry& e) { place(e); });
    }
    read_ = current().head->entries;
  }

  // Calls f on the entries of `b` from `from` (in its head block) on, and returns its blocks to
  // the pool, each once read (so f may take them for other buckets).
  template <class F>
  void release(const Bucket& b, const Entry* from, F&& f) {
    Block* blk = b.head;
    while (blk != nullptr) {
      const Entry* const stop = blk == b.tail ? b.end : blk->entries + kBlockEntries;
      for (const Entry* e = from; e != stop; ++e) f(*e);
      Block* const next = blk == b.tail ? nullptr : blk->next;
      give_block(blk);
      blk = next;
      if (blk != nullptr) from = blk->entries;
    }
  }

  // Makes `key` (< floor_, so below every stored key) the new floor_.
  void lower_floor(std::uint64_t key) {
    const unsigned h = level_of(key ^ floor_);
    // The unread entries of the current bucket, then (for h > 0) every bucket below level h, go
    // to the bucket they belong to relative to `key`: the same one for h = 0, else bucket
    // (h, digit h of floor_), which is empty since a key on level h differs from floor_ there.
    const unsigned cur_digit = digit(floor_, 0);
    Bucket gathered;
    if (current().head != nullptr) {
      const Bucket cur = current();
      mark_empty(current(), 0, cur_digit);
      release(cur, read_, [&](const Entry& e) { append(gathered, e); });
    }
    if (h > 0) {
      for (unsigned level = 0; level < h; ++level) {
        while (occupied_[level] != 0) {
          const auto d = static_cast<unsigned>(std::countr_zero(occupied_[level]));
          const Bucket b = buckets_[level * kWidth + d];
          mark_empty(buckets_[level * kWidth + d], level, d);
          release(b, b.head->entries, [&](const Entry& e) { append(gathered, e); });
        }
      }
    }
    const unsigned level = h;
    const unsigned d = h > 0 ? digit(floor_, h) : cur_digit;
    assert(buckets_[level * kWidth + d].head == nullptr);
    floor_ = key;
    if (gathered.head != nullptr) {
      buckets_[level * kWidth + d] = gathered;
      occupied_[level] |= bit(d);
      levels_ |= bit(level);
    }
    // The new current bucket (digit 0 of key) is empty: its keys would be below the old floor_.
    assert(current().head == nullptr);
  }

  // Keeps dead_ <= max(live_, kCompactAt - 1) after every cancel and pop. A compaction costs
  // O(live_ + dead_) = O(dead_) and drops every dead entry: O(1) amortized per cancel.
  void maybe_compact() {
    if (dead_ > live_ && dead_ >= kCompactAt) compact();
  }
  // Drops every cancelled entry, keeping the order of the others.
  void compact() {
    const unsigned cur_digit = digit(floor_, 0);
    for (unsigned level = 0; level < kLevels; ++level) {
      for (std::uint64_t m = occupied_[level]; m != 0; m &= m - 1) {
        const auto d = static_cast<unsigned>(std::countr_zero(m));
        Bucket& b = buckets_[level * kWidth + d];
        const Bucket old = b;
        const Entry* const from = level == 0 && d == cur_digit ? read_ : old.head->entries;
        b = Bucket{};
        release(old, from, [&](const Entry& e) {
          if (is_live(e)) {
            append(b, e);
          } else {
            free_slots_.push_back(e.slot);
            --dead_;
          }
        });
        if (b.head == nullptr) mark_empty(b, level, d);
      }
    }
    if (current().head != nullptr) read_ = current().head->entries;
    assert(dead_ == 0);
  }

  Block* take_block() {
    if (free_blocks_ == nullptr) add_blocks(blocks_owned_ / 2 + 16);
    Block* blk = free_blocks_;
    free_blocks_ = blk->next;
    return blk;
  }
  void give_block(Block* blk) {
    blk->next = free_blocks_;
    free_blocks_ = blk;
  }
  void add_blocks(std::size_t n) {
    chunks_.push_back(std::make_unique<Block[]>(n));
    Block* chunk = chunks_.back().get();
    for (std::size_t i = n; i-- > 0;) give_block(&chunk[i]);
    blocks_owned_ += n;
  }

  Bucket buckets_[kLevels * kWidth];
  std::uint64_t occupied_[kLevels] = {};  // per level, bit d: bucket d is not empty
  std::uint64_t levels_ = 0;              // bit l: level l has a non-empty bucket
  std::uint64_t floor_ = kSignBit;        // to_key(0)
  Entry* read_ = nullptr;                 // next entry of the current bucket
  std::vector<std::uint32_t> gen_;        // per slot; odd while its event is pending
  std::vector<std::uint32_t> free_slots_;
  std::size_t live_ = 0;
  std::size_t dead_ = 0;  // cancelled entries still stored
  std::vector<std::unique_ptr<Block[]>> chunks_;
  Block* free_blocks_ = nullptr;
  std::size_t blocks_owned_ = 0;
};

}  // namespace ckptsim::core
