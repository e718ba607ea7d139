// A network buffer or an event as it sits in a result subpartition or an input channel queue:
// Flink's Buffer / BufferConsumer for data, and the events CheckpointBarrier (with its
// CheckpointOptions: aligned, unaligned, timeoutable) and CancelCheckpointMarker. Knows nothing
// about tasks or connectors.
#pragma once

#include <cstdint>

#include "sim/core/time.hpp"

namespace ckptsim::model {

using core::Duration;
using core::SimTime;

struct Buffer {  // 64 bytes: one cache line (the flags first, then the 8-byte fields)
  enum class Kind : std::uint8_t { data, barrier, cancel_marker } kind = Kind::data;
  bool aligned = true;           // a barrier that blocks the upstream (exactly-once/savepoint)
  bool unaligned = false;        // a priority barrier that overtakes data (UC, R10/R11)
  bool timeoutable = false;      // aligned, switching to unaligned after `timeout` (R12-R14)
  bool savepoint = false;
  bool last_from_source = false; // stop-with-savepoint: the source emits nothing after it
  bool full = false;             // a full snapshot (savepoint, or FULL after NO_CLAIM restore)
  // The source's table its records belong to (an index into the source's table list),
  // kAllTables for changes spread over all of them, kNoTable for untagged records.
  std::int32_t table = -1;
  std::int32_t bytes = 0;
  Duration timeout = 0;          // execution.checkpointing.aligned-checkpoint-timeout
  std::int64_t records = 0;
  std::int64_t checkpoint_id = 0;
  SimTime timestamp = 0;         // the checkpoint's trigger timestamp
  SimTime enqueued = 0;          // when a data buffer entered the subpartition
  SimTime born = 0;              // data: mean time its records were read at the sources

  static constexpr std::int32_t kNoTable = -1;
  static constexpr std::int32_t kAllTables = -2;
};

}  // namespace ckptsim::model
