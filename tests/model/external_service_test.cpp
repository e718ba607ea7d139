// A service operators call record by record (connectors/service): a blocking client holds the
// task thread for every call; AsyncWaitOperator keeps `capacity` requests in flight and blocks
// (without running checkpoint mails) only when its queue is full; its timeout and a call that
// failed after its retries fail the task; a slow-down or stall of the service is one timeline
// entry that reaches every vertex calling it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;

namespace {

run::RunResult run_calls(const std::string& calls, const std::string& timeline) {
  const std::string text = R"(name: calls
duration: 6 min
flink:
  version: "1.17"
  execution.checkpointing.interval: 30 s
  execution.checkpointing.timeout: 2 min
  restart-strategy.type: fixed-delay
  restart-strategy.fixed-delay.attempts: 100
  restart-strategy.fixed-delay.delay: 10 s
systems:
  lookup-db: {kind: service, latency: 5 ms}
job:
  vertices:
    - { name: "Source: S", parallelism: 2, rate: 150 records/s }
    - name: Enrich
      parallelism: 2
      input: { from: "Source: S", ship: rebalance }
      calls: )" + calls + R"(
    - { name: "Sink: K", parallelism: 2, input: Enrich }
timeline: )" + timeline + "\n";
  const auto loaded = scenario::load_string(text, "calls.yaml");
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

int completed(const run::RunResult& r) {
  int n = 0;
  for (const auto& c : r.checkpoints) n += c.status == run::CheckpointStatus::completed;
  return n;
}

core::Duration longest(const run::RunResult& r) {
  core::Duration d = 0;
  for (const auto& c : r.checkpoints)
    if (c.status == run::CheckpointStatus::completed) d = std::max(d, c.end_time - c.trigger_time);
  return d;
}

}  // namespace

TEST_CASE(
    "a service 10x slower for a while back-pressures a blocking caller: its aligned "
    "checkpoints take long, and expire while it is stalled",
    "[model][service]") {
  // 150 records/s per subtask at 5 ms a call: 75 % busy. A hundred times slower, the operator
  // takes 2 records/s, the channels fill (about 7 buffers of 15 records, one per buffer
  // timeout) and barriers queue behind them: some 50 s.
  const run::RunResult steady = run_calls("{system: lookup-db}", "[]");
  CHECK(steady.task_failures.empty());
  CHECK(completed(steady) >= 11);
  CHECK(longest(steady) < core::seconds(2));
  const run::RunResult slow = run_calls(
      "{system: lookup-db}", "[{at: 1 min, do: lookup-db.slow-down, factor: 0.01, for: 3 min}]");
  CHECK(longest(slow) > core::seconds(30));
  const run::RunResult stalled =
      run_calls("{system: lookup-db}", "[{at: 1 min, do: lookup-db.stall, for: 3 min}]");
  int expired = 0;
  for (const auto& c : stalled.checkpoints)
    expired += c.failure_reason == model::CheckpointFailureReason::checkpoint_expired;
  CHECK(expired >= 1);
  CHECK(stalled.task_failures.empty());  // a blocking call without a timeout just waits
}

TEST_CASE(
    "AsyncWaitOperator keeps up where the blocking call cannot, and its timeout fails the "
    "task while the service is stalled",
    "[model][service]") {
  // 10x slower: 50 ms a call; 100 in flight take 2000 calls/s, more than the 150 records/s.
  const std::string slow = "[{at: 1 min, do: lookup-db.slow-down, factor: 0.1, for: 3 min}]";
  const run::RunResult async = run_calls("{system: lookup-db, mode: async, capacity: 100}", slow);
  CHECK(async.task_failures.empty());
  CHECK(longest(async) < core::seconds(2));
  // Capacity 1 at 20 times slower: 10 calls/s, below the rate: back-pressure again.
  const run::RunResult small =
      run_calls("{system: lookup-db, mode: async, capacity: 1}",
                "[{at: 1 min, do: lookup-db.slow-down, factor: 0.05, for: 3 min}]");
  CHECK(longest(small) > core::seconds(6));
  // Stalled for 3 min with a 30 s timeout: the task fails 30 s after the first stuck request.
  const run::RunResult stalled = run_calls("{system: lookup-db, mode: async, timeout: 30 s}",
                                           "[{at: 1 min, do: lookup-db.stall, for: 3 min}]");
  REQUIRE_FALSE(stalled.task_failures.empty());
  const auto& f = stalled.task_failures.front();
  CHECK(f.exception_class == "java.lang.Exception");
  CHECK(f.message.find("Could not complete the stream element") != std::string::npos);
  CHECK(
      f.message.find("java.util.concurrent.TimeoutException: Async function call has timed out.") !=
      std::string::npos);
  CHECK(f.time >= core::seconds(90));
  CHECK(f.time <= core::seconds(91));
}

