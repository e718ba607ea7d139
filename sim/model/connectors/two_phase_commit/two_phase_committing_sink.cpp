// A transactional sink behind Flink's Sink seams (sink2 TwoPhaseCommittingSink: SinkWriter
// prepareCommit before the barrier, Committer at notifyCheckpointComplete and again on restore),
// with the profile of the connector it stands for (transactional_profile.hpp) and the system it
// commits into as a resource of its own:
//  - StarRocks: a table's transaction begins at its first cache-full flush
//    (sink.buffer-flush.max-bytes) and must be prepared within sink.properties.timeout (the FE's
//    transaction manager aborts it, "timeout by txn manager", and the next flush or the prepare
//    in snapshotState fails the task); a prepared transaction not committed within the FE's
//    prepared_transaction_default_timeout_second is aborted too, and its commit fails, on
//    restore as well (a restart loop); labels {prefix}-{table}-{subtask}-{id} the FE still
//    remembers cannot begin again;
//  - Iceberg, Paimon: data files are flushed before the barrier; the commit may be rejected
//    (a conflict) and is retried with waits, then given up with the format's own exception;
//    Paimon fails once on purpose after a restore committed restored committables;
//  - JDBC XA: the rows go into the open XA transaction; snapshotState flushes them, then XA END
//    and XA PREPARE (PostgreSQL with max_prepared_transactions 0 refuses: the checkpoint and the
//    task fail); notifyCheckpointComplete commits the prepared transactions in order, and one
//    that fails transiently (XAER_RMFAIL: MySQL maps any unmapped error to it, a lock wait
//    timeout too) is kept for the next notification, until maxCommitAttempts; a rollback the
//    database made (XA_RB*) or an unknown xid fails at once.
#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/connectors/connector.hpp"
#include "sim/model/connectors/two_phase_commit/transactional_profile.hpp"

namespace ckptsim::model {

namespace {

// The system commits go to: labels it remembers, commits it rejects, what each writer slot has
// committed (across attempts: a restore does not undo it).
class TransactionalSystem final : public ExternalSystem {
 public:
  explicit TransactionalSystem(const TransactionalSystemSpec& spec) : spec_(spec) {}
  const TransactionalSystemSpec& spec() const { return spec_; }
  void system_action(const TimelineAction& a) override {
    if (a.system != spec_.name || a.kind != ActionKind::reject_load) return;
    rejections_left_ += std::max(1, a.count);
    error_ = a.error;
  }
  // One commit attempt: false if the system rejects it (a conflict).
  bool attempt_commit() {
    if (rejections_left_ == 0) return true;
    --rejections_left_;
    return false;
  }
  const std::string& rejection_error() const { return error_; }
  void remember(SimTime now, const std::string& label) { labels_[label] = now; }
  bool label_used(SimTime now, const std::string& label) const {
    const auto it = labels_.find(label);
    return it != labels_.end() && now - it->second <= spec_.label_retention;
  }
  std::int64_t& committed(int vertex, int index) { return committed_[{vertex, index}]; }

 private:
  TransactionalSystemSpec spec_;
  int rejections_left_ = 0;
  std::string error_;
  std::map<std::string, SimTime> labels_;
  std::map<std::pair<int, int>, std::int64_t> committed_;
};

class TwoPhaseCommittingSink final : public Sink, public core::EventHandler {
 public:
  TwoPhaseCommittingSink(ConnectorContext& ctx, int vertex, TransactionalSystem& system)
      : ctx_(ctx),
        vertex_(vertex),
        spec_(*ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].transactional_sink),
        rules_(rules(spec_.profile)),
        system_(system),
        writers_(static_cast<std::size_t>(
            ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].parallelism)) {}

