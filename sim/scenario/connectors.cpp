// The connector parts of a scenario (SCENARIO.md, docs/scenario-format.md "Connectors"): the
// `systems:` map of external systems, a vertex's `connector:` with its options under the
// connector's own names, and the timeline operations on a system ("doris.swap-table").
#include <algorithm>
#include <charconv>

#include "sim/model/connectors/two_phase_commit/transactional_profile.hpp"
#include "sim/scenario/internal.hpp"

namespace ckptsim::scenario::detail {
namespace {

std::optional<std::int64_t> read_count(Context& ctx, const Node& node, std::string_view what) {
  if (!node.is_scalar()) {
    ctx.error(node.loc, "expected " + std::string(what) + " such as '40M' or '8096', got " +
                            describe(node));
    return std::nullopt;
  }
  if (auto n = parse_count(node.text)) return *n;
  ctx.error(node.loc, "expected " + std::string(what) + " such as '40M' or '8096', got " +
                          describe(node),
            "a count is a number with an optional k, M or G suffix");
  return std::nullopt;
}

// The real options of a connector that the model does not read (issue 12: no inert options).
// `where` options say where the data lives (hosts, credentials, table names): by nature they
// cannot change checkpoint timing and are accepted silently. `unmodelled` options (and every key
// under an `unmodelled_prefixes` entry) could change it in Flink but ckptsim does not model
// them: accepted, so a user can paste a real configuration, with a warning.
struct UnreadOptions {
  std::string_view connector;  // "Doris", as a warning names it
  std::vector<std::string> where;
  std::vector<std::string> unmodelled;
  std::vector<std::string_view> unmodelled_prefixes;
};

// The keys "did you mean" may suggest: the ones the reader handles plus the unread ones.
std::vector<std::string> known_keys(std::vector<std::string> read, const UnreadOptions& unread) {
  read.insert(read.end(), unread.where.begin(), unread.where.end());
  read.insert(read.end(), unread.unmodelled.begin(), unread.unmodelled.end());
  return read;
}

// True when `e` is one of `unread`'s options (warning about an unmodelled one).
bool accept_unread(Context& ctx, const Entry& e, const UnreadOptions& unread) {
  const auto listed = [&](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), e.key) != names.end();
  };
  if (listed(unread.where)) return true;
  const bool prefixed =
      std::any_of(unread.unmodelled_prefixes.begin(), unread.unmodelled_prefixes.end(),
                  [&](std::string_view p) { return e.key.starts_with(p); });
  if (!listed(unread.unmodelled) && !prefixed) return false;
  ctx.warning(e.key_loc,
              "'" + e.key + "' is a " + std::string(unread.connector) +
                  " option ckptsim does not model; it has no effect",
              "the run ignores it (validate --strict makes this an error)");
  return true;
}

// Connector options that take milliseconds as a bare number (Doris's sink.check-interval: 0).
std::optional<core::Duration> read_millis(Context& ctx, const Node& node) {
  if (node.is_scalar()) {
    const std::string_view text = trim(node.text);
    std::int64_t ms = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
    if (!text.empty() && ec == std::errc() && end == text.data() + text.size() && ms >= 0)
      return core::milliseconds(ms);
  }
  return read_flink_duration(ctx, node);
}

void read_mysql(Context& ctx, const Node& map, model::CdcDatabaseSpec& mysql) {
  for (const Entry& e : map.entries) {
    if (e.key == "kind") continue;
    if (e.key == "read-rate") {
      if (auto r = read_rate(ctx, e.value, false)) mysql.read_rows_per_second = *r;
    } else if (e.key == "split-query") {
      if (auto d = read_duration(ctx, e.value)) mysql.split_query = *d;
    } else {
      unknown_key(ctx, e, "CDC database", {"kind", "read-rate", "split-query"});
    }
  }
}

void read_doris(Context& ctx, const Node& map, model::DorisSystemSpec& doris) {
  static const std::vector<std::string> keys = {
      "kind",           "database",        "ingest",        "load-finalize",
      "commit-latency", "max_running_txn_num_per_db",       "other-running-txns",
      "max_tablet_version_num",            "compaction-rate", "initial-versions",
      "max-load-size",  "label-retention", "tables"};
  for (const Entry& e : map.entries) {
    if (e.key == "kind") continue;
    if (e.key == "database") {
      if (auto s = read_string(ctx, e.value)) doris.database = *s;
    } else if (e.key == "ingest") {
      if (auto r = read_rate(ctx, e.value, true)) doris.ingest_bytes_per_second = *r;
    } else if (e.key == "load-finalize") {
      if (auto d = read_duration(ctx, e.value)) doris.load_finalize = *d;
    } else if (e.key == "commit-latency") {
      if (auto d = read_duration(ctx, e.value)) doris.commit_latency = *d;
    } else if (e.key == "max_running_txn_num_per_db") {
      if (auto n = read_int(ctx, e.value, "max_running_txn_num_per_db", 1))
        doris.max_running_txn_num_per_db = *n;
    } else if (e.key == "other-running-txns") {
      if (auto n = read_int(ctx, e.value, "other-running-txns", 0)) doris.other_running_txns = *n;
    } else if (e.key == "max_tablet_version_num") {
      if (auto n = read_int(ctx, e.value, "max_tablet_version_num", 1))
        doris.max_tablet_version_num = *n;
    } else if (e.key == "compaction-rate") {
      if (auto x = read_double(ctx, e.value, "compaction-rate (versions per second)", 0.0, 1e9))
        doris.compaction_versions_per_second = *x;
    } else if (e.key == "initial-versions") {
      if (auto n = read_int(ctx, e.value, "initial-versions", 1)) doris.initial_versions = *n;
    } else if (e.key == "label-retention") {
      if (auto d = read_duration(ctx, e.value)) doris.label_retention = *d;
    } else if (e.key == "max-load-size") {
      if (auto s = read_size(ctx, e.value)) doris.max_load_bytes = *s;
    } else if (e.key == "tables") {
      if (!expect_sequence(ctx, e.value, "a list of table names")) continue;
      for (const Node& t : e.value.items)
        if (auto s = read_string(ctx, t)) doris.tables.push_back(*s);
    } else {
      unknown_key(ctx, e, "doris system", keys);
    }
  }
}

void read_kafka(Context& ctx, const Node& map, model::KafkaSystemSpec& kafka) {
  for (const Entry& e : map.entries) {
    if (e.key == "kind") continue;
    if (e.key == "transaction.max.timeout.ms") {
      if (auto d = read_millis(ctx, e.value)) kafka.transaction_max_timeout = *d;
    } else {
      unknown_key(ctx, e, "kafka system", {"kind", "transaction.max.timeout.ms"});
    }
  }
}

void read_jdbc(Context& ctx, const Node& map, model::JdbcSystemSpec& jdbc) {
  for (const Entry& e : map.entries) {
    if (e.key == "kind") continue;
    if (e.key == "latency") {
      if (auto d = read_duration(ctx, e.value)) jdbc.latency = *d;
    } else if (e.key == "write-rate") {
      if (auto r = read_rate(ctx, e.value, false)) jdbc.write_rows_per_second = *r;
    } else {
      unknown_key(ctx, e, "jdbc system", {"kind", "latency", "write-rate"});
    }
  }
}

