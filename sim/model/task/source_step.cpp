// The source's step on its task thread: a FLIP-27 SourceOperatorStreamTask polls its reader
// (pollNext) about one buffer's worth per mailbox step, at least every buffer timeout, or emits a
// whole batch its split fetcher read ahead; a legacy SourceStreamTask emits under the checkpoint
// lock. Chained operators and sinks process what the step read on the same thread.
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

void StreamTask::schedule_emission(Subtask& s, int id) {
  const VertexSpec& v = vertex(s);
  if (s.emission_scheduled || s.stopped || x_.has_no_partition(s)) return;
  Source* reader = x_.source(s.vertex);
  if (const auto ready = reader ? reader->next_batch_ready(s.index) : std::nullopt) {
    // The split fetcher reads the next batch while the task thread emits the previous one;
    // batches are processed, then written.
    s.flush_with_step = false;
    if (*ready == core::kNever) return;  // none will come (or the system stalls for ever)
    s.emission_scheduled = true;
    s.step_period = 0;
    sim_.schedule_at(std::max(sim_.now(), *ready), this, kSourceEmit, arg(id));
    s.busy_since = sim_.now();
    return;
  }
  const double rate = source_rate(s);
  if (rate <= 0) return;
  s.emission_scheduled = true;
  // Read about one buffer's worth per step, at least every buffer timeout.
  const double fill_seconds = static_cast<double>(scenario_.flink.segment_size) /
                              (rate * static_cast<double>(std::max<std::int64_t>(1, v.record_size)));
  Duration period = static_cast<Duration>(fill_seconds * 1e9);
  // A step as long as the buffer timeout ends where a periodic flusher would tick: the records
  // read over it wait half the timeout on average, as records emitted one by one do in Flink.
  // (Not when chained operators process the step's records: they write later.)
  s.flush_with_step = scenario_.flink.buffer_timeout > 0 && v.arrivals == Variability::fixed &&
                      v.cost_per_record <= 0 && x_.sinks(s.vertex).empty() &&
                      x_.functions(s.vertex).empty() &&
                      period >= scenario_.flink.buffer_timeout;
  if (scenario_.flink.buffer_timeout > 0) period = std::min(period, scenario_.flink.buffer_timeout);
  if (v.arrivals == Variability::exponential)  // Poisson arrivals: one record at a time
    period = static_cast<Duration>(
        std::llround(rngs_[static_cast<std::size_t>(id)].exponential(1e9 / rate)));
  s.step_period = v.arrivals == Variability::fixed ? std::max<Duration>(core::kMicrosecond, period) : 0;
  sim_.schedule_in(std::max<Duration>(core::kMicrosecond, period), this, kSourceEmit, arg(id));
  // The step's records are read over the period. A source with a cost of its own also polls
  // the records that arrived while its thread emitted the previous step, up to one period's
  // worth more (a thread that cannot keep up loses the rest rather than growing its steps
  // without bound). (Chained operators' time is still lost to the source's rate: a known
  // approximation, kept so that their calibrated scenarios hold.)
  s.busy_since = s.read_from >= 0 && v.arrivals == Variability::fixed
                     ? std::max(s.read_from, sim_.now() - period)
                     : sim_.now();
  s.read_from = -1;
}

void StreamTask::emit_source_records(int id) {
  Subtask& s = sub(id);
  s.emission_scheduled = false;
  if (s.state != ExecutionState::running || s.busy || stalled(s) || s.stopped) return;
  if (!network().output_available(s)) {
    // A FLIP-27 source reads nothing while its output is unavailable; its mails (checkpoint
    // triggers) still run (SourceOperatorStreamTask, R6).
    s.waiting_output = true;
    update_thread_state(s);
    return;
  }
  update_thread_state(s);
  const VertexSpec& v = vertex(s);
  Buffer batch;
  Source* reader = x_.source(s.vertex);
  if (reader && reader->emits_batch(s.index)) {
    // A whole batch in one mailbox step (a CDC snapshot chunk); the fetcher starts on the next.
    const Source::Batch polled = reader->poll_batch(s.index);
    s.position += polled.records;
    s.sample.records_in += polled.records;
    batch.records = polled.records;
    batch.table = polled.table;
    batch.born = sim_.now();
    start_processing(id, batch);
    return;
  }
  // busy_since is the start of the step, or where a mail that interrupted it left off.
  const double elapsed = static_cast<double>(sim_.now() - s.busy_since) / 1e9;
  if (v.arrivals == Variability::exponential)
    s.fractional_records += 1.0;
  else
    s.fractional_records += source_rate(s) * elapsed;
  auto records = static_cast<std::int64_t>(std::floor(s.fractional_records));
  s.fractional_records -= static_cast<double>(records);
  if (reader) {  // SourceReader.pollNext: what the reader has of what is due, and its table
    const Source::Batch polled =
        reader->poll(s.index, records, source_rates_[static_cast<std::size_t>(s.vertex)]);
    records = polled.records;
    batch.table = polled.table;
  }
  s.position += records;
  s.sample.records_in += records;
  if (records > 0) s.lock_until_record = false;  // the streaming record releases the lock (B2)
  // The step's records were read evenly since it started (a Poisson arrival: just now).
  batch.born = v.arrivals == Variability::exponential
                   ? sim_.now()
                   : s.busy_since + (sim_.now() - s.busy_since) / 2;
  if ((v.cost_per_record > 0 || !x_.sinks(s.vertex).empty() || !x_.functions(s.vertex).empty()) &&
      records > 0) {
    // The source's own cost and the operators chained to it process what it read on the same
    // thread.
    batch.records = records;
    if (v.cost_given) s.read_from = sim_.now();
    start_processing(id, batch);
    return;  // kProcessDone writes the output, then progress() reads on
  }
  network().write_records(s, records, batch.born);
  if (s.flush_with_step) network().close_builders(s, nullptr);
  schedule_emission(s, id);
}

double StreamTask::source_rate(const Subtask& s) const {
  const double configured = source_rates_[static_cast<std::size_t>(s.vertex)];
  const Source* reader = x_.source(s.vertex);
  return reader ? reader->rate(s.index, configured) : configured;
}

}  // namespace ckptsim::model
