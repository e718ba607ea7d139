// Doris stream loads and the 1.6.1 DorisWriter (see doris.hpp). Sources read for each rule:
// DorisWriter.write/prepareCommit, DorisStreamLoad.writeRecord/stopLoad, RecordBuffer.write
// (doris-flink-connector 1.6.1, field-scenarios.md A.3 [D5][D6][D7][D8][D13]).
#include "sim/model/connectors/doris/doris_system.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace ckptsim::model {

// ---------------------------------------------------------------------------------------------
// DorisSystem

DorisSystem::DorisSystem(const DorisSystemSpec& spec, ServiceProfile profile)
    : spec_(spec), profile_(std::move(profile)) {
  for (const std::string& t : spec_.tables)
    tables_[t] = Table{static_cast<double>(std::max(1, spec_.initial_versions)), 0};
}

void DorisSystem::compact(Table& t, SimTime now) const {
  // Cumulative compaction merges versions in the background at a steady rate (down to one).
  if (now <= t.at) return;
  t.versions = std::max(1.0, t.versions - spec_.compaction_versions_per_second *
                                              static_cast<double>(now - t.at) / 1e9);
  t.at = now;
}

std::string DorisSystem::begin_load(SimTime now, const std::string& table) {
  auto it = tables_.find(table);
  if (it == tables_.end())  // the load is addressed by db/table name (DorisStreamLoad.loadUrl)
    return "errCode = 7, detailMessage = unknown table, tableName=" + table;
  if (auto r = rejections_.find(table); r != rejections_.end() && r->second.first > 0) {
    std::string error = r->second.second;
    if (--r->second.first == 0) rejections_.erase(r);
    return error;
  }
  // FE DatabaseTransactionMgr.checkRunningTxnExceedLimit.
  if (running_txns() >= spec_.max_running_txn_num_per_db)
    return "current running txns on db " + spec_.database + " is " +
           std::to_string(running_txns()) + ", larger than limit " +
           std::to_string(spec_.max_running_txn_num_per_db);
  Table& t = it->second;
  compact(t, now);
  // BE: a tablet with max_tablet_version_num versions refuses new rowsets (err=-235).
  const auto versions = static_cast<int>(std::ceil(t.versions - 1e-9));
  if (versions >= spec_.max_tablet_version_num)
    return "[E-235]failed to init rowset builder. version count: " + std::to_string(versions + 1) +
           ", exceed limit: " + std::to_string(spec_.max_tablet_version_num) + ", table: " + table;
  ++running_txns_;
  return {};
}

void DorisSystem::add_version(SimTime now, const std::string& table) {
  auto it = tables_.find(table);
  if (it == tables_.end()) return;
  compact(it->second, now);
  it->second.versions += 1;
}

int DorisSystem::versions(SimTime now, const std::string& table) const {
  auto it = tables_.find(table);
  if (it == tables_.end()) return 0;
  Table t = it->second;
  compact(t, now);
  return static_cast<int>(std::ceil(t.versions - 1e-9));
}

void DorisSystem::reject_next_loads(const std::string& table, int count, std::string error) {
  rejections_[table] = {count, std::move(error)};
}

void DorisSystem::create_table(const std::string& table) {
  tables_.try_emplace(table, Table{1.0, 0});
}

void DorisSystem::drop_table(const std::string& table) { tables_.erase(table); }

void DorisSystem::rename_table(const std::string& from, const std::string& to) {
  auto it = tables_.find(from);
  if (it == tables_.end()) return;
  Table t = it->second;
  tables_.erase(it);
  tables_[to] = t;
}

void DorisSystem::drop_database() {
  labels_.clear();  // a recreated database is a new database id: no labels
  // DROP DATABASE ... FORCE: tables and the database's transactions and labels are gone.
  tables_.clear();
  rejections_.clear();
}

bool DorisSystem::table_exists(const std::string& table) const { return tables_.count(table) > 0; }

// ---------------------------------------------------------------------------------------------
// DorisWriter

