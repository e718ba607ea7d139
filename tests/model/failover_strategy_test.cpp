// Region failover (jobmanager.execution.failover-strategy): pipelined regions as Flink computes
// them (SchedulingPipelinedRegionComputeUtilTest's shapes a streaming job can have) and what a
// task failure restarts (RestartPipelinedRegionFailoverStrategy, DefaultScheduler), against
// 'full' (RestartAllFailoverStrategy).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/simulation.hpp"
#include "sim/model/failover_strategy.hpp"
#include "sim/model/job_master.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

namespace {

using ckptsim::model::TaskRef;
namespace core = ckptsim::core;
namespace model = ckptsim::model;
namespace run = ckptsim::run;
namespace scenario = ckptsim::scenario;

model::Scenario load(const std::string& vertices, const std::string& extra = "",
                     const std::string& strategy = "region", bool chaining = true) {
  const std::string yaml = R"(
name: region-failover
duration: 60 s
flink:
  version: "1.17"
  execution.checkpointing.interval: 1 s
  restart-strategy.type: fixed-delay
  restart-strategy.fixed-delay.attempts: 10
  restart-strategy.fixed-delay.delay: 2 s
  jobmanager.execution.failover-strategy: )" + strategy + R"(
  pipeline.operator-chaining: )" + (chaining ? "true" : "false") + R"(
cluster: { taskmanagers: 2, slots-per-taskmanager: 4, deploy-time: 100 ms }
job:
  vertices:
)" + vertices + extra;
  const auto loaded = scenario::load_string(yaml, "region.yaml");
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  model::Scenario scenario = *loaded.scenario;
  // As run::run does: the job graph of tasks.
  if (scenario.flink.operator_chaining) scenario.job = model::chain_operators(scenario.job);
  return scenario;
}

struct Job {
  model::Scenario scenario;
  core::Simulation sim;
  model::Observer observer;
  model::JobMaster job;
  explicit Job(model::Scenario s)
      : scenario(std::move(s)), job(sim, scenario, run::job_id_for(scenario), observer) {
    job.start();
  }
  model::FailoverStrategy regions(model::FailoverStrategyKind kind) const {
    const model::TaskExecutor& t = job.tasks();
    return model::FailoverStrategy(kind, t.num_subtasks(), t.channel_ends());
  }
};

// Subtask ids grouped by region, in region order.
std::vector<std::vector<int>> regions_of(const model::FailoverStrategy& f, int subtasks) {
  std::vector<std::vector<int>> out(static_cast<std::size_t>(f.num_regions()));
  for (int s = 0; s < subtasks; ++s) out[static_cast<std::size_t>(f.region_of(s))].push_back(s);
  return out;
}

const char* const kForwardChains = R"(
    - { name: Source, parallelism: 3, rate: 1000 records/s }
    - { name: Map, parallelism: 3, input: { from: Source, ship: forward }, cost: 10 us/record }
    - { name: Sink, parallelism: 3, input: { from: Map, ship: forward }, cost: 10 us/record }
)";

}  // namespace

TEST_CASE("SchedulingPipelinedRegionComputeUtilTest.testIndividualVertices: unconnected subtasks "
          "are one region each",
          "[failover]") {
  // One vertex of parallelism 3 (a chained source-to-sink task): no channel at all.
  Job j(load("    - { name: Source, parallelism: 3, rate: 100 records/s }\n"));
  const auto f = j.regions(model::FailoverStrategyKind::region);
  CHECK(regions_of(f, 3) == std::vector<std::vector<int>>{{0}, {1}, {2}});
}

TEST_CASE("SchedulingPipelinedRegionComputeUtilTest.testEmbarrassinglyParallelCase: forward "
          "chains are one region per chain",
          "[failover]") {
  // Without chaining each vertex is a task: subtask ids Source 0-2, Map 3-5, Sink 6-8.
  Job j(load(kForwardChains, "", "region", false));
  const int n = j.job.tasks().num_subtasks();
  REQUIRE(n == 9);
  const auto f = j.regions(model::FailoverStrategyKind::region);
  CHECK(regions_of(f, n) == std::vector<std::vector<int>>{{0, 3, 6}, {1, 4, 7}, {2, 5, 8}});
  // Chained (the default), each pipeline is one task: three regions of one subtask.
  Job chained(load(kForwardChains));
  REQUIRE(chained.job.tasks().num_subtasks() == 3);
  CHECK(regions_of(chained.regions(model::FailoverStrategyKind::region), 3) ==
        std::vector<std::vector<int>>{{0}, {1}, {2}});
  CHECK(f.tasks_needing_restart(n - 1) == regions_of(f, n).back());
  // RestartAllFailoverStrategy: every task whatever failed.
  const auto full = j.regions(model::FailoverStrategyKind::full);
  CHECK(full.tasks_needing_restart(0).size() == static_cast<std::size_t>(n));
}

