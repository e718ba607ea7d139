// Doris as stream loads see it, and the DorisWriter of doris-flink-connector 1.6.1
// (reference/field-scenarios.md A.3). Pure functions of simulated time: the TaskExecutor asks
// how long a call takes and schedules the events itself.
//
// One stream load per (table, subtask, checkpoint interval): it opens with the first row of the
// interval, its body is fed through a RecordBuffer of sink.buffer-count x sink.buffer-size
// that Doris drains at its ingest rate, and a full RecordBuffer blocks the task thread in
// writeQueue.take(). prepareCommit (prepareSnapshotPreBarrier) stops every open load in turn:
// the rest of the body drains, then Doris finalizes the load (pendingLoadFuture.get()).
// A load that Doris rejects or cancels ends its HTTP thread: its buffer drains no more, so the
// writer parks for ever once the buffer is full or at stopLoad, unless the checker thread
// (sink.check-interval > 1000 ms) notices and fails the task.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/model/connectors/service_profile.hpp"
#include "sim/model/connectors/specs.hpp"

namespace ckptsim::model {

using core::Duration;
using core::SimTime;

// The Doris cluster's database: tables, running transactions, tablet versions, faults.
class DorisSystem {
 public:
  explicit DorisSystem(const DorisSystemSpec& spec, ServiceProfile profile = {});
  const DorisSystemSpec& spec() const { return spec_; }
  ServiceProfile& profile() { return profile_; }
  const ServiceProfile& profile() const { return profile_; }

  // A stream load of `table` begins at `now`: "" when admitted (its transaction is running),
  // else the error Doris answers with.
  std::string begin_load(SimTime now, const std::string& table);
  void end_txn() { --running_txns_; }
  void add_version(SimTime now, const std::string& table);
  int versions(SimTime now, const std::string& table) const;
  int running_txns() const { return running_txns_ + spec_.other_running_txns; }

  // Timeline operations.
  void reject_next_loads(const std::string& table, int count, std::string error);
  void create_table(const std::string& table);
  void drop_table(const std::string& table);
  void rename_table(const std::string& from, const std::string& to);
  void drop_database();
  bool table_exists(const std::string& table) const;
  // Labels of precommitted (2PC) loads; Doris keeps a finished load's label for
  // streaming_label_keep_max_second.
  void use_label(SimTime now, const std::string& label) { labels_[label] = now; }
  bool label_used(SimTime now, const std::string& label) const;

 private:
  struct Table {
    double versions = 1;
    SimTime at = 0;          // when `versions` was last brought up to date
  };
  void compact(Table& t, SimTime now) const;

  DorisSystemSpec spec_;
  ServiceProfile profile_;
  std::map<std::string, Table> tables_;
  int running_txns_ = 0;
  std::map<std::string, std::pair<int, std::string>> rejections_;  // table -> (count, error)
  std::map<std::string, SimTime> labels_;  // label -> when its load finished
};

class DorisWriter {
 public:
  DorisWriter(const DorisSinkSpec& spec, DorisSystem& doris, int subtask);

  // Why a load failed; the writer learns of it only through the checker thread.
  struct Failure {
    std::string table;
    SimTime at = 0;
    std::string error;
    std::int64_t checkpoint = -1;    // the checkpoint whose prepareCommit found it (-1: none)
  };
  // Where the task thread is stuck in the writer, for the diagnosis.
  struct Blocked {
    enum class Call { none, write, stop_load } call = Call::none;
    std::string table;
    SimTime since = 0;
    SimTime until = core::kNever;    // kNever: it never returns
    std::int64_t bytes_left = 0;     // buffered bytes Doris still has to take
    double rate = 0;                 // bytes/s Doris takes from this load now
  };

  // The thread writes `bytes` of rows of `table` at `now` (its own CPU work takes `cpu`):
  // how long the call takes, kNever if it never returns.
  Duration write(SimTime now, const std::string& table, std::int64_t bytes, Duration cpu);
  // prepareCommit for checkpoint `id` at `now`: stopLoad of every open load in the order they
  // opened. How long it takes (kNever: it parks for ever), or the DorisRuntimeException it
  // throws when a failed load's answer reaches it.
  struct Prepared {
    Duration took = 0;
    std::optional<Failure> thrown;
  };
  Prepared prepare_commit(SimTime now, std::int64_t id);
  // notifyCheckpointComplete: the committer commits the precommitted transactions (2PC).
  void commit(SimTime now, std::int64_t id);
  // The task is cancelled: open loads and precommitted transactions are aborted.
  void abort_all();
  // A table was dropped under an open load: the load fails.
  void table_dropped(SimTime now, const std::string& table);

  // The earliest failure not yet reported (the checker's view), and marks it reported.
  std::optional<Failure> take_failure();
  const std::optional<Failure>& first_failure() const { return first_failure_; }
  const Blocked& blocked() const { return blocked_; }
  // Label of the load of `table` for checkpoint `id` (DorisStreamLoad: prefix_db_table_subtask_id).
  std::string label(const std::string& table, int subtask, std::int64_t id) const;
  int open_loads() const;

 private:
  struct Load {
    std::string table;
    bool open = false;
    bool failed = false;
    std::string error;           // Doris's answer when it failed
    std::int64_t buffered = 0;   // bytes in the RecordBuffer as of `since`
    std::int64_t sent = 0;       // bytes Doris accepted
    SimTime since = 0;
  };
  double rate() const { return doris_.spec().ingest_bytes_per_second; }
  Load& load(const std::string& table);
  void open(Load& l, SimTime now);
  void fail(Load& l, SimTime at, std::string error);
  // Brings a load up to `now` (its buffer drains while the thread does other things).
  void advance(Load& l, SimTime now);
  // Drains `bytes` more of `l` from `from`; returns when, or kNever (stall, or Doris cancels
  // the load on the way).
  SimTime drain(Load& l, SimTime from, std::int64_t bytes);

  DorisSinkSpec spec_;
  DorisSystem& doris_;
  int subtask_ = 0;
  std::vector<Load> loads_;                 // this interval's loads, in opening order
  std::vector<std::pair<std::int64_t, int>> precommitted_;  // (checkpoint, transactions)
  std::optional<Failure> first_failure_;
  bool failure_reported_ = false;
  Blocked blocked_;
};

}  // namespace ckptsim::model