void read_service(Context& ctx, const Node& map, model::ServiceSystemSpec& service) {
  for (const Entry& e : map.entries) {
    if (e.key == "kind") continue;
    if (e.key == "latency") {
      if (auto d = read_duration(ctx, e.value)) {
        if (*d <= 0 || *d > core::minutes(60))
          ctx.error(e.value.loc, "a call's latency must be above 0 and at most 1 h",
                    "write e.g. 'latency: 5 ms'");
        else
          service.latency = *d;
      }
    } else if (e.key == "throughput") {
      if (auto r = read_rate(ctx, e.value, false)) service.calls_per_second = *r;
    } else {
      unknown_key(ctx, e, "service system", {"kind", "latency", "throughput"});
    }
  }
}

void read_call(Context& ctx, const Node& map, const model::SystemsSpec& systems,
               const model::AsyncLookupConfig& async_defaults, const std::string& operator_name,
               model::ServiceCallsSpec& c) {
  const Entry* system = map.find("system");
  std::vector<std::string> names;
  for (const model::ServiceSystemSpec& s : systems.services) names.push_back(s.name);
  if (system == nullptr) {
    ctx.error(map.loc, "a call needs the 'system' it calls",
              names.empty() ? "declare a service: 'systems: {lookup-db: {kind: service, latency: 5 ms}}'"
                            : "services: " + join(names, ", "));
  } else if (auto s = read_string(ctx, system->value)) {
    if (std::find(names.begin(), names.end(), *s) == names.end()) {
      std::string hint = did_you_mean(*s, names);
      ctx.error(system->value.loc, "unknown service '" + *s + "'",
                !hint.empty()    ? hint
                : names.empty() ? "declare it: 'systems: {" + *s + ": {kind: service, latency: 5 ms}}'"
                                : "services: " + join(names, ", "));
    }
    c.system = *s;
  }
  c.operator_name = operator_name;
  const Entry* mode = map.find("mode");
  if (mode != nullptr)
    if (auto m = read_enum<bool>(ctx, mode->value, "call mode", {{"sync", false}, {"async", true}}); m && *m)
      c.mode = async_defaults.ordered ? model::CallMode::async_ordered
                                      : model::CallMode::async_unordered;
  const bool async = c.mode != model::CallMode::sync;
  // AsyncWaitOperator's defaults: the flink block's table.exec.async-lookup.* (100, 3 min).
  if (async) {
    c.capacity = async_defaults.buffer_capacity;
    c.timeout = async_defaults.timeout;
  }
  for (const Entry& e : map.entries) {
    if (e.key == "system" || e.key == "mode") continue;
    const bool async_only = e.key == "capacity" || e.key == "output-mode" || e.key == "client-timeout";
    if (async_only && !async) {
      ctx.error(e.key_loc, "'" + e.key + "' applies to 'mode: async' (AsyncWaitOperator)",
                "add 'mode: async', or remove '" + e.key + "'");
      continue;
    }
    if (e.key == "per-record") {
      if (auto x = read_double(ctx, e.value, "calls per record", 0.0, 100.0)) c.per_record = *x;
    } else if (e.key == "capacity") {
      if (auto n = read_int(ctx, e.value, "capacity", 1)) {
        if (*n > 100000)
          ctx.error(e.value.loc, "capacity " + std::to_string(*n) + " is too large",
                    "ckptsim models at most 100000 requests in flight per subtask");
        else
          c.capacity = *n;
      }
    } else if (e.key == "output-mode") {
      if (auto m = read_enum<bool>(ctx, e.value, "output mode",
                                   {{"ordered", true}, {"unordered", false}, {"allow_unordered", false}}))
        c.mode = *m ? model::CallMode::async_ordered : model::CallMode::async_unordered;
    } else if (e.key == "timeout") {
      const std::string v = e.value.is_scalar() ? to_lower(trim(e.value.text)) : "";
      if (v == "none" || v == "0") {
        c.timeout.reset();
      } else if (auto d = read_duration(ctx, e.value)) {
        if (*d <= 0) ctx.error(e.value.loc, "a timeout must be above 0", "write e.g. '3 min', or 'none'");
        else c.timeout = *d;
      }
    } else if (e.key == "client-timeout") {
      if (auto d = read_duration(ctx, e.value)) {
        if (*d <= 0) ctx.error(e.value.loc, "a timeout must be above 0", "write e.g. '2 min'");
        else c.client_timeout = *d;
      }
    } else if (e.key == "max-attempts") {
      if (auto n = read_int(ctx, e.value, "max-attempts", 0)) {
        if (*n > 10000)
          ctx.error(e.value.loc, "max-attempts " + std::to_string(*n) + " is too large",
                    "ckptsim models at most 10000 retries of a call");
        else
          c.max_attempts = *n;
      }
    } else if (e.key == "fixed-delay") {
      if (auto d = read_duration(ctx, e.value)) c.retry_delay = *d;
      if (map.find("max-attempts") == nullptr)
        ctx.error(e.key_loc, "'fixed-delay' waits before a retry, and this call makes none",
                  "add 'max-attempts: 3', or remove 'fixed-delay'");
    } else {
      unknown_key(ctx, e, "call",
                  {"system", "per-record", "mode", "capacity", "output-mode", "timeout",
                   "client-timeout", "max-attempts", "fixed-delay"});
    }
  }
}

}  // namespace

void read_calls(Context& ctx, const Node& item, const model::SystemsSpec& systems,
                const model::AsyncLookupConfig& async_defaults, model::VertexSpec& v) {
  const Entry* calls = item.find("calls");
  if (calls == nullptr) return;
  const std::string example = "a call such as '{system: lookup-db, per-record: 1, mode: sync}'";
  if (calls->value.is_sequence()) {
    for (const Node& c : calls->value.items)
      if (expect_map(ctx, c, example))
        read_call(ctx, c, systems, async_defaults, v.name, v.calls.emplace_back());
  } else if (expect_map(ctx, calls->value, example)) {
    read_call(ctx, calls->value, systems, async_defaults, v.name, v.calls.emplace_back());
  }
}

