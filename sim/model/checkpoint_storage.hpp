// Checkpoint storage as a shared resource: every upload first pays a request latency drawn from
// the storage's distribution (nothing for state inlined into the acknowledgement), then
// all uploads in flight share the bandwidth equally (processor sharing), so concurrent
// snapshots of many subtasks slow each other down (MODEL.md section 5).
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/core/simulation.hpp"
#include "sim/model/config.hpp"

namespace ckptsim::model {

class CheckpointStorage final : public core::EventHandler {
 public:
  class Listener {
   public:
    virtual ~Listener() = default;
    virtual void upload_finished(std::uint64_t token) = 0;
  };

  CheckpointStorage(core::Simulation& sim, CheckpointStorageSpec spec, Listener& listener,
                    core::RandomStream rng)
      : sim_(sim), spec_(std::move(spec)), listener_(listener), rng_(rng) {}

  // `request`: false when the state is inlined (no request to the storage, no bytes to it);
  // `extra`: time the snapshot thread spends before the request (the first checkpoint's warm-up).
  void start_upload(std::int64_t bytes, std::uint64_t token, bool request, Duration extra);
  // Drops every upload (the tasks that started them are gone), or those whose token `drop`
  // picks (the tasks of a restarting region).
  void cancel_all();
  void cancel_if(const std::function<bool(std::uint64_t token)>& drop);
  int uploads_in_flight() const { return static_cast<int>(active_.size()); }
  // Bytes an upload still has to transfer (0 if unknown or done).
  std::int64_t remaining_bytes(std::uint64_t token) const;
  double bandwidth_per_upload() const;

  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  // Uploads share the storage's bandwidth, not the network's or a task thread.
  bool quiet(std::uint32_t) const override { return true; }

 private:
  enum Event : std::uint32_t { kLatencyDone, kFinish };
  struct Upload {
    std::uint64_t token = 0;
    double remaining = 0;
    bool cancelled = false;  // while paying the latency
  };
  void advance();
  void reschedule();

  core::Simulation& sim_;
  CheckpointStorageSpec spec_;
  Listener& listener_;
  core::RandomStream rng_;
  std::vector<Upload> waiting_;   // paying the latency, indexed by the event argument
  std::vector<Upload> active_;    // sharing the bandwidth, in start order
  SimTime last_update_ = 0;
  core::EventId next_finish_;
  std::uint32_t generation_ = 0;
};

}  // namespace ckptsim::model
