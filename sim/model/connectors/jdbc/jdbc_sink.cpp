// flink-connector-jdbc's sink (JdbcSink / GenericJdbcSinkFunction over JdbcOutputFormat, the SQL
// 'jdbc' connector) behind the Sink seams, at-least-once:
//  - writeRecord adds a row to the batch; when the batch holds sink.buffer-flush.max-rows rows,
//    flush() runs executeBatch on the task thread (JdbcOutputFormat.writeRecord);
//  - a scheduled flusher thread flushes every sink.buffer-flush.interval, holding the format's
//    lock, so a flush of the task thread waits for it; a failure it meets is kept and thrown at
//    the next write ("Writing records to JDBC failed.", checkFlushException);
//  - flush() retries a failed executeBatch up to sink.max-retries times, sleeping 1000 * i ms
//    before retry i, then throws IOException (JdbcOutputFormat.flush);
//  - the checkpoint flushes the batch before the barrier goes on
//    (GenericJdbcSinkFunction.snapshotState -> outputFormat.flush()).
// The database is a resource of its own: a round trip per batch, rows per second, slow-down and
// stall windows, and batches it rejects.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/connectors/connector.hpp"
#include "sim/model/connectors/service_profile.hpp"

namespace ckptsim::model {

namespace {

class JdbcDatabase final : public ExternalSystem {
 public:
  JdbcDatabase(const Scenario& scenario, const JdbcSystemSpec& spec)
      : spec_(spec), profile_(scenario, spec.name) {}
  void system_action(const TimelineAction& a) override {
    if (a.system != spec_.name || a.kind != ActionKind::reject_load) return;
    rejections_left_ += std::max(1, a.count);
    error_ = a.error.empty() ? "java.sql.SQLTransientConnectionException: connection refused"
                             : a.error;
  }
  // One executeBatch of `rows` starting at `from`: when it answers (kNever: a stall for ever),
  // and whether it failed.
  struct Outcome {
    SimTime done = 0;
    bool failed = false;
  };
  Outcome execute(SimTime from, std::int64_t rows) {
    if (rejections_left_ > 0) {
      --rejections_left_;
      return {from + spec_.latency, true};
    }
    const SimTime written =
        profile_.finish_time(from, static_cast<double>(rows), spec_.write_rows_per_second);
    return {written == core::kNever ? core::kNever : written + spec_.latency, false};
  }
  const std::string& error() const { return error_; }
  const JdbcSystemSpec& spec() const { return spec_; }

 private:
  JdbcSystemSpec spec_;
  ServiceProfile profile_;
  int rejections_left_ = 0;
  std::string error_;
};

class JdbcSink final : public Sink, public core::EventHandler {
 public:
  JdbcSink(ConnectorContext& ctx, int vertex, JdbcDatabase& db)
      : ctx_(ctx),
        vertex_(vertex),
        spec_(*ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].jdbc_sink),
        db_(db),
        writers_(static_cast<std::size_t>(
            ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].parallelism)) {}

  void deploy_writer(int index, const TaskSnapshot*, std::int64_t) override {
    writers_[static_cast<std::size_t>(index)] = Writer{};
    writers_[static_cast<std::size_t>(index)].last_tick = ctx_.sim().now();
  }
  void cancel(int index) override {
    writer(index) = Writer{};  // the batches in memory are gone with the task
  }

  Duration write(int index, const Buffer& b, Duration cpu) override {
    Writer& w = writer(index);
    const SimTime now = ctx_.sim().now();
    scheduled_flushes(w, now);
    if (w.flush_error) {  // checkFlushException, once the flusher thread lets go of the lock
      fail_at(index, std::max(now, w.lock_free), "java.lang.RuntimeException", "Writing records to JDBC failed.\nCaused by: " +
                                                            *w.flush_error);
      return core::kNever;
    }
    if (b.kind != Buffer::Kind::data) return cpu;
    SimTime t = now + cpu;
    w.batch += b.records;
    // Each row that fills the batch runs executeBatch on the task thread.
    while (spec_.max_rows > 0 && w.batch >= spec_.max_rows) {
      w.batch -= spec_.max_rows;
      const Flushed f = flush(w, t, spec_.max_rows);
      if (f.error) {
        fail_at(index, f.done, "java.io.IOException", *f.error);
        return core::kNever;
      }
      if (f.done == core::kNever) {
        block(w, now, core::kNever);
        return core::kNever;
      }
      t = f.done;
    }
    block(w, now, t);
    return std::max<Duration>(cpu, t - now);
  }
  bool writes_block_thread() const override { return true; }