namespace {

const UnreadOptions kJdbcUnread = {
    "JDBC", {"url", "username", "password", "driver"},
    // The vertex's parallelism is the sink's; connection set-up is not modelled.
    {"connection.max-retry-timeout", "sink.parallelism"}, {}};

void read_jdbc_sink_options(Context& ctx, const Node& map, model::JdbcSinkSpec& jdbc) {
  const std::vector<std::string> known =
      known_keys({"table-name", "sink.buffer-flush.max-rows", "sink.buffer-flush.interval",
                  "sink.max-retries"},
                 kJdbcUnread);
  for (const Entry& e : map.entries) {
    if (e.key == "table-name") {
      if (auto t = read_string(ctx, e.value)) jdbc.table = *t;
    } else if (e.key == "sink.buffer-flush.max-rows") {
      if (auto n = read_int(ctx, e.value, "sink.buffer-flush.max-rows", 0)) jdbc.max_rows = *n;
    } else if (e.key == "sink.buffer-flush.interval") {
      if (auto d = read_millis(ctx, e.value)) jdbc.flush_interval = *d;
    } else if (e.key == "sink.max-retries") {
      if (auto n = read_int(ctx, e.value, "sink.max-retries", 0)) jdbc.max_retries = *n;
    } else if (!accept_unread(ctx, e, kJdbcUnread)) {
      unknown_key(ctx, e, "jdbc option", known);
    }
  }
}

const UnreadOptions kKafkaSourceUnread = {
    "Kafka", {"topic", "properties.bootstrap.servers", "properties.group.id", "format", "key.format",
              "value.format"},
    {}, {"properties.", "scan."}};
const UnreadOptions kKafkaSinkUnread = {
    "Kafka",
    {"topic", "properties.bootstrap.servers", "format", "key.format", "value.format",
     "sink.transactional-id-prefix"},
    // Records go to partitions by the job graph's edge; the vertex's parallelism is the sink's.
    {"sink.partitioner", "sink.parallelism"}, {"properties."}};

void read_kafka_source_options(Context& ctx, const Node& map, model::KafkaSourceSpec& kafka) {
  const std::vector<std::string> known = known_keys({"scan.startup.mode"}, kKafkaSourceUnread);
  for (const Entry& e : map.entries) {
    if (e.key == "scan.startup.mode") {
      using S = model::KafkaStartup;
      if (auto m = read_enum<S>(ctx, e.value, "scan.startup.mode",
                                {{"group-offsets", S::group_offsets},
                                 {"earliest-offset", S::earliest_offset},
                                 {"latest-offset", S::latest_offset}}))
        kafka.startup = *m;
    } else if (e.key == "topic") {
      if (auto t = read_string(ctx, e.value)) kafka.topic = *t;
    } else if (!accept_unread(ctx, e, kKafkaSourceUnread)) {
      unknown_key(ctx, e, "kafka option", known);
    }
  }
}

void read_kafka_sink_options(Context& ctx, const Node& map, model::KafkaSinkSpec& kafka) {
  const std::vector<std::string> known = known_keys(
      {"sink.delivery-guarantee", "properties.transaction.timeout.ms"}, kKafkaSinkUnread);
  for (const Entry& e : map.entries) {
    if (e.key == "sink.delivery-guarantee") {
      using G = model::DeliveryGuarantee;
      if (auto g = read_enum<G>(ctx, e.value, "sink.delivery-guarantee",
                                {{"none", G::none},
                                 {"at-least-once", G::at_least_once},
                                 {"exactly-once", G::exactly_once}}))
        kafka.guarantee = *g;
    } else if (e.key == "properties.transaction.timeout.ms") {
      if (auto d = read_millis(ctx, e.value)) kafka.transaction_timeout = *d;
    } else if (e.key == "topic") {
      if (auto t = read_string(ctx, e.value)) kafka.topic = *t;
    } else if (!accept_unread(ctx, e, kKafkaSinkUnread)) {
      unknown_key(ctx, e, "kafka option", known);
    }
  }
}

// A number of seconds (StarRocks sends sink.properties.timeout as the `timeout` header in
// seconds; FE configurations are in seconds), or a duration.
std::optional<core::Duration> read_seconds(Context& ctx, const Node& node) {
  if (node.is_scalar()) {
    const std::string_view text = trim(node.text);
    std::int64_t sec = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), sec);
    if (!text.empty() && ec == std::errc() && end == text.data() + text.size() && sec >= 0 &&
        sec <= 100LL * 365 * 86400)
      return core::seconds(sec);
    if (text.empty() || text.find_first_of("0123456789") == std::string_view::npos) {
      ctx.error(node.loc, "expected a number of seconds or a duration, got " + describe(node),
                "write e.g. '600' (seconds) or '10 min'");
      return std::nullopt;
    }
  }
  return read_duration(ctx, node);
}

void read_transactional_system(Context& ctx, const Node& map, model::TransactionalSystemSpec& sys) {
  std::vector<std::string> keys = {"kind", "ingest", "commit-latency"};
  const bool starrocks = sys.kind == model::TransactionalProfile::starrocks;
  const bool xa = sys.kind == model::TransactionalProfile::jdbc_xa;
  if (xa) {
    keys.push_back("dialect");
    keys.push_back("max_prepared_transactions");
  }
  if (starrocks) {  // the database names StarRocks' messages
    keys.push_back("database");
    keys.push_back("prepared_transaction_default_timeout_second");
    keys.push_back("label_keep_max_second");
  }
  for (const Entry& e : map.entries) {
    if (e.key == "kind") continue;
    if (starrocks && e.key == "database") {
      if (auto s = read_string(ctx, e.value)) sys.database = *s;
    } else if (e.key == "ingest") {
      if (auto r = read_rate(ctx, e.value, true)) sys.ingest_bytes_per_second = std::max(1.0, *r);
    } else if (e.key == "commit-latency") {
      if (auto d = read_duration(ctx, e.value)) sys.commit_latency = *d;
    } else if (starrocks && e.key == "prepared_transaction_default_timeout_second") {
      if (auto d = read_seconds(ctx, e.value)) sys.prepared_timeout = *d;
    } else if (starrocks && e.key == "label_keep_max_second") {
      if (auto d = read_seconds(ctx, e.value)) sys.label_retention = *d;
    } else if (xa && e.key == "dialect") {
      if (auto d = read_enum<model::XaDialect>(ctx, e.value, "XA database",
                                               {{"mysql", model::XaDialect::mysql},
                                                {"postgres", model::XaDialect::postgres},
                                                {"oracle", model::XaDialect::oracle}}))
        sys.xa_dialect = *d;
    } else if (xa && e.key == "max_prepared_transactions") {
      if (auto n = read_int(ctx, e.value, "max_prepared_transactions", 0)) sys.max_prepared_transactions = *n;
      const Entry* dialect = map.find("dialect");
      if (dialect == nullptr || trim(dialect->value.text) != "postgres")
        ctx.error(e.key_loc, "max_prepared_transactions is PostgreSQL's",
                  "add 'dialect: postgres', or remove it");
    } else {
      unknown_key(ctx, e, std::string(xa ? "xa-database" : model::to_string(sys.kind)) + " system",
                  keys);
    }
  }
}

// The StarRocks exactly-once sink reads its cache and transaction options; the rest say where
// the data goes, or could change timing and are not modelled (retries V2 does not make for a
// plain exactly-once sink, connection timeouts, the at-least-once flush interval).
const UnreadOptions kStarRocksUnread = {
    "StarRocks",
    {"jdbc-url", "load-url", "username", "password", "database-name", "sink.properties.format",
     "sink.properties.strip_outer_array", "sink.properties.columns",
     "sink.properties.row_delimiter", "sink.properties.column_separator"},
    {"sink.version", "sink.buffer-flush.interval-ms", "sink.max-retries", "sink.retry.interval-ms",
     "sink.connect.timeout-ms", "sink.socket.timeout-ms", "sink.wait-for-continue.timeout-ms",
     "sink.exactly-once.enable-abort-lingering-txn", "sink.exactly-once.check-num-lingering-txn",
     "sink.properties.prepared_timeout", "sink.publish-timeout.ms", "sink.parallelism"},
    {"sink.properties."}};
