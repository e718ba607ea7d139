// flink-cdc 2.4 MySqlSource behind Flink's Source seams (field-scenarios.md A.2, B1-B4):
//  - SplitEnumerator (MySqlSourceEnumerator with MySqlHybridSplitAssigner, in the
//    SourceCoordinator on the JobManager): splits each table when a reader first asks for one
//    of its chunks (a boundary query per chunk for an uneven key, on the coordinator's thread);
//    with parallelism > 1 the binlog split waits for the checkpoint after the last chunk
//    (checkpointIdToFinish, [C3]);
//  - SourceReader (MySqlSourceReader + its split fetcher): each chunk is read whole and emitted
//    in ONE mailbox step (MySqlRecordEmitter, [C6][C7]); then the binlog at the tables' change
//    rates. The restored split state decides the phase, whatever scan.startup.mode says
//    (MySqlSource.restoreEnumerator, [C1]);
//  - the 1.x DebeziumSourceFunction (scan.incremental.snapshot.enabled false) reads the whole
//    snapshot under the checkpoint lock (B1 [C11]).
// MySQL itself is a resource of its own (CdcDatabase): its read rate and slow-down windows.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/connectors/connector.hpp"
#include "sim/model/connectors/service_profile.hpp"
#include "sim/model/connectors/cdc/chunk_plan.hpp"

namespace ckptsim::model {

namespace {

// MySQL as the CDC sources see it; slow-downs are known from the timeline up front.
class CdcDatabase final : public ExternalSystem {
 public:
  CdcDatabase(const Scenario& scenario, const CdcDatabaseSpec& spec)
      : spec_(spec), profile_(scenario, spec.name) {}
  const CdcDatabaseSpec& spec() const { return spec_; }
  const ServiceProfile& profile() const { return profile_; }

 private:
  CdcDatabaseSpec spec_;
  ServiceProfile profile_;
};

class IncrementalSource final : public Source {
 public:
  IncrementalSource(ConnectorContext& ctx, int vertex, const CdcDatabase& mysql)
      : ctx_(ctx),
        vertex_(vertex),
        spec_(*ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].cdc_source),
        parallelism_(ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].parallelism),
        mysql_(mysql),
        readers_(static_cast<std::size_t>(parallelism_)),
        split_done_(spec_.tables.size(), -1) {
    plan_.emplace(spec_);
    for (const CdcTableSpec& t : spec_.tables) {
      table_names_.push_back(t.name);
      total_rows_ += t.rows;
    }
  }

  // --- SplitEnumerator
  void restart_enumerator(SimTime now) override {
    waiting_ = false;
    finish_checkpoint_ = -1;
    // The new enumerator starts from the checkpointed assigner state: splitting it had not
    // finished starts over.
    for (SimTime& done : split_done_)
      if (done > now) done = -1;
    enumerator_free_ = std::min(enumerator_free_, now);
  }
  void checkpoint_triggered(std::int64_t id) override {
    // MySqlSnapshotSplitAssigner.snapshotState: once all chunks are finished, the first
    // checkpoint after that becomes checkpointIdToFinish (field A.2 [C3]).
    if (waiting_ && finish_checkpoint_ < 0) finish_checkpoint_ = id;
  }
  void notify_checkpoint_complete(std::int64_t id) override {
    // MySqlHybridSplitAssigner.notifyCheckpointComplete: the snapshot assigner is finished, the
    // binlog split can be assigned.
    if (waiting_ && finish_checkpoint_ >= 0 && id >= finish_checkpoint_) start_binlog();
  }
  Duration coordinator_busy(SimTime now) const override {
    return std::max<Duration>(0, enumerator_free_ - now);
  }

