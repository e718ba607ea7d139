// Many small queues in one array. A SlotArena hands out blocks of a power-of-two number of
// slots, named by a 32-bit index, and reuses freed blocks of the same size. A SplitRing is a
// ring in such a block that holds two FIFO queues back to back: the front queue, then the back
// queue. Moving the back queue's head to the front queue's tail costs nothing, and the ring is
// 16 bytes (a pointer-based queue is 24, and two of them 48). Knows nothing about Flink.
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace ckptsim::core {

template <class T>
class SlotArena {
 public:
  static constexpr unsigned kMaxLog2 = 31;
  // A block of 2^log2 slots (log2 >= 1).
  std::uint32_t allocate(unsigned log2) {
    auto& free = free_[log2];
    if (!free.empty()) {
      const std::uint32_t block = free.back();
      free.pop_back();
      return block;
    }
    const std::size_t block = slots_.size();
    // Blocks are named by 32 bits: 64 GiB of 16-byte slots. A run that queues more fails
    // cleanly (the command reports it) instead of wrapping an index.
    if (block + (std::size_t{1} << log2) > std::size_t{0xffffffff})
      throw std::length_error("the queued buffers exceed 2^32 slots");
    slots_.resize(block + (std::size_t{1} << log2));
    return static_cast<std::uint32_t>(block);
  }
  void release(std::uint32_t block, unsigned log2) { free_[log2].push_back(block); }
  T& operator[](std::size_t slot) { return slots_[slot]; }
  const T& operator[](std::size_t slot) const { return slots_[slot]; }
  std::size_t slots() const { return slots_.size(); }

 private:
  std::vector<T> slots_;
  std::array<std::vector<std::uint32_t>, kMaxLog2 + 1> free_;
};

template <class T>
class SplitRing {
 public:
  using Arena = SlotArena<T>;

  std::size_t size() const { return size_; }
  std::size_t front_size() const { return front_; }
  std::size_t back_size() const { return size_ - front_; }
  std::size_t capacity() const { return log2_ ? std::size_t{1} << log2_ : 0; }

  // Slot i of the whole ring: the front queue's first, then the back queue's.
  T& at(Arena& a, std::size_t i) { return a[slot(i)]; }
  const T& at(const Arena& a, std::size_t i) const { return a[slot(i)]; }

  void push_back(Arena& a, const T& value) {  // the back queue's tail
    grow_if_full(a);
    a[slot(size_)] = value;
    ++size_;
  }
  void push_front(Arena& a, const T& value) {  // the front queue's head
    grow_if_full(a);
    head_ = (head_ + mask()) & mask();
    a[block_ + head_] = value;
    ++size_;
    ++front_;
  }
  // Where the ring's first slot is (nothing: empty), for a prefetch.
  const T* head(const Arena& a) const { return size_ ? &a[slot(0)] : nullptr; }
  void pop_front() {  // the front queue's head
    assert(front_ > 0);
    head_ = (head_ + 1) & mask();
    --size_;
    --front_;
  }
  void advance() {  // the back queue's head becomes the front queue's tail
    assert(front_ < size_);
    ++front_;
  }
  // Puts `value` at slot i, moving the slots from i on one place back; it joins the front queue
  // if i is inside it (i < front_size()), else the back queue.
  void insert(Arena& a, std::size_t i, const T& value) {
    assert(i <= size_);
    grow_if_full(a);
    if (i < front_) ++front_;
    for (std::size_t k = size_; k > i; --k) at(a, k) = at(a, k - 1);
    at(a, i) = value;
    ++size_;
  }
  // Removes slot i, keeping the order of the others.
  void erase(Arena& a, std::size_t i) {
    assert(i < size_);
    for (std::size_t k = i; k + 1 < size_; ++k) at(a, k) = at(a, k + 1);
    if (i < front_) --front_;
    --size_;
  }
  void clear() {  // keeps the block: a queue that carried data allocates once
    head_ = size_ = front_ = 0;
  }
  void release(Arena& a) {
    if (log2_) a.release(block_, log2_);
    *this = SplitRing();
  }

 private:
  std::uint32_t mask() const { return (std::uint32_t{1} << log2_) - 1; }
  std::size_t slot(std::size_t i) const {
    assert(i < capacity());
    return block_ + ((head_ + i) & mask());
  }
  void grow_if_full(Arena& a) {
    if (size_ < capacity()) return;
    const unsigned log2 = log2_ ? log2_ + 1u : 1u;
    if (log2 > kMaxLog2) throw std::length_error("a SplitRing holds at most 2^26 slots");
    const std::uint32_t block = a.allocate(log2);  // may move the arena's slots
    for (std::uint32_t i = 0; i < size_; ++i) a[block + i] = a[slot(i)];
    if (log2_) a.release(block_, log2_);
    block_ = block;
    head_ = 0;
    log2_ = log2 & 31u;
  }

  std::uint32_t block_ = 0;
  std::uint32_t head_ = 0;
  std::uint32_t size_ = 0;
  static constexpr unsigned kMaxLog2 = 26;  // 64 M slots: a queue that long exhausts memory
  std::uint32_t front_ : 27 = 0;            // the front queue's length
  std::uint32_t log2_ : 5 = 0;              // capacity 2^log2_; 0: no block yet
};

}  // namespace ckptsim::core