// JdbcSink.exactlyOnceSink's JdbcExecutionOptions and JdbcExactlyOnceOptions, under their
// builder fields' names; where the rows go is accepted silently.
const UnreadOptions kJdbcXaUnread = {
    "JDBC XA",
    {"url", "username", "password", "driver", "xaDataSourceClassName", "table-name"},
    {"batchSize", "batchIntervalMs", "transactionPerConnection", "recoveredAndRollback",
     "timeoutSec"},
    {}};
const UnreadOptions kIcebergUnread = {
    "Iceberg",
    {"catalog-name", "catalog-type", "catalog-impl", "catalog-database", "catalog-table",
     "warehouse", "uri", "write.format.default"},
    {"write.upsert.enabled", "write.distribution-mode", "write.target-file-size-bytes",
     "flink.max-continuous-empty-commits", "commit.status-check.num-retries", "sink.parallelism"},
    {}};
const UnreadOptions kPaimonUnread = {
    "Paimon",
    {"path", "warehouse", "metastore", "file.format"},
    {"snapshot.expire.limit", "snapshot.expire.execution-mode", "snapshot.num-retained.min",
     "snapshot.num-retained.max", "snapshot.time-retained", "bucket", "changelog-producer",
     "write-buffer-size", "commit.force-compact", "commit.user-prefix", "sink.parallelism"},
    {}};

// HoodieTableSink's options (hudi-flink 0.13-1.0, FlinkOptions): the write operation decides the
// write function; where the data goes is accepted silently; the rest could change timing and
// are not modelled (a compaction or clustering is written as the timeline's coordinator-busy).
const UnreadOptions kHudiUnread = {
    "Hudi",
    {"path", "table.name", "hoodie.table.name", "hoodie.datasource.write.recordkey.field",
     "hoodie.datasource.write.partitionpath.field", "precombine.field", "write.precombine.field",
     "hoodie.datasource.write.precombine.field", "hive_sync.db", "hive_sync.table",
     "hive_sync.metastore.uris"},
    {"table.type", "index.type", "write.tasks", "write.batch.size", "write.task.max.size",
     "write.rate.limit", "write.insert.cluster", "changelog.enabled", "hive_sync.enabled",
     "hoodie.bucket.index.num.buckets", "metadata.enabled"},
    {"compaction.", "clean.", "clustering."}};

void read_hudi_sink_options(Context& ctx, const Node& map, model::HudiSinkSpec& sink) {
  const std::vector<std::string> read = {"write.operation", "write.commit.ack.timeout"};
  for (const Entry& e : map.entries) {
    if (e.key == "write.operation") {
      // HoodieTableSink: bulk_insert on an unbounded input and insert write through
      // Pipelines.append (AppendWriteFunction); the others through StreamWriteFunction.
      if (auto op = read_enum<int>(ctx, e.value, "write.operation",
                                   {{"upsert", 0}, {"insert", 1}, {"bulk_insert", 2}, {"delete", 3},
                                    {"insert_overwrite", 4}, {"insert_overwrite_table", 5}}))
        sink.append = *op == 1 || *op == 2;
    } else if (e.key == "write.commit.ack.timeout") {
      ctx.warning(e.key_loc,
                  "HoodieTableSink sets write.commit.ack.timeout to the checkpoint timeout; this "
                  "value has no effect",
                  "a writer waits for the next instant up to flink.execution.checkpointing.timeout");
    } else if (!accept_unread(ctx, e, kHudiUnread)) {
      unknown_key(ctx, e, "hudi option", known_keys(read, kHudiUnread));
    }
  }
}

void read_transactional_sink_options(Context& ctx, const Node& map,
                                     model::TransactionalSinkSpec& sink) {
  using P = model::TransactionalProfile;
  const P p = sink.profile;
  const UnreadOptions& unread = p == P::starrocks ? kStarRocksUnread
                                : p == P::iceberg ? kIcebergUnread
                                : p == P::jdbc_xa ? kJdbcXaUnread
                                                  : kPaimonUnread;
  const std::vector<std::string> read =
      p == P::starrocks ? std::vector<std::string>{"sink.semantic", "sink.label-prefix",
                                                   "sink.properties.timeout",
                                                   "sink.buffer-flush.max-bytes", "table-name"}
      : p == P::iceberg ? std::vector<std::string>{"commit.retry.num-retries",
                                                   "commit.retry.min-wait-ms",
                                                   "commit.retry.max-wait-ms",
                                                   "commit.retry.total-timeout-ms"}
      : p == P::jdbc_xa ? std::vector<std::string>{"maxRetries", "maxCommitAttempts",
                                                   "allowOutOfOrderCommits"}
                        : std::vector<std::string>{"commit.max-retries", "commit.min-retry-wait",
                                                   "commit.max-retry-wait", "commit.timeout"};
  const std::vector<std::string> known = known_keys(read, unread);
  const auto has = [&](const std::string& k) {
    return std::find(read.begin(), read.end(), k) != read.end();
  };
  for (const Entry& e : map.entries) {
    if (!has(e.key)) {
      if (!accept_unread(ctx, e, unread))
        unknown_key(ctx, e, std::string(model::to_string(p)) + " option", known);
      continue;
    }
    if (e.key == "sink.semantic") {
      if (auto g = read_enum<bool>(ctx, e.value, "sink.semantic",
                                   {{"exactly-once", true}, {"at-least-once", false}});
          g && !*g)
        ctx.error(e.value.loc, "ckptsim models the StarRocks sink's exactly-once mode",
                  "write 'sink.semantic: exactly-once', or model the at-least-once sink as a "
                  "plain vertex");
    } else if (e.key == "sink.label-prefix") {
      if (auto s = read_string(ctx, e.value)) sink.label_prefix = *s;
    } else if (e.key == "sink.properties.timeout") {
      if (auto d = read_seconds(ctx, e.value)) sink.transaction_timeout = *d;
    } else if (e.key == "sink.buffer-flush.max-bytes") {
      if (auto n = read_size(ctx, e.value)) sink.flush_bytes = std::max<std::int64_t>(1, *n);
    } else if (e.key == "table-name") {
      if (auto s = read_string(ctx, e.value)) sink.table = *s;
    } else if (e.key == "maxRetries") {
      if (auto n = read_int(ctx, e.value, e.key, 0); n && *n != 0)
        ctx.error(e.value.loc,
                  "JDBC XA sink requires maxRetries equal to 0, otherwise it could cause "
                  "duplicates. See issue FLINK-22311 for details.",
                  "write 'maxRetries: 0' (JdbcXaSinkFunction refuses any other value)");
    } else if (e.key == "maxCommitAttempts") {
      if (auto n = read_int(ctx, e.value, e.key, 1)) sink.max_commit_attempts = *n;
    } else if (e.key == "allowOutOfOrderCommits") {
      if (auto b = read_bool(ctx, e.value)) sink.allow_out_of_order_commits = *b;
    } else if (e.key == "commit.retry.num-retries" || e.key == "commit.max-retries") {
      if (auto n = read_int(ctx, e.value, e.key, 0)) sink.commit_retries = *n;
    } else if (e.key == "commit.retry.min-wait-ms" || e.key == "commit.min-retry-wait") {
      if (auto d = read_millis(ctx, e.value)) sink.retry_min_wait = *d;
    } else if (e.key == "commit.retry.max-wait-ms" || e.key == "commit.max-retry-wait") {
      if (auto d = read_millis(ctx, e.value)) sink.retry_max_wait = *d;
    } else if (e.key == "commit.retry.total-timeout-ms" || e.key == "commit.timeout") {
      if (auto d = read_millis(ctx, e.value)) sink.retry_total_timeout = *d;
    }
  }
}