  // --- SourceReader
  void deploy_reader(const ReaderAttempt& a) override {
    Reader& r = reader(a.index);
    r = Reader{};
    if (!a.state) return;
    r.phase = static_cast<CdcPhase>(a.state->split_phase);
    r.chunks_done = a.state->split_progress;
    if (!spec_.incremental_snapshot && r.phase == CdcPhase::snapshot)
      r.chunks_done = 0;  // the 1.x source restarts an unfinished snapshot
  }
  void reader_running(int index) override {
    Reader& r = reader(index);
    const bool fresh = r.phase == CdcPhase::none;
    if (fresh) r.phase = fresh_start_phase(spec_, index);
    const std::string how = fresh ? std::string("no restored state, scan.startup.mode=") +
                                        to_string(spec_.startup_mode)
                                  : "restored split state (scan.startup.mode is ignored)";
    switch (r.phase) {
      case CdcPhase::snapshot: {
        std::int64_t left = 0;
        if (spec_.incremental_snapshot) {
          const std::int64_t mine = plan_->chunks_of(index, parallelism_);
          for (std::int64_t k = r.chunks_done; k < mine; ++k)
            left += plan_->chunk(CdcChunkPlan::global_index(index, parallelism_, k)).rows;
        } else {
          left = total_rows_ - r.chunks_done;
        }
        ctx_.connector_event(ConnectorEvent::Kind::cdc_snapshot_started, vertex_, index, {}, how,
                             left);
        break;
      }
      case CdcPhase::binlog:
        ctx_.connector_event(ConnectorEvent::Kind::cdc_binlog_started, vertex_, index, {}, how);
        // A split assigned without a snapshot carries no table schemas; a restored one has them.
        if (fresh) discover_schemas(index);
        break;
      case CdcPhase::snapshot_done: finish_snapshot(index); break;
      default: break;
    }
  }
  bool reads_partitions() const override { return false; }
  double rate(int index, double) const override {
    switch (reader(index).phase) {
      case CdcPhase::binlog: {
        double rate = 0;
        for (const CdcTableSpec& t : spec_.tables) rate += t.changes_per_second;
        return rate;
      }
      case CdcPhase::snapshot:  // the 1.x source reads the snapshot as fast as MySQL answers
        return mysql_.spec().read_rows_per_second * mysql_.profile().factor_at(ctx_.sim().now());
      default: return 0;
    }
  }
  bool emits_batch(int index) const override {
    return spec_.incremental_snapshot && reader(index).phase == CdcPhase::snapshot;
  }
  std::optional<SimTime> next_batch_ready(int index) override {
    if (!emits_batch(index)) return std::nullopt;
    Reader& r = reader(index);
    if (r.chunks_done >= plan_->chunks_of(index, parallelism_)) {
      finish_snapshot(index);
      return core::kNever;
    }
    if (r.next_ready < 0) r.next_ready = fetch(index, r.chunks_done);
    return r.next_ready;  // kNever: MySQL stalled for ever
  }
  Batch poll_batch(int index) override {
    Reader& r = reader(index);
    const auto chunk = plan_->chunk(CdcChunkPlan::global_index(index, parallelism_, r.chunks_done));
    ++r.chunks_done;
    r.next_ready = -1;
    if (r.chunks_done < plan_->chunks_of(index, parallelism_))
      r.next_ready = fetch(index, r.chunks_done);  // the fetcher starts on the next chunk
    return {chunk.rows, static_cast<std::int32_t>(chunk.table)};
  }
  Batch poll(int index, std::int64_t records, double) override {
    Reader& r = reader(index);
    Batch b{records, Buffer::kAllTables};  // binlog changes of every table
    if (r.phase != CdcPhase::snapshot) return b;
    // The 1.x source reads the tables in one go.
    b.records = std::min(records, total_rows_ - r.chunks_done);
    std::int64_t before = 0;
    for (std::size_t t = 0; t < spec_.tables.size(); ++t) {
      if (r.chunks_done < before + spec_.tables[t].rows) {
        b.table = static_cast<std::int32_t>(t);
        break;
      }
      before += spec_.tables[t].rows;
    }
    r.chunks_done += b.records;
    if (r.chunks_done >= total_rows_) finish_snapshot(index);
    return b;
  }
  bool holds_checkpoint_lock(int index) const override {
    return !spec_.incremental_snapshot && reader(index).phase == CdcPhase::snapshot;
  }
  bool emits_steps_whole() const override { return true; }
  bool reads_ahead_batches() const override { return spec_.incremental_snapshot; }
  const std::vector<std::string>* tables() const override { return &table_names_; }
  std::vector<double> change_shares() const override {
    std::vector<double> rates;
    for (const CdcTableSpec& t : spec_.tables) rates.push_back(t.changes_per_second);
    return rates;
  }
  void snapshot_state(int index, TaskSnapshot& state) const override {
    state.split_phase = static_cast<std::uint8_t>(reader(index).phase);
    state.split_progress = reader(index).chunks_done;
  }
  void explain_wait(int index, bool busy_with_batch, std::int64_t batch_records,
                    SimTime batch_started, WaitState& w) const override {
    if (holds_checkpoint_lock(index)) w.kind = WaitState::Kind::cdc_snapshot_lock;
    if (busy_with_batch) {
      w.chunk_rows = batch_records;  // the trigger waits for the chunk to be emitted
      w.since = batch_started;
    }
  }

 private:
  struct Reader {
    CdcPhase phase = CdcPhase::none;
    std::int64_t chunks_done = 0;  // snapshot chunks (1.x: rows) read
    SimTime next_ready = -1;       // when the fetcher has the next chunk (-1: not fetching)
  };
  Reader& reader(int index) { return readers_[static_cast<std::size_t>(index)]; }
  const Reader& reader(int index) const { return readers_[static_cast<std::size_t>(index)]; }

  // When the split fetcher has read chunk k of reader `index` (MySQL answers after the table is
  // split).
  SimTime fetch(int index, std::int64_t k) {
    const auto chunk = plan_->chunk(CdcChunkPlan::global_index(index, parallelism_, k));
    const SimTime now = ctx_.sim().now();
    return mysql_.profile().finish_time(std::max(now, chunk_available(chunk.table)),
                                        static_cast<double>(chunk.rows),
                                        mysql_.spec().read_rows_per_second);
  }

