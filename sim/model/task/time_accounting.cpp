// Busy / back-pressured / idle time of every task thread, accumulated on thread-state
// transitions (Flink's TimerGauges behind busyTimeMsPerSecond, backPressuredTimeMsPerSecond and
// idleTimeMsPerSecond), closed into one TaskSample per sample period.
#include <algorithm>
#include <cmath>
#include <utility>

#include "sim/model/checkpointing/barrier_handler.hpp"
#include "sim/model/checkpointing/subtask_checkpoint_coordinator.hpp"
#include "sim/model/connectors/connector.hpp"
#include "sim/model/network/network.hpp"
#include "sim/model/task/stream_task.hpp"
#include "sim/model/task/task_executor.hpp"

namespace ckptsim::model {

namespace {
// Time in the thread's current state goes to the open sample (and idle time to the debloater).
void add_time(Subtask& s, Duration d) {
  switch (s.thread_state) {
    case ThreadState::busy:
      s.sample.busy += d;
      if (s.busy_off_records) s.other_work += d;
      break;
    case ThreadState::back_pressured: s.sample.back_pressured += d; break;
    case ThreadState::idle:
      s.sample.idle += d;
      s.debloat_idle += d;
      break;
  }
}
}  // namespace

void StreamTask::account(Subtask& s) {
  // Adds the time since the last transition to the current thread state, closing the sample
  // periods it crosses; queue lengths are those held until now (nothing changed them since the
  // last call, which every mutation of the subtask's queues makes first).
  const Duration period = scenario_.sample_period;
  const SimTime now = sim_.now();
  if (s.state != ExecutionState::running) {
    s.accounted_until = now;
    return;
  }
  if (period <= 0) {  // no time series: the sample is never closed (it sums the attempt)
    add_time(s, now - s.accounted_until);
    s.accounted_until = now;
    return;
  }
  while (s.accounted_until < now) {
    const SimTime sample_end = s.sample_start + period;
    const SimTime until = std::min(now, sample_end);
    const Duration d = until - s.accounted_until;
    add_time(s, d);
    s.accounted_until = until;
    if (until == sample_end) {
      int input_buffers = 0;
      for (int c : s.inputs) input_buffers += static_cast<int>(chan(c).received_size());
      close_sample(s, input_buffers, s.partition_buffers);
    }
  }
}

void StreamTask::close_sample(Subtask& s, int input_buffers, int output_buffers) {
  const SimTime sample_end = s.sample_start + scenario_.sample_period;
  s.sample.start = s.sample_start;
  // The time the subtask ran in this window (less than the period in its first window).
  s.sample.period = s.sample.busy + s.sample.back_pressured + s.sample.idle;
  s.sample.input_buffers = input_buffers;
  s.sample.output_buffers = output_buffers;
  observer_.task_sample(sample_end, {s.vertex, s.index, s.attempt}, s.sample);
  s.closed_samples.busy += s.sample.busy;
  s.closed_samples.back_pressured += s.sample.back_pressured;
  s.closed_samples.idle += s.sample.idle;
  s.closed_samples.records_in += s.sample.records_in;
  s.closed_samples.records_out += s.sample.records_out;
  s.sample = TaskSample{};
  s.sample_start = sample_end;
}

void StreamTask::update_thread_state(Subtask& s) {
  account(s);
  // A thread inside a user call that does not return counts as busy, like any user code.
  if (s.busy || stalled(s))
    s.thread_state = ThreadState::busy;
  else if (s.waiting_output)
    s.thread_state = ThreadState::back_pressured;
  else
    s.thread_state = ThreadState::idle;
  s.busy_off_records = s.thread_state == ThreadState::busy &&
                       !(s.busy && s.processing.kind == Buffer::Kind::data);
}

}  // namespace ckptsim::model
