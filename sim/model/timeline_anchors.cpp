// Timeline actions placed by the job's life rather than once at a fixed time: `after-start`
// (every time the job switches to RUNNING), `at-checkpoint` (a checkpoint triggered or
// completed), `at-phase` (a connector enters a phase), repeats (`every`, `times`) and stalls
// that a restart clears (`until: restart`).
// docs/scenario-format.md, "When an action happens".
#include "sim/model/job_master.hpp"

namespace ckptsim::model {
namespace {

// An occurrence's event argument: the action's index, which occurrence of it this is, and for
// `after-start` the run it belongs to (a restart before it comes makes it void).
constexpr int kIndexBits = 16;
constexpr int kOccurrenceBits = 24;
constexpr std::uint64_t kIndexMask = (std::uint64_t{1} << kIndexBits) - 1;
constexpr std::uint64_t kOccurrenceMask = (std::uint64_t{1} << kOccurrenceBits) - 1;

}  // namespace

void JobMaster::anchor_reached(ActionAnchor anchor, std::int64_t checkpoint) {
  for (std::size_t i = 0; i < scenario_.timeline.size(); ++i) {
    const TimelineAction& a = scenario_.timeline[i];
    if (a.anchor != anchor || (a.checkpoint != 0 && a.checkpoint != checkpoint)) continue;
    schedule_occurrence(i, 0, a.offset);
  }
}

void JobMaster::connector_phase(int vertex, ConnectorPhase phase) {
  // The first time in each run of the job that the source's readers enter the phase.
  for (std::size_t i = 0; i < scenario_.timeline.size(); ++i) {
    const TimelineAction& a = scenario_.timeline[i];
    if (a.anchor != ActionAnchor::connector_phase || a.phase != phase ||
        task_of_operator(scenario_.job, a.phase_of) != vertex)
      continue;
    const auto fired = phase_fired_.find(i);
    if (fired != phase_fired_.end() && fired->second == runs_) continue;
    phase_fired_[i] = runs_;
    schedule_occurrence(i, 0, a.offset);
  }
}

void JobMaster::schedule_occurrence(std::size_t index, std::uint64_t occurrence, Duration delay) {
  if (index > kIndexMask || occurrence > kOccurrenceMask) return;  // the loader's limits
  const std::uint64_t arg =
      index | (occurrence << kIndexBits) | (runs_ << (kIndexBits + kOccurrenceBits));
  sim_.schedule_in(delay, this, kTimelineOccurrence, arg);
}

void JobMaster::occurrence(std::uint64_t arg) {
  const std::size_t index = arg & kIndexMask;
  const std::uint64_t n = (arg >> kIndexBits) & kOccurrenceMask;
  const std::uint64_t run = arg >> (kIndexBits + kOccurrenceBits);
  const TimelineAction& a = scenario_.timeline[index];
  // An `after-start` occurrence belongs to the run it was counted from.
  if (a.anchor == ActionAnchor::job_running && run != runs_) return;
  fire(index);
  if (a.repeat_every && (a.times == 0 || n + 1 < static_cast<std::uint64_t>(a.times)))
    schedule_occurrence(index, n + 1, *a.repeat_every);
}

void JobMaster::fire(std::size_t index) {
  const TimelineAction& a = scenario_.timeline[index];
  switch (a.kind) {
    case ActionKind::slow_down:
      if (a.vertex.empty()) return;  // a system's: known to its connectors up front
      [[fallthrough]];
    case ActionKind::stall: {
      const int task = task_of_operator(scenario_.job, a.vertex);
      if (task < 0) return;
      const double speed = a.kind == ActionKind::slow_down ? a.factor : 0;
      if (a.until_restart)
        tasks_.add_stall_until_restart(task, a.subtask, a.duration, speed, a.interruptible);
      else
        tasks_.add_stall(task, a.subtask, sim_.now(), a.duration, speed, a.interruptible);
      return;
    }
    case ActionKind::gc_pause:
      tasks_.stall_taskmanager(a.taskmanager, sim_.now(), *a.duration);
      return;
    case ActionKind::lose_taskmanager:
      tasks_.stall_taskmanager(a.taskmanager, sim_.now(), scenario_.flink.heartbeat_timeout);
      sim_.schedule_in(scenario_.flink.heartbeat_timeout, this, kHeartbeatTimeout, index);
      return;
    default:
      run_action(a);
      return;
  }
}

}  // namespace ckptsim::model
