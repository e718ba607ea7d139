// The connectors (MODEL.md section 9, reference/field-scenarios.md Part A): Doris stream loads
// and the 1.6.1 DorisWriter, the MySQL CDC chunk plan, and the simulator checks A.6 (a)-(d)
// that the connector sources imply, run end to end.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "sim/model/connectors/doris/doris_system.hpp"
#include "sim/model/connectors/kafka/kafka_transactions.hpp"
#include "sim/model/connectors/cdc/chunk_plan.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;
using core::kNever;
using core::milliseconds;
using core::seconds;
using core::SimTime;

namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

model::DorisSystemSpec doris_spec() {
  model::DorisSystemSpec d;
  d.ingest_bytes_per_second = 10.0 * kMiB;
  d.load_finalize = seconds(1);
  return d;
}

model::DorisSinkSpec sink_spec() {
  model::DorisSinkSpec s;  // 3 x 1 MiB buffers, check-interval 0, UNIQUE table
  s.table = "t";
  return s;
}

run::RunResult run_text(const std::string& yaml, std::vector<std::string> sets = {}) {
  const auto loaded = scenario::load_string(yaml, "connectors_test.yaml", sets);
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

bool has_log(const run::RunResult& r, const std::string& needle) {
  return std::any_of(r.log.begin(), r.log.end(), [&](const run::LogRecord& l) {
    if (l.message.find(needle) != std::string::npos) return true;
    return std::any_of(l.throwable.begin(), l.throwable.end(), [&](const std::string& line) {
      return line.find(needle) != std::string::npos;
    });
  });
}

int count_events(const run::RunResult& r, model::ConnectorEvent::Kind kind) {
  return static_cast<int>(std::count_if(
      r.connector_events.begin(), r.connector_events.end(),
      [&](const run::ConnectorRecord& e) { return e.event.kind == kind; }));
}

// One chained task: a MySQL CDC source, a routing function and the Doris writers (the
// whole-database sync topology of field A.1), parallelism 1.
std::string cdc_to_doris(const std::string& tables, const std::string& source_options = "",
                         const std::string& extra = "") {
  return R"(
name: cdc-to-doris
duration: 5 min
flink:
  execution.checkpointing.interval: 10 s
systems:
  mysql: {kind: mysql, read-rate: 100k rows/s}
  doris: {kind: doris, ingest: 10 MB/s, load-finalize: 1 s}
job:
  vertices:
    - name: "Source: MySQL CDC Source"
      connector: mysql-cdc
      options: {)" + source_options + R"(}
      tables: )" + tables + R"(
      record-size: 1 kb
    - name: "Sink: Doris"
      input: "Source: MySQL CDC Source"
      connector: doris
      record-size: 1000 b
)" + extra;
}

// Source -> Kafka sink with these options, checkpoints every 10 s, restarts after 30 s; `extra`
// adds top-level keys (a cluster, a timeline, the kafka system).
std::string kafka_job(const std::string& options, const std::string& extra,
                      const std::string& duration = "3 min") {
  return "duration: " + duration + R"(
flink:
  execution.checkpointing.interval: 10 s
  restart-strategy: fixed-delay
  restart-strategy.fixed-delay.delay: 30 s
job:
  vertices:
    - {name: Source, rate: 100 records/s}
    - name: "Sink: out"
      input: Source
      connector: kafka
      options: {)" +
         options + "}\n" + extra;
}

// The same with exactly-once and this transaction timeout, on a default broker.
std::string kafka_pipeline(const std::string& timeout, const std::string& extra) {
  return kafka_job("sink.delivery-guarantee: exactly-once, properties.transaction.timeout.ms: " +
                       timeout,
                   "systems: {kafka: {kind: kafka}}\n" + extra);
}


}  // namespace

// ---------------------------------------------------------------------------------------------
// Building blocks

