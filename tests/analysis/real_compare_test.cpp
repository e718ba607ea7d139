// analysis/import/real_compare.hpp: real and simulated checkpoint attempts matched by order from
// each side's first trigger (failed triggers without an id included); statuses, reasons,
// durations (20 % and 1 s) and failovers (5 % and 10 s) compared up to where the real files end;
// a checkpoint still in progress when they end is not held against the simulation.
#include <catch2/catch.hpp>

#include "analysis/import/real_compare.hpp"

namespace ckptsim::analysis {
namespace {

using run::CheckpointStatus;
using Reason = model::CheckpointFailureReason;

core::SimTime at(double s) {
  return static_cast<core::SimTime>(s * 1e9);
}

void add(Imported& i, std::int64_t id, double trigger_s, CheckpointStatus status, double duration_s,
         std::optional<Reason> reason = std::nullopt) {
  run::CheckpointRecord c;
  c.id = id;
  c.status = status;
  c.trigger_time = at(trigger_s);
  if (status != CheckpointStatus::in_progress) c.end_time = c.trigger_time + at(duration_s);
  c.failure_reason = reason;
  i.result.checkpoints.push_back(c);
  i.result.end_time = std::max(i.result.end_time, c.end_time);
}

void failover(Imported& i, double at_s) {
  i.result.job_status_changes.push_back(
      {at(at_s), model::JobStatus::running, model::JobStatus::restarting});
}

// A real log that starts at checkpoint 17, 100 s into the job: completed, completed, expired,
// then a failover, then one in progress when the log ends a second after its trigger (an excerpt
// cut there).
Imported real_job() {
  Imported r;
  add(r, 17, 100, CheckpointStatus::completed, 2.0);
  add(r, 18, 160, CheckpointStatus::completed, 3.0);
  add(r, 19, 220, CheckpointStatus::failed, 600, Reason::checkpoint_expired);
  failover(r, 820.5);
  add(r, 20, 840, CheckpointStatus::in_progress, 0);
  r.result.end_time = at(841);
  return r;
}

// The same pattern from a simulation that starts at 0 with ids from 1.
Imported simulated(double second_duration_s, double failover_s) {
  Imported r;
  add(r, 1, 5, CheckpointStatus::completed, 1.5);
  add(r, 2, 65, CheckpointStatus::completed, second_duration_s);
  add(r, 3, 125, CheckpointStatus::failed, 600, Reason::checkpoint_expired);
  failover(r, failover_s);
  add(r, 4, 745, CheckpointStatus::completed, 2.0);  // the real one was still going
  add(r, 5, 905, CheckpointStatus::completed, 2.0);  // after the real files' end: not compared
  return r;
}

const ComparedSides kSides{"real.log", "sim.yaml (scenario, seed 1)"};

}  // namespace

TEST_CASE("compare --real: the same pattern with other ids and origins agrees") {
  const RealComparison c = compare_real(real_job(), simulated(3.5, 725.5));
  INFO(real_comparison_text(c, kSides));
  CHECK(c.first_divergence.empty());
  CHECK(c.from_first_attempt);
  REQUIRE(c.checkpoints.size() == 4);
  CHECK(c.checkpoints[0].real->id == 17);
  CHECK(c.checkpoints[0].sim->id == 1);
  CHECK(c.checkpoints[1].sim->trigger_ms == 60'000);
  CHECK(c.checkpoints[2].real->reason == "CHECKPOINT_EXPIRED");
  CHECK(c.window_ms == 741'000);
  REQUIRE(c.failovers.size() == 1);
  CHECK_FALSE(c.failovers[0].differs);
  CHECK(c.real.completed == 2);
  CHECK(c.real.in_progress == 1);
  CHECK(c.sim.completed == 3);
  CHECK(c.sim.failovers == 1);
  CHECK(real_comparison_verdict(c) ==
        "They agree: 4 checkpoint attempts in the same order with the same statuses and failure "
        "reasons, durations within 20 % or 1 s; 1 failover within 5 % or 10 s. real: 4 "
        "checkpoints (2 completed, 1 failed, 1 in progress), 1 failover; simulated: 4 "
        "checkpoints (3 completed, 1 failed), 1 failover.");
}

TEST_CASE("compare --real: a duration beyond 20 % and 1 s, a status, a failover differ") {
  // 3.0 s against 4.5 s: 1.5 s and 33 %.
  const RealComparison slow = compare_real(real_job(), simulated(4.5, 725.5));
  CHECK(slow.checkpoints[1].differences == std::vector<std::string>{"duration"});
  CHECK(slow.first_divergence ==
        "checkpoint #2 (real id 18, simulated id 2; duration differs): real triggered at 00:01:00, "
        "COMPLETED in "
        "3.0 s; simulated triggered at 00:01:00, COMPLETED in 4.5 s");
  // 3.0 against 3.9 is within 1 s.
  CHECK(compare_real(real_job(), simulated(3.9, 725.5)).first_divergence.empty());
  // A failover a minute later than the real one.
  const RealComparison late = compare_real(real_job(), simulated(3.0, 800));
  CHECK(late.failovers[0].differs);
  CHECK(late.first_divergence == "failover #1: real at 00:12:00, simulated at 00:13:15");
  // Matched by order, the third triggers 75 s later in the simulation (a longer interval).
  Imported drifted = simulated(3.0, 725.5);
  drifted.result.checkpoints[2].trigger_time += at(75);
  drifted.result.checkpoints[2].end_time += at(75);
  const RealComparison later = compare_real(real_job(), drifted);
  CHECK(later.checkpoints[2].differences == std::vector<std::string>{"time"});
  CHECK(later.first_divergence.find("checkpoint #3 (real id 19, simulated id 3; time differs): "
                                    "real triggered at 00:02:00, FAILED (CHECKPOINT_EXPIRED) "
                                    "after 600.0 s; simulated triggered at 00:03:15") == 0);
  // 5 s later is within 10 s.
  drifted = simulated(3.0, 725.5);
  drifted.result.checkpoints[2].trigger_time += at(5);
  CHECK(compare_real(real_job(), drifted).checkpoints[2].differences.empty());
  // The expired one expires after 3 min in the simulation, not after 10 (another timeout).
  Imported shorter = simulated(3.0, 725.5);
  shorter.result.checkpoints[2].end_time = shorter.result.checkpoints[2].trigger_time + at(180);
  CHECK(compare_real(real_job(), shorter).checkpoints[2].differences ==
        std::vector<std::string>{"duration"});
  // The expired one completes in the simulation.
  Imported sim = simulated(3.0, 725.5);
  run::CheckpointRecord& third = sim.result.checkpoints[2];
  third.status = CheckpointStatus::completed;
  third.failure_reason.reset();
  third.end_time = third.trigger_time + core::seconds(4);
  const RealComparison completes = compare_real(real_job(), sim);
  CHECK(completes.checkpoints[2].differences == std::vector<std::string>{"status"});
  CHECK(completes.first_divergence ==
        "checkpoint #3 (real id 19, simulated id 3; status differs): real triggered at 00:02:00, "
        "FAILED "
        "(CHECKPOINT_EXPIRED) after 600.0 s; simulated triggered at 00:02:00, COMPLETED in 4.0 s");
  CHECK(real_comparison_verdict(completes).find(
            "They diverge: 1 of 4 checkpoint attempts and 0 of 1 failovers differ. The first "
            "divergence is checkpoint #3") == 0);
  CHECK(real_comparison_csv(completes).find("3,19,3,FAILED,COMPLETED,CHECKPOINT_EXPIRED,,") !=
        std::string::npos);
}

TEST_CASE("compare --real: missing and extra checkpoints; in progress at the end is unknown") {
  Imported sim = simulated(3.0, 725.5);
  sim.result.checkpoints.resize(2);  // the simulation stops after two
  sim.result.job_status_changes.clear();
  const RealComparison c = compare_real(real_job(), sim);
  CHECK(c.checkpoints[2].differences == std::vector<std::string>{"missing"});
  CHECK(c.first_divergence ==
        "checkpoint #3 (real id 19): real triggered at 00:02:00, FAILED (CHECKPOINT_EXPIRED) "
        "after 600.0 s; the simulation has no checkpoint in its place");
  // A real one still in progress 160 s later, when the files end (a concurrent one completed
  // after it), against a simulated one that completed in 2 s: they differ.
  Imported longer = real_job();
  add(longer, 21, 1000, CheckpointStatus::completed, 1.0);
  const RealComparison early = compare_real(longer, simulated(3.0, 725.5));
  CHECK(early.checkpoints[3].differences == std::vector<std::string>{"status"});
  CHECK(early.checkpoints[4].differences.empty());
}

TEST_CASE(
    "compare --real: the simulation is held to the real files' end, not their last checkpoint") {
  // The real log goes on for 10 min after its last checkpoint without another: a simulated
  // checkpoint in that time is one the real job does not have.
  Imported real = real_job();
  real.result.end_time = at(1500);
  const RealComparison c = compare_real(real, simulated(3.0, 725.5));
  CHECK(c.window_ms == 1'400'000);
  REQUIRE(c.checkpoints.size() == 5);
  CHECK(c.checkpoints[4].differences == std::vector<std::string>{"extra"});
  CHECK(c.checkpoints[3].differences == std::vector<std::string>{"status"});  // ended in 2 s
  CHECK(c.first_divergence.find(
            "checkpoint #4 (real id 20, simulated id 4; status differs): real triggered at "
            "00:12:20, IN_PROGRESS where the files end; simulated") == 0);
}

TEST_CASE("compare --real: triggers that failed before an id are attempts in their place") {
  // Every periodic trigger aborted (a FINISHED source subtask), as tests/data/real/12 shows.
  Imported real;
  for (int i = 0; i < 4; ++i)
    real.trigger_failures.push_back({at(30.0 * i), Reason::not_all_required_tasks_running});
  real.result.end_time = at(90);
  // The same in a simulation that starts its triggers later: they agree.
  Imported same;
  for (int i = 0; i < 4; ++i)
    same.trigger_failures.push_back({at(12 + 30.0 * i), Reason::not_all_required_tasks_running});
  const RealComparison agree = compare_real(real, same);
  INFO(real_comparison_text(agree, kSides));
  CHECK(agree.first_divergence.empty());
  CHECK(agree.checkpoints.size() == 4);
  CHECK_FALSE(agree.checkpoints[0].real->id.has_value());
  CHECK(agree.real.without_id == 4);
  CHECK(real_comparison_text(agree, kSides)
            .find("none    none  00:00:00  00:00:00  FAILED (NOT_ALL_REQUIRED_TASKS_RUNNING)") !=
        std::string::npos);
  // A simulation whose checkpoints complete diverges at once.
  Imported completes;
  for (int i = 0; i < 4; ++i) add(completes, i + 1, 20 + 30.0 * i, CheckpointStatus::completed, 1);
  const RealComparison c = compare_real(real, completes);
  CHECK(c.checkpoints[0].differences == std::vector<std::string>{"status"});
  CHECK(c.first_divergence ==
        "checkpoint #1 (real id none, simulated id 1; status differs): real triggered at 00:00:00, "
        "FAILED "
        "(NOT_ALL_REQUIRED_TASKS_RUNNING) before it got an id; simulated triggered at "
        "00:00:00, COMPLETED in 1.0 s");
  // A simulation without any checkpoint misses them.
  CHECK(compare_real(real, Imported{}).checkpoints[0].differences ==
        std::vector<std::string>{"missing"});
}

TEST_CASE("compare --real: real files without checkpoints compare from each side's start") {
  Imported none;
  none.result.end_time = at(60);
  // Nothing on either side up to the files' end.
  Imported late;
  add(late, 1, 90, CheckpointStatus::completed, 1);
  const RealComparison empty = compare_real(none, late);
  CHECK_FALSE(empty.from_first_attempt);
  CHECK(empty.checkpoints.empty());
  CHECK(real_comparison_verdict(empty).find("Nothing to compare") == 0);
  // A simulated checkpoint before it is one too many.
  Imported early;
  add(early, 1, 30, CheckpointStatus::completed, 1);
  const RealComparison extra = compare_real(none, early);
  CHECK(extra.first_divergence ==
        "checkpoint #1: the simulation triggers one more (id 1) at 00:00:30, COMPLETED in 1.0 s, "
        "that the real files do not have");
}

TEST_CASE("compare --real: the Markdown and CSV outputs hold the same rows as the table") {
  const RealComparison c = compare_real(real_job(), simulated(4.5, 800));
  const std::string md = real_comparison_markdown(c, kSides);
  CHECK(md.find("- real: real.log\n- simulated: sim.yaml (scenario, seed 1)\n") !=
        std::string::npos);
  CHECK(md.find("| 2 | 18 | 2 | 00:01:00 | 00:01:00 | COMPLETED | COMPLETED | 3.0 s | 4.5 s | "
                "duration |\n") != std::string::npos);
  CHECK(md.find("| 1 | 00:12:00 | 00:13:15 | time |\n") != std::string::npos);
  CHECK(md.find("## Verdict\n\nThey diverge: 1 of 4 checkpoint attempts and 1 of 1 failovers") !=
        std::string::npos);
  CHECK(real_comparison_failovers_csv(c) == "index,real_ms,sim_ms,differs\n1,720500,795000,true\n");
  const std::string text = real_comparison_text(c, kSides);
  CHECK(text.find("real:      real.log\nsimulated: sim.yaml (scenario, seed 1)\n") == 0);
  CHECK(
      text.find("failover      real  simulated  differs\n       1  00:12:00   00:13:15  time\n") !=
      std::string::npos);
}

}  // namespace ckptsim::analysis
