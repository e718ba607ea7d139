// Configuration of the connectors and the external systems they talk to, in the connectors' own
// terms (flink-cdc 2.4 MySqlSource, doris-flink-connector 1.6 DorisSink, MySQL, Doris). Plain
// values filled by sim/scenario; the behaviour is in cdc_source.* and doris.*
// (reference/field-scenarios.md Part A; MODEL.md section 9).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/model/connectors/cdc/data_source_dialect.hpp"
#include "sim/model/cost_law.hpp"

namespace ckptsim::model {

// MySQL as a CDC source sees it: how fast one snapshot reader's chunk SELECTs return rows.
struct CdcDatabaseSpec {
  std::string name = "mysql";
  CdcDialect kind = CdcDialect::mysql;  // the database (its CDC connector's dialect)
  double read_rows_per_second = 50000;
  // One chunk-boundary query of a table whose key is not evenly distributed ("SELECT MAX(id)
  // FROM (SELECT id ... ORDER BY id LIMIT chunk-size)", ChunkSplitter, field B4).
  core::Duration split_query = core::milliseconds(50);
};

// Doris as the stream loads of the sink see it (Doris 2.0 FE/BE configuration names).
struct DorisSystemSpec {
  std::string name = "doris";
  std::string database = "db";
  double ingest_bytes_per_second = 20.0 * 1024 * 1024;  // what one stream load accepts
  core::Duration load_finalize = core::seconds(1);      // body closed -> load answered (stopLoad)
  core::Duration commit_latency = core::milliseconds(100);  // 2PC commit (_stream_load_2pc)
  int max_running_txn_num_per_db = 100;                 // FE max_running_txn_num_per_db
  int other_running_txns = 0;                           // running txns of other writers on the db
  int max_tablet_version_num = 500;                     // BE max_tablet_version_num (2.0 docs)
  double compaction_versions_per_second = 1.0;          // versions merged per table per second
  int initial_versions = 1;                             // versions per table at the start
  // A load larger than this is cancelled by Doris ("[INTERNAL_ERROR]cancelled: closed", as on
  // Doris 2.0.3 where a 10 M-row stream load failed and a 5 M-row one passed, field B7/Z4);
  // 0 = no limit.
  std::int64_t max_load_bytes = 0;
  std::vector<std::string> tables;                      // tables that exist at the start
  // FE streaming_label_keep_max_second: how long a finished stream load's label is remembered.
  core::Duration label_retention = core::kHour * 12;
};

// A Kafka cluster as transactional producers see it (broker configuration names).
struct KafkaSystemSpec {
  std::string name = "kafka";
  // transaction.max.timeout.ms: the broker refuses producers asking for more (InitProducerId)
  // and aborts transactions open longer than their own transaction.timeout.ms.
  core::Duration transaction_max_timeout = core::minutes(15);
};

// A relational database as a JDBC sink's batches see it: a round trip per executeBatch and the
// rows per second it writes.
struct JdbcSystemSpec {
  std::string name = "database";
  core::Duration latency = core::milliseconds(5);  // one executeBatch round trip
  double write_rows_per_second = 20000;
};

// The transactional sinks' profiles (two_phase_commit/): whose TwoPhaseCommittingSink it is.
enum class TransactionalProfile { starrocks, iceberg, paimon, jdbc_xa, hudi };
const char* to_string(TransactionalProfile p);  // "starrocks", ..., "jdbc-xa", "hudi"
// The database an XA sink writes into.
enum class XaDialect { mysql, postgres, oracle };

// A system a transactional (two-phase-commit) sink commits into: StarRocks (transaction stream
// load), or a table format's catalog (Iceberg, Paimon). One per profile.
struct TransactionalSystemSpec {
  std::string name;
  TransactionalProfile kind = TransactionalProfile::starrocks;
  std::string database = "db";
  double ingest_bytes_per_second = 50.0 * 1024 * 1024;  // a flush's body (StarRocks) or files
  core::Duration commit_latency = core::milliseconds(100);  // one commit call
  // StarRocks FE prepared_transaction_default_timeout_second: a PREPARED transaction not committed
  // within it is aborted by the transaction manager (0: never).
  core::Duration prepared_timeout = core::seconds(86400);
  // StarRocks FE label_keep_max_second: how long a finished transaction's label is remembered.
  core::Duration label_retention = core::seconds(259200);
  // An XA database (`xa-database`): which one, and PostgreSQL's max_prepared_transactions (0,
  // its default, disables PREPARE TRANSACTION).
  XaDialect xa_dialect = XaDialect::mysql;
  int max_prepared_transactions = 0;
};

// A service operators call record by record (a database a lookup join reads, an HTTP or RPC
// service an enrichment function asks): each call's round trip, and how many calls a second it
// takes from all callers together.
struct ServiceSystemSpec {
  std::string name;
  core::Duration latency = core::milliseconds(5);  // one call's round trip
  double calls_per_second = 0;                     // admitted calls a second, all callers; 0: no limit
};

// How an operator calls a service: from processElement with a blocking client (a RichMapFunction,
// a synchronous lookup TableFunction), or through AsyncWaitOperator (AsyncDataStream.orderedWait /
// unorderedWait, an async lookup join).
enum class CallMode { sync, async_ordered, async_unordered };
struct ServiceCallsSpec {
  std::string system;
  std::string operator_name;     // the calling operator (messages)
  double per_record = 1;         // calls per input record of the task (below 1: cache hits)
  CallMode mode = CallMode::sync;
  int capacity = 100;            // async: in-flight requests per subtask
  // async: AsyncWaitOperator's timeout per element, retries included (none: never); sync: the
  // client's timeout per call (none: it waits as long as the call takes).
  std::optional<core::Duration> timeout;
  // async: the client's own timeout per attempt, after which the function completes the request
  // without a result (a client that completes its future on errors); none: the client waits.
  std::optional<core::Duration> client_timeout;
  int max_attempts = 0;          // retries of a failed call (AsyncRetryStrategies fixed delay)
  core::Duration retry_delay = core::seconds(1);
};

struct SystemsSpec {
  std::optional<CdcDatabaseSpec> cdc_database;  // the database the CDC sources read
  std::optional<DorisSystemSpec> doris;
  std::optional<KafkaSystemSpec> kafka;
  std::optional<JdbcSystemSpec> jdbc;
  std::vector<TransactionalSystemSpec> transactional;  // at most one per profile
  std::vector<ServiceSystemSpec> services;            // any number
};

// KafkaSource (flink-connector-kafka 3.x): a consumer group behind the head of its topic reads
// as fast as it can fetch until it has caught up, then at the rate records are produced.
enum class KafkaStartup { group_offsets, earliest_offset, latest_offset };  // scan.startup.mode
struct KafkaSourceSpec {
  KafkaStartup startup = KafkaStartup::group_offsets;
  std::int64_t lag = 0;           // records between the start offsets and the head (all partitions)
  double fetch_records_per_second = 50000;  // one reader's fetch rate while behind
  std::string topic;
};

// KafkaSink (flink-connector-kafka 3.x for Flink 1.17) options, under the SQL connector's names.
enum class DeliveryGuarantee { none, at_least_once, exactly_once };  // sink.delivery-guarantee
struct KafkaSinkSpec {
  DeliveryGuarantee guarantee = DeliveryGuarantee::none;  // KafkaSinkBuilder's default
  // properties.transaction.timeout.ms: KafkaSinkBuilder.DEFAULT_KAFKA_TRANSACTION_TIMEOUT is
  // 1 h when unset, four times the broker's default maximum (field B9).
  core::Duration transaction_timeout = core::kHour;
  std::string topic;
};

// flink-cdc StartupOptions (scan.startup.mode).
enum class CdcStartupMode { initial, latest_offset, earliest_offset, specific_offset, timestamp,
                            snapshot };
const char* to_string(CdcStartupMode m);  // "initial", "latest-offset", ...

struct CdcTableSpec {
  std::string name;                    // "app.orders"
  std::int64_t rows = 0;               // rows at snapshot time
  double changes_per_second = 0;       // binlog change rate
  // An evenly distributed numeric key: chunk boundaries are computed; otherwise each boundary
  // is a query on MySQL, run by the split enumerator on the JobManager.
  bool even_key = true;
};

// A flink-cdc 2.4 source's options (MySqlSource, or the IncrementalSource of another dialect).
struct CdcSourceSpec {
  CdcDialect dialect = CdcDialect::mysql;
  CdcStartupMode startup_mode = CdcStartupMode::initial;  // scan.startup.mode
  std::int64_t chunk_size = 8096;      // scan.incremental.snapshot.chunk.size
  // scan.incremental.snapshot.enabled = false: the 1.x DebeziumSourceFunction, which holds the
  // checkpoint lock from the first snapshot record to the first binlog record (field B1, C11).
  bool incremental_snapshot = true;
  std::vector<CdcTableSpec> tables;    // in the order the snapshot reads them
  // What discovering the stream split's table schemas costs the reader's task thread when it
  // is assigned without them (per-table: a schema read per captured table; Postgres 2.4 reads
  // the whole schema for each).
  CostLaw stream_split_discovery;
};

// DorisSink (connector 1.6.1) options.
struct DorisSinkSpec {
  int buffer_count = 3;                           // sink.buffer-count
  std::int64_t buffer_size = 1024 * 1024;         // sink.buffer-size
  core::Duration check_interval = 0;              // sink.check-interval (1.6.1 default 0)
  std::optional<bool> enable_2pc;                 // sink.enable-2pc (unset: table model decides)
  bool unique_key_table = true;                   // UNIQUE (PK) table: 2PC off unless forced
  std::string label_prefix = "doris";             // sink.label-prefix
  std::int64_t row_bytes = 500;                   // bytes per row in the load body (JSON line)
  std::string table;                              // target table when the input is one table
  bool two_phase_commit() const { return enable_2pc.value_or(!unique_key_table); }
  std::int64_t buffer_capacity() const { return buffer_size * buffer_count; }
};

// A transactional sink's options, under its connector's names (see two_phase_commit/).
struct TransactionalSinkSpec {
  TransactionalProfile profile = TransactionalProfile::starrocks;
  std::string table;
  std::int64_t row_bytes = 500;
  // StarRocks (connector 1.2.x, sink.semantic exactly-once, transaction stream load):
  // sink.properties.timeout, the `timeout` header of /api/transaction/begin, bounds begin ->
  // prepare (600 s when unset, PR #157/#210); 0 = none.
  core::Duration transaction_timeout = core::seconds(600);
  // sink.buffer-flush.max-bytes: a table's cache flushes (and its transaction begins) when full.
  std::int64_t flush_bytes = 90LL * 1024 * 1024;
  std::string label_prefix;                 // sink.label-prefix (none: no lingering-txn abort)
  // Commit retries on a rejected commit (Iceberg commit.retry.*, Paimon commit.*): attempts
  // after the first, the waits (min * 2^k, capped) and the total time allowed (0: none).
  int commit_retries = 0;
  core::Duration retry_min_wait = 0;
  core::Duration retry_max_wait = 0;
  core::Duration retry_total_timeout = 0;
  // JDBC XA (JdbcExactlyOnceOptions): failed commits kept for the next notifyCheckpointComplete
  // until maxCommitAttempts; allowOutOfOrderCommits lets later transactions commit past one.
  int max_commit_attempts = 3;
  bool allow_out_of_order_commits = false;
};

// The Hudi sink (hudi-flink 0.13-1.0, HoodieTableSink): its write function's mode
// (write.operation: upsert and its relatives use StreamWriteFunction, which writes at the
// checkpoint's flush; insert uses AppendWriteFunction, which opens its file writer at the first
// record after a checkpoint) and how long a writer waits for the coordinator's next instant
// (write.commit.ack.timeout, which HoodieTableSink sets to the checkpoint timeout).
struct HudiSinkSpec {
  bool append = false;  // write.operation insert (AppendWriteFunction)
  std::string table;
};

// flink-connector-jdbc JdbcSink / the SQL 'jdbc' connector's sink options
// (JdbcExecutionOptions; JdbcConnectorOptions defaults).
struct JdbcSinkSpec {
  std::int64_t max_rows = 100;                    // sink.buffer-flush.max-rows (0: no limit)
  core::Duration flush_interval = core::seconds(1);  // sink.buffer-flush.interval (0: none)
  int max_retries = 3;                            // sink.max-retries
  std::string table;                              // table-name
};

}  // namespace ckptsim::model
