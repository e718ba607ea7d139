// Builds the JobMaster for a scenario and runs it in slices; the Recorder's result, completed
// with the JobMaster's counters, is what a snapshot or the finished run returns.
#include "sim/run/live_run.hpp"

#include <algorithm>
#include <tuple>

#include "sim/core/simulation.hpp"
#include "sim/model/job_master.hpp"
#include "sim/run/recorder.hpp"
#include "sim/run/retention.hpp"
#include "sim/run/run.hpp"

namespace ckptsim::run {

namespace {

model::Scenario prepared(const model::Scenario& input, std::optional<std::uint64_t> seed) {
  model::Scenario scenario = input;
  if (seed) scenario.seed = *seed;
  // From operators to tasks: what Flink deploys (and names in its log and REST API).
  if (scenario.flink.operator_chaining) scenario.job = model::chain_operators(scenario.job);
  return scenario;
}

}  // namespace

struct LiveRun::State {
  State(const model::Scenario& input, std::optional<std::uint64_t> seed)
      : scenario(prepared(input, seed)),
        recorder(scenario, job_id_for(scenario)),
        job(sim, scenario, job_id_for(scenario), recorder) {}

  // The Recorder's result completed with what the JobMaster and the tasks know at `now`.
  void complete(RunResult& result) const {
    // Subtasks close their sample periods lazily, so rows arrive out of order.
    std::stable_sort(result.timeseries.begin(), result.timeseries.end(),
                     [](const TaskSampleRow& a, const TaskSampleRow& b) {
                       return std::tie(a.end, a.vertex, a.subtask) <
                              std::tie(b.end, b.vertex, b.subtask);
                     });
    result.end_time = sim.now();
    result.final_status = job.status();
    result.final_task_states = job.tasks().states();
    // Counters the JobMaster keeps across submissions.
    result.failovers = job.failovers();
    result.restarts = job.restarts();
    result.replayed_records = job.replayed_records();
    result.events_executed = sim.executed();
    result.buffers_transferred = job.tasks().buffers_transferred();
    result.network = scenario.network;
    result.network_skipped = job.tasks().hybrid_network().skipped();
    result.network_skips = job.tasks().hybrid_network().skips();
    result.network_references = job.tasks().hybrid_network().references();
    result.network_replayed = job.tasks().hybrid_network().replayed();
    const model::LatencyHistogram& latency = job.tasks().end_to_end_latency();
    result.end_to_end_latency = {latency.records(), latency.mean_ms(),
                                 latency.percentile_ms(0.5), latency.percentile_ms(0.99)};
  }

  const model::Scenario scenario;
  core::Simulation sim;
  Recorder recorder;
  model::JobMaster job;
  Duration retention = 0;
  SimTime compacted = 0;  // when the rows were last merged
};

LiveRun::LiveRun(const model::Scenario& scenario, std::optional<std::uint64_t> seed)
    : s_(std::make_unique<State>(scenario, seed)) {
  s_->job.start();
}

LiveRun::~LiveRun() = default;

bool LiveRun::advance(SimTime until, std::uint64_t max_events) {
  const bool reached = s_->sim.run_slice(std::min(until, duration()), max_events);
  if (s_->retention > 0 && now() - s_->compacted >= s_->retention) {
    compact_timeseries(s_->recorder.result(), now() - s_->retention);
    s_->compacted = now();
  }
  return reached;
}

void LiveRun::set_retention(Duration window) { s_->retention = window; }

SimTime LiveRun::now() const { return s_->sim.now(); }

SimTime LiveRun::duration() const { return s_->scenario.duration; }

RunResult LiveRun::snapshot() const {
  // Accounting the subtasks' time up to now closes their finished sample periods; it changes
  // nothing the run does next (tests/run/live_run_test.cpp).
  s_->job.flush_samples();
  RunResult result = s_->recorder.result();
  s_->complete(result);
  return result;
}

RunResult LiveRun::finish(bool stopped_early) {
  s_->job.flush_samples();
  RunResult result = std::move(s_->recorder.result());
  result.stopped_early = stopped_early;
  s_->complete(result);
  return result;
}

std::uint64_t LiveRun::request(model::TimelineAction action) {
  action.at = s_->sim.now();
  return s_->job.request(action);
}

OperationStatus LiveRun::operation(std::uint64_t id) const {
  const model::RequestOutcome o = s_->job.request_outcome(static_cast<std::size_t>(id));
  OperationStatus status;
  status.checkpoint_id = o.checkpoint_id;
  switch (o.state) {
    case model::RequestOutcome::State::queued:
    case model::RequestOutcome::State::triggering: break;
    case model::RequestOutcome::State::completed:
      status.state = OperationStatus::State::completed;
      break;
    case model::RequestOutcome::State::failed:
      status.state = OperationStatus::State::failed;
      status.failure = o.failure ? model::message(*o.failure) : "The operation failed.";
      break;
  }
  return status;
}

}  // namespace ckptsim::run
