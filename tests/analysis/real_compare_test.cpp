// analysis/import/real_compare.hpp: real and simulated checkpoints matched by order from each
// side's first trigger; statuses, reasons, durations (20 % and 1 s) and failovers compared; a
// checkpoint still in progress when the real files end is not held against the simulation.
#include <catch2/catch.hpp>

#include "analysis/import/real_compare.hpp"

namespace ckptsim::analysis {
namespace {

using run::CheckpointStatus;
using Reason = model::CheckpointFailureReason;

void add(run::RunResult& r, std::int64_t id, double trigger_s, CheckpointStatus status,
         double duration_s, std::optional<Reason> reason = std::nullopt) {
  run::CheckpointRecord c;
  c.id = id;
  c.status = status;
  c.trigger_time = static_cast<core::SimTime>(trigger_s * 1e9);
  if (status != CheckpointStatus::in_progress)
    c.end_time = c.trigger_time + static_cast<core::SimTime>(duration_s * 1e9);
  c.failure_reason = reason;
  r.checkpoints.push_back(c);
}

void failover(run::RunResult& r, double at_s) {
  r.job_status_changes.push_back({static_cast<core::SimTime>(at_s * 1e9), model::JobStatus::running,
                                  model::JobStatus::restarting});
}

// A real log that starts at checkpoint 17, 100 s into the job: completed, completed, expired,
// then a failover, then one in progress when the log ends.
run::RunResult real_job() {
  run::RunResult r;
  add(r, 17, 100, CheckpointStatus::completed, 2.0);
  add(r, 18, 160, CheckpointStatus::completed, 3.0);
  add(r, 19, 220, CheckpointStatus::failed, 600, Reason::checkpoint_expired);
  failover(r, 820.5);
  add(r, 20, 840, CheckpointStatus::in_progress, 0);
  return r;
}

// The same pattern from a simulation that starts at 0 with ids from 1.
run::RunResult simulated(double second_duration_s, double failover_s) {
  run::RunResult r;
  add(r, 1, 5, CheckpointStatus::completed, 1.5);
  add(r, 2, 65, CheckpointStatus::completed, second_duration_s);
  add(r, 3, 125, CheckpointStatus::failed, 600, Reason::checkpoint_expired);
  failover(r, failover_s);
  add(r, 4, 745, CheckpointStatus::completed, 2.0);  // the real one was still going
  add(r, 5, 805, CheckpointStatus::completed, 2.0);  // after the real files' span: not compared
  return r;
}

}  // namespace

TEST_CASE("compare --real: the same pattern with other ids and origins agrees") {
  const RealComparison c = compare_real(real_job(), simulated(3.5, 725.5));
  INFO(real_comparison_text(c));
  CHECK(c.first_divergence.empty());
  REQUIRE(c.checkpoints.size() == 4);
  CHECK(c.checkpoints[0].real->id == 17);
  CHECK(c.checkpoints[0].sim->id == 1);
  CHECK(c.checkpoints[2].real->reason == "CHECKPOINT_EXPIRED");
  CHECK(c.window_ms == 740'000);
  REQUIRE(c.failovers.size() == 1);
  CHECK_FALSE(c.failovers[0].differs);
  CHECK(real_comparison_text(c).find("they agree") != std::string::npos);
}

TEST_CASE("compare --real: a duration beyond 20 % and 1 s, a status, a failover differ") {
  // 3.0 s against 4.5 s: 1.5 s and 33 %.
  const RealComparison slow = compare_real(real_job(), simulated(4.5, 725.5));
  CHECK(slow.checkpoints[1].differences == std::vector<std::string>{"duration"});
  CHECK(slow.first_divergence ==
        "checkpoint #2 (real 18, sim 2): real COMPLETED in 3.0 s, simulated COMPLETED in 4.5 s");
  // 3.0 s against 0.5 s is 2.5 s apart and more than 20 %; 3.0 against 3.9 is within 1 s.
  CHECK(compare_real(real_job(), simulated(3.9, 725.5)).first_divergence.empty());
  // A failover a minute later than the real one.
  const RealComparison late = compare_real(real_job(), simulated(3.0, 800));
  CHECK(late.failovers[0].differs);
  CHECK(late.first_divergence == "failover #1: real at 00:12:00, simulated at 00:13:15");
  // The expired one completes in the simulation.
  run::RunResult sim = simulated(3.0, 725.5);
  sim.checkpoints[2].status = CheckpointStatus::completed;
  sim.checkpoints[2].failure_reason.reset();
  sim.checkpoints[2].end_time = sim.checkpoints[2].trigger_time + core::seconds(4);
  const RealComparison completes = compare_real(real_job(), sim);
  CHECK(completes.checkpoints[2].differences == std::vector<std::string>{"status"});
  CHECK(real_comparison_csv(completes).find("3,19,3,FAILED,COMPLETED,CHECKPOINT_EXPIRED,,") !=
        std::string::npos);
}

TEST_CASE("compare --real: missing and extra checkpoints; in progress at the end is unknown") {
  run::RunResult sim = simulated(3.0, 725.5);
  sim.checkpoints.resize(2);  // the simulation stops after two
  sim.job_status_changes.clear();
  const RealComparison c = compare_real(real_job(), sim);
  CHECK(c.checkpoints[2].differences == std::vector<std::string>{"missing"});
  CHECK(c.first_divergence.find("checkpoint #3 (real 19): real FAILED (CHECKPOINT_EXPIRED) at "
                                "00:02:00, the simulation has no checkpoint") == 0);
  // A real one still in progress 60 s later, when the files end (a concurrent one completed
  // after it), against a simulated one that completed in 2 s: they differ.
  run::RunResult longer = real_job();
  add(longer, 21, 900, CheckpointStatus::completed, 1.0);
  const RealComparison early = compare_real(longer, simulated(3.0, 725.5));
  CHECK(early.checkpoints[3].differences == std::vector<std::string>{"status"});
  CHECK(early.checkpoints[4].differences.empty());
  // Real files without any checkpoint: nothing is extra.
  run::RunResult none;
  CHECK(compare_real(none, simulated(3.0, 725.5)).checkpoints.empty());
}

}  // namespace ckptsim::analysis
