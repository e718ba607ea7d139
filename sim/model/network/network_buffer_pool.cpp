#include "sim/model/network/network_buffer_pool.hpp"

#include <algorithm>

namespace ckptsim::model {

std::string NetworkBufferPool::insufficient(int required) const {
  // The message of internalCreateBufferPool and tryRedistributeBuffers, with
  // getConfigDescription() (the same from 1.15 to 2.1).
  return "Insufficient number of network buffers: required " + std::to_string(required) +
         ", but only " + std::to_string(available()) +
         " available. The total number of network buffers is currently set to " +
         std::to_string(total_) + " of " + std::to_string(segment_size_) +
         " bytes each. You can increase this number by setting the configuration keys "
         "'taskmanager.memory.network.fraction', 'taskmanager.memory.network.min', and "
         "'taskmanager.memory.network.max'.";
}

std::variant<int, std::string> NetworkBufferPool::create_buffer_pool(int required, int max) {
  if (std::int64_t{required_} + required > total_) return insufficient(required);
  required_ += required;
  int handle = 0;
  if (free_.empty()) {
    handle = static_cast<int>(pools_.size());
    pools_.emplace_back();
  } else {
    handle = free_.back();
    free_.pop_back();
  }
  LocalPool& p = pools_[static_cast<std::size_t>(handle)];
  p = {required, std::max(required, max), required, true};
  room_ += p.max - p.required;
  if (below_max_ == 0 && available() >= room_) {
    p.size = p.max;  // every pool at its maximum, this one too
    return handle;
  }
  if (p.size < p.max) ++below_max_;
  redistribute();
  return handle;
}

void NetworkBufferPool::destroy_buffer_pool(int pool) {
  LocalPool& p = pools_[static_cast<std::size_t>(pool)];
  if (!p.live) return;
  required_ -= p.required;
  room_ -= p.max - p.required;
  if (p.size < p.max) --below_max_;
  p.live = false;
  free_.push_back(pool);
  redistribute();
}

std::optional<std::string> NetworkBufferPool::request_unpooled(int segments) {
  if (std::int64_t{required_} + segments > total_) return insufficient(segments);
  required_ += segments;
  redistribute();
  return std::nullopt;
}

void NetworkBufferPool::recycle_unpooled(int segments) {
  required_ -= segments;
  redistribute();
}

void NetworkBufferPool::redistribute() {
  // NetworkBufferPool.redistributeBuffers: each pool gets its required segments plus a share of
  // the rest in proportion to min(available, max - required), handed out cumulatively so that
  // nothing is lost to rounding. (Flink walks a HashSet of pools; here the handle order.)
  const std::int64_t available = total_ - required_;
  if (below_max_ == 0 && available >= room_) return;  // every pool keeps its maximum
  std::int64_t capacity = 0;
  for (const LocalPool& p : pools_)
    if (p.live) capacity += std::min<std::int64_t>(available, p.max - p.required);
  const std::int64_t to_distribute = std::min(available, capacity);
  std::int64_t parts_used = 0;
  std::int64_t distributed = 0;
  below_max_ = 0;
  for (LocalPool& p : pools_) {
    if (!p.live) continue;
    const std::int64_t excess = p.max - p.required;
    int size = p.required;
    if (excess > 0 && to_distribute > 0) {
      parts_used += std::min(available, excess);
      const std::int64_t mine = to_distribute * parts_used / capacity - distributed;
      distributed += mine;
      size = p.required + static_cast<int>(mine);
    }
    if (size != p.size) resized_ = true;
    p.size = size;
    if (p.size < p.max) ++below_max_;
  }
}

}  // namespace ckptsim::model