DorisWriter::DorisWriter(const DorisSinkSpec& spec, DorisSystem& doris, int subtask)
    : spec_(spec), doris_(doris), subtask_(subtask) {}

bool DorisSystem::label_used(SimTime now, const std::string& label) const {
  const auto it = labels_.find(label);
  return it != labels_.end() && now - it->second < spec_.label_retention;
}

DorisWriter::Load& DorisWriter::load(const std::string& table) {
  for (Load& l : loads_)
    if (l.table == table) return l;
  Load fresh;
  fresh.table = table;
  loads_.push_back(std::move(fresh));
  return loads_.back();
}

int DorisWriter::open_loads() const {
  return static_cast<int>(std::count_if(loads_.begin(), loads_.end(),
                                        [](const Load& l) { return l.open && !l.failed; }));
}

std::string DorisWriter::label(const std::string& table, int subtask, std::int64_t id) const {
  // LabelGenerator.generateTableLabel: {prefix}_{db}_{table}_{subtask}_{checkpointId}, plus a
  // UUID when 2PC is off (not shown: it is random).
  std::string t = table;
  std::replace(t.begin(), t.end(), '.', '_');
  return spec_.label_prefix + "_" + t + "_" + std::to_string(subtask) + "_" + std::to_string(id);
}

void DorisWriter::open(Load& l, SimTime now) {
  l.open = true;
  l.failed = false;
  l.buffered = l.sent = 0;
  l.since = now;
  std::string error = doris_.begin_load(now, l.table);
  if (!error.empty()) {
    l.open = false;  // no transaction was begun
    fail(l, now, std::move(error));
  }
}

void DorisWriter::fail(Load& l, SimTime at, std::string error) {
  if (l.open) doris_.end_txn();  // Doris aborts the load's transaction
  l.open = true;                 // the writer still believes it is loading
  l.failed = true;
  l.error = error;
  l.since = at;
  if (!first_failure_ || at < first_failure_->at) {
    first_failure_ = Failure{l.table, at, std::move(error)};
    failure_reported_ = false;
  }
}

void DorisWriter::advance(Load& l, SimTime now) {
  if (!l.open || l.failed || now <= l.since) return;
  const double accepted = doris_.profile().amount(l.since, now, rate());
  const std::int64_t take = std::min(l.buffered, static_cast<std::int64_t>(accepted));
  drain(l, l.since, take);
  if (!l.failed) l.since = now;
}

SimTime DorisWriter::drain(Load& l, SimTime from, std::int64_t bytes) {
  const std::int64_t limit = doris_.spec().max_load_bytes;
  if (limit > 0 && l.sent + bytes > limit) {
    // Doris cancels the load when it grows past its limit: the HTTP thread ends there.
    const std::int64_t ok = std::max<std::int64_t>(0, limit - l.sent);
    const SimTime at = doris_.profile().finish_time(from, static_cast<double>(ok), rate());
    l.sent += ok;
    l.buffered -= ok;
    if (at != core::kNever) fail(l, at, "[INTERNAL_ERROR]cancelled: closed");
    return core::kNever;
  }
  const SimTime done = doris_.profile().finish_time(from, static_cast<double>(bytes), rate());
  if (done == core::kNever) return done;
  l.sent += bytes;
  l.buffered -= bytes;
  return done;
}

Duration DorisWriter::write(SimTime now, const std::string& table, std::int64_t bytes,
                            Duration cpu) {
  Load& l = load(table);
  advance(l, now);
  if (!l.open) open(l, now);
  const std::int64_t capacity = spec_.buffer_capacity();
  const std::int64_t need = l.buffered + bytes - capacity;  // bytes Doris must take first
  blocked_ = Blocked{Blocked::Call::write, table, now, core::kNever, 0, 0};
  if (need <= 0) {
    l.buffered += bytes;
    blocked_.call = Blocked::Call::none;
    return cpu;
  }
  if (l.failed) {
    // RecordBuffer.write: writeQueue.take() waits for a buffer the dead HTTP thread never
    // returns (field A.5 chain 2).
    l.buffered = capacity;
    blocked_.bytes_left = need;
    return core::kNever;
  }
  l.buffered += bytes;  // what does not fit waits in the thread's hands until Doris takes it
  const SimTime done = drain(l, now, need);
  blocked_.bytes_left = need;
  blocked_.rate = rate() * doris_.profile().factor_at(now);
  if (done == core::kNever) return core::kNever;
  l.since = done;
  blocked_.until = done;
  return std::max(cpu, done - now);
}