  void deploy_writer(int index, const TaskSnapshot* restored,
                     std::int64_t restored_checkpoint) override {
    Writer& w = writer(index);
    w = Writer{};
    w.next_id = restored_checkpoint + 1;  // the label generator restarts after the restored id
    if (!restored || restored->committables.empty()) return;
    // The restored committables are committed again (StarRocks openForExactlyOnce commits up to
    // Long.MAX_VALUE; Iceberg commits those above max-committed-checkpoint-id; Paimon
    // filterAndCommit); already committed ones are skipped.
    const SimTime now = ctx_.sim().now();
    std::int64_t& committed = system_.committed(vertex_, index);
    bool recommitted = false;
    for (const Committable& c : restored->committables) {
      if (c.checkpoint <= committed) continue;
      if (auto failure = expired(c, now)) {
        // openForExactlyOnce commits through notifyCheckpointComplete(Long.MAX_VALUE).
        w.init_error = notify_failed(std::numeric_limits<std::int64_t>::max(),
                                     {rules_.commit_exception, *failure});
        return;
      }
      committed = c.checkpoint;
      if (!c.label.empty()) system_.remember(now, c.label);
      recommitted = true;
    }
    if (recommitted && rules_.fail_after_restore_commit)
      w.init_error = ConnectorException{"java.lang.RuntimeException", kPaimonRestoreMessage};
  }
  std::optional<ConnectorException> init_failure(int index, std::int64_t) const override {
    return writers_[static_cast<std::size_t>(index)].init_error;
  }

  Duration write(int index, const Buffer& b, Duration cpu) override {
    if (b.kind != Buffer::Kind::data || b.records <= 0) return cpu;
    Writer& w = writer(index);
    const SimTime now = ctx_.sim().now();
    if (w.records == 0) w.first_record = now;
    w.records += b.records;
    w.unflushed += b.records * spec_.row_bytes;
    if (!rules_.external_transaction) return cpu;
    // StarRocks: every full cache is flushed into the table's transaction, which begins with
    // the first flush; the FE aborted it once it outlived sink.properties.timeout.
    while (w.unflushed >= spec_.flush_bytes && !w.failed) {
      w.unflushed -= spec_.flush_bytes;
      flush(index, w, now);
    }
    return cpu;
  }

  Prepared prepare_commit(int index, std::int64_t checkpoint) override {
    Writer& w = writer(index);
    Prepared out;
    if (w.records == 0 || w.failed) return out;  // nothing written: nothing to commit
    const SimTime now = ctx_.sim().now();
    out.took = static_cast<Duration>(static_cast<double>(w.unflushed) /
                                     system_.spec().ingest_bytes_per_second *
                                     static_cast<double>(core::kSecond));
    if (spec_.profile == TransactionalProfile::jdbc_xa) {
      // JdbcXaSinkFunction.snapshotState: flush, XA END, XA PREPARE (rethrown as IOException).
      out.took += system_.spec().commit_latency;
      if (system_.spec().xa_dialect == XaDialect::postgres &&
          system_.spec().max_prepared_transactions <= 0) {
        out.thrown = ConnectorException{
            "java.io.IOException",
            "org.apache.flink.util.FlinkRuntimeException: unable to prepare XA transaction, xid: " +
                xa_xid(index, checkpoint) +
                ", error -3: resource manager error has occurred. [Error preparing transaction]"
                "\nCaused by: org.postgresql.util.PSQLException: ERROR: prepared transactions are "
                "disabled\n  Hint: Set max_prepared_transactions to a nonzero value."};
        return out;
      }
    }
    if (rules_.external_transaction) {
      // snapshotState: sinkManager.flush() sends the rest, then prepare.
      if (!w.opened) begin(index, w, now);
      if (w.failed) {
        out.thrown = w.failure;
        return out;
      }
      if (auto aborted = timed_out(w, now)) {
        out.thrown = ConnectorException{kStreamLoadFailException, *aborted};
        return out;
      }
      out.took += system_.spec().commit_latency;  // /api/transaction/prepare
    }
    Committable c;
    c.checkpoint = checkpoint;
    c.opened = w.opened.value_or(w.first_record);
    c.records = w.records;
    c.prepared = now + out.took;
    c.label = w.label;
    w.prepared.push_back(std::move(c));
    w.records = 0;
    w.unflushed = 0;
    w.opened.reset();
    w.label.clear();
    w.next_id = checkpoint + 1;
    return out;
  }

