// A FIFO queue in one ring of contiguous storage that also takes pushes at its front: the
// subset of std::deque the network model needs, at a fraction of its footprint. An empty queue
// owns no memory and is 24 bytes (an empty std::deque is 80 and allocates a 512-byte block and
// a map);
// storage grows by doubling from 2 and is kept until the queue is destroyed, so a channel that
// carries data allocates once. Knows nothing about Flink.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace ckptsim::core {

template <class T>
class RingQueue {
 public:
  RingQueue() = default;
  RingQueue(const RingQueue& other) { *this = other; }
  RingQueue(RingQueue&& other) noexcept { swap(other); }
  RingQueue& operator=(const RingQueue& other) {
    if (this == &other) return *this;
    clear();
    for (std::uint32_t i = 0; i < other.size_; ++i) push_back(other[i]);
    return *this;
  }
  RingQueue& operator=(RingQueue&& other) noexcept {
    RingQueue moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~RingQueue() = default;

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }

  T& operator[](std::size_t i) { return data_[slot(i)]; }
  const T& operator[](std::size_t i) const { return data_[slot(i)]; }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  void push_back(const T& value) {
    grow_if_full();
    data_[slot(size_)] = value;
    ++size_;
  }
  void push_front(const T& value) {
    grow_if_full();
    head_ = (head_ + capacity_ - 1) & (capacity_ - 1);
    data_[head_] = value;
    ++size_;
  }
  void pop_front() {
    assert(size_ > 0);
    head_ = (head_ + 1) & (capacity_ - 1);
    --size_;
  }
  // Removes element i, keeping the order of the others.
  void erase(std::size_t i) {
    assert(i < size_);
    for (std::size_t k = i; k + 1 < size_; ++k) (*this)[k] = (*this)[k + 1];
    --size_;
  }
  void clear() {
    head_ = 0;
    size_ = 0;
  }

  template <class Queue, class Value>
  class Iterator {
   public:
    Iterator(Queue* q, std::size_t i) : q_(q), i_(i) {}
    Value& operator*() const { return (*q_)[i_]; }
    Value* operator->() const { return &(*q_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }
    bool operator!=(const Iterator& o) const { return i_ != o.i_; }

   private:
    Queue* q_;
    std::size_t i_;
  };
  auto begin() { return Iterator<RingQueue, T>(this, 0); }
  auto end() { return Iterator<RingQueue, T>(this, size_); }
  auto begin() const { return Iterator<const RingQueue, const T>(this, 0); }
  auto end() const { return Iterator<const RingQueue, const T>(this, size_); }

 private:
  std::size_t slot(std::size_t i) const {
    assert(i < capacity_);
    return (head_ + i) & (capacity_ - 1);
  }
  void grow_if_full() {
    if (size_ < capacity_) return;
    const std::uint32_t capacity = capacity_ == 0 ? 2 : capacity_ * 2;
    auto data = std::make_unique<T[]>(capacity);
    for (std::uint32_t i = 0; i < size_; ++i) data[i] = std::move((*this)[i]);
    data_ = std::move(data);
    capacity_ = capacity;
    head_ = 0;
  }
  void swap(RingQueue& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(head_, o.head_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
  }

  std::unique_ptr<T[]> data_;
  std::uint32_t head_ = 0;
  std::uint32_t size_ = 0;  // at most capacity_, a power of two
  std::uint32_t capacity_ = 0;
};

}  // namespace ckptsim::core
