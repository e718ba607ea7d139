// Properties of the task and network model over a fixed list of seeds, topologies (forward
// chain, rebalance chain, hash with a hot key, broadcast) and barrier modes (aligned, unaligned,
// aligned with timeout, at-least-once), each run with a stalled sink and, in a second run, a
// failed task: acknowledged barrier ids increase per task, a completed checkpoint was
// acknowledged by every subtask, records are conserved and replay after a failover is counted.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sim/core/simulation.hpp"
#include "sim/model/job_master.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;
using core::Duration;
using core::SimTime;
using model::ExecutionState;
using model::TaskRef;

namespace {

constexpr std::uint64_t kSeeds[] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89};

struct Topology {
  const char* name;
  const char* vertices;      // the job.vertices list
  const char* failing;       // the vertex that fails in the failover run
  int fanout;                // copies of each source record the sinks receive (broadcast: P)
  // Records a run may hold outside channels and sinks at an instant: a buffer being processed
  // by an intermediate subtask (at most segment / record size + rounding records each), or the
  // fractional records a skewed hash edge owes its channels (less than one per channel).
  std::int64_t slack;
};

// Sources cost nothing per record (a source that holds records it has read while its thread is
// busy would hide them from the count). 32 KiB segments and 100 B records: a buffer holds at most 328 records (plus rounding).
constexpr std::int64_t kRecordsPerBuffer = 32 * 1024 / 100 + 2;

const Topology kTopologies[] = {
    {"forward chain", R"(
    - { name: Source, parallelism: 2, rate: 20000 records/s, cost: 0 us/record }
    - { name: Map, parallelism: 2, input: { from: Source, ship: forward }, cost: 20 us/record,
        service: exponential, state-size: 1 mb, state-growth: 1 b/record }
    - { name: Sink, parallelism: 2, input: { from: Map, ship: forward }, cost: 40 us/record })",
     "Map", 1, 2 * kRecordsPerBuffer},
    {"rebalance chain", R"(
    - { name: Source, parallelism: 3, rate: 10000 records/s, cost: 0 us/record }
    - { name: Map, parallelism: 2, input: { from: Source, ship: rebalance }, cost: 10 us/record }
    - { name: Sink, parallelism: 2, input: { from: Map, ship: rebalance }, cost: 80 us/record,
        service: exponential })",
     "Sink", 1, 2 * kRecordsPerBuffer},
    {"hash with a hot key", R"(
    - { name: Source, parallelism: 2, rate: 10000 records/s, cost: 0 us/record }
    - { name: Sink, parallelism: 3, input: { from: Source, ship: hash }, key-distribution: hot-key,
        hot-key-share: 0.5, cost: 150 us/record, service: exponential })",
     "Sink", 1, 2 * 3},
    {"broadcast", R"(
    - { name: Source, parallelism: 2, rate: 5000 records/s, cost: 0 us/record }
    - { name: Sink, parallelism: 3, input: { from: Source, ship: broadcast }, cost: 20 us/record })",
     "Sink", 3, 0},
};

struct Mode {
  const char* name;
  std::vector<std::string> sets;
};

// Concurrent checkpoints where Flink allows them, so that acknowledgements of several
// checkpoints can interleave at a task.
const Mode kModes[] = {
    {"aligned", {"execution.checkpointing.max-concurrent-checkpoints=3"}},
    {"unaligned", {"execution.checkpointing.unaligned.enabled=true"}},
    {"aligned with timeout",
     {"execution.checkpointing.unaligned.enabled=true",
      "execution.checkpointing.aligned-checkpoint-timeout=50 ms"}},
    {"at-least-once",
     {"execution.checkpointing.mode=AT_LEAST_ONCE",
      "execution.checkpointing.max-concurrent-checkpoints=3"}},
};