  Prepared prepare_commit(int index, std::int64_t) override {
    // GenericJdbcSinkFunction.snapshotState: flush() before the barrier goes on.
    Writer& w = writer(index);
    const SimTime now = ctx_.sim().now();
    scheduled_flushes(w, now);
    Prepared p;
    if (w.flush_error) {
      p.thrown = ConnectorException{"java.lang.RuntimeException",
                                    "Writing records to JDBC failed.\nCaused by: " + *w.flush_error};
      return p;
    }
    if (w.batch == 0) return p;
    const Flushed f = flush(w, now, w.batch);
    w.batch = 0;
    if (f.error) {
      p.thrown = ConnectorException{"java.io.IOException", *f.error};
      return p;
    }
    block(w, now, f.done);
    p.took = f.done == core::kNever ? core::kNever : f.done - now;
    return p;
  }

  bool explain_wait(int index, WaitState& w) const override {
    const Writer& wr = writers_[static_cast<std::size_t>(index)];
    const SimTime now = ctx_.sim().now();
    if (wr.blocked_until <= now) return false;
    w.kind = WaitState::Kind::sink_flush;
    w.table = spec_.table;
    // JdbcOutputFormat.flush: executeBatch (with its retries) on the task thread.
    w.call = "the JDBC sink's flush (executeBatch into table " + spec_.table + ")";
    w.since = wr.blocked_since;
    w.until = wr.blocked_until;
    return true;
  }

  void on_event(std::uint32_t, std::uint64_t a) override {
    const Failure& f = failures_[a];
    if (f.generation != ctx_.generation(vertex_, f.index)) return;
    if (ctx_.state(vertex_, f.index) != ExecutionState::running) return;
    ctx_.fail_task(vertex_, f.index, f.exception_class, f.message);
  }

 private:
  struct Writer {
    std::int64_t batch = 0;            // rows in the batch not yet executed
    SimTime lock_free = 0;             // the flusher thread holds the format's lock until then
    SimTime last_tick = 0;             // the flusher's last run
    std::optional<std::string> flush_error;  // a failure the flusher thread kept
    SimTime blocked_since = 0;         // the task thread is in a flush from then ...
    SimTime blocked_until = 0;         // ... until then (kNever: for ever)
  };
  struct Flushed {
    SimTime done = 0;
    std::optional<std::string> error;  // IOException's text after the retries
  };
  struct Failure {
    std::uint32_t generation = 0;
    int index = 0;
    std::string exception_class;
    std::string message;
  };
  Writer& writer(int index) { return writers_[static_cast<std::size_t>(index)]; }

  // flush(): executeBatch, retried up to sink.max-retries times with 1000 * i ms sleeps.
  Flushed flush(Writer& w, SimTime from, std::int64_t rows) {
    SimTime t = std::max(from, w.lock_free);
    for (int i = 0; i <= spec_.max_retries; ++i) {
      const JdbcDatabase::Outcome o = db_.execute(t, rows);
      if (!o.failed) return {o.done, std::nullopt};
      t = o.done;
      if (i >= spec_.max_retries) return {t, "java.sql.BatchUpdateException: " + db_.error()};
      t += core::milliseconds(1000) * i;  // Thread.sleep(1000 * i) before the next attempt
    }
    return {t, std::nullopt};
  }

  // The flusher thread's runs since the last look: the batch it found is executed in the
  // background, holding the lock.
  void scheduled_flushes(Writer& w, SimTime now) {
    if (spec_.flush_interval <= 0 || spec_.max_rows == 1) return;
    const auto ticks = (now - w.last_tick) / spec_.flush_interval;
    if (ticks <= 0) return;
    const SimTime first = w.last_tick + spec_.flush_interval;
    w.last_tick += ticks * spec_.flush_interval;
    if (w.batch == 0 || w.flush_error) return;
    const Flushed f = flush(w, first, w.batch);  // rows only change at writes: the first run
    w.batch = 0;
    if (f.error) w.flush_error = f.error;
    w.lock_free = f.done;
  }

  void block(Writer& w, SimTime since, SimTime until) {
    w.blocked_since = since;
    w.blocked_until = until;
  }

  void fail_at(int index, SimTime at, const std::string& exception_class, const std::string& message) {
    Writer& w = writer(index);
    block(w, ctx_.sim().now(), core::kNever);
    failures_.push_back({ctx_.generation(vertex_, index), index, exception_class, message});
    ctx_.sim().schedule_at(std::max(at, ctx_.sim().now()), this, 0, failures_.size() - 1);
  }

  ConnectorContext& ctx_;
  int vertex_;
  const JdbcSinkSpec& spec_;
  JdbcDatabase& db_;
  std::vector<Writer> writers_;
  std::vector<Failure> failures_;
};

}  // namespace

void add_jdbc_sink(const Scenario& scenario, ConnectorContext& ctx, Connectors& connectors) {
  if (!scenario.systems.jdbc) return;
  auto db = std::make_unique<JdbcDatabase>(scenario, *scenario.systems.jdbc);
  for (std::size_t v = 0; v < scenario.job.vertices.size(); ++v)
    if (scenario.job.vertices[v].jdbc_sink)
      connectors.vertices[v].sinks.push_back(std::make_unique<JdbcSink>(ctx, static_cast<int>(v), *db));
  connectors.systems.push_back(std::move(db));
}

}  // namespace ckptsim::model
