// Builds the JobMaster for a scenario, runs the simulation for the scenario's duration and
// returns what the Recorder collected.
#include "sim/run/run.hpp"

#include <algorithm>
#include <tuple>

#include "sim/core/simulation.hpp"
#include "sim/model/job_master.hpp"
#include "sim/run/recorder.hpp"

namespace ckptsim::run {

std::string job_id_for(const model::Scenario& scenario) {
  return stable_id("job/" + scenario.name + "/" + scenario.job.name);
}

RunResult run(const model::Scenario& scenario, std::optional<std::uint64_t> seed) {
  return run(scenario, seed, RunControl{});
}

RunResult run(const model::Scenario& input, std::optional<std::uint64_t> seed,
              const RunControl& control) {
  model::Scenario scenario = input;
  if (seed) scenario.seed = *seed;
  // From operators to tasks: what Flink deploys (and names in its log and REST API).
  if (scenario.flink.operator_chaining) scenario.job = model::chain_operators(scenario.job);
  core::Simulation sim;
  const std::string job_id = job_id_for(scenario);
  Recorder recorder(scenario, job_id);
  model::JobMaster job(sim, scenario, job_id, recorder);
  job.start();
  bool stopped_early = false;
  if (!control.keep_going) {
    sim.run_until(scenario.duration);
  } else {
    while (!sim.run_slice(scenario.duration, control.events)) {
      if (!control.keep_going(sim.now())) {
        stopped_early = true;
        break;
      }
    }
  }
  job.flush_samples();
  RunResult result = std::move(recorder.result());
  result.stopped_early = stopped_early;
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
  const model::LatencyHistogram& latency = job.tasks().end_to_end_latency();
  result.end_to_end_latency = {latency.records(), latency.mean_ms(), latency.percentile_ms(0.5),
                               latency.percentile_ms(0.99)};
  return result;
}

}  // namespace ckptsim::run