TEST_CASE("ServiceProfile: a slow-down window scales the work done, a stall for ever never "
          "finishes",
          "[connectors]") {
  model::ServiceProfile p;
  p.add_window(seconds(10), seconds(20), 0.5);
  CHECK(p.amount(0, seconds(10), 100) == Approx(1000));
  CHECK(p.amount(seconds(5), seconds(15), 100) == Approx(500 + 250));
  // 1500 units from 0 at 100/s: 1000 by 10 s, then 500 at 50/s takes the whole window.
  CHECK(p.finish_time(0, 1500, 100) == seconds(20));
  CHECK(p.factor_at(seconds(12)) == Approx(0.5));
  p.add_window(seconds(30), kNever, 0.0);
  CHECK(p.finish_time(seconds(25), 1000, 100) == kNever);
  CHECK(p.finish_time(seconds(25), 100, 100) == seconds(26));
}

TEST_CASE("DorisWriter: writes fill the RecordBuffer, a full buffer blocks the thread until "
          "Doris takes the excess (RecordBuffer.write / writeQueue.take, field A.3 [D7])",
          "[connectors]") {
  model::DorisSystem doris(doris_spec());
  doris.create_table("t");
  model::DorisWriter w(sink_spec(), doris, 0);
  // 2 MiB fit into 3 x 1 MiB: only the thread's own CPU time.
  CHECK(w.write(0, "t", 2 * kMiB, milliseconds(5)) == milliseconds(5));
  // 3 MiB more at 1 s: 2 MiB were taken meanwhile (10 MiB/s), so 3 - (3 - 2 ... ) fits.
  CHECK(w.write(seconds(1), "t", 3 * kMiB, 0) == 0);
  // 5 MiB at once into a full buffer: Doris must take 5 MiB first: 0.5 s.
  const core::Duration d = w.write(seconds(1), "t", 5 * kMiB, 0);
  CHECK(d == Approx(static_cast<double>(milliseconds(500))).epsilon(0.01));
  CHECK(w.open_loads() == 1);
}

TEST_CASE("DorisWriter.prepareCommit stops every open load in sequence: drain, then finalize "
          "(A.6 check (b): sync time = sum of finalize latencies)",
          "[connectors][conformance]") {
  model::DorisSystem doris(doris_spec());
  for (const char* t : {"a", "b", "c"}) doris.create_table(t);
  model::DorisWriter w(sink_spec(), doris, 0);
  for (const char* t : {"a", "b", "c"}) REQUIRE(w.write(0, t, kMiB / 10, 0) == 0);
  // Each load still holds ~100 KiB (10 ms at 10 MiB/s) when stopLoad closes it at 0; then 1 s.
  const auto prepared = w.prepare_commit(0, 1);
  REQUIRE_FALSE(prepared.thrown);
  CHECK(prepared.took >= seconds(3));
  CHECK(prepared.took <= seconds(3) + milliseconds(40));
  CHECK(w.open_loads() == 0);
  CHECK(doris.running_txns() == 0);
  // Nothing written in the next interval: nothing to stop.
  CHECK(w.prepare_commit(seconds(10), 2).took == 0);
}

TEST_CASE("A load Doris cancels: with full buffers the writer parks for ever, with room left "
          "prepareCommit throws (field A.5 chain 2 [D14], B7 [D5])",
          "[connectors][conformance]") {
  model::DorisSystemSpec spec = doris_spec();
  spec.max_load_bytes = 4 * kMiB;
  SECTION("the buffer fills: write() never returns") {
    model::DorisSystem doris(spec);
    doris.create_table("t");
    model::DorisWriter w(sink_spec(), doris, 0);
    CHECK(w.write(0, "t", 8 * kMiB, 0) == kNever);
    const auto failure = w.take_failure();
    REQUIRE(failure);
    CHECK(failure->table == "t");
    CHECK(failure->error == "[INTERNAL_ERROR]cancelled: closed");
    CHECK_FALSE(w.take_failure());  // reported once
    CHECK(w.blocked().call == model::DorisWriter::Blocked::Call::write);
    CHECK(w.blocked().until == kNever);
  }
  SECTION("a rejected load with room in the buffer: prepareCommit throws") {
    model::DorisSystem doris(spec);
    doris.create_table("a");
    doris.create_table("t");
    doris.reject_next_loads("t", 1, "errCode = 2, detailMessage = current running txns on db 1 is 100");
    model::DorisWriter w(sink_spec(), doris, 0);
    CHECK(w.write(0, "a", kMiB, 0) == 0);  // admitted, stopped first
    CHECK(w.write(0, "t", kMiB, 0) == 0);
    CHECK(doris.running_txns() == 1);
    const auto prepared = w.prepare_commit(seconds(1), 7);
    REQUIRE(prepared.thrown);
    CHECK(prepared.thrown->error.find("current running txns") != std::string::npos);
    // The task fails and is cancelled: no transaction is ended twice.
    CHECK(doris.running_txns() == 0);
    w.abort_all();
    CHECK(doris.running_txns() == 0);
  }
  SECTION("a table dropped under an open load") {
    model::DorisSystem doris(spec);
    doris.create_table("t");
    model::DorisWriter w(sink_spec(), doris, 0);
    CHECK(w.write(0, "t", 2 * kMiB, 0) == 0);
    doris.drop_table("t");
    w.table_dropped(milliseconds(10), "t");
    const auto failure = w.take_failure();
    REQUIRE(failure);
    CHECK(failure->error.find("unknown table") != std::string::npos);
    // 2 MiB minus the 100 KiB taken in 10 ms are still buffered: 3 MiB more fill it for ever.
    CHECK(w.write(milliseconds(20), "t", 3 * kMiB, 0) == kNever);
  }
}

