// doris-flink-connector 1.6.1 DorisSink behind Flink's Sink seams (field-scenarios.md A.3, A.5,
// B6, B7): the DorisWriter of each subtask (one stream load per table and checkpoint interval;
// a full RecordBuffer blocks the task thread; prepareCommit stops the loads one after another;
// its checker thread every sink.check-interval), the DorisCommitter (2PC commit at
// notifyCheckpointComplete), and Doris itself as a resource (DorisSystem: tables, labels,
// transactions, versions) that the timeline can operate on.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/connectors/connector.hpp"
#include "sim/model/connectors/doris/doris_system.hpp"

namespace ckptsim::model {

namespace {

constexpr const char* kDorisRuntimeException = "org.apache.doris.flink.exception.DorisRuntimeException";

class DorisSink final : public Sink, public core::EventHandler {
 public:
  DorisSink(ConnectorContext& ctx, int vertex, DorisSystem& doris, const Source* source)
      : ctx_(ctx),
        vertex_(vertex),
        spec_(*ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].doris),
        doris_(doris),
        tables_(source ? source->tables() : nullptr),
        shares_(source ? source->change_shares() : std::vector<double>{}) {
    const int p = ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].parallelism;
    for (int i = 0; i < p; ++i) writers_.emplace_back(spec_, doris_, i);
  }

  // The tables this sink's writers load into: the chained source's tables, or its one table.
  std::vector<std::string> table_names() const {
    return tables_ ? *tables_ : std::vector<std::string>{spec_.table};
  }

  Duration write(int index, const Buffer& b, Duration cpu) override {
    DorisWriter& w = writer(index);
    const SimTime now = ctx_.sim().now();
    Duration took = 0;
    if (tables_ && b.table >= 0) {
      took = w.write(now, (*tables_)[static_cast<std::size_t>(b.table)], b.records * spec_.row_bytes,
                     cpu);
    } else if (tables_ && b.table == Buffer::kAllTables) {
      // Changes spread over the tables by their change rates; the routing function hands each
      // table's rows to its writer, one after the other.
      double total_rate = 0;
      for (const double r : shares_) total_rate += r;
      SimTime t = now;
      std::int64_t left = b.records;
      for (std::size_t i = 0; i < tables_->size() && left > 0; ++i) {
        const double share = total_rate > 0 ? shares_[i] / total_rate : 0;
        const std::int64_t rows =
            i + 1 == tables_->size()
                ? left
                : std::min(left, static_cast<std::int64_t>(
                                     std::llround(share * static_cast<double>(b.records))));
        if (rows <= 0) continue;
        left -= rows;
        const Duration d = w.write(t, (*tables_)[i], rows * spec_.row_bytes, 0);
        if (d == core::kNever) {
          took = core::kNever;
          break;
        }
        t += d;
      }
      if (took != core::kNever) took = std::max(cpu, t - now);
    } else {
      took = w.write(now, spec_.table, b.records * spec_.row_bytes, cpu);
    }
    watch_failure(index);
    return took;
  }
  bool writes_block_thread() const override { return true; }

  Prepared prepare_commit(int index, std::int64_t checkpoint) override {
    // DorisWriter.prepareCommit flushes and stops every open load before the barrier goes on.
    const DorisWriter::Prepared prepared = writer(index).prepare_commit(ctx_.sim().now(), checkpoint);
    watch_failure(index);
    Prepared out;
    out.took = prepared.took;
    if (prepared.thrown) out.thrown = ConnectorException{kDorisRuntimeException, error_text(*prepared.thrown)};
    return out;
  }

  Committed notify_checkpoint_complete(int index, std::int64_t id) override {
    writer(index).commit(ctx_.sim().now(), id);  // DorisCommitter (2PC)
    return {};
  }

  std::optional<ConnectorException> init_failure(int index,
                                                 std::int64_t restored_checkpoint) const override {
    // DorisWriter.initializeLoad with 2PC: abortPreCommit probes the label of the first
    // checkpoint this attempt will write (restored id + 1); one Doris still remembers as a
    // finished load means another run already used this prefix (field A.5, label collisions).
    if (!spec_.two_phase_commit()) return std::nullopt;
    for (const std::string& t : table_names())
      if (doris_.label_used(ctx_.sim().now(),
                            writers_[static_cast<std::size_t>(index)].label(t, index, restored_checkpoint + 1)))
        return ConnectorException{
            "org.apache.doris.flink.exception.DorisException",
            "Load status is Label Already Exists and load job finished, change you label prefix "
            "or restore from latest savepoint!"};
    return std::nullopt;
  }

  bool explain_wait(int index, WaitState& w) const override {
    const DorisWriter& writer = writers_[static_cast<std::size_t>(index)];
    const DorisWriter::Blocked& b = writer.blocked();
    if (b.call == DorisWriter::Blocked::Call::none) return false;
    if (b.until != core::kNever && b.until <= ctx_.sim().now()) return false;
    w.kind = b.call == DorisWriter::Blocked::Call::write ? WaitState::Kind::sink_write
                                                           : WaitState::Kind::sink_stop_load;
    w.table = b.table;
    w.since = b.since;
    w.until = b.until;
    w.bytes_ahead = b.bytes_left;
    w.drain_bytes_per_second = b.rate;
    if (const auto& f = writer.first_failure(); f && f->at <= ctx_.sim().now()) {
      w.failed_at = f->at;
      w.error = f->error;
      w.table = f->table;
    }
    return true;
  }

  void cancel(int index) override { writer(index).abort_all(); }