const std::vector<std::pair<std::string, model::CdcStartupMode>>& startup_modes() {
  using M = model::CdcStartupMode;
  static const std::vector<std::pair<std::string, M>> modes = {
      {"initial", M::initial},
      {"latest-offset", M::latest_offset},
      {"earliest-offset", M::earliest_offset},
      {"specific-offset", M::specific_offset},
      {"timestamp", M::timestamp},
      {"snapshot", M::snapshot}};
  return modes;
}

// The fetch size only shapes JDBC round trips: the whole chunk is buffered before it is emitted
// (field A.2), so it is read as a `where` option.
const UnreadOptions kCdcUnread = {
    "CDC",
    {"hostname", "port", "username", "password", "database-name", "table-name", "server-id",
     "server-time-zone", "scan.snapshot.fetch.size", "schema-name", "slot.name",
     "decoding.plugin.name", "collection", "connection.options"},
    {"connect.timeout", "connect.max-retries", "connection.pool.size", "heartbeat.interval",
     "scan.incremental.close-idle-reader.enabled", "scan.incremental.snapshot.chunk.key-column",
     "chunk-meta.group.size"},
    {"debezium.", "jdbc.properties."}};
// The stream load's format and delete flag shape its payload, not when it is sent.
const UnreadOptions kDorisUnread = {
    "Doris",
    {"fenodes", "username", "password", "table.identifier", "sink.enable-delete",
     "sink.properties.format", "sink.properties.read_json_by_line"},
    {"sink.max-retries", "sink.ignore.commit-error", "sink.use-cache"},
    {"sink.properties."}};

void read_cdc_options(Context& ctx, const Node& map, std::int64_t record_size,
                      model::CdcSourceSpec& cdc) {
  const bool mongodb = cdc.dialect == model::CdcDialect::mongodb;
  const std::vector<std::string> known = known_keys(
      {"scan.startup.mode",
       mongodb ? "scan.incremental.snapshot.chunk.size.mb" : "scan.incremental.snapshot.chunk.size",
       "scan.incremental.snapshot.enabled"},
      kCdcUnread);
  for (const Entry& e : map.entries) {
    if (mongodb && e.key == "scan.incremental.snapshot.chunk.size.mb") {
      if (auto n = read_int(ctx, e.value, "a chunk size in MB", 1))
        cdc.chunk_size = std::max<std::int64_t>(
            1, static_cast<std::int64_t>(*n) * 1024 * 1024 / std::max<std::int64_t>(1, record_size));
    } else if (mongodb && e.key == "scan.incremental.snapshot.chunk.size") {
      unknown_key(ctx, e, "mongodb-cdc option", known);
    } else if (e.key == "scan.startup.mode") {
      if (auto m = read_enum(ctx, e.value, "scan.startup.mode", startup_modes()))
        cdc.startup_mode = *m;
    } else if (e.key == "scan.incremental.snapshot.chunk.size") {
      if (auto n = read_count(ctx, e.value, "a chunk size")) {
        if (*n < 1)
          ctx.error(e.value.loc, "the chunk size must be at least 1 row");
        else
          cdc.chunk_size = *n;
      }
    } else if (e.key == "scan.incremental.snapshot.enabled") {
      if (auto b = read_bool(ctx, e.value)) cdc.incremental_snapshot = *b;
    } else if (e.key == "scan.newly-added-table.enabled") {
      ctx.error(e.key_loc, "'scan.newly-added-table.enabled' is not modelled yet",
                "remove it; newly added tables are read from the binlog only");
    } else if (!accept_unread(ctx, e, kCdcUnread)) {
      unknown_key(ctx, e, std::string(model::dialect(cdc.dialect).connector) + " option", known);
    }
  }
}

void read_doris_options(Context& ctx, const Node& map, model::DorisSinkSpec& doris) {
  const std::vector<std::string> known =
      known_keys({"sink.buffer-count", "sink.buffer-size", "sink.check-interval",
                  "sink.enable-2pc", "sink.label-prefix"},
                 kDorisUnread);
  for (const Entry& e : map.entries) {
    if (e.key == "sink.buffer-count") {
      if (auto n = read_int(ctx, e.value, "sink.buffer-count", 2)) doris.buffer_count = *n;
    } else if (e.key == "sink.buffer-size") {
      if (auto s = read_size(ctx, e.value)) doris.buffer_size = std::max<std::int64_t>(1, *s);
    } else if (e.key == "sink.check-interval") {
      if (auto d = read_millis(ctx, e.value)) doris.check_interval = *d;
    } else if (e.key == "sink.enable-2pc") {
      if (auto b = read_bool(ctx, e.value)) doris.enable_2pc = *b;
    } else if (e.key == "sink.label-prefix") {
      if (auto s = read_string(ctx, e.value)) doris.label_prefix = *s;
    } else if (e.key == "sink.enable.batch-mode") {
      ctx.error(e.key_loc, "'sink.enable.batch-mode' is not modelled yet",
                "remove it; the sink loads once per checkpoint interval");
    } else if (!accept_unread(ctx, e, kDorisUnread)) {
      unknown_key(ctx, e, "doris option", known);
    }
  }
}

void read_tables(Context& ctx, const Node& list, model::CdcSourceSpec& cdc) {
  if (!expect_sequence(ctx, list, "a list of tables such as '- {name: app.orders, rows: 40M}'"))
    return;
  for (const Node& item : list.items) {
    if (!expect_map(ctx, item, "a table such as '{name: app.orders, rows: 40M}'")) continue;
    model::CdcTableSpec t;
    int count = 1;
    if (item.find("name") == nullptr)
      ctx.error(item.loc, "table has no 'name'", "write e.g. '{name: app.orders, rows: 40M}'");
    for (const Entry& e : item.entries) {
      if (e.key == "name") {
        if (auto s = read_name(ctx, e.value, "a table name")) t.name = *s;
      } else if (e.key == "rows") {
        if (auto n = read_count(ctx, e.value, "a row count")) t.rows = *n;
      } else if (e.key == "changes") {
        if (auto r = read_rate(ctx, e.value, false)) t.changes_per_second = *r;
      } else if (e.key == "key") {
        if (auto k = read_enum<bool>(ctx, e.value, "key distribution",
                                     {{"even", true}, {"uneven", false}}))
          t.even_key = *k;
      } else if (e.key == "count") {
        if (auto n = read_int(ctx, e.value, "a table count", 1)) count = *n;
      } else {
        unknown_key(ctx, e, "table", {"name", "rows", "changes", "key", "count"});
      }
    }
    // `count: N`: N tables alike, named <name>_1 .. <name>_N (a schema of many small tables).
    constexpr std::size_t kMaxTables = 100000;
    if (cdc.tables.size() + static_cast<std::size_t>(count) > kMaxTables) {
      ctx.error(item.loc, "more than " + std::to_string(kMaxTables) + " captured tables",
                "ckptsim models at most 100000 tables per CDC source");
      return;
    }
    if (count == 1) {
      cdc.tables.push_back(t);
      continue;
    }
    for (int i = 1; i <= count; ++i) {
      model::CdcTableSpec copy = t;
      copy.name = t.name + "_" + std::to_string(i);
      cdc.tables.push_back(std::move(copy));
    }
  }
}

}  // namespace