TEST_CASE("Doris admits loads up to max_running_txn_num_per_db and rejects unknown tables",
          "[connectors]") {
  model::DorisSystemSpec spec = doris_spec();
  spec.max_running_txn_num_per_db = 2;
  spec.other_running_txns = 1;
  model::DorisSystem doris(spec);
  doris.create_table("a");
  doris.create_table("b");
  CHECK(doris.begin_load(0, "a").empty());
  const std::string rejected = doris.begin_load(0, "b");
  CHECK(rejected.find("current running txns on db") != std::string::npos);
  doris.end_txn();
  CHECK(doris.begin_load(0, "b").empty());
  CHECK(doris.begin_load(0, "missing").find("unknown table") != std::string::npos);
}

TEST_CASE("Doris tablet versions: each load adds one, compaction removes them, the cap rejects "
          "(-235, field B7 [Z3])",
          "[connectors]") {
  model::DorisSystemSpec spec = doris_spec();
  spec.max_tablet_version_num = 5;
  spec.compaction_versions_per_second = 0.1;
  model::DorisSystem doris(spec);
  doris.create_table("t");
  for (int i = 0; i < 4; ++i) doris.add_version(0, "t");
  CHECK(doris.versions(0, "t") == 5);
  CHECK(doris.begin_load(0, "t").find("-235") != std::string::npos);
  // 10 s of compaction merge one version away.
  CHECK(doris.versions(seconds(10), "t") == 4);
  CHECK(doris.begin_load(seconds(10), "t").empty());
}

