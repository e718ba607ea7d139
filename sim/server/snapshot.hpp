// What `ckptsim serve` answers from at one instant: an immutable snapshot of the run, published
// by the simulation thread and read by the request handlers, which never see it change.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sim/model/config.hpp"
#include "sim/run/live_run.hpp"
#include "sim/run/result.hpp"

namespace ckptsim::server {

// An asynchronous operation asked through the REST API (savepoint, stop, checkpoint, cancel),
// under Flink's trigger id.
struct Operation {
  std::string trigger_id;
  model::ActionKind kind = model::ActionKind::trigger_savepoint;
  run::OperationStatus status;
};

struct Snapshot {
  run::RunResult result;                         // end_time is the instant
  std::map<std::string, Operation> operations;   // by trigger id
  bool finished = false;                         // the scenario's duration is over
};

// The latest snapshot, swapped whole under a short lock.
class SnapshotStore {
 public:
  void publish(std::shared_ptr<const Snapshot> s) {
    std::lock_guard lock(mutex_);
    latest_ = std::move(s);
  }
  std::shared_ptr<const Snapshot> latest() const {
    std::lock_guard lock(mutex_);
    return latest_;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Snapshot> latest_;
};

// Requests made through the REST API wait here for the simulation thread.
struct PendingRequest {
  std::string trigger_id;
  model::TimelineAction action;
};

class RequestQueue {
 public:
  void push(PendingRequest r) {
    std::lock_guard lock(mutex_);
    known_[r.trigger_id] = r.action.kind;
    pending_.push_back(std::move(r));
  }
  std::vector<PendingRequest> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(pending_, {});
  }
  // The operation kind of a trigger id the API handed out (whether or not it ran yet).
  std::optional<model::ActionKind> known(const std::string& trigger_id) const {
    std::lock_guard lock(mutex_);
    const auto it = known_.find(trigger_id);
    if (it == known_.end()) return std::nullopt;
    return it->second;
  }
  std::uint64_t next_number() {
    std::lock_guard lock(mutex_);
    return ++issued_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<PendingRequest> pending_;
  std::map<std::string, model::ActionKind> known_;
  std::uint64_t issued_ = 0;
};

}  // namespace ckptsim::server