bool is_connector_key(std::string_view key) {
  return key == "connector" || key == "system" || key == "options" || key == "tables" ||
         key == "table" || key == "table-model" || key == "lag" || key == "fetch-rate" ||
         key == "stream-split-discovery" || key == "calls";
}

void read_systems(Context& ctx, const Node& map, model::SystemsSpec& systems) {
  if (!expect_map(ctx, map, "a map of systems such as '{doris: {kind: doris}}'")) return;
  for (const Entry& e : map.entries) {
    if (!expect_map(ctx, e.value, "a system such as '{kind: doris, ingest: 20 MB/s}'")) continue;
    const Entry* kind = e.value.find("kind");
    if (kind == nullptr) {
      ctx.error(e.key_loc, "system '" + e.key + "' has no 'kind'",
                "kinds: mysql, postgres, oracle, sqlserver, mongodb, doris, kafka, jdbc, "
                "starrocks, iceberg, paimon, service, xa-database, hudi");
      continue;
    }
    const auto k = read_enum<int>(ctx, kind->value, "system kind",
                                  {{"mysql", 0}, {"doris", 1}, {"kafka", 2}, {"jdbc", 3},
                                   {"starrocks", 4}, {"iceberg", 5}, {"paimon", 6},
                                   {"postgres", 7}, {"oracle", 8}, {"sqlserver", 9},
                                   {"mongodb", 10}, {"service", 11}, {"xa-database", 12},
                                   {"hudi", 13}});
    if (!k) continue;
    if (*k == 11) {  // services: any number
      model::ServiceSystemSpec& service = systems.services.emplace_back();
      service.name = e.key;
      read_service(ctx, e.value, service);
      continue;
    }
    // A database CDC sources read: one per scenario, whichever its kind.
    const bool cdc = *k >= 7 && *k <= 10;
    const auto cdc_kind = cdc ? static_cast<model::CdcDialect>(*k - 6) : model::CdcDialect::mysql;
    if (cdc) {
      if (systems.cdc_database) {
        ctx.error(e.key_loc, "a second database for CDC sources",
                  "ckptsim models one database CDC sources read per scenario");
        continue;
      }
      systems.cdc_database.emplace();
      systems.cdc_database->name = e.key;
      systems.cdc_database->kind = cdc_kind;
      read_mysql(ctx, e.value, *systems.cdc_database);
      continue;
    }
    const auto profile = *k == 12   ? model::TransactionalProfile::jdbc_xa
                         : *k == 13 ? model::TransactionalProfile::hudi
                                    : static_cast<model::TransactionalProfile>(std::max(0, *k - 4));
    const bool second_transactional =
        *k >= 4 && std::any_of(systems.transactional.begin(), systems.transactional.end(),
                               [&](const model::TransactionalSystemSpec& t) { return t.kind == profile; });
    if ((*k == 0 && systems.cdc_database) || (*k == 1 && systems.doris) || (*k == 2 && systems.kafka) ||
        (*k == 3 && systems.jdbc) || second_transactional) {
      ctx.error(e.key_loc, "a second " + kind->value.text + " system",
                "ckptsim models one system of each kind per scenario");
      continue;
    }
    if (*k == 0) {
      systems.cdc_database.emplace();
      systems.cdc_database->name = e.key;
      read_mysql(ctx, e.value, *systems.cdc_database);
    } else if (*k == 1) {
      systems.doris.emplace();
      systems.doris->name = e.key;
      read_doris(ctx, e.value, *systems.doris);
    } else if (*k == 2) {
      systems.kafka.emplace();
      systems.kafka->name = e.key;
      read_kafka(ctx, e.value, *systems.kafka);
    } else if (*k == 3) {
      systems.jdbc.emplace();
      systems.jdbc->name = e.key;
      read_jdbc(ctx, e.value, *systems.jdbc);
    } else {
      model::TransactionalSystemSpec& t = systems.transactional.emplace_back();
      t.name = e.key;
      t.kind = profile;
      read_transactional_system(ctx, e.value, t);
    }
  }
}