  void snapshot_state(int index, TaskSnapshot& state) const override {
    state.committables = writers_[static_cast<std::size_t>(index)].prepared;
  }

  Committed notify_checkpoint_complete(int index, std::int64_t id) override {
    if (spec_.profile == TransactionalProfile::jdbc_xa) return commit_xa(index, id);
    Writer& w = writer(index);
    Committed out;
    const SimTime now = ctx_.sim().now();
    std::int64_t& committed = system_.committed(vertex_, index);
    auto it = w.prepared.begin();
    for (; it != w.prepared.end() && it->checkpoint <= id; ++it) {
      if (it->checkpoint <= committed) continue;
      if (auto failure = expired(*it, now + out.took)) {
        out.thrown = ConnectorException{rules_.commit_exception, *failure};
        break;
      }
      const auto given_up = commit(*it, out.took);
      if (given_up) {
        out.thrown = given_up;
        break;
      }
      committed = it->checkpoint;
      if (!it->label.empty()) system_.remember(now + out.took, it->label);
    }
    w.prepared.erase(w.prepared.begin(), it);
    if (out.thrown) out.thrown = notify_failed(id, std::move(*out.thrown));
    return out;
  }

  void cancel(int index) override { writer(index) = Writer{}; }

  void on_event(std::uint32_t, std::uint64_t a) override {
    const Pending& p = pending_[a];
    if (p.generation != ctx_.generation(vertex_, p.index)) return;
    if (ctx_.state(vertex_, p.index) != ExecutionState::running) return;
    ctx_.fail_task(vertex_, p.index, p.failure.exception_class, p.failure.message);
  }

 private:
  static constexpr const char* kStreamLoadFailException =
      "com.starrocks.data.load.stream.exception.StreamLoadFailException";
  struct Writer {
    std::int64_t records = 0;    // since the last precommit
    std::int64_t unflushed = 0;  // bytes in the cache
    SimTime first_record = 0;
    std::optional<SimTime> opened;  // StarRocks: the transaction began (first flush)
    std::string label;
    std::int64_t next_id = 1;  // the label id of the next transaction
    std::vector<Committable> prepared;
    std::optional<ConnectorException> init_error;
    std::map<std::int64_t, int> xa_attempts;  // JDBC XA: failed commits per checkpoint
    bool failed = false;  // a flush failed: the task is failing
    ConnectorException failure;
  };
  struct Pending {
    std::uint32_t generation = 0;
    int index = 0;
    ConnectorException failure;
  };
  Writer& writer(int index) { return writers_[static_cast<std::size_t>(index)]; }
  const std::string& db() const { return system_.spec().database; }