// The sink's subtask 0 stalls for longer than the checkpoint timeout (expired checkpoints,
// abort notifications, cancel markers); the failover run also fails a task; the sources stall
// for ever at 50 s so that everything in flight drains before the end.
std::string scenario_yaml(const Topology& t, bool with_failover) {
  std::string y = R"(
name: property
duration: 60 s
flink:
  execution.checkpointing.interval: 500 ms
  execution.checkpointing.timeout: 4 s
  execution.checkpointing.tolerable-failed-checkpoints: 1000
  restart-strategy.type: fixed-delay
  restart-strategy.fixed-delay.attempts: 10
  restart-strategy.fixed-delay.delay: 1 s
  # Whole-job properties: a failed task restarts every task (a forward chain's subtask would
  # restart only its region, tests/model/failover_strategy_test.cpp).
  jobmanager.execution.failover-strategy: full
cluster: { taskmanagers: 2, slots-per-taskmanager: 2, deploy-time: 100 ms }
job:
  vertices:)";
  y += t.vertices;
  y += R"(
timeline:
  - { at: 15 s, do: stall, vertex: Sink, subtask: 0, for: 6 s })";
  if (with_failover) {
    y += "\n  - { at: 35 s, do: fail-task, vertex: ";
    y += t.failing;
    y += " }";
  }
  y += "\n  - { at: 50 s, do: stall, vertex: Source }\n";
  return y;
}

model::Scenario load(const Topology& t, const Mode& m, std::uint64_t seed, bool with_failover) {
  std::vector<std::string> sets = m.sets;
  sets.push_back("seed=" + std::to_string(seed));
  const auto loaded = scenario::load_string(scenario_yaml(t, with_failover), "property.yaml", sets);
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  model::Scenario s = *loaded.scenario;
  s.sample_period = 0;
  return s;
}

// What the model reports, as the properties need it.
struct Facts final : model::Observer {
  const model::TaskExecutor* tasks = nullptr;
  // Checkpoint ids acknowledged by each subtask attempt, in arrival order (acks of pending
  // checkpoints and late ones of recently expired checkpoints).
  std::map<std::tuple<int, int, int>, std::vector<std::int64_t>> acks;
  std::map<std::int64_t, std::set<std::pair<int, int>>> acked_by;
  std::vector<std::int64_t> completed;  // in completion order
  struct Failover {
    std::int64_t position = 0;         // records read by the sources when the job failed
    std::int64_t restored = -1;        // source positions when the next attempt began running
    int next_attempt = 0;
  };
  std::vector<Failover> failovers;

  void checkpoint_acknowledged(SimTime, std::int64_t id, const model::SubtaskAck& a) override {
    acks[{a.task.vertex, a.task.subtask, a.task.attempt}].push_back(id);
    acked_by[id].insert({a.task.vertex, a.task.subtask});
  }
  void late_message(SimTime, std::int64_t id, TaskRef t) override {
    acks[{t.vertex, t.subtask, t.attempt}].push_back(id);
  }
  void checkpoint_completed(SimTime, std::int64_t id, std::int64_t, Duration, Duration,
                            const std::string&) override {
    completed.push_back(id);
  }
  void global_failure(SimTime, const std::string&, const std::string&, int) override {
    failed();
  }
  void task_failed(SimTime, TaskRef, const std::string&, const std::string&, int) override {
    failed();
  }
  void failed() {
    // Reported before the tasks are cancelled: the positions the sources had reached.
    Failover f;
    f.position = tasks->total_source_position();
    f.next_attempt = tasks->all_tasks().front().attempt + 1;
    failovers.push_back(f);
  }
  void task_state_changed(SimTime, TaskRef t, ExecutionState, ExecutionState to) override {
    // The first subtask of the new attempt to run: no source has read anything yet, so the
    // positions are what the restore gave them.
    if (to != ExecutionState::running || failovers.empty()) return;
    Failover& f = failovers.back();
    if (f.restored < 0 && t.attempt == f.next_attempt) f.restored = tasks->total_source_position();
  }
};