void read_connector(Context& ctx, const Node& item, const model::SystemsSpec& systems,
                    model::VertexSpec& v) {
  const Entry* connector = item.find("connector");
  const Entry* options = item.find("options");
  const Entry* tables = item.find("tables");
  const Entry* table = item.find("table");
  const Entry* model_entry = item.find("table-model");
  const Entry* system = item.find("system");
  const Entry* discovery = item.find("stream-split-discovery");
  if (connector == nullptr) {
    for (const Entry* e : {options, tables, table, model_entry, system, discovery})
      if (e != nullptr)
        ctx.error(e->key_loc, "'" + e->key + "' needs a 'connector'",
                  "add 'connector: mysql-cdc' or 'connector: doris'");
    return;
  }
  auto kind = read_enum<int>(ctx, connector->value, "connector",
                                   {{"mysql-cdc", 0}, {"doris", 1}, {"kafka", 2}, {"jdbc", 3},
                                    {"starrocks", 4}, {"iceberg", 5}, {"paimon", 6},
                                    {"postgres-cdc", 7}, {"oracle-cdc", 8}, {"sqlserver-cdc", 9},
                                    {"mongodb-cdc", 10}, {"jdbc-xa", 11}, {"hudi", 12}});
  if (!kind) return;
  // The CDC family: one source with the connector's dialect, reading the scenario's database.
  const auto cdc_dialect =
      *kind >= 7 ? static_cast<model::CdcDialect>(*kind - 6) : model::CdcDialect::mysql;
  if (*kind >= 7 && *kind <= 10) kind = 0;
  if (*kind == 11) kind = 7;  // jdbc-xa: the transactional sinks' fourth profile
  if (*kind == 12) kind = 8;  // hudi: a sink of its own, writing into a hudi system
  static constexpr const char* kSystemKinds[] = {"mysql",   "doris",  "kafka",       "jdbc",
                                                 "starrocks", "iceberg", "paimon", "xa-database",
                                                 "hudi"};
  static constexpr const char* kDatabases[] = {"mysql", "postgres", "oracle", "sqlserver",
                                               "mongodb"};
  const char* needed =
      *kind == 0 ? kDatabases[static_cast<int>(cdc_dialect)] : kSystemKinds[*kind];
  const auto profile = *kind == 7   ? model::TransactionalProfile::jdbc_xa
                       : *kind == 8 ? model::TransactionalProfile::hudi
                                    : static_cast<model::TransactionalProfile>(std::max(0, *kind - 4));
  std::string system_name = *kind == 0   ? (systems.cdc_database && systems.cdc_database->kind == cdc_dialect
                                                ? systems.cdc_database->name
                                                : "")
                            : *kind == 1 ? (systems.doris ? systems.doris->name : "")
                            : *kind == 2 ? (systems.kafka ? systems.kafka->name : "")
                            : *kind == 3 ? (systems.jdbc ? systems.jdbc->name : "")
                                         : "";
  for (const model::TransactionalSystemSpec& t : systems.transactional)
    if (*kind >= 4 && t.kind == profile) system_name = t.name;
  if (system_name.empty()) {
    ctx.error(connector->value.loc,
              "connector '" + connector->value.text + "' needs a " + needed + " system",
              std::string("declare it: 'systems: {") + needed + ": {kind: " + needed + "}}'");
  } else if (system != nullptr) {
    if (auto s = read_string(ctx, system->value); s && *s != system_name)
      ctx.error(system->value.loc, "unknown " + std::string(needed) + " system '" + *s + "'",
                "the " + std::string(needed) + " system of this scenario is '" + system_name + "'");
  }
  const Entry* lag = item.find("lag");
  const Entry* fetch = item.find("fetch-rate");
  if (*kind != 2 || v.input)
    for (const Entry* e : {lag, fetch})
      if (e != nullptr) ctx.error(e->key_loc, "'" + e->key + "' applies to a kafka source");
  if (*kind == 2 && !v.input) {
    model::KafkaSourceSpec kafka;
    kafka.topic = v.name;
    if (options != nullptr && expect_map(ctx, options->value, "a map of kafka source options"))
      read_kafka_source_options(ctx, options->value, kafka);
    if (lag != nullptr)
      if (auto n = read_count(ctx, lag->value, "a record count")) kafka.lag = *n;
    if (fetch != nullptr)
      if (auto r = read_rate(ctx, fetch->value, false)) kafka.fetch_records_per_second = *r;
    for (const Entry* e : {tables, table, model_entry})
      if (e != nullptr) ctx.error(e->key_loc, "'" + e->key + "' does not apply to a kafka source");
    v.kafka_source = kafka;
    return;
  }
  if (*kind == 2) {
    model::KafkaSinkSpec kafka;
    kafka.topic = v.name;
    if (options != nullptr && expect_map(ctx, options->value, "a map of kafka sink options"))
      read_kafka_sink_options(ctx, options->value, kafka);
    for (const Entry* e : {tables, table, model_entry})
      if (e != nullptr) ctx.error(e->key_loc, "'" + e->key + "' does not apply to a kafka sink");
    v.kafka_sink = kafka;
    return;
  }
  if (*kind == 8) {
    model::HudiSinkSpec hudi;
    hudi.table = v.name;
    if (!v.input)
      ctx.error(connector->value.loc, "a hudi connector is a sink: '" + v.name + "' has no input",
                "add 'input: <upstream vertex>'");
    if (options != nullptr && expect_map(ctx, options->value, "a map of hudi options"))
      read_hudi_sink_options(ctx, options->value, hudi);
    for (const Entry* e : {tables, table, model_entry})
      if (e != nullptr) ctx.error(e->key_loc, "'" + e->key + "' does not apply to a hudi sink");
    v.hudi_sink = hudi;
    return;
  }
  if (*kind >= 4) {
    model::TransactionalSinkSpec sink = model::default_sink_spec(profile);
    sink.table = v.name;
    sink.row_bytes = v.record_size;
    if (!v.input)
      ctx.error(connector->value.loc,
                "a " + connector->value.text + " connector is a sink: '" + v.name + "' has no input",
                "add 'input: <upstream vertex>'");
    if (options != nullptr &&
        expect_map(ctx, options->value, "a map of " + connector->value.text + " sink options"))
      read_transactional_sink_options(ctx, options->value, sink);
    if (profile == model::TransactionalProfile::starrocks &&
        (options == nullptr || options->value.find("sink.semantic") == nullptr))
      ctx.error(connector->key_loc, "ckptsim models the StarRocks sink's exactly-once mode",
                "add 'sink.semantic: exactly-once' to its options");
    // JdbcExecutionOptions' default maxRetries (3) is refused by JdbcXaSinkFunction.
    if (profile == model::TransactionalProfile::jdbc_xa &&
        (options == nullptr || options->value.find("maxRetries") == nullptr))
      ctx.error(connector->key_loc,
                "JDBC XA sink requires maxRetries equal to 0, otherwise it could cause "
                "duplicates. See issue FLINK-22311 for details.",
                "JdbcExecutionOptions' default is 3: add 'maxRetries: 0' to its options");
    for (const Entry* e : {tables, table, model_entry})
      if (e != nullptr)
        ctx.error(e->key_loc, "'" + e->key + "' does not apply to a " + connector->value.text +
                                  " sink");
    v.transactional_sink = sink;
    return;
  }
  if (*kind == 3) {
    model::JdbcSinkSpec jdbc;
    jdbc.table = v.name;
    if (!v.input)
      ctx.error(connector->value.loc, "a jdbc connector is a sink: '" + v.name + "' has no input",
                "add 'input: <upstream vertex>'");
    if (options != nullptr && expect_map(ctx, options->value, "a map of jdbc sink options"))
      read_jdbc_sink_options(ctx, options->value, jdbc);
    for (const Entry* e : {tables, table, model_entry})
      if (e != nullptr) ctx.error(e->key_loc, "'" + e->key + "' does not apply to a jdbc sink");
    v.jdbc_sink = jdbc;
    return;
  }
  if (*kind == 0) {
    model::CdcSourceSpec cdc;
    cdc.dialect = cdc_dialect;
    const model::DataSourceDialect& d = model::dialect(cdc_dialect);
    const std::string name = d.connector;
    cdc.incremental_snapshot = d.incremental_by_default;
    if (cdc_dialect == model::CdcDialect::mongodb)  // chunks of 64 MB of documents
      cdc.chunk_size = std::max<std::int64_t>(1, 64LL * 1024 * 1024 / std::max<std::int64_t>(1, v.record_size));
    if (v.input)
      ctx.error(connector->value.loc, "a " + name + " connector is a source: '" + v.name +
                                          "' has an input",
                "remove its 'input'");
    if (options != nullptr && expect_map(ctx, options->value, "a map of " + name + " options"))
      read_cdc_options(ctx, options->value, v.record_size, cdc);
    if (tables == nullptr)
      ctx.error(connector->key_loc, "a " + name + " source needs 'tables'",
                "list them: 'tables: [{name: app.orders, rows: 40M, changes: 300 rows/s}]'");
    else
      read_tables(ctx, tables->value, cdc);
    if (discovery != nullptr)
      if (auto law = read_cost_law(ctx, discovery->value)) cdc.stream_split_discovery = *law;
    for (const Entry* e : {table, model_entry})
      if (e != nullptr) ctx.error(e->key_loc, "'" + e->key + "' applies to a doris connector");
    if (!cdc.incremental_snapshot && v.parallelism > 1)
      ctx.error(connector->value.loc,
                "the legacy " + std::string(d.display) +
                    " source (scan.incremental.snapshot.enabled: false) runs with parallelism 1",
                "set 'parallelism: 1', or 'scan.incremental.snapshot.enabled: true'");
    v.cdc_source = cdc;
    v.records_per_second = 0;
  } else {
    model::DorisSinkSpec doris;
    if (!v.input)
      ctx.error(connector->value.loc, "a doris connector is a sink: '" + v.name + "' has no input",
                "add 'input: <upstream vertex>'");
    if (options != nullptr && expect_map(ctx, options->value, "a map of doris sink options"))
      read_doris_options(ctx, options->value, doris);
    if (tables != nullptr) ctx.error(tables->key_loc, "'tables' applies to a mysql-cdc connector");
    doris.table = v.name;
    if (table != nullptr)
      if (auto s = read_string(ctx, table->value)) doris.table = *s;
    if (model_entry != nullptr)
      if (auto m = read_enum<bool>(ctx, model_entry->value, "table model",
                                   {{"unique", true}, {"duplicate", false}}))
        doris.unique_key_table = *m;
    doris.row_bytes = v.record_size;
    v.doris = doris;
  }
}