  void begin(int index, Writer& w, SimTime now) {
    w.opened = now;
    w.label = spec_.label_prefix.empty()
                  ? ""
                  : spec_.label_prefix + "-" + spec_.table + "-" + std::to_string(index) + "-" +
                        std::to_string(w.next_id);
    if (!w.label.empty() && system_.label_used(now, w.label))
      fail(index, w,
           {kStreamLoadFailException, starrocks_begin_failed(db(), spec_.table, w.label)});
  }
  void flush(int index, Writer& w, SimTime now) {
    if (!w.opened) {
      begin(index, w, now);
      return;
    }
    if (auto aborted = timed_out(w, now)) fail(index, w, {kStreamLoadFailException, *aborted});
  }
  // The transaction outlived sink.properties.timeout: the FE aborted it.
  std::optional<std::string> timed_out(const Writer& w, SimTime now) const {
    if (spec_.transaction_timeout <= 0 || !w.opened || now - *w.opened <= spec_.transaction_timeout)
      return std::nullopt;
    return starrocks_load_failed(db(), spec_.table, w.label.empty() ? "null" : w.label,
                                 spec_.transaction_timeout);
  }
  // A prepared transaction the system aborted before its commit (StarRocks FE
  // prepared_transaction_default_timeout_second).
  std::optional<std::string> expired(const Committable& c, SimTime at) const {
    if (!rules_.external_transaction) return std::nullopt;
    const Duration limit = system_.spec().prepared_timeout;
    if (limit <= 0 || at - c.prepared <= limit) return std::nullopt;
    return starrocks_commit_failed(db(), spec_.table, c.label.empty() ? "null" : c.label,
                                   "TXN_NOT_EXISTS", "ABORTED");
  }
  // The commit call, with its retries of rejected attempts; `took` grows by its time. The
  // exception when it is given up.
  std::optional<ConnectorException> commit(const Committable& c, Duration& took) {
    const Duration started = took;
    for (int attempt = 0;; ++attempt) {
      took += system_.spec().commit_latency;
      if (system_.attempt_commit()) return std::nullopt;
      const bool out_of_time = spec_.retry_total_timeout > 0 && attempt > 0 &&
                               took - started > spec_.retry_total_timeout;
      if (attempt >= spec_.commit_retries || out_of_time) break;
      took += retry_wait(spec_, attempt + 1);
    }
    const std::string error = system_.rejection_error();
    switch (spec_.profile) {
      case TransactionalProfile::iceberg:
        return ConnectorException{rules_.commit_exception,
                                  error.empty() ? "Cannot commit: stale table metadata" : error};
      case TransactionalProfile::paimon:
        return ConnectorException{
            rules_.commit_exception,
            paimon_commit_failed(spec_.retry_total_timeout, spec_.commit_retries,
                                 error.empty() ? "java.lang.RuntimeException: File deletion "
                                                 "conflicts detected! Give up committing."
                                               : error)};
      case TransactionalProfile::starrocks:
      case TransactionalProfile::jdbc_xa:
      case TransactionalProfile::hudi:  // not this sink's (hudi/)
        break;
    }
    return ConnectorException{
        rules_.commit_exception,
        starrocks_commit_failed(db(), spec_.table, c.label.empty() ? "null" : c.label,
                                error.empty() ? "Fail" : error, "PREPARED")};
  }
  // JdbcXaSinkFunction.notifyCheckpointComplete -> XaGroupOpsImpl.commit: XA COMMIT of every
  // prepared transaction up to `id`, in order; a transient failure keeps the transaction for the
  // next notification (without allowOutOfOrderCommits, the later ones too); the exception comes
  // after the loop: a hard failure first, else one that reached maxCommitAttempts.
  Committed commit_xa(int index, std::int64_t id) {
    Writer& w = writer(index);
    Committed out;
    std::int64_t& committed = system_.committed(vertex_, index);
    std::vector<Committable> kept;
    std::optional<ConnectorException> hard;
    std::vector<std::string> exhausted;
    int tried = 0;
    bool stop = false;
    for (const Committable& c : w.prepared) {
      if (c.checkpoint > id || stop) {
        kept.push_back(c);
        continue;
      }
      if (c.checkpoint <= committed) continue;
      ++tried;
      out.took += system_.spec().commit_latency;
      if (system_.attempt_commit()) {
        if (kept.empty()) committed = c.checkpoint;
        continue;
      }
      const std::string error = system_.rejection_error().empty()
                                    ? "Lock wait timeout exceeded; try restarting transaction"
                                    : system_.rejection_error();
      const auto [code, description] = xa_error(error);
      if (code != -7) {  // not transient: XaFacadeImpl throws FlinkRuntimeException
        if (!hard)
          hard = ConnectorException{
              "org.apache.flink.util.FlinkRuntimeException",
              "unable to commit XA transaction, xid: " + xa_xid(index, c.checkpoint) +
                  ", error " + std::to_string(code) + ": " + description + ". [" + error + "]"};
      } else if (++w.xa_attempts[c.checkpoint] >= spec_.max_commit_attempts) {
        exhausted.push_back(xa_transaction(index, c.checkpoint, false));
      }
      kept.push_back(c);
      if (!spec_.allow_out_of_order_commits) stop = true;
    }
    w.prepared = std::move(kept);
    if (hard) {
      out.thrown = ConnectorException{"org.apache.flink.util.FlinkRuntimeException",
                                      "failed to commit 1 transactions out of " + std::to_string(tried) +
                                          "\nCaused by: " + hard->exception_class + ": " + hard->message};
    } else if (!exhausted.empty()) {
      std::string list;
      for (const std::string& x : exhausted) list += (list.empty() ? "" : ", ") + x;
      out.thrown = ConnectorException{"java.lang.RuntimeException",
                                      "reached max number of commit attempts (" +
                                          std::to_string(spec_.max_commit_attempts) +
                                          ") for transactions: [" + list + "]"};
    }
    return out;
  }
  // The XAException code and XaFacadeImpl's description of a database's error: MySQL
  // Connector/J maps XAER_NOTA (1397) and XA_RB* (1613, 1614) and makes any other error
  // XAER_RMFAIL, which Flink treats as transient.
  static std::pair<int, std::string> xa_error(const std::string& error) {
    if (error.find("XAER_NOTA") != std::string::npos) return {-4, "Xid is not valid"};
    if (error.find("XA_RBTIMEOUT") != std::string::npos)
      return {106, "rollback happened because of a timeout"};
    if (error.find("XA_RBDEADLOCK") != std::string::npos)
      return {102, "rollback happened because deadlock was detected"};
    return {-7, "the resource manager has failed and is not available"};
  }
  // StarRocksDynamicSinkFunctionV2.notifyCheckpointComplete wraps what the commit threw.
  ConnectorException notify_failed(std::int64_t id, ConnectorException cause) const {
    if (spec_.profile != TransactionalProfile::starrocks) return cause;
    return {"java.lang.RuntimeException",
            "Failed to notify checkpoint complete for checkpoint id " + std::to_string(id) +
                "\nCaused by: " + cause.exception_class + ": " + cause.message};
  }
  // A failure the writer meets outside a checkpoint call: the task fails (the sink rethrows it
  // at its next write).
  void fail(int index, Writer& w, ConnectorException failure) {
    w.failed = true;
    w.failure = failure;
    pending_.push_back({ctx_.generation(vertex_, index), index, std::move(failure)});
    ctx_.sim().schedule_in(0, this, 0, pending_.size() - 1);
  }

  ConnectorContext& ctx_;
  int vertex_;
  const TransactionalSinkSpec& spec_;
  const TransactionalProfileRules& rules_;
  TransactionalSystem& system_;
  std::vector<Writer> writers_;
  std::vector<Pending> pending_;
};

}  // namespace

void add_transactional_sinks(const Scenario& scenario, ConnectorContext& ctx,
                             Connectors& connectors) {
  std::map<TransactionalProfile, TransactionalSystem*> systems;
  for (const TransactionalSystemSpec& spec : scenario.systems.transactional) {
    auto system = std::make_unique<TransactionalSystem>(spec);
    systems[spec.kind] = system.get();
    connectors.systems.push_back(std::move(system));
  }
  for (std::size_t v = 0; v < scenario.job.vertices.size(); ++v) {
    const auto& sink = scenario.job.vertices[v].transactional_sink;
    if (!sink) continue;
    const auto it = systems.find(sink->profile);
    if (it == systems.end()) continue;  // the loader requires the system
    connectors.vertices[v].sinks.push_back(
        std::make_unique<TwoPhaseCommittingSink>(ctx, static_cast<int>(v), *it->second));
  }
}

}  // namespace ckptsim::model