TEST_CASE("SchedulingPipelinedRegionComputeUtilTest.testOneComponentViaTwoExchanges: all-to-all "
          "edges join every subtask into one region",
          "[failover]") {
  Job j(load(R"(
    - { name: Source, parallelism: 2, rate: 100 records/s }
    - { name: Map, parallelism: 2, input: { from: Source, ship: rebalance } }
    - { name: Sink, parallelism: 2, input: { from: Map, ship: hash } }
)"));
  const auto f = j.regions(model::FailoverStrategyKind::region);
  CHECK(f.num_regions() == 1);
  CHECK(f.tasks_needing_restart(3) == std::vector<int>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("SchedulingPipelinedRegionComputeUtilTest.testOneComponentInstanceFromOneSource: "
          "pointwise (rescale) fan-out from one subtask is one region",
          "[failover]") {
  Job j(load(R"(
    - { name: Source, parallelism: 1, rate: 100 records/s }
    - { name: Map, parallelism: 2, input: { from: Source, ship: rescale } }
    - { name: Sink, parallelism: 4, input: { from: Map, ship: rescale } }
)"));
  CHECK(j.regions(model::FailoverStrategyKind::region).num_regions() == 1);
  // And a rescale 4 -> 2 makes two regions ({a1, a2} -> b1, {a3, a4} -> b2).
  Job k(load(R"(
    - { name: Source, parallelism: 4, rate: 100 records/s }
    - { name: Sink, parallelism: 2, input: { from: Source, ship: rescale } }
)"));
  CHECK(regions_of(k.regions(model::FailoverStrategyKind::region), 6) ==
        std::vector<std::vector<int>>{{0, 1, 4}, {2, 3, 5}});
}

TEST_CASE("RestartPipelinedRegionFailoverStrategyTest.testRegionFailoverForRegionInternalErrors: "
          "a failed task restarts only its region; the other regions run on, and the job is "
          "RESTARTING until the region runs again (DefaultScheduler.addVerticesToRestartPending)",
          "[failover]") {
  const std::string fail = R"(
timeline:
  - { at: 10 s, do: fail-task, vertex: Map, subtask: 1 }
)";
  Job j(load(kForwardChains, fail, "region", false));
  const model::TaskExecutor& t = j.job.tasks();
  const int n = t.num_subtasks();
  REQUIRE(n == 9);
  j.sim.run_until(core::seconds(10) + core::milliseconds(100));
  CHECK(j.job.status() == model::JobStatus::restarting);
  // Mid-restart: the other two pipelines still run their first attempts and keep reading.
  const auto position_of = [&](int subtask) {
    return t.source_position(std::vector<int>{subtask});
  };
  const std::int64_t before = position_of(0);
  j.sim.run_until(core::seconds(11));
  CHECK(position_of(0) > before);
  CHECK(t.state(0, 0) == model::ExecutionState::running);
  CHECK(t.state(0, 2) == model::ExecutionState::running);
  CHECK(t.state(0, 1) != model::ExecutionState::running);
  j.sim.run_until(core::seconds(20));
  CHECK(j.job.status() == model::JobStatus::running);
  CHECK(j.job.failovers() == 1);
  std::vector<int> attempts;
  for (const TaskRef& r : t.all_tasks()) attempts.push_back(r.attempt);
  // Only pipeline 1 (its Source, Map and Sink) has a second attempt.
  for (int s = 0; s < n; ++s) CHECK(attempts[static_cast<std::size_t>(s)] == (s % 3 == 1 ? 1 : 0));
  // Checkpoints complete again afterwards, acknowledged by old and new attempts alike.
  const std::int64_t completed = j.job.coordinator()->latest_completed_id();
  j.sim.run_until(core::seconds(30));
  CHECK(j.job.coordinator()->latest_completed_id() > completed);
}

TEST_CASE("RestartAllFailoverStrategy ('full'): the same failure restarts every task",
          "[failover]") {
  const std::string fail = R"(
timeline:
  - { at: 10 s, do: fail-task, vertex: Map, subtask: 1 }
)";
  Job j(load(kForwardChains, fail, "full", false));
  j.sim.run_until(core::seconds(20));
  CHECK(j.job.failovers() == 1);
  for (const TaskRef& r : j.job.tasks().all_tasks()) CHECK(r.attempt == 1);
}

TEST_CASE("a task failure restores only the restarted tasks and leaves the operator coordinators "
          "(SchedulerBase.restoreState: restoreLatestCheckpointedStateToSubtasks, "
          "OperatorCoordinatorRestoreBehavior.SKIP)",
          "[failover]") {
  // No checkpoint yet at 300 ms (the first completes at about 470 ms): Flink logs "No checkpoint found during restore." for both, and
  // only the global recovery "Resetting the Operator Coordinators to an empty state.".
  const auto log_of = [](const model::Scenario& s) {
    const run::RunResult r = run::run(s, 1);
    std::string log;
    for (const auto& line : r.log) log += line.message + "\n";
    return log;
  };
  const std::string task_failure = log_of(load(kForwardChains, R"(
timeline:
  - { at: 300 ms, do: fail-task, vertex: Map, subtask: 0 }
)", "region", false));
  CHECK(task_failure.find("No checkpoint found during restore.") != std::string::npos);
  CHECK(task_failure.find("Resetting the Operator Coordinators") == std::string::npos);
  CHECK(task_failure.find("3 tasks will be restarted to recover the failed task") !=
        std::string::npos);
}

TEST_CASE("a lost TaskManager fails each of its tasks: with region failover only the regions on "
          "it restart (DefaultScheduler.handleTaskFailure per task, "
          "RestartPipelinedRegionFailoverStrategy)",
          "[failover]") {
  // Six chained pipelines (six regions) on 2 TaskManagers x 4 slots: pipelines 0-3 on the
  // first, 4 and 5 on the second.
  const std::string lose = R"(
timeline:
  - { at: 5 s, do: lose-taskmanager, taskmanager: 2 }
)";
  Job j(load(R"(
    - { name: Source, parallelism: 6, rate: 1000 records/s }
    - { name: Map, parallelism: 6, input: { from: Source, ship: forward }, cost: 10 us/record }
)",
             lose));
  const model::TaskExecutor& t = j.job.tasks();
  REQUIRE(t.num_subtasks() == 6);
  REQUIRE(t.taskmanager_of(0, 4) == 1);
  // heartbeat.timeout (50 s) after the loss, the restart delay (2 s) and the deployment.
  j.sim.run_until(core::seconds(50));
  CHECK(j.job.failovers() == 0);
  j.sim.run_until(core::seconds(60));
  CHECK(j.job.status() == model::JobStatus::running);
  // Two task failures, one restart each (both regions count for the restart strategy).
  CHECK(j.job.failovers() == 2);
  for (const TaskRef& r : t.all_tasks()) CHECK(r.attempt == (r.subtask >= 4 ? 1 : 0));
}

TEST_CASE("fail-task fails a subtask that is still DEPLOYING or INITIALIZING (Task.doRun's "
          "failure before RUNNING), and its region restarts",
          "[failover]") {
  // deploy-time is 100 ms: at 50 ms every subtask is DEPLOYING.
  const std::string fail = R"(
timeline:
  - { at: 50 ms, do: fail-task, vertex: Source, subtask: 2 }
)";
  Job j(load(kForwardChains, fail));
  const model::TaskExecutor& t = j.job.tasks();
  j.sim.run_until(core::milliseconds(40));
  REQUIRE(t.state(0, 2) == model::ExecutionState::deploying);
  j.sim.run_until(core::milliseconds(60));
  CHECK(t.state(0, 2) != model::ExecutionState::deploying);
  j.sim.run_until(core::seconds(10));
  CHECK(j.job.failovers() == 1);
  for (const TaskRef& r : t.all_tasks()) CHECK(r.attempt == (r.subtask == 2 ? 1 : 0));
  CHECK(j.job.status() == model::JobStatus::running);
}