bool read_system_action(Context& ctx, const Node& item, const Entry& what,
                        const model::Scenario& scenario, model::TimelineAction& action) {
  const std::string text(trim(what.value.text));
  const auto dot = text.find('.');
  const std::string system = text.substr(0, dot);
  const std::string op = text.substr(dot + 1);
  std::vector<std::string> names;
  if (scenario.systems.cdc_database) names.push_back(scenario.systems.cdc_database->name);
  if (scenario.systems.doris) names.push_back(scenario.systems.doris->name);
  if (scenario.systems.jdbc) names.push_back(scenario.systems.jdbc->name);
  for (const model::ServiceSystemSpec& s : scenario.systems.services) names.push_back(s.name);
  const bool is_service =
      std::any_of(scenario.systems.services.begin(), scenario.systems.services.end(),
                  [&](const model::ServiceSystemSpec& s) { return s.name == system; });
  bool is_transactional = false;
  for (const model::TransactionalSystemSpec& t : scenario.systems.transactional) {
    names.push_back(t.name);
    is_transactional = is_transactional || system == t.name;
  }
  const bool is_doris = scenario.systems.doris && system == scenario.systems.doris->name;
  const bool is_mysql = scenario.systems.cdc_database && system == scenario.systems.cdc_database->name;
  const bool is_jdbc = scenario.systems.jdbc && system == scenario.systems.jdbc->name;
  if (!is_doris && !is_mysql && !is_jdbc && !is_transactional && !is_service) {
    std::string hint = did_you_mean(system, names);
    if (hint.empty())
      hint = names.empty() ? "declare the system under 'systems:' first"
                           : "systems: " + join(names, ", ");
    ctx.error(what.value.loc, "unknown system '" + system + "' in '" + text + "'", hint);
    return false;
  }
  using K = model::ActionKind;
  struct Op {
    std::string name;
    K kind;
    std::vector<std::string> keys;
  };
  static const std::vector<Op> doris_ops = {
      {"slow-down", K::slow_down, {"factor", "for"}},
      {"stall", K::slow_down, {"for"}},
      {"reject-load", K::reject_load, {"table", "count", "error"}},
      {"create-table", K::create_table, {"table"}},
      {"drop-table", K::drop_table, {"table"}},
      {"rename-table", K::rename_table, {"table", "to"}},
      {"swap-table", K::swap_table, {"table"}},
      {"drop-database", K::drop_database, {}}};
  static const std::vector<Op> mysql_ops = {{"slow-down", K::slow_down, {"factor", "for"}},
                                            {"stall", K::slow_down, {"for"}}};
  static const std::vector<Op> jdbc_ops = {{"slow-down", K::slow_down, {"factor", "for"}},
                                           {"stall", K::slow_down, {"for"}},
                                           {"reject", K::reject_load, {"count", "error"}}};
  // A catalog or FE rejects the next commits (a conflict): the committer retries, then gives up.
  static const std::vector<Op> transactional_ops = {{"reject-commit", K::reject_load, {"count", "error"}}};
  const std::vector<Op>& ops = is_doris          ? doris_ops
                               : is_jdbc || is_service ? jdbc_ops
                               : is_transactional ? transactional_ops
                                                  : mysql_ops;
  std::vector<std::string> op_names;
  for (const Op& o : ops) op_names.push_back(system + "." + o.name);
  const auto found = std::find_if(ops.begin(), ops.end(), [&](const Op& o) { return o.name == op; });
  if (found == ops.end()) {
    std::string hint = did_you_mean(text, op_names);
    ctx.error(what.value.loc, "unknown operation '" + text + "'",
              hint.empty() ? "operations: " + join(op_names, ", ") : hint);
    return false;
  }
  action.kind = found->kind;
  action.system = system;
  if (found->name == "stall") action.factor = 0;
  bool ok = true;
  for (const Entry& e : item.entries) {
    if (e.key == "at" || e.key == "do") continue;
    if (std::find(found->keys.begin(), found->keys.end(), e.key) == found->keys.end()) {
      ctx.error(e.key_loc, "'" + e.key + "' does not apply to '" + text + "'",
                found->keys.empty() ? "'" + text + "' takes only 'at' and 'do'"
                                    : "'" + text + "' takes: " + join(found->keys, ", "));
      ok = false;
    } else if (e.key == "factor") {
      if (auto x = read_double(ctx, e.value, "factor", 0.0, 1e6)) action.factor = *x; else ok = false;
    } else if (e.key == "for") {
      const std::string v = e.value.is_scalar() ? to_lower(trim(e.value.text)) : "";
      if (v == "ever" || v == "forever" || v == "for ever")
        action.duration.reset();
      else if (auto d = read_duration(ctx, e.value))
        action.duration = *d;
      else
        ok = false;
    } else if (e.key == "table") {
      if (auto s = read_string(ctx, e.value)) action.table = *s; else ok = false;
    } else if (e.key == "to") {
      if (auto s = read_string(ctx, e.value)) action.to_table = *s; else ok = false;
    } else if (e.key == "count") {
      if (auto n = read_int(ctx, e.value, "count", 1)) action.count = *n; else ok = false;
    } else if (e.key == "error") {
      if (auto s = read_string(ctx, e.value)) action.error = *s; else ok = false;
    }
  }
  const bool needs_table = std::find(found->keys.begin(), found->keys.end(), "table") != found->keys.end();
  if (needs_table && item.find("table") == nullptr) {
    ctx.error(item.loc, "'" + text + "' needs a 'table'", "write e.g. 'table: app.orders'");
    ok = false;
  }
  if (found->kind == K::rename_table && item.find("to") == nullptr) {
    ctx.error(item.loc, "'" + text + "' needs 'to' (the new name)");
    ok = false;
  }
  if (found->name == "slow-down" && item.find("factor") == nullptr) {
    ctx.error(item.loc, "'" + text + "' needs a 'factor'",
              "write e.g. 'factor: 0.1' for a tenth of its speed");
    ok = false;
  }
  return ok;
}

}  // namespace ckptsim::scenario::detail