TEST_CASE(
    "rejected calls are retried max-attempts times after fixed-delay, then fail the task "
    "with the service's error",
    "[model][service]") {
  const std::string reject =
      "[{at: 1 min, do: lookup-db.reject, count: 3, error: \"java.io.IOException: "
      "connection reset\"}]";
  const run::RunResult retried =
      run_calls("{system: lookup-db, max-attempts: 3, fixed-delay: 1 s}", reject);
  CHECK(retried.task_failures.empty());
  const run::RunResult failed =
      run_calls("{system: lookup-db, max-attempts: 2, fixed-delay: 1 s}", reject);
  REQUIRE(failed.task_failures.size() >= 1);
  CHECK(failed.task_failures.front().exception_class == "java.io.IOException");
  CHECK(failed.task_failures.front().message == "connection reset");
  // Three attempts of 5 ms with two delays of 1 s.
  CHECK(failed.task_failures.front().time >= core::seconds(62));
  CHECK(failed.task_failures.front().time <= core::milliseconds(62100));
}

TEST_CASE(
    "AsyncWaitOperator ordered: a request retried at the head of the queue holds every slot behind "
    "it (a slot frees when all older requests completed), so the queue fills and blocks the thread; "
    "unordered frees the others' slots at once",
    "[model][service]") {
  const std::string reject = "[{at: 1 min, do: lookup-db.reject, count: 1}]";
  const auto worst_checkpoint = [&](const std::string& output_mode) {
    const run::RunResult r =
        run_calls("{system: lookup-db, mode: async, capacity: 10, max-attempts: 2, fixed-delay: 40 s, "
                  "output-mode: " + output_mode + "}",
                  reject);
    CHECK(r.task_failures.empty());
    core::Duration worst = 0;
    for (const auto& c : r.checkpoints) worst = std::max(worst, c.end_time - c.trigger_time);
    return worst;
  };
  CHECK(worst_checkpoint("ordered") > core::seconds(10));
  CHECK(worst_checkpoint("unordered") < core::seconds(1));
}

TEST_CASE("a service's throughput is shared by all its callers, first come first served",
          "[model][service]") {
  // 300 records/s in all, admitted at 20 calls/s: the callers are held back.
  const std::string text = R"(name: throughput
duration: 3 min
flink: { execution.checkpointing.interval: 30 s }
systems:
  api: {kind: service, latency: 1 ms, throughput: 20 calls/s}
job:
  vertices:
    - { name: "Source: S", parallelism: 2, rate: 150 records/s }
    - { name: Enrich, parallelism: 2, input: { from: "Source: S", ship: rebalance }, calls: {system: api} }
)";
  const auto loaded = scenario::load_string(text, "throughput.yaml");
  REQUIRE(loaded.ok());
  const run::RunResult r = run::run(*loaded.scenario);
  core::Duration worst = 0;
  for (const auto& c : r.checkpoints)
    if (c.status == run::CheckpointStatus::completed)
      worst = std::max(worst, c.end_time - c.trigger_time);
  CHECK(worst > core::seconds(6));  // without the limit a call takes 1 ms: no back-pressure
}

TEST_CASE("table.exec.async-lookup.* are the defaults of async calls; a call's own keys win",
          "[model][service]") {
  const auto load = [](const std::string& flink, const std::string& calls) {
    const std::string text = "name: t\nflink: {version: \"1.17\"" + flink +
                             "}\nsystems: {api: {kind: service}}\njob:\n  vertices:\n"
                             "    - {name: S}\n    - {name: L, input: S, calls: " + calls + "}\n";
    const auto loaded = scenario::load_string(text, "t.yaml");
    INFO(scenario::format_diagnostics(loaded.diagnostics));
    REQUIRE(loaded.ok());
    return loaded.scenario->job.vertices[1].calls.at(0);
  };
  const auto plain = load("", "{system: api, mode: async}");
  CHECK(plain.capacity == 100);
  CHECK(plain.timeout == core::minutes(3));
  CHECK(plain.mode == model::CallMode::async_ordered);
  const std::string sql = ", table.exec.async-lookup.buffer-capacity: 400, table.exec.async-lookup.timeout: "
                          "30 s, table.exec.async-lookup.output-mode: ALLOW_UNORDERED";
  const auto from_flink = load(sql, "{system: api, mode: async}");
  CHECK(from_flink.capacity == 400);
  CHECK(from_flink.timeout == core::seconds(30));
  CHECK(from_flink.mode == model::CallMode::async_unordered);
  const auto own = load(sql, "{system: api, mode: async, capacity: 7, timeout: 1 min, output-mode: ordered}");
  CHECK(own.capacity == 7);
  CHECK(own.timeout == core::minutes(1));
  CHECK(own.mode == model::CallMode::async_ordered);
  CHECK_FALSE(load(sql, "{system: api}").timeout);  // a blocking call has no timeout by default
  // Without an async call the keys change nothing: each is reported.
  const auto warnings = [&](const std::string& calls) {
    const std::string text = "name: t\nflink: {version: \"1.17\"" + sql +
                             "}\nsystems: {api: {kind: service}}\njob:\n  vertices:\n"
                             "    - {name: S}\n    - {name: L, input: S, calls: " + calls + "}\n";
    return scenario::format_diagnostics(scenario::load_string(text, "t.yaml").warnings);
  };
  const std::string unused = warnings("{system: api}");
  CHECK(unused.find("'table.exec.async-lookup.timeout' sets the defaults of async lookup calls and no "
                    "vertex makes one") != std::string::npos);
  CHECK(unused.find("'table.exec.async-lookup.buffer-capacity'") != std::string::npos);
  CHECK(warnings("{system: api, mode: async}").find("async-lookup") == std::string::npos);
}
