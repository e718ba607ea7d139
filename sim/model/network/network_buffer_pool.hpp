// One TaskManager's NetworkBufferPool: the network memory's segments, shared by every task on
// the TaskManager (all slots). Each result partition and input gate creates a LocalBufferPool
// with a number of required segments and a maximum; a remote input channel takes its exclusive
// buffers unpooled. Both count against the total (numTotalRequiredBuffers), and a request that
// would pass it fails with Flink's IOException. The segments above the required ones are shared
// among the resizable pools in proportion to their room (redistributeBuffers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ckptsim::model {

class NetworkBufferPool {
 public:
  NetworkBufferPool(int total_segments, std::int64_t segment_size)
      : total_(total_segments), segment_size_(segment_size) {}

  // NetworkBufferPool.internalCreateBufferPool: a LocalBufferPool's handle, or the
  // IOException's message. Every change redistributes the segments nobody requires.
  std::variant<int, std::string> create_buffer_pool(int required, int max);
  void destroy_buffer_pool(int pool);
  // requestUnpooledMemorySegments -> tryRedistributeBuffers: a remote channel's exclusive
  // buffers; the IOException's message if they do not fit.
  std::optional<std::string> request_unpooled(int segments);
  void recycle_unpooled(int segments);

  int pool_size(int pool) const { return pools_[static_cast<std::size_t>(pool)].size; }
  // Whether a pool other than a newly created one changed size since the last call.
  bool take_resized() { return std::exchange(resized_, false); }

  int total() const { return total_; }
  int available() const { return total_ - required_; }

 private:
  struct LocalPool {
    int required = 0;
    int max = 0;
    int size = 0;
    bool live = false;
  };
  std::string insufficient(int required) const;
  // redistributeBuffers: every live pool's size. When the spare segments cover every pool's
  // room (the usual case) every pool has its maximum and nothing needs to be walked.
  void redistribute();

  int total_;
  std::int64_t segment_size_;
  int required_ = 0;
  std::int64_t room_ = 0;  // sum of max - required over the live pools
  int below_max_ = 0;      // live pools smaller than their maximum
  bool resized_ = false;
  std::vector<LocalPool> pools_;  // by handle; destroyed handles are reused
  std::vector<int> free_;
};

}  // namespace ckptsim::model
