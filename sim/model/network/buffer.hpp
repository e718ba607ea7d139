// A buffer or an event as a task reads and processes it: Flink's Buffer of records (with the
// source table they belong to when a source hands them to a chained operator), or one of the
// events CheckpointBarrier (with its CheckpointOptions: aligned, unaligned, timeoutable) and
// CancelCheckpointMarker. In the network's queues it travels as a 16-byte NetworkBuffer
// (network_buffer.hpp). Knows nothing about tasks or connectors.
#pragma once

#include <cstdint>

#include "sim/core/time.hpp"

namespace ckptsim::model {

using core::Duration;
using core::SimTime;

struct Buffer {
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
  SimTime born = 0;              // data: mean time its records were read at the sources

  bool operator==(const Buffer&) const = default;

  static constexpr std::int32_t kNoTable = -1;
  static constexpr std::int32_t kAllTables = -2;
};

}  // namespace ckptsim::model
