// The CDC family (connectors/cdc/): one incremental-snapshot source with the dialects of
// flink-cdc 2.4.1 (data_source_dialect.hpp), and the stream split's schema discovery on the
// reader's task thread.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/support/run_file.hpp"

namespace ckptsim {
namespace {

const char* const kPostgres = "scenarios/field/flink-cdc-2586-postgres-schema-discovery.yaml";

scenario::LoadResult load(const std::string& connector, const std::string& database,
                          const std::string& extra) {
  return scenario::load_string(
      "name: t\nsystems: {db: {kind: " + database +
          "}}\njob:\n  vertices:\n"
          "    - name: \"Source: CDC\"\n      parallelism: 1\n      connector: " +
          connector +
          "\n"
          "      tables: [{name: a.t, rows: 1M, changes: 10 rows/s}]\n      record-size: 1 kb\n" +
          extra,
      "t.yaml", {});
}

}  // namespace

TEST_CASE("each CDC connector reads its own database, with flink-cdc 2.4.1's defaults",
          "[connectors][cdc]") {
  // Postgres and MongoDB default to the legacy source (scan.incremental.snapshot.enabled false).
  const auto pg = load("postgres-cdc", "postgres", "");
  REQUIRE(pg.ok());
  CHECK(pg.scenario->job.vertices[0].cdc_source->dialect == model::CdcDialect::postgres);
  CHECK_FALSE(pg.scenario->job.vertices[0].cdc_source->incremental_snapshot);
  const auto oracle = load("oracle-cdc", "oracle", "");
  REQUIRE(oracle.ok());
  CHECK(oracle.scenario->job.vertices[0].cdc_source->incremental_snapshot);
  // MongoDB's chunks are 64 MB of documents (scan.incremental.snapshot.chunk.size.mb).
  const auto mongo = load("mongodb-cdc", "mongodb", "");
  REQUIRE(mongo.ok());
  CHECK(mongo.scenario->job.vertices[0].cdc_source->chunk_size == 65536);
  const auto mongo16 = load("mongodb-cdc", "mongodb",
                            "      options: {scan.incremental.snapshot.chunk.size.mb: 16}\n");
  REQUIRE(mongo16.ok());
  CHECK(mongo16.scenario->job.vertices[0].cdc_source->chunk_size == 16384);
  // A connector needs the database of its kind.
  const auto wrong = load("postgres-cdc", "mysql", "");
  CHECK_FALSE(wrong.ok());
  CHECK(scenario::format_diagnostics(wrong.diagnostics)
            .find("connector 'postgres-cdc' needs a postgres system") != std::string::npos);
  // `count` makes that many tables alike, named <name>_1 .. <name>_N.
  const auto many = scenario::load_string(
      "name: t\nsystems: {db: {kind: mysql}}\njob:\n  vertices:\n"
      "    - {name: S, connector: mysql-cdc, tables: [{name: a.p, rows: 10, count: 3}]}\n",
      "t.yaml", {});
  REQUIRE(many.ok());
  const auto& tables = many.scenario->job.vertices[0].cdc_source->tables;
  REQUIRE(tables.size() == 3);
  CHECK(tables[2].name == "a.p_3");
  CHECK(tables[2].rows == 10);
}

TEST_CASE(
    "the reader that gets the stream split after the snapshot discovers every table's "
    "schema on its task thread, and a failover assigns it again (flink-cdc #2586)",
    "[connectors][cdc]") {
  const run::RunResult r = tests::run_file(kPostgres, {"duration=2 h"});
  // The switch is repeated after every failover: the restored state precedes the assignment.
  int switches = 0;
  for (const auto& e : r.connector_events)
    if (e.event.kind == model::ConnectorEvent::Kind::cdc_binlog_started) {
      ++switches;
      CHECK(e.event.dialect == model::CdcDialect::postgres);
    }
  CHECK(switches >= 2);
  CHECK(r.failovers >= 1);
  const run::CheckpointRecord* expired = nullptr;
  for (const auto& c : r.checkpoints)
    if (!expired && c.failure_reason == model::CheckpointFailureReason::checkpoint_expired)
      expired = &c;
  REQUIRE(expired != nullptr);
  bool named = false;
  for (const run::WaitRecord& w : expired->waits)
    if (w.vertex == 0 && w.kind == "in_call") {
      named = true;
      CHECK(w.until - w.since == core::milliseconds(2250) * 1000);
    }
  CHECK(named);
  // The same source with MySQL's dialect: its binlog split carries the snapshot's schemas.
  const auto loaded =
      scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) + "/" + kPostgres, {"duration=2 h"});
  REQUIRE(loaded.ok());
  model::Scenario mysql = *loaded.scenario;
  mysql.job.vertices[0].cdc_source->dialect = model::CdcDialect::mysql;
  mysql.systems.cdc_database->kind = model::CdcDialect::mysql;
  const run::RunResult m = run::run(mysql);
  CHECK(m.failovers == 0);
  // Without a snapshot (latest-offset) MySQL's reader discovers them too; a restored binlog
  // split has them: after the failover at 30 min no checkpoint waits.
  const auto with_failure = scenario::load_file(
      std::string(CKPTSIM_SOURCE_DIR) + "/" + kPostgres,
      {"duration=1 h", "timeline=[{at: 30 min, do: fail-task, vertex: \"Source: Postgres CDC\"}]"});
  REQUIRE(with_failure.ok());
  model::Scenario latest = *with_failure.scenario;
  latest.job.vertices[0].cdc_source->dialect = model::CdcDialect::mysql;
  latest.systems.cdc_database->kind = model::CdcDialect::mysql;
  latest.job.vertices[0].cdc_source->startup_mode = model::CdcStartupMode::latest_offset;
  latest.job.vertices[0].cdc_source->stream_split_discovery = core::minutes(4);
  const run::RunResult l = run::run(latest);
  REQUIRE(l.failovers == 1);
  const run::CheckpointRecord& first = l.checkpoints.front();
  CHECK(first.end_time - first.trigger_time > core::seconds(50));  // waited for the discovery
  for (const auto& c : l.checkpoints)
    if (c.trigger_time > core::minutes(31)) CHECK(c.end_time - c.trigger_time < core::seconds(1));
}

}  // namespace ckptsim