  // A table was dropped under the running writers' loads.
  void table_dropped(const std::string& table) {
    for (std::size_t i = 0; i < writers_.size(); ++i) {
      if (ctx_.state(vertex_, static_cast<int>(i)) != ExecutionState::running) continue;
      writers_[i].table_dropped(ctx_.sim().now(), table);
      watch_failure(static_cast<int>(i));
    }
  }
  int parallelism() const { return static_cast<int>(writers_.size()); }

  void on_event(std::uint32_t kind, std::uint64_t a) override {
    const Pending& p = failures_[a];
    if (p.generation != ctx_.generation(vertex_, p.index)) return;
    if (ctx_.state(vertex_, p.index) != ExecutionState::running) return;
    const DorisWriter::Failure& failure = p.failure;
    if (kind == kLoadFailed) {
      ctx_.connector_event(ConnectorEvent::Kind::doris_load_failed, vertex_, p.index, failure.table,
                           failure.error);
      // Only DorisWriter's checker thread notices a load that ended early; it runs every
      // sink.check-interval when that is above 1000 ms (field A.3 [D13]).
      if (spec_.check_interval > core::kSecond)
        ctx_.sim().schedule_in(spec_.check_interval, this, kCheck, a);
      return;
    }
    ctx_.switch_to_failed(vertex_, p.index);
    ctx_.connector_event(ConnectorEvent::Kind::doris_failure_detected, vertex_, p.index,
                         failure.table, failure.error);
    ctx_.report_failure(vertex_, p.index, kDorisRuntimeException, error_text(failure));
  }

 private:
  enum Event : std::uint32_t { kLoadFailed, kCheck };
  struct Pending {
    std::uint32_t generation = 0;
    int index = 0;
    DorisWriter::Failure failure;
  };
  static std::string error_text(const DorisWriter::Failure& f) {
    return "table " + f.table + " stream load error: " + f.error + ", see more in null";
  }
  DorisWriter& writer(int index) { return writers_[static_cast<std::size_t>(index)]; }
  // A load Doris ended: the writer learns it when Doris answers.
  void watch_failure(int index) {
    auto failure = writer(index).take_failure();
    if (!failure) return;
    const SimTime at = std::max(ctx_.sim().now(), failure->at);
    failures_.push_back({ctx_.generation(vertex_, index), index, *failure});
    ctx_.sim().schedule_at(at, this, kLoadFailed, failures_.size() - 1);
  }

  ConnectorContext& ctx_;
  int vertex_;
  const DorisSinkSpec& spec_;
  DorisSystem& doris_;
  const std::vector<std::string>* tables_;
  std::vector<double> shares_;
  std::vector<DorisWriter> writers_;
  std::vector<Pending> failures_;
};

// Doris as a resource: the timeline's table operations, and the whole-database sync tool that
// creates the tables before a submission.
class DorisResource final : public ExternalSystem {
 public:
  DorisResource(const Scenario& scenario, const DorisSystemSpec& spec)
      : doris_(spec, ServiceProfile(scenario, spec.name)) {}
  DorisSystem& doris() { return doris_; }
  void add(DorisSink* sink) { sinks_.push_back(sink); }

  void job_submitted() override {
    // The whole-database sync tool creates the Doris tables that do not exist before it
    // submits the job (DatabaseSync.create, field A.1 [D3]).
    for (const DorisSink* sink : sinks_)
      for (int i = 0; i < sink->parallelism(); ++i)
        for (const std::string& t : sink->table_names()) doris_.create_table(t);
  }

  void system_action(const TimelineAction& a) override {
    if (a.system != doris_.spec().name) return;
    const auto fail_loads_of = [&](const std::string& table) {
      for (DorisSink* sink : sinks_) sink->table_dropped(table);
    };
    switch (a.kind) {
      case ActionKind::reject_load:
        doris_.reject_next_loads(a.table, a.count,
                                 a.error.empty() ? "[INTERNAL_ERROR]cancelled: closed" : a.error);
        break;
      case ActionKind::create_table: doris_.create_table(a.table); break;
      case ActionKind::drop_table:
        doris_.drop_table(a.table);
        fail_loads_of(a.table);
        break;
      case ActionKind::rename_table:
        doris_.rename_table(a.table, a.to_table);
        fail_loads_of(a.table);
        break;
      case ActionKind::swap_table:
        // create table_tmp; insert into table_tmp select * from table; drop table; rename: the
        // table is back under its name as one compacted version.
        doris_.drop_table(a.table);
        fail_loads_of(a.table);
        doris_.create_table(a.table);
        break;
      case ActionKind::drop_database: {
        std::vector<std::string> tables;
        for (const DorisSink* sink : sinks_)
          for (int i = 0; i < sink->parallelism(); ++i)
            for (const std::string& t : sink->table_names()) tables.push_back(t);
        doris_.drop_database();
        for (const std::string& t : tables) fail_loads_of(t);
        break;
      }
      default: break;
    }
  }

 private:
  DorisSystem doris_;
  std::vector<DorisSink*> sinks_;
};

}  // namespace

void add_doris(const Scenario& scenario, ConnectorContext& ctx, Connectors& connectors) {
  if (!scenario.systems.doris) return;
  auto resource = std::make_unique<DorisResource>(scenario, *scenario.systems.doris);
  for (std::size_t v = 0; v < scenario.job.vertices.size(); ++v) {
    if (!scenario.job.vertices[v].doris) continue;
    auto sink = std::make_unique<DorisSink>(ctx, static_cast<int>(v), resource->doris(),
                                            connectors.vertices[v].source.get());
    resource->add(sink.get());
    connectors.vertices[v].sinks.push_back(std::move(sink));
  }
  connectors.systems.push_back(std::move(resource));
}

}  // namespace ckptsim::model