  SimTime chunk_available(int table) {
    // MySqlSnapshotSplitAssigner.getNext splits the next table when a reader asks for a chunk
    // of it: arithmetically for an evenly distributed key, else one boundary query per chunk,
    // on the enumerator's (SourceCoordinator's) thread (field B4 [C9]).
    SimTime& done = split_done_[static_cast<std::size_t>(table)];
    if (done >= 0) return done;
    const CdcTableSpec& t = spec_.tables[static_cast<std::size_t>(table)];
    const std::int64_t chunks = (t.rows + spec_.chunk_size - 1) / spec_.chunk_size;
    enumerator_free_ = std::max(enumerator_free_, ctx_.sim().now()) +
                       (t.even_key ? 0 : chunks * mysql_.spec().split_query);
    done = enumerator_free_;
    return done;
  }

  void finish_snapshot(int index) {
    Reader& r = reader(index);
    if (r.phase == CdcPhase::snapshot)
      ctx_.connector_event(ConnectorEvent::Kind::cdc_snapshot_finished, vertex_, index);
    r.phase = CdcPhase::snapshot_done;
    for (const Reader& other : readers_)
      if (other.phase == CdcPhase::snapshot) return;  // other readers still reading
    // MySqlSnapshotSplitAssigner: with parallelism 1 the binlog split follows at once;
    // otherwise "received all splits finished, waiting for a complete checkpoint to mark the
    // assigner finished" (field A.2 [C3]); the 1.x source goes straight on to the binlog.
    if (parallelism_ == 1 || !spec_.incremental_snapshot) {
      start_binlog();
      return;
    }
    if (waiting_) return;
    waiting_ = true;
    ctx_.connector_event(ConnectorEvent::Kind::cdc_binlog_waiting, vertex_, 0);
  }

  void start_binlog() {
    waiting_ = false;
    finish_checkpoint_ = -1;
    if (spec_.incremental_snapshot)
      ctx_.connector_event(ConnectorEvent::Kind::cdc_assigner_finished, vertex_, 0, {}, {},
                           parallelism_);
    for (int i = 0; i < parallelism_; ++i) {
      if (ctx_.state(vertex_, i) != ExecutionState::running) continue;
      // One reader holds the binlog split; the others have nothing left to read.
      reader(i).phase = i == 0 ? CdcPhase::binlog : CdcPhase::idle;
      ctx_.restart_step(vertex_, i);
      if (i == 0) {
        ctx_.connector_event(ConnectorEvent::Kind::cdc_binlog_started, vertex_, i);
        if (dialect(spec_.dialect).discovers_after_snapshot) discover_schemas(i);
      }
      ctx_.wake(vertex_, i);
    }
  }

  // The reader that gets the stream split reads every captured table's schema on its task
  // thread (no trigger, barrier or record runs meanwhile).
  void discover_schemas(int index) {
    CostLaw::Inputs in;
    in.tables = static_cast<std::int64_t>(spec_.tables.size());
    const Duration length = spec_.stream_split_discovery.at(in);
    if (length <= 0) return;
    ctx_.run_on_task_thread(vertex_, index, length,
                            std::string(dialect(spec_.dialect).discovery_call) + " (" +
                                spec_.stream_split_discovery.describe(in) + ")",
                            false);  // JDBC reads ignore Thread.interrupt
  }

  ConnectorContext& ctx_;
  int vertex_;
  const CdcSourceSpec& spec_;
  int parallelism_;
  const CdcDatabase& mysql_;
  std::optional<CdcChunkPlan> plan_;
  std::vector<Reader> readers_;
  std::vector<std::string> table_names_;
  std::int64_t total_rows_ = 0;
  // The enumerator: when splitting each table finishes (-1: not split yet), when its thread is
  // free, and the wait for checkpointIdToFinish. The JobManager keeps them across restarts.
  std::vector<SimTime> split_done_;
  SimTime enumerator_free_ = 0;
  bool waiting_ = false;
  std::int64_t finish_checkpoint_ = -1;
};

}  // namespace

void add_cdc_sources(const Scenario& scenario, ConnectorContext& ctx, Connectors& connectors) {
  const auto& vertices = scenario.job.vertices;
  if (std::none_of(vertices.begin(), vertices.end(), [](const VertexSpec& v) { return v.cdc_source.has_value(); }))
    return;
  auto mysql =
      std::make_unique<CdcDatabase>(scenario, scenario.systems.cdc_database.value_or(CdcDatabaseSpec{}));
  for (std::size_t v = 0; v < scenario.job.vertices.size(); ++v)
    if (scenario.job.vertices[v].cdc_source)
      connectors.vertices[v].source =
          std::make_unique<IncrementalSource>(ctx, static_cast<int>(v), *mysql);
  connectors.systems.push_back(std::move(mysql));
}

}  // namespace ckptsim::model
