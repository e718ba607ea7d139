// trace.json, the Chrome trace-event format that Perfetto and chrome://tracing open: a view of a
// RunResult like the others, bounded to a time window so long runs stay small.
#pragma once

#include <string>

#include "sim/run/result.hpp"

namespace ckptsim::run {

struct TraceOptions {
  SimTime from = 0;            // the window, simulated time; spans are clipped to it
  SimTime to = core::kNever;
};

// The whole trace.json text. Tracks: the JobManager (job status, CheckpointCoordinator lanes);
// per subtask a thread-state track (busy, back-pressured, idle, blocked in a user call) and
// checkpoint lanes (one span per checkpoint, its phases nested inside); counters of queued
// buffers; flow arrows for the trigger RPC and barriers between subtasks. Deterministic.
std::string trace_json(const RunResult& result, const TraceOptions& options = {});

}  // namespace ckptsim::run