TEST_CASE("CdcChunkPlan: ceil(rows / chunk size) chunks per table, read table by table and "
          "handed to readers round robin (field A.6: 4,941 chunks for 40 M rows)",
          "[connectors]") {
  model::CdcSourceSpec spec;
  spec.tables = {{"db.small", 10'000, 0}, {"db.big", 40'000'000, 0}};
  const model::CdcChunkPlan plan(spec);
  CHECK(plan.chunk_count() == 2 + 4941);
  CHECK(plan.chunk(0).table == 0);
  CHECK(plan.chunk(0).rows == 8096);
  CHECK(plan.chunk(1).rows == 10'000 - 8096);
  CHECK(plan.chunk(2).table == 1);
  CHECK(plan.chunk(plan.chunk_count() - 1).rows == 40'000'000 - 4940 * 8096);
  CHECK(plan.chunks_of(0, 2) + plan.chunks_of(1, 2) == plan.chunk_count());
  CHECK(model::fresh_start_phase(spec, 0) == model::CdcPhase::snapshot);
  spec.startup_mode = model::CdcStartupMode::latest_offset;
  CHECK(model::fresh_start_phase(spec, 0) == model::CdcPhase::binlog);
  CHECK(model::fresh_start_phase(spec, 1) == model::CdcPhase::idle);
}

// ---------------------------------------------------------------------------------------------
// Simulator checks of field-scenarios.md A.6, end to end

TEST_CASE("A.6 (a): the trigger on a chained CDC task waits for the chunk in progress to pass "
          "through the blocking writer, so a smaller chunk shortens the start delay",
          "[connectors][conformance]") {
  const std::string tables = "[{name: db.big, rows: 5M}]";
  auto mean_start_delay = [&](const std::string& chunk) {
    const run::RunResult r =
        run_text(cdc_to_doris(tables, "scan.incremental.snapshot.chunk.size: " + chunk));
    double total = 0;
    int n = 0;
    for (const run::CheckpointRecord& c : r.checkpoints) {
      if (c.status != run::CheckpointStatus::completed) continue;
      total += static_cast<double>(c.subtasks[0][0].start_delay);
      ++n;
    }
    REQUIRE(n >= 10);
    return total / n;
  };
  // A chunk of 8096 rows of 1000 B is 7.7 MiB: beyond the 3 MiB buffer, 0.47 s at 10 MiB/s;
  // the trigger waits on average about half a chunk's passage.
  const double big = mean_start_delay("8096");
  const double small = mean_start_delay("1024");
  CHECK(big > static_cast<double>(milliseconds(100)));
  CHECK(big < static_cast<double>(milliseconds(800)));
  CHECK(small < big / 4);
}

TEST_CASE("A.6 (b): in the binlog phase the sync time is the sum of the finalize latencies of "
          "the tables that had changes",
          "[connectors][conformance]") {
  const run::RunResult r = run_text(cdc_to_doris(
      "[{name: db.a, rows: 1M, changes: 50 rows/s}, {name: db.b, rows: 1M, changes: 50 rows/s},"
      " {name: db.c, rows: 1M, changes: 50 rows/s}]",
      "scan.startup.mode: latest-offset"));
  int checked = 0;
  for (const run::CheckpointRecord& c : r.checkpoints) {
    if (c.status != run::CheckpointStatus::completed || c.id < 3) continue;
    const core::Duration sync = c.subtasks[0][0].sync_duration;
    CHECK(sync >= seconds(3));
    CHECK(sync <= seconds(3) + milliseconds(50));
    ++checked;
  }
  CHECK(checked >= 20);
  CHECK(r.failovers == 0);
}

TEST_CASE("A.6 (c) and (d): a cancelled load with the checker off parks the task for ever, the "
          "checkpoint expires at the timeout, and the restore from a snapshot-phase checkpoint "
          "repeats the burst",
          "[connectors][conformance]") {
  const run::RunResult r = run_text(
      cdc_to_doris("[{name: db.big, rows: 20M}]", "",
                   "timeline:\n  - {at: 1 min, do: doris.reject-load, table: db.big}\n") +
          "",
      {"duration=25 min", "systems.doris.max-load-size=60 MB"});
  // (c) The first expiry: exactly 10 min (the default timeout) after its trigger, the subtask
  // waiting in the writer on a load Doris ended.
  const run::CheckpointRecord* expired = nullptr;
  for (const run::CheckpointRecord& c : r.earlier_checkpoints.empty() ? r.checkpoints
                                                                      : r.earlier_checkpoints)
    if (c.failure_reason == model::CheckpointFailureReason::checkpoint_expired) {
      expired = &c;
      break;
    }
  for (const run::CheckpointRecord& c : r.checkpoints)
    if (!expired && c.failure_reason == model::CheckpointFailureReason::checkpoint_expired)
      expired = &c;
  REQUIRE(expired != nullptr);
  // (The CheckpointCanceller starts at createPendingCheckpoint, 9 ms after the trigger timestamp.)
  CHECK(expired->end_time - expired->trigger_time == core::minutes(10) + core::milliseconds(9));
  REQUIRE(expired->waits.size() == 1);
  CHECK((expired->waits[0].kind == "sink_write" || expired->waits[0].kind == "sink_stop_load"));
  CHECK(expired->waits[0].failed_at >= 0);
  // The thread is 100 % busy while it hangs.
  int hung_rows = 0;
  for (const run::TaskSampleRow& row : r.timeseries)
    if (row.end > expired->trigger_time + core::minutes(1) &&
        row.end <= expired->end_time - core::minutes(1)) {
      CHECK(row.sample.busy == row.sample.period);
      CHECK(row.sample.records_out == 0);
      ++hung_rows;
    }
  CHECK(hung_rows > 0);
  // (d) tolerable-failed-checkpoints 0: the expiry fails the job over; it restores a checkpoint
  // taken in the snapshot phase, so the restored reader snapshots again and fails again.
  CHECK(r.failovers >= 2);
  CHECK(count_events(r, model::ConnectorEvent::Kind::cdc_snapshot_started) >= 3);
  CHECK(count_events(r, model::ConnectorEvent::Kind::doris_load_failed) >= 2);
  CHECK(has_log(r, "Exceeded checkpoint tolerable failure threshold."));
  bool restored_snapshot = false;
  for (const run::ConnectorRecord& e : r.connector_events)
    if (e.event.kind == model::ConnectorEvent::Kind::cdc_snapshot_started &&
        e.event.detail.find("restored split state") != std::string::npos)
      restored_snapshot = true;
  CHECK(restored_snapshot);
}

TEST_CASE("sink.check-interval above 1000 ms: the checker thread fails the task with the load's "
          "error within one interval (field A.7 item 2)",
          "[connectors][conformance]") {
  const std::string base = cdc_to_doris("[{name: db.big, rows: 20M}]");
  const run::RunResult r =
      run_text(base, {"duration=3 min", "systems.doris.max-load-size=60 MB",
                      "job.vertices[Sink: Doris].options={sink.check-interval: 10s}"});
  REQUIRE(!r.task_failures.empty());
  const auto& f = r.task_failures.front();
  CHECK(f.exception_class == "org.apache.doris.flink.exception.DorisRuntimeException");
  CHECK(f.message.find("table db.big stream load error: [INTERNAL_ERROR]cancelled: closed") == 0);
  SimTime failed_at = -1;
  for (const run::ConnectorRecord& e : r.connector_events)
    if (e.event.kind == model::ConnectorEvent::Kind::doris_load_failed && failed_at < 0)
      failed_at = e.time;
  REQUIRE(failed_at >= 0);
  CHECK(f.time - failed_at == seconds(10));
  CHECK(has_log(r, "1 tasks will be restarted to recover the failed task "));
  CHECK_FALSE(has_log(r, "expired before completing"));
  // sink.check-interval: 1000 (ms, not above 1000) starts no checker: the task hangs instead.
  const run::RunResult hang =
      run_text(base, {"duration=3 min", "systems.doris.max-load-size=60 MB",
                      "job.vertices[Sink: Doris].options={sink.check-interval: 1000}"});
  CHECK(hang.task_failures.empty());
}

TEST_CASE("A rejected load whose answer reaches prepareCommit fails the task with Could not "
          "perform checkpoint (field B7)",
          "[connectors][conformance]") {
  // Binlog traffic: a few KiB per interval, far below the buffer, so the rejected load's answer
  // is read by stopLoad instead of the thread parking in write().
  const run::RunResult r = run_text(
      cdc_to_doris("[{name: db.t, rows: 1M, changes: 20 rows/s}]",
                   "scan.startup.mode: latest-offset",
                   "timeline:\n  - {at: 1 min, do: doris.reject-load, table: db.t, error: "
                   "\"[E-235]too many versions\"}\n"),
      {"duration=3 min"});
  REQUIRE(!r.task_failures.empty());
  const auto& f = r.task_failures.front();
  CHECK(f.exception_class == "java.lang.Exception");  // the source's trigger mail (chained)
  CHECK(f.message.rfind("Could not perform checkpoint ", 0) == 0);
  CHECK(f.message.find("DorisRuntimeException: table db.t stream load error: [E-235]too many "
                       "versions") != std::string::npos);
  // The load open at 1 min was admitted; the next one (after the next checkpoint) is rejected
  // and the checkpoint after that finds it: two intervals at most.
  CHECK(f.time > core::minutes(1));
  CHECK(f.time < core::minutes(1) + seconds(21));
}

TEST_CASE("Restored split state wins over scan.startup.mode (MySqlSource.restoreEnumerator, "
          "field A.2 [C1])",
          "[connectors][conformance]") {
  // latest-offset, but the job restarts from a checkpoint: the restored reader is in the binlog
  // phase and stays there; a savepoint from a snapshot-phase run keeps snapshotting.
  const run::RunResult r = run_text(
      cdc_to_doris("[{name: db.big, rows: 20M}]", "scan.startup.mode: initial",
                   "timeline:\n  - {at: 1 min, do: fail-task, vertex: \"Sink: Doris\"}\n"),
      {"duration=2 min"});
  int restored = 0;
  for (const run::ConnectorRecord& e : r.connector_events)
    if (e.event.kind == model::ConnectorEvent::Kind::cdc_snapshot_started &&
        e.event.detail.find("restored split state") != std::string::npos)
      ++restored;
  CHECK(restored == 1);
}

TEST_CASE("Parallelism > 1: the binlog split waits for a checkpoint completed after every chunk "
          "finished (MySqlHybridSplitAssigner, field B3)",
          "[connectors][conformance]") {
  const std::string text = cdc_to_doris("[{name: db.t, rows: 200k, changes: 100 rows/s}]");
  auto binlog_start = [](const run::RunResult& r) {
    SimTime waiting = -1, started = -1;
    for (const run::ConnectorRecord& e : r.connector_events) {
      if (e.event.kind == model::ConnectorEvent::Kind::cdc_binlog_waiting && waiting < 0)
        waiting = e.time;
      if (e.event.kind == model::ConnectorEvent::Kind::cdc_binlog_started && started < 0)
        started = e.time;
    }
    return std::pair{waiting, started};
  };
  const run::RunResult p2 = run_text(
      text, {"job.vertices[Source: MySQL CDC Source].parallelism=2",
             "job.vertices[Sink: Doris].parallelism=2", "cluster.slots-per-taskmanager=2"});
  const auto [waiting, started] = binlog_start(p2);
  REQUIRE(waiting >= 0);
  REQUIRE(started > waiting);
  // It started at the completion of the first checkpoint triggered after the wait began.
  bool at_completion = false;
  for (const run::CheckpointRecord& c : p2.checkpoints)
    if (c.status == run::CheckpointStatus::completed && c.trigger_time >= waiting &&
        c.end_time <= started + milliseconds(1) && c.end_time >= started - milliseconds(1))
      at_completion = true;
  CHECK(at_completion);
  CHECK(has_log(p2, "Snapshot split assigner received all splits finished, waiting for a "
                    "complete checkpoint to mark the assigner finished."));
  CHECK(has_log(p2, "Snapshot split assigner is turn into finished status."));
  // Without checkpoints it never switches.
  std::string unchecked = text;  // periodic checkpointing off: no interval
  unchecked.erase(unchecked.find("  execution.checkpointing.interval: 10 s\n"),
                  std::string_view("  execution.checkpointing.interval: 10 s\n").size());
  const run::RunResult off =
      run_text(unchecked, {"job.vertices[Source: MySQL CDC Source].parallelism=2",
                           "job.vertices[Sink: Doris].parallelism=2",
                           "cluster.slots-per-taskmanager=2"});
  CHECK(binlog_start(off).first >= 0);
  CHECK(binlog_start(off).second < 0);
  CHECK_FALSE(has_log(off, "Snapshot split assigner is turn into finished status."));
  // With parallelism 1 it switches at once.
  const auto [w1, s1] = binlog_start(run_text(text));
  CHECK(w1 < 0);
  CHECK(s1 >= 0);
}

// ---------------------------------------------------------------------------------------------
// Kafka exactly-once sink (field B9)

TEST_CASE("KafkaTransactions: a transaction opens with its first record, is precommitted by the "
          "snapshot and lost if the commit comes after transaction.timeout.ms",
          "[connectors]") {
  model::KafkaTransactions k(seconds(10));
  k.precommit(1);  // nothing written: no transaction
  CHECK(k.committables().empty());
  k.write(seconds(2), 100);
  k.write(seconds(5), 50);
  k.precommit(2);
  k.write(seconds(6), 10);
  k.precommit(3);
  REQUIRE(k.committables().size() == 2);
  // Checkpoint 2 completes at 11 s: its transaction (opened at 2 s) is 9 s old, within 10 s.
  auto out = k.commit(seconds(11), 2);
  REQUIRE(out.size() == 1);
  CHECK_FALSE(out[0].lost);
  CHECK(out[0].txn.records == 150);
  // Checkpoint 3 completes at 17 s: opened at 6 s, 11 s old: the broker aborted it.
  out = k.commit(seconds(17), 3);
  REQUIRE(out.size() == 1);
  CHECK(out[0].lost);
  CHECK(out[0].open_for == seconds(11));
  CHECK(k.committables().empty());
}

TEST_CASE("Kafka: transaction.timeout.ms above the broker's transaction.max.timeout.ms fails the "
          "writer's initialization (InitProducerId), every attempt",
          "[connectors][conformance]") {
  const std::string text =
      kafka_job("sink.delivery-guarantee: exactly-once",
                "systems: {kafka: {kind: kafka, transaction.max.timeout.ms: 900000}}\n", "1 min");
  const run::RunResult r = run_text(text);
  CHECK(r.counts.completed == 0);
  CHECK(r.restarts >= 1);  // every attempt fails the same way (30 s restart delay)
  CHECK(r.failovers >= r.restarts);
  REQUIRE(!r.task_failures.empty());
  CHECK(r.task_failures[0].exception_class == "org.apache.kafka.common.KafkaException");
  // At the broker's maximum it starts; at-least-once uses no transactions at all.
  const run::RunResult ok = run_text(
      text, {"job.vertices[Sink: out].options={sink.delivery-guarantee: exactly-once, "
             "properties.transaction.timeout.ms: 900000}"});
  CHECK(ok.task_failures.empty());
  CHECK(ok.counts.completed >= 4);
  const run::RunResult alo =
      run_text(text, {"job.vertices[Sink: out].options={sink.delivery-guarantee: at-least-once}"});
  CHECK(alo.task_failures.empty());
}

TEST_CASE("Kafka: a restore commits the restored transactions again; those older than "
          "transaction.timeout.ms by then are lost (KafkaCommitter, field B9)",
          "[connectors][conformance]") {
  // Checkpoints every 10 s; a task failure at 63 s and a 30 s restart delay. Each transaction
  // is committed when the next checkpoint completes, about 10 s after it opened.
  const std::string failure = "timeline: [{at: 63 s, do: fail-task, vertex: \"Sink: out\"}]\n";
  // With a 25 s timeout every commit is in time; the failure aborts only the open transaction,
  // whose records are replayed from the restored checkpoint.
  const run::RunResult r = run_text(kafka_pipeline("25 s", failure));
  CHECK(r.failovers == 1);
  CHECK(r.lost_records == 0);  // every transaction was committed before the failure
  // With a 5 s timeout, every transaction (about 10 s old at its commit) is lost, before and
  // after the failover.
  const run::RunResult short_timeout = run_text(kafka_pipeline("5 s", failure));
  CHECK(short_timeout.lost_records > 10'000);
  CHECK(short_timeout.failovers == 1);
}

TEST_CASE("Kafka: a failure between a checkpoint's completion and its notification leaves its "
          "transactions to the restore, which commits them or finds them aborted",
          "[connectors][conformance]") {
  // Notifications take 2 s; checkpoint 6 completes at 57.9 s and the task fails at 58.5 s,
  // before notifyCheckpointComplete(6) arrives. The restart waits 30 s: at ~89 s the restored
  // committable of checkpoint 6 (opened ~48 s) is ~41 s old.
  const std::string failure =
      "cluster: {rpc-latency: 2 s, rpc-latency-spread: 0}\n"
      "timeline: [{at: 58500 ms, do: fail-task, vertex: \"Sink: out\"}]\n";
  const run::RunResult in_time = run_text(kafka_pipeline("60 s", failure));
  CHECK(in_time.lost_records == 0);
  CHECK(count_events(in_time, model::ConnectorEvent::Kind::kafka_txn_recommitted) == 1);
  const run::RunResult too_late = run_text(kafka_pipeline("25 s", failure));
  CHECK(count_events(too_late, model::ConnectorEvent::Kind::kafka_txn_recommitted) == 0);
  CHECK(count_events(too_late, model::ConnectorEvent::Kind::kafka_txn_lost) == 1);
  CHECK(too_late.lost_records == Approx(1000).margin(50));  // ~10 s of 100 records/s
}

TEST_CASE("The CDC split enumerator is an operator coordinator: split queries of an uneven key "
          "hold back the coordinator's checkpoint, and a failover restarts the splitting "
          "(field B4)",
          "[connectors][conformance]") {
  const std::string text = R"(
duration: 25 min
flink: {execution.checkpointing.interval: 1 min, execution.checkpointing.timeout: 5 min}
systems: {mysql: {kind: mysql, split-query: 100 ms}}
job:
  vertices:
    - name: "Source: MySQL CDC"
      connector: mysql-cdc
      tables: [{name: db.t, rows: 50M, key: uneven}]
    - {name: Sink, input: "Source: MySQL CDC", cost: 1 us/record}
)";
  // 6,176 chunks x 100 ms = 10.3 min of splitting, longer than the 5 min timeout.
  const run::RunResult r = run_text(text);
  CHECK(r.counts.completed == 0);
  REQUIRE((!r.earlier_checkpoints.empty() || !r.checkpoints.empty()));
  const run::CheckpointRecord& first =
      r.earlier_checkpoints.empty() ? r.checkpoints.front() : r.earlier_checkpoints.front();
  CHECK(first.failure_reason == model::CheckpointFailureReason::checkpoint_expired);
  REQUIRE(first.waits.size() == 1);
  CHECK(first.waits[0].kind == "coordinator");
  CHECK(first.waits[0].table == "Source: MySQL CDC");
  // Each failover restarts the enumerator and its splitting: the job never checkpoints.
  CHECK(r.failovers >= 3);
  // An evenly distributed key needs no queries.
  const run::RunResult even = run_text(text, {"job.vertices[Source: MySQL CDC].tables="
                                              "[{name: db.t, rows: 50M, key: even}]"});
  CHECK(even.failovers == 0);
  CHECK(even.counts.completed >= 20);
}

TEST_CASE("Kafka source: a reader behind reads at its fetch rate until the lag (plus what is "
          "produced meanwhile) is gone, then at the produce rate",
          "[connectors]") {
  const std::string text = R"(
duration: 40 s
systems: {kafka: {kind: kafka}}
job:
  vertices:
    - name: "Source: t"
      connector: kafka
      lag: 100k
      fetch-rate: 10k records/s
      rate: 1000 records/s
      record-size: 100 b
    - {name: Sink, input: "Source: t", cost: 1 us/record}
)";
  const run::RunResult r = run_text(text);
  // Caught up after 100k / (10k - 1k) = 11.1 s.
  auto rate_at = [&](SimTime end) {
    for (const run::TaskSampleRow& row : r.timeseries)
      if (row.end == end && row.vertex == 0) return row.sample.records_in;
    return std::int64_t{-1};
  };
  CHECK(rate_at(seconds(5)) == Approx(10000).margin(300));
  CHECK(rate_at(seconds(10)) == Approx(10000).margin(300));
  CHECK(rate_at(seconds(20)) == Approx(1000).margin(100));
  CHECK(rate_at(seconds(30)) == Approx(1000).margin(100));
  // latest-offset: no lag.
  const run::RunResult latest = run_text(
      text, {"job.vertices[Source: t].options={scan.startup.mode: latest-offset}"});
  for (const run::TaskSampleRow& row : latest.timeseries)
    if (row.vertex == 0 && row.end >= seconds(2)) CHECK(row.sample.records_in <= 1100);
}

TEST_CASE("A start may change the checkpointing options of the new submission",
          "[timeline]") {
  const run::RunResult r = run_text(R"(
duration: 20 min
flink: {execution: {checkpointing: {interval: 10 s}}}
job:
  vertices:
    - {name: Source, rate: 100 records/s}
    - {name: Sink, input: Source}
timeline:
  - {at: 5 min, do: stop-with-savepoint}
  - {at: 6 min, do: start, state: savepoint, flink: {execution.checkpointing.interval: 1 min}}
)");
  // The latest submission checkpoints every minute: 13 or 14 checkpoints in its 14 minutes.
  REQUIRE(r.checkpoints.size() >= 2);
  for (std::size_t i = 1; i < r.checkpoints.size(); ++i)
    CHECK(r.checkpoints[i].trigger_time - r.checkpoints[i - 1].trigger_time == core::minutes(1));
  CHECK(r.earlier_checkpoints.size() >= 25);
}
