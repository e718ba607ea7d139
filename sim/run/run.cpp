// run(): a LiveRun driven to the scenario's duration in one go (or until the caller stops it).
#include "sim/run/run.hpp"

#include "sim/run/live_run.hpp"
#include "sim/run/recorder.hpp"

namespace ckptsim::run {

std::string job_id_for(const model::Scenario& scenario) {
  return stable_id("job/" + scenario.name + "/" + scenario.job.name);
}

RunResult run(const model::Scenario& scenario, std::optional<std::uint64_t> seed) {
  return run(scenario, seed, RunControl{});
}

RunResult run(const model::Scenario& scenario, std::optional<std::uint64_t> seed,
              const RunControl& control) {
  LiveRun live(scenario, seed);
  bool stopped_early = false;
  if (!control.keep_going) {
    live.advance(live.duration());
  } else {
    while (!live.advance(live.duration(), control.events)) {
      if (!control.keep_going(live.now())) {
        stopped_early = true;
        break;
      }
    }
  }
  return live.finish(stopped_early);
}

}  // namespace ckptsim::run
