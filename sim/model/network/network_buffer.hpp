// What a subpartition or an input channel queues: Flink's NetworkBuffer, which holds either a
// buffer of serialized records or a serialized event (EventSerializer.toBuffer: a
// CheckpointBarrier, a CancelCheckpointMarker). 16 bytes: data inline, an event as its index
// in the EventSerializer's table (event_serializer.hpp). The task takes it apart into a Buffer
// (buffer.hpp) when it reads it.
#pragma once

#include <cassert>
#include <cstdint>

#include "sim/model/network/buffer.hpp"

namespace ckptsim::model {

struct NetworkBuffer {
  SimTime born = 0;          // data: mean time its records were read at the sources
  std::int32_t bytes = 0;    // data: its size (> 0); an event: kEvent - its Buffer::Kind
  std::int32_t records = 0;  // data: its records; an event: its index in the event table

  // A data buffer holds at most a segment (at most 1 gb, an int in Flink) of records of at
  // least 1 byte each, so both counts fit.
  static NetworkBuffer data(std::int64_t bytes, std::int64_t records, SimTime born) {
    assert(bytes > 0 && bytes <= INT32_MAX && records >= 0 && records <= INT32_MAX);
    return {born, static_cast<std::int32_t>(bytes), static_cast<std::int32_t>(records)};
  }
  static NetworkBuffer event(Buffer::Kind kind, int index) {
    return {0, kEvent - static_cast<std::int32_t>(kind), index};
  }
  bool is_data() const { return bytes > kEvent; }
  Buffer::Kind kind() const {
    return is_data() ? Buffer::Kind::data : static_cast<Buffer::Kind>(kEvent - bytes);
  }
  int event_index() const { return records; }

  static constexpr std::int32_t kEvent = 0;
};
static_assert(sizeof(NetworkBuffer) == 16, "a queued buffer is 16 bytes (issue 17, item 4)");

}  // namespace ckptsim::model
