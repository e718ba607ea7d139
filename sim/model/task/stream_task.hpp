// The task thread of every subtask: StreamTask's mailbox loop (MailboxProcessor: mails such as
// checkpoint triggers and timers first, then the default action processInput, suspended while
// the output is unavailable, R9), the source step (SourceOperatorStreamTask's pollNext, or a
// legacy SourceStreamTask under the checkpoint lock, R6/R7), the operator's cost per record, and
// time accounting on thread-state transitions (busy / back-pressured / idle as Flink's
// TimerGauges measure them). Knows no connector by name: a source reader or sink writer is
// called through connectors/connector.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/model/latency.hpp"
#include "sim/model/task/task_part.hpp"

namespace ckptsim::model {

class StreamTask final : public TaskPart, public core::EventHandler {
 public:
  explicit StreamTask(TaskExecutor& executor);

  // The thread looks at its mailbox and input again (in an event of its own, at once).
  void wake(int id);
  void progress(int id);
  void start_processing(int id, const Buffer& b);
  // A priority mail arrived: the buffer in progress is cut after the current record.
  void yield_to_mail(int id);
  // A mail that holds the task thread for `length` (notifyCheckpointComplete, a timer burst).
  void run_long_mail(int id, Duration length);
  // The connector call that held the thread with no known end (a write that returned kNever)
  // returns now: the buffer in progress is done.
  void connector_call_returned(int id);
  // The thread is inside a call that does not return now (a stall, a long mail).
  bool stalled(const Subtask& s) const;
  // ... by a stall of the timeline (not a long mail).
  bool stopped_by_stall(const Subtask& s) const;
  void schedule_emission(Subtask& s, int id);

  // Time accounting: closes the time up to now; re-derives the thread state.
  void account(Subtask& s);
  // Closes the open sample at its end (sample_start + the sample period) with the queue lengths
  // given, and opens the next.
  void close_sample(Subtask& s, int input_buffers, int output_buffers);
  void update_thread_state(Subtask& s);

  // Timeline: the vertex (or one subtask) stops processing from `from` until `until`.
  struct Stall {
    SimTime from = 0;
    SimTime until = core::kNever;
    std::optional<int> subtask;
    int attempt = -1;  // >= 0: only that attempt of `subtask` (a fault a restart clears)
    // 0: the thread stops; otherwise it works at this share of its speed (a slow-down: each
    // record costs 1 / speed as much).
    double speed = 0;
    // Task's interrupt ends the call when the task is cancelled; false: a call that ignores
    // interrupts (a socket read), so the cancellation waits for it.
    bool interruptible = true;
    bool covers(const Subtask& s, SimTime now) const {
      return now >= from && now < until && (!subtask || *subtask == s.index) &&
             (attempt < 0 || attempt == s.attempt);
    }
  };
  void add_stall(int vertex, const Stall& stall);
  const std::vector<Stall>& stalls(int vertex) const {
    return stalls_[static_cast<std::size_t>(vertex)];
  }
  // The vertex's subtasks look at their mailbox again (a stall or a held lock ends).
  void wake_vertex_at(int vertex, SimTime at);
  void set_source_rate(int vertex, double records_per_second);
  double configured_rate(int vertex) const { return source_rates_[static_cast<std::size_t>(vertex)]; }

  const LatencyHistogram& end_to_end_latency() const { return latency_; }
  LatencyHistogram& end_to_end_latency() { return latency_; }
  // Events that move data (the hybrid network moves them through a skipped period).
  static bool moves_data(std::uint32_t kind) {
    return kind == kWake || kind == kSourceEmit || kind == kProcessDone;
  }
  static std::uint32_t source_step_event() { return kSourceEmit; }

  void on_event(std::uint32_t kind, std::uint64_t arg) override;

 private:
  enum Event : std::uint32_t { kWake, kSourceEmit, kProcessDone, kStallEnds };
  void emit_source_records(int id);
  Duration service_time(int id, std::int64_t records);
  Duration cost_of(int id, std::int64_t records);  // at full speed
  double source_rate(const Subtask& s) const;

  std::vector<std::vector<Stall>> stalls_;  // per vertex
  std::vector<core::RandomStream> rngs_;    // one stream per subtask (arrivals, service times)
  std::vector<double> source_rates_;        // per vertex: records/s per subtask
  LatencyHistogram latency_;
};

}  // namespace ckptsim::model
