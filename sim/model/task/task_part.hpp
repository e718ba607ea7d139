// What every part of the task runtime shares: the simulation, the scenario, the dense subtask
// and channel records, and its siblings. Calls between parts are plain (non-virtual) calls; the
// accessors are defined inline in task_executor.hpp.
#pragma once

#include <cstdint>

#include "sim/core/simulation.hpp"
#include "sim/model/config.hpp"
#include "sim/model/observer.hpp"
#include "sim/model/task/subtask.hpp"

namespace ckptsim::model {

class TaskExecutor;
class Network;
class StreamTask;
class BarrierHandler;
class SubtaskCheckpointCoordinator;
class JobMasterGateway;

class TaskPart {
 protected:
  explicit TaskPart(TaskExecutor& executor);
  TaskPart(const TaskPart&) = delete;
  TaskPart& operator=(const TaskPart&) = delete;
  ~TaskPart() = default;

  Subtask& sub(int id);
  const Subtask& sub(int id) const;
  Channel& chan(int id);
  const Channel& chan(int id) const;
  const VertexSpec& vertex(const Subtask& s) const {
    return scenario_.job.vertices[static_cast<std::size_t>(s.vertex)];
  }
  bool is_source(const Subtask& s) const { return !vertex(s).input.has_value(); }
  int subtask_id(const Subtask& s) const;
  // Event arguments carry the subtask and its attempt's epoch: events of older attempts are
  // ignored.
  std::uint64_t arg(int subtask) const;
  bool current(std::uint64_t a) const;
  static int subtask_of(std::uint64_t a) { return static_cast<int>(a & 0xffffffU); }

  Network& network();
  StreamTask& tasks();
  BarrierHandler& barriers();
  SubtaskCheckpointCoordinator& snapshots();
  const Network& network() const;

  TaskExecutor& x_;
  core::Simulation& sim_;
  const Scenario& scenario_;
  Observer& observer_;
  JobMasterGateway& listener_;
};

}  // namespace ckptsim::model