struct Sim {
  model::Scenario scenario;
  core::Simulation sim;
  Facts facts;
  model::JobMaster job;
  explicit Sim(model::Scenario s)
      : scenario(std::move(s)), job(sim, scenario, run::job_id_for(scenario), facts) {
    facts.tasks = &job.tasks();
    job.start();
  }
};

std::string describe(const Topology& t, const Mode& m, std::uint64_t seed, bool failover) {
  return std::string(t.name) + ", " + m.name + ", seed " + std::to_string(seed) +
         (failover ? ", with a failed task" : ", no failover");
}

// Records read since `restored` (times the fan-out) minus those at sinks or in channels: zero
// up to the slack the topology allows.
std::int64_t unaccounted(const model::TaskExecutor& tasks, const Topology& t,
                         std::int64_t restored) {
  const std::int64_t read = (tasks.total_source_position() - restored) * t.fanout;
  return read - (tasks.records_received_by_sinks() + tasks.records_in_flight());
}

// (a) per subtask attempt, acknowledged checkpoint ids strictly increase.
void check_ack_order(const Facts& f) {
  for (const auto& [task, ids] : f.acks)
    for (std::size_t i = 1; i < ids.size(); ++i) {
      INFO("subtask (vertex " << std::get<0>(task) << ", subtask " << std::get<1>(task)
                              << ", attempt " << std::get<2>(task) << ") acknowledged "
                              << ids[i - 1] << " then " << ids[i]);
      REQUIRE(ids[i - 1] < ids[i]);
    }
}

// (b) every completed checkpoint was acknowledged by every subtask, in the model's facts;
// completed ids increase (older pending ones are subsumed).
void check_completed(const Facts& f, int subtasks) {
  REQUIRE(!f.completed.empty());
  for (std::size_t i = 1; i < f.completed.size(); ++i) REQUIRE(f.completed[i - 1] < f.completed[i]);
  for (std::int64_t id : f.completed) {
    INFO("checkpoint " << id);
    auto it = f.acked_by.find(id);
    REQUIRE(it != f.acked_by.end());
    REQUIRE(static_cast<int>(it->second.size()) == subtasks);
  }
}

// (b) in the RunResult the writers use (run::run deploys the job graph of tasks, which may
// differ from the harness's when operators chain).
void check_completed(const run::RunResult& r) {
  int subtasks = 0;
  for (const run::VertexInfo& v : r.vertices) subtasks += v.parallelism;
  int completed = 0;
  for (const auto* list : {&r.earlier_checkpoints, &r.checkpoints})
    for (const run::CheckpointRecord& c : *list) {
      if (c.status != run::CheckpointStatus::completed) continue;
      ++completed;
      INFO("checkpoint " << c.id);
      REQUIRE(c.num_subtasks == subtasks);
      REQUIRE(c.num_acknowledged == subtasks);
      int acknowledged = 0;
      for (const auto& vertex : c.subtasks)
        for (const run::SubtaskStats& st : vertex) {
          REQUIRE(st.acknowledged);
          REQUIRE(st.ack_time >= c.trigger_time);
          REQUIRE(st.ack_time <= c.end_time);
          ++acknowledged;
        }
      REQUIRE(acknowledged == subtasks);
    }
  REQUIRE(completed > 0);
  REQUIRE(r.counts.completed == completed);
}

}  // namespace