DorisWriter::Prepared DorisWriter::prepare_commit(SimTime now, std::int64_t id) {
  // DorisWriter.prepareCommit: for every table with data in the interval, stopLoad() closes the
  // body and waits for Doris's answer (pendingLoadFuture.get()), one after the other.
  SimTime t = now;
  int committed = 0;
  for (Load& l : loads_) {
    if (!l.open) continue;
    advance(l, t);
    blocked_ = Blocked{Blocked::Call::stop_load, l.table, t, core::kNever, l.buffered,
                       rate() * doris_.profile().factor_at(t)};
    if (l.failed) {
      // With every buffer full, stopLoad's end-of-input marker waits for a buffer the dead
      // HTTP thread never returns: it parks for ever (field A.5 chain 2, [D14]). With room
      // left, the marker goes in, pendingLoadFuture.get() returns the failed answer and
      // prepareCommit throws (DorisWriter.prepareCommit, field B7 [D5]).
      if (l.buffered >= spec_.buffer_capacity()) return {core::kNever, {}};
      // The loads stopped before it are precommitted (2PC) or finished: the abort on cancel
      // must not end their transactions twice.
      if (committed > 0) precommitted_.emplace_back(id, committed);
      blocked_ = Blocked{};
      return {t - now, Failure{l.table, l.since, l.error}};
    }
    const SimTime drained = drain(l, t, l.buffered);
    if (drained == core::kNever) return {core::kNever, {}};
    // The load's finalization (memtable flush, commit, publish) runs at Doris's pace too.
    const SimTime answered = doris_.profile().finish_time(
        drained, static_cast<double>(doris_.spec().load_finalize), 1e9);
    if (answered == core::kNever) return {core::kNever, {}};
    t = answered;
    l.open = false;
    if (spec_.two_phase_commit()) {
      ++committed;  // precommitted: the transaction runs until the committer commits it
      doris_.use_label(t, label(l.table, subtask_, id));
    } else {
      doris_.end_txn();
      doris_.add_version(t, l.table);
    }
  }
  if (committed > 0) precommitted_.emplace_back(id, committed);
  loads_.clear();
  blocked_ = Blocked{};
  return {t - now, {}};
}

void DorisWriter::commit(SimTime now, std::int64_t id) {
  // DorisCommitter commits every committable of checkpoints up to `id` (_stream_load_2pc).
  auto it = precommitted_.begin();
  while (it != precommitted_.end() && it->first <= id) {
    for (int i = 0; i < it->second; ++i) doris_.end_txn();
    ++it;
  }
  precommitted_.erase(precommitted_.begin(), it);
  (void)now;
}

void DorisWriter::abort_all() {
  for (Load& l : loads_)
    if (l.open && !l.failed) doris_.end_txn();
  // DorisWriter.abortLingeringTransactions on the next start aborts what was precommitted.
  for (const auto& p : precommitted_)
    for (int i = 0; i < p.second; ++i) doris_.end_txn();
  precommitted_.clear();
  loads_.clear();
  blocked_ = Blocked{};
  first_failure_.reset();
  failure_reported_ = false;
}

void DorisWriter::table_dropped(SimTime now, const std::string& table) {
  for (Load& l : loads_)
    if (l.table == table && l.open && !l.failed) {
      advance(l, now);
      if (!l.failed) fail(l, now, "errCode = 7, detailMessage = unknown table, tableName=" + table);
    }
}

std::optional<DorisWriter::Failure> DorisWriter::take_failure() {
  if (!first_failure_ || failure_reported_) return std::nullopt;
  failure_reported_ = true;
  return first_failure_;
}

}  // namespace ckptsim::model
