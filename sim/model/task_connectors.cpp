// The connector side of TaskRuntime: MySQL CDC readers (snapshot chunks, the binlog split and
// the hybrid assigner's wait for a checkpoint) and Doris writers on the task thread
// (field-scenarios.md A.2, A.3; MODEL.md section 9). The connectors' own rules are in
// connectors/mysql_cdc.* and connectors/doris.*; this file ties them to threads and events.
#include <algorithm>
#include <cmath>

#include "sim/model/task_runtime.hpp"

namespace ckptsim::model {

double TaskRuntime::source_rate(const Subtask& s) const {
  const VertexSpec& v = vertex(s);
  if (v.kafka_source && s.kafka_lag >= 1.0)  // behind: as fast as it can fetch
    return std::max(v.kafka_source->fetch_records_per_second,
                    source_rates_[static_cast<std::size_t>(s.vertex)]);
  if (!v.mysql_cdc) return source_rates_[static_cast<std::size_t>(s.vertex)];
  switch (s.cdc_phase) {
    case CdcPhase::binlog: {
      double rate = 0;
      for (const CdcTableSpec& t : v.mysql_cdc->tables) rate += t.changes_per_second;
      return rate;
    }
    case CdcPhase::snapshot:  // the 1.x source reads the snapshot as fast as MySQL answers
      return scenario_.systems.mysql->read_rows_per_second * mysql_profile_.factor_at(sim_.now());
    default: return 0;
  }
}

SimTime TaskRuntime::cdc_chunk_available(int vertex, int table) {
  // MySqlSnapshotSplitAssigner.getNext splits the next table when a reader asks for a chunk of
  // it: arithmetically for an evenly distributed key, else one boundary query per chunk, on the
  // enumerator's (SourceCoordinator's) thread (field B4 [C9]).
  SimTime& done = cdc_split_done_[static_cast<std::size_t>(vertex)][static_cast<std::size_t>(table)];
  if (done >= 0) return done;
  const MySqlCdcSpec& cdc = *scenario_.job.vertices[static_cast<std::size_t>(vertex)].mysql_cdc;
  const CdcTableSpec& t = cdc.tables[static_cast<std::size_t>(table)];
  const std::int64_t chunks = (t.rows + cdc.chunk_size - 1) / cdc.chunk_size;
  SimTime& free = cdc_enumerator_free_[static_cast<std::size_t>(vertex)];
  free = std::max(free, sim_.now()) + (t.even_key ? 0 : chunks * scenario_.systems.mysql->split_query);
  done = free;
  return done;
}

Duration TaskRuntime::cdc_enumerator_busy(int vertex) const {
  return std::max<Duration>(0, cdc_enumerator_free_[static_cast<std::size_t>(vertex)] - sim_.now());
}

void TaskRuntime::connector_event(ConnectorEvent::Kind kind, int id, std::string table,
                                  std::string detail, std::int64_t rows) {
  const Subtask& s = sub(id);
  ConnectorEvent e;
  e.kind = kind;
  e.task = {s.vertex, s.index, s.attempt};
  e.table = std::move(table);
  e.detail = std::move(detail);
  e.rows = rows;
  observer_.connector_event(sim_.now(), e);
}

void TaskRuntime::cdc_start(int id) {
  Subtask& s = sub(id);
  const VertexSpec& v = vertex(s);
  if (!v.mysql_cdc) return;
  const bool fresh = s.cdc_phase == CdcPhase::none;
  if (fresh) s.cdc_phase = fresh_start_phase(*v.mysql_cdc, s.index);
  const std::string how = fresh ? std::string("no restored state, scan.startup.mode=") +
                                      to_string(v.mysql_cdc->startup_mode)
                                : "restored split state (scan.startup.mode is ignored)";
  switch (s.cdc_phase) {
    case CdcPhase::snapshot: {
      std::int64_t left = 0;
      if (v.mysql_cdc->incremental_snapshot) {
        const CdcChunkPlan& plan = *cdc_plans_[static_cast<std::size_t>(s.vertex)];
        const std::int64_t mine = plan.chunks_of(s.index, v.parallelism);
        for (std::int64_t k = s.cdc_chunks_done; k < mine; ++k)
          left += plan.chunk(CdcChunkPlan::global_index(s.index, v.parallelism, k)).rows;
      } else {
        for (const CdcTableSpec& t : v.mysql_cdc->tables) left += t.rows;
        left -= s.cdc_chunks_done;
      }
      connector_event(ConnectorEvent::Kind::cdc_snapshot_started, id, {}, how, left);
      break;
    }
    case CdcPhase::binlog:
      connector_event(ConnectorEvent::Kind::cdc_binlog_started, id, {}, how);
      break;
    case CdcPhase::snapshot_done: cdc_finish_snapshot(id); break;
    default: break;
  }
}

void TaskRuntime::cdc_finish_snapshot(int id) {
  Subtask& s = sub(id);
  const VertexSpec& v = vertex(s);
  if (s.cdc_phase == CdcPhase::snapshot)
    connector_event(ConnectorEvent::Kind::cdc_snapshot_finished, id);
  s.cdc_phase = CdcPhase::snapshot_done;
  const int first = vertex_first_[static_cast<std::size_t>(s.vertex)];
  for (int i = 0; i < v.parallelism; ++i)
    if (sub(first + i).cdc_phase == CdcPhase::snapshot) return;  // other readers still reading
  // MySqlSnapshotSplitAssigner: with parallelism 1 the binlog split follows at once; otherwise
  // "received all splits finished, waiting for a complete checkpoint to mark the assigner
  // finished" (field A.2 [C3]); the 1.x source goes straight on to the binlog.
  if (v.parallelism == 1 || !v.mysql_cdc->incremental_snapshot) {
    cdc_start_binlog(s.vertex);
    return;
  }
  if (cdc_waiting_[static_cast<std::size_t>(s.vertex)]) return;
  cdc_waiting_[static_cast<std::size_t>(s.vertex)] = true;
  connector_event(ConnectorEvent::Kind::cdc_binlog_waiting, first);
}

void TaskRuntime::cdc_start_binlog(int v) {
  cdc_waiting_[static_cast<std::size_t>(v)] = false;
  cdc_finish_checkpoint_[static_cast<std::size_t>(v)] = -1;
  const int first = vertex_first_[static_cast<std::size_t>(v)];
  const VertexSpec& spec = scenario_.job.vertices[static_cast<std::size_t>(v)];
  const int p = spec.parallelism;
  if (spec.mysql_cdc->incremental_snapshot)
    connector_event(ConnectorEvent::Kind::cdc_assigner_finished, first, {}, {}, p);
  for (int i = 0; i < p; ++i) {
    Subtask& s = sub(first + i);
    if (s.state != ExecutionState::running) continue;
    // One reader holds the binlog split; the others have nothing left to read.
    s.cdc_phase = i == 0 ? CdcPhase::binlog : CdcPhase::idle;
    s.busy_since = sim_.now();
    s.fractional_records = 0;
    if (i == 0) connector_event(ConnectorEvent::Kind::cdc_binlog_started, first + i);
    wake(first + i);
  }
}

Duration TaskRuntime::sink_write(int id, const Buffer& b, Duration cpu) {
  DorisWriter& w = *writers_[static_cast<std::size_t>(id)];
  const VertexSpec& v = vertex(sub(id));
  const std::int64_t row_bytes = v.doris->row_bytes;
  const MySqlCdcSpec* cdc = v.mysql_cdc ? &*v.mysql_cdc : nullptr;
  Duration took = 0;
  if (cdc && b.table >= 0) {
    took = w.write(sim_.now(), cdc->tables[static_cast<std::size_t>(b.table)].name,
                   b.records * row_bytes, cpu);
  } else if (cdc && b.table == kAllTables) {
    // Binlog changes spread over the tables by their change rates; the routing function hands
    // each table's rows to its writer, one after the other.
    double total_rate = 0;
    for (const CdcTableSpec& t : cdc->tables) total_rate += t.changes_per_second;
    SimTime t = sim_.now();
    std::int64_t left = b.records;
    for (std::size_t i = 0; i < cdc->tables.size() && left > 0; ++i) {
      const double share = total_rate > 0 ? cdc->tables[i].changes_per_second / total_rate : 0;
      const std::int64_t rows =
          i + 1 == cdc->tables.size()
              ? left
              : std::min(left, static_cast<std::int64_t>(std::llround(share * static_cast<double>(b.records))));
      if (rows <= 0) continue;
      left -= rows;
      const Duration d = w.write(t, cdc->tables[i].name, rows * row_bytes, 0);
      if (d == core::kNever) {
        took = core::kNever;
        break;
      }
      t += d;
    }
    if (took != core::kNever) took = std::max(cpu, t - sim_.now());
  } else {
    took = w.write(sim_.now(), v.doris->table, b.records * row_bytes, cpu);
  }
  watch_doris_failure(id);
  return took;
}

void TaskRuntime::watch_doris_failure(int id) {
  auto failure = writers_[static_cast<std::size_t>(id)]->take_failure();
  if (!failure) return;
  const SimTime at = std::max(sim_.now(), failure->at);
  doris_failures_.push_back({arg(id), *failure});
  sim_.schedule_at(at, this, kDorisLoadFailed, doris_failures_.size() - 1);
}

void TaskRuntime::system_action(const TimelineAction& a) {
  if (!doris_ || a.system != doris_->spec().name) return;
  const auto fail_loads_of = [&](const std::string& table) {
    for (std::size_t i = 0; i < writers_.size(); ++i) {
      if (!writers_[i] || subtasks_[i].state != ExecutionState::running) continue;
      writers_[i]->table_dropped(sim_.now(), table);
      watch_doris_failure(static_cast<int>(i));
    }
  };
  switch (a.kind) {
    case ActionKind::reject_load:
      doris_->reject_next_loads(a.table, a.count,
                                a.error.empty() ? "[INTERNAL_ERROR]cancelled: closed" : a.error);
      break;
    case ActionKind::create_table: doris_->create_table(a.table); break;
    case ActionKind::drop_table:
      doris_->drop_table(a.table);
      fail_loads_of(a.table);
      break;
    case ActionKind::rename_table:
      doris_->rename_table(a.table, a.to_table);
      fail_loads_of(a.table);
      break;
    case ActionKind::swap_table:
      // create table_tmp; insert into table_tmp select * from table; drop table; rename: the
      // table is back under its name as one compacted version.
      doris_->drop_table(a.table);
      fail_loads_of(a.table);
      doris_->create_table(a.table);
      break;
    case ActionKind::drop_database: {
      std::vector<std::string> tables;
      for (std::size_t i = 0; i < writers_.size(); ++i) {
        const VertexSpec& v = vertex(subtasks_[i]);
        if (!writers_[i]) continue;
        if (v.mysql_cdc)
          for (const CdcTableSpec& t : v.mysql_cdc->tables) tables.push_back(t.name);
        else
          tables.push_back(v.doris->table);
      }
      doris_->drop_database();
      for (const std::string& t : tables) fail_loads_of(t);
      break;
    }
    default: break;
  }
}

void TaskRuntime::job_submitted() {
  // The whole-database sync tool creates the Doris tables that do not exist before it submits
  // the job (DatabaseSync.create, field A.1 [D3]).
  if (!doris_) return;
  for (std::size_t i = 0; i < writers_.size(); ++i) {
    if (!writers_[i]) continue;
    const VertexSpec& v = vertex(subtasks_[i]);
    if (v.mysql_cdc)
      for (const CdcTableSpec& t : v.mysql_cdc->tables) doris_->create_table(t.name);
    else
      doris_->create_table(v.doris->table);
  }
}

bool TaskRuntime::sink_wait_state(const Subtask& s, int id, WaitState& w) const {
  const auto& writer = writers_[static_cast<std::size_t>(id)];
  if (!writer || !s.busy) return false;
  const DorisWriter::Blocked& b = writer->blocked();
  if (b.call == DorisWriter::Blocked::Call::none) return false;
  if (b.until != core::kNever && b.until <= sim_.now()) return false;
  w.kind = b.call == DorisWriter::Blocked::Call::write ? WaitState::Kind::sink_write
                                                         : WaitState::Kind::sink_stop_load;
  w.table = b.table;
  w.since = b.since;
  w.until = b.until;
  w.bytes_ahead = b.bytes_left;
  w.drain_bytes_per_second = b.rate;
  if (const auto& f = writer->first_failure(); f && f->at <= sim_.now()) {
    w.failed_at = f->at;
    w.error = f->error;
    w.table = f->table;
  }
  if (s.processing.kind == Buffer::Kind::data && vertex(s).mysql_cdc &&
      vertex(s).mysql_cdc->incremental_snapshot)
    w.chunk_rows = s.processing.records;
  return true;
}

std::optional<std::pair<std::string, std::string>> TaskRuntime::connector_init_failure(
    int id) const {
  const Subtask& s = sub(id);
  const VertexSpec& v = vertex(s);
  // KafkaWriter's transactional producer: initTransactions asks the broker for a producer id
  // with its transaction.timeout.ms, which must not exceed transaction.max.timeout.ms (B9).
  if (kafka_[static_cast<std::size_t>(id)] && scenario_.systems.kafka &&
      v.kafka_sink->transaction_timeout > scenario_.systems.kafka->transaction_max_timeout)
    return std::pair<std::string, std::string>{
        "org.apache.kafka.common.KafkaException",
        "Unexpected error in InitProducerIdResponse; The transaction timeout is larger than the "
        "maximum value allowed by the broker (as configured by transaction.max.timeout.ms)."};
  // DorisWriter.initializeLoad with 2PC: abortPreCommit probes the label of the first
  // checkpoint this attempt will write (restored id + 1); one Doris still remembers as a
  // finished load means another run already used this prefix (field A.5, label collisions).
  const auto& writer = writers_[static_cast<std::size_t>(id)];
  if (writer && v.doris->two_phase_commit()) {
    std::vector<std::string> tables;
    if (v.mysql_cdc)
      for (const CdcTableSpec& t : v.mysql_cdc->tables) tables.push_back(t.name);
    else
      tables.push_back(v.doris->table);
    for (const std::string& t : tables)
      if (doris_->label_used(sim_.now(), writer->label(t, s.index, s.restored_checkpoint + 1)))
        return std::pair<std::string, std::string>{
            "org.apache.doris.flink.exception.DorisException",
            "Load status is Label Already Exists and load job finished, change you label prefix "
            "or restore from latest savepoint!"};
  }
  return std::nullopt;
}

void TaskRuntime::kafka_initialize(int id, const TaskSnapshot* restored) {
  auto& k = kafka_[static_cast<std::size_t>(id)];
  if (!k) return;
  // A new attempt: the open transaction of the old one was aborted (its records are replayed);
  // KafkaCommitter commits the restored committables again, which the broker refuses for those
  // it aborted in the meantime.
  k.emplace(k->timeout());
  if (!restored) return;
  std::vector<KafkaTxn> pending;
  for (const KafkaTxn& t : restored->kafka_committables)
    if (t.checkpoint > kafka_committed_[static_cast<std::size_t>(id)]) pending.push_back(t);
  if (pending.empty()) return;
  const std::int64_t newest = pending.back().checkpoint;
  k->restore(std::move(pending));
  kafka_commit(id, newest);
}

void TaskRuntime::kafka_commit(int id, std::int64_t checkpoint) {
  auto& k = kafka_[static_cast<std::size_t>(id)];
  if (!k) return;
  const bool restoring = sub(id).state != ExecutionState::running;
  for (const KafkaTransactions::Outcome& o : k->commit(sim_.now(), checkpoint)) {
    auto& committed = kafka_committed_[static_cast<std::size_t>(id)];
    committed = std::max(committed, o.txn.checkpoint);
    const std::string detail =
        "transaction of checkpoint " + std::to_string(o.txn.checkpoint) + " open for " +
        std::to_string(core::to_millis(o.open_for)) + " ms, transaction.timeout.ms " +
        std::to_string(core::to_millis(k->timeout()));
    if (o.lost)
      connector_event(ConnectorEvent::Kind::kafka_txn_lost, id, vertex(sub(id)).kafka_sink->topic,
                      detail, o.txn.records);
    else if (restoring)
      connector_event(ConnectorEvent::Kind::kafka_txn_recommitted, id,
                      vertex(sub(id)).kafka_sink->topic, detail, o.txn.records);
  }
}

double TaskRuntime::kafka_start_lag(const Subtask& old, const CompletedCheckpoint* restored) const {
  const VertexSpec& v = vertex(old);
  if (!v.kafka_source || has_no_partition(old)) return 0;
  if (old.attempt < 0 && !restored) {
    if (v.kafka_source->startup == KafkaStartup::latest_offset) return 0;
    const int readers = v.partitions > 0 ? std::min(v.partitions, v.parallelism) : v.parallelism;
    return static_cast<double>(v.kafka_source->lag) / readers;
  }
  double lag = old.kafka_lag;
  if (old.attempt >= 0) {  // a restart: downtime and the replay since the checkpoint
    lag += source_rates_[static_cast<std::size_t>(old.vertex)] *
           static_cast<double>(sim_.now() - old.left_running) / 1e9;
    std::int64_t restored_position = 0;
    if (restored)
      if (auto it = restored->task_states.find({old.vertex, old.index});
          it != restored->task_states.end())
        restored_position = it->second.source_position;
    lag += static_cast<double>(std::max<std::int64_t>(0, old.position - restored_position));
  }
  return lag;
}

bool TaskRuntime::has_no_partition(const Subtask& s) const {
  const VertexSpec& v = vertex(s);
  return is_source(s) && !v.mysql_cdc && v.partitions > 0 && s.index >= v.partitions;
}

void TaskRuntime::finish_source(int id) {
  // The SourceFunction's run() returned: the task emits EndOfPartition on every output and
  // FINISHES. Its consumers count the channel as ended (they still read the other channels).
  Subtask& s = sub(id);
  set_state(s, ExecutionState::finished);
  for (const OutputGroup& g : s.outputs)
    for (int c : g.channels) {
      Channel& ch = chan(c);
      if (ch.finished) continue;
      ch.finished = true;
      ++sub(ch.consumer).finished_inputs;
      end_of_partition(c);
    }
}

// ---------------------------------------------------------------------------------------------
// Timeline operations on tasks

void TaskRuntime::stall_taskmanager(int tm, SimTime from, Duration length) {
  for (const Subtask& s : subtasks_)
    if (s.taskmanager == tm) add_stall(s.vertex, s.index, from, length);
}

std::optional<TaskRef> TaskRuntime::first_task_on(int tm) const {
  for (const Subtask& s : subtasks_)
    if (s.taskmanager == tm) return TaskRef{s.vertex, s.index, s.attempt};
  return std::nullopt;
}

void TaskRuntime::set_source_rate(int v, double records_per_second) {
  source_rates_[static_cast<std::size_t>(v)] = std::max(0.0, records_per_second);
  const int first = vertex_first_[static_cast<std::size_t>(v)];
  for (int i = 0; i < scenario_.job.vertices[static_cast<std::size_t>(v)].parallelism; ++i)
    wake(first + i);
}

void TaskRuntime::run_long_mail(int id, Duration length) {
  // The mail runs after the step in progress and holds the thread for its duration.
  Subtask& s = sub(id);
  s.mail_busy_until = std::max(sim_.now(), s.mail_busy_until) + length;
  update_thread_state(s);
  sim_.schedule_at(s.mail_busy_until, this, kWake, arg(id));
}

void TaskRuntime::fire_timers(int v, std::int64_t count, Duration cost) {
  const int first = vertex_first_[static_cast<std::size_t>(v)];
  for (int i = 0; i < scenario_.job.vertices[static_cast<std::size_t>(v)].parallelism; ++i)
    if (sub(first + i).state == ExecutionState::running) run_long_mail(first + i, count * cost);
}

void TaskRuntime::hold_checkpoint_lock(int v, std::optional<Duration> length) {
  // A legacy source entering a branch that takes the checkpoint lock (DebeziumChangeConsumer's
  // snapshot branch, field B2): triggers wait until it lets go.
  const int first = vertex_first_[static_cast<std::size_t>(v)];
  for (int i = 0; i < scenario_.job.vertices[static_cast<std::size_t>(v)].parallelism; ++i) {
    Subtask& s = sub(first + i);
    if (length)
      s.lock_held_until = sim_.now() + *length;
    else
      s.lock_until_record = true;
  }
  if (length) sim_.schedule_in(*length, this, kStallEnds, static_cast<std::uint64_t>(v));
}

}  // namespace ckptsim::model
