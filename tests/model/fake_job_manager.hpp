// The JobManager side of the TaskExecutor for tests that drive tasks directly: it records the
// acknowledgements and declines (with their simulated time) and whether all tasks run.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/simulation.hpp"
#include "sim/model/task/task_executor.hpp"

namespace ckptsim::tests {

struct FakeJobManager final : model::JobMasterGateway {
  struct Ack {
    std::int64_t id;
    model::TaskRef task;
    model::SubtaskAck metrics;
    core::SimTime at;
  };
  struct Decline {
    std::int64_t id;
    model::TaskRef task;
    model::CheckpointFailureReason reason;
    core::SimTime at;
  };
  core::Simulation* sim = nullptr;
  std::vector<Ack> acks;
  std::vector<Decline> declines;
  bool running = false;
  void acknowledge_checkpoint(std::int64_t id, model::TaskRef t, const model::SubtaskAck& m,
                              const model::TaskSnapshot&) override {
    acks.push_back({id, t, m, sim->now()});
  }
  void decline_checkpoint(std::int64_t id, model::TaskRef t,
                          const model::CheckpointException& e) override {
    declines.push_back({id, t, e.reason, sim->now()});
  }
  void all_tasks_running() override { running = true; }
  void all_tasks_terminal() override {}
  const Ack* ack_of(std::int64_t id, int vertex, int subtask) const {
    for (const Ack& a : acks)
      if (a.id == id && a.task.vertex == vertex && a.task.subtask == subtask) return &a;
    return nullptr;
  }
  const Ack* ack_of(std::int64_t id, model::TaskRef t) const {
    return ack_of(id, t.vertex, t.subtask);
  }
  std::vector<Decline> declines_by(model::TaskRef t) const {
    std::vector<Decline> out;
    for (const Decline& d : declines)
      if (d.task.vertex == t.vertex && d.task.subtask == t.subtask) out.push_back(d);
    return out;
  }
};

}  // namespace ckptsim::tests
