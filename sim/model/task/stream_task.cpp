// The task threads' own events: wake-ups, source steps, the end of a buffer's processing, and
// the timeline's stalls.
#include "sim/model/task/stream_task.hpp"

#include <cmath>
#include <string>

#include "sim/model/network/network.hpp"
#include "sim/model/task/task_executor.hpp"

namespace ckptsim::model {

StreamTask::StreamTask(TaskExecutor& executor) : TaskPart(executor) {
  const auto& vertices = scenario_.job.vertices;
  stalls_.resize(vertices.size());
  for (const VertexSpec& v : vertices) source_rates_.push_back(v.records_per_second);
  for (std::size_t v = 0; v < vertices.size(); ++v)
    for (int i = 0; i < vertices[v].parallelism; ++i)
      rngs_.emplace_back(scenario_.seed, "task/" + std::to_string(v) + "/" + std::to_string(i));
}

void StreamTask::add_stall(int v, const Stall& st) {
  stalls_[static_cast<std::size_t>(v)].push_back(st);
  // The thread becomes busy in the call when the stall begins and free again when it ends.
  wake_vertex_at(v, st.from);
  if (st.until < core::kNever) wake_vertex_at(v, st.until);
}

void StreamTask::wake_vertex_at(int v, SimTime at) {
  sim_.schedule_at(at, this, kStallEnds, static_cast<std::uint64_t>(v));
}

void StreamTask::set_source_rate(int v, double records_per_second) {
  source_rates_[static_cast<std::size_t>(v)] = std::max(0.0, records_per_second);
  const int first = x_.vertex_first_[static_cast<std::size_t>(v)];
  for (int i = 0; i < scenario_.job.vertices[static_cast<std::size_t>(v)].parallelism; ++i)
    wake(first + i);
}

void StreamTask::on_event(std::uint32_t kind, std::uint64_t a) {
  switch (static_cast<Event>(kind)) {
    case kWake:
      if (!current(a)) return;
      sub(subtask_of(a)).wake_scheduled = false;
      progress(subtask_of(a));
      return;
    case kSourceEmit:
      if (current(a)) emit_source_records(subtask_of(a));
      return;
    case kProcessDone: {
      if (!current(a)) return;
      const int id = subtask_of(a);
      Subtask& s = sub(id);
      // The step's time up to now is busy time, and its output records belong to the sample
      // period they are written in, not to one that ended while the step ran.
      account(s);
      s.busy = false;
      s.state_size += s.processing.records * vertex(s).state_growth_per_record;
      s.output_carry += static_cast<double>(s.processing.records) * vertex(s).selectivity;
      const auto out = static_cast<std::int64_t>(std::floor(s.output_carry));
      s.output_carry -= static_cast<double>(out);
      if (s.outputs.empty() && s.processing.kind == Buffer::Kind::data)  // a sink
        latency_.add(sim_.now() - s.processing.born, s.processing.records);
      network().write_records(s, out, s.processing.born);
      progress(id);
      return;
    }
    case kStallEnds: {
      const auto v = static_cast<std::size_t>(a);
      for (int i = 0; i < scenario_.job.vertices[v].parallelism; ++i)
        wake(x_.vertex_first_[v] + i);
      return;
    }
  }
}

}  // namespace ckptsim::model