TEST_CASE("properties without failover: acknowledged barrier ids increase per task, completed "
          "checkpoints were acknowledged by every subtask, records are conserved at every "
          "instant",
          "[property]") {
  // Instants across the stall (15-21 s), the expired checkpoints after it, and the drain after
  // the sources stop (50 s).
  const SimTime instants[] = {core::milliseconds(3217), core::seconds(12), core::milliseconds(16500),
                              core::milliseconds(20999), core::seconds(27), core::milliseconds(41234),
                              core::seconds(49)};
  for (const Topology& t : kTopologies)
    for (const Mode& m : kModes)
      for (std::uint64_t seed : kSeeds) {
        const model::Scenario scenario = load(t, m, seed, false);
        INFO(describe(t, m, seed, false));
        Sim s(scenario);
        std::vector<std::int64_t> positions;
        for (SimTime at : instants) {
          s.sim.run_until(at);
          positions.push_back(s.job.tasks().total_source_position());
          INFO("at " << at / core::kMillisecond << " ms");
          const std::int64_t missing = unaccounted(s.job.tasks(), t, 0);
          REQUIRE(missing >= 0);  // negative: records created (duplicated) in flight
          REQUIRE(missing <= t.slack);  // beyond the slack: records lost
        }
        s.sim.run_until(scenario.duration);
        REQUIRE(s.job.failovers() == 0);
        // The job keeps moving between the stall and the sources' stop (no deadlock).
        REQUIRE(positions[5] > positions[4]);
        // Ten seconds after the sources stopped, nothing is inside a task any more.
        const std::int64_t missing = unaccounted(s.job.tasks(), t, 0);
        REQUIRE(missing >= 0);
        REQUIRE(missing <= (t.fanout == 1 && t.slack < kRecordsPerBuffer ? t.slack : 0));
        check_ack_order(s.facts);
        check_completed(s.facts, s.job.tasks().num_subtasks());
        check_completed(run::run(scenario));
      }
}

// Runs the failover variant of every case and checks what holds after the restore.
template <typename Check>
void for_each_failover_run(Check&& check) {
  for (const Topology& t : kTopologies)
    for (const Mode& m : kModes) {
      std::int64_t replayed = 0;
      for (std::uint64_t seed : kSeeds) {
        const model::Scenario scenario = load(t, m, seed, true);
        INFO(describe(t, m, seed, true));
        Sim s(scenario);
        s.sim.run_until(scenario.duration);
        REQUIRE(s.facts.failovers.size() == 1);
        REQUIRE(s.job.failovers() == 1);
        REQUIRE(s.job.restarts() == 1);
        const Facts::Failover& fo = s.facts.failovers.front();
        REQUIRE(fo.restored > 0);  // the job ran again, from a completed checkpoint
        check(t, s, fo, scenario);
        replayed += s.job.replayed_records();
      }
      INFO(t.name << ", " << m.name);
      CHECK(replayed > 0);
    }
}

TEST_CASE("properties with a failed task: acknowledged ids increase per attempt, completed "
          "checkpoints were acknowledged by every subtask, replayed records are the position at "
          "the failure minus the restored one, records after the restore are conserved",
          "[property]") {
  for_each_failover_run([](const Topology& t, const Sim& s, const Facts::Failover& fo,
                           const model::Scenario& scenario) {
    // Equal when no source read anything between its snapshot and the failure (back-pressure).
    REQUIRE(fo.restored <= fo.position);
    // What run::run reports as RunResult.replayed_records.
    CHECK(s.job.replayed_records() == fo.position - fo.restored);
    const run::RunResult r = run::run(scenario);
    CHECK(r.failovers == 1);
    if (r.vertices.size() == scenario.job.vertices.size())  // the same job graph of tasks
      CHECK(r.replayed_records == s.job.replayed_records());
    // Since the restore every record read is at a sink or in flight (the sources stopped at
    // 50 s, so nothing is inside a task); negative: records written that the sources did not
    // read since the restore (e.g. hash-edge carries kept from the old attempt).
    const std::int64_t missing = unaccounted(s.job.tasks(), t, fo.restored);
    CHECK(missing >= 0);
    CHECK(missing <= (t.fanout == 1 && t.slack < kRecordsPerBuffer ? t.slack : 0));
    check_ack_order(s.facts);
    check_completed(s.facts, s.job.tasks().num_subtasks());
    check_completed(r);
  });
}
