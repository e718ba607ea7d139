// Processor sharing over the uploads in flight: between two changes every active upload moves
// bandwidth / n bytes per second; the next change is the earliest finish or a new upload.
#include "sim/model/checkpoint_storage.hpp"

#include <algorithm>
#include <cmath>

namespace ckptsim::model {

double CheckpointStorage::bandwidth_per_upload() const {
  const double b = std::max(1.0, spec_.bandwidth_bytes_per_second);
  return active_.empty() ? b : b / static_cast<double>(active_.size());
}

void CheckpointStorage::start_upload(std::int64_t bytes, std::uint64_t token, bool request,
                                     Duration extra) {
  waiting_.push_back({token, request ? static_cast<double>(std::max<std::int64_t>(0, bytes)) : 0});
  const std::uint64_t index = waiting_.size() - 1;
  const Duration latency = (request ? spec_.latency.sample(rng_) : 0) + extra;
  sim_.schedule_in(latency, this, kLatencyDone,
                   (static_cast<std::uint64_t>(generation_) << 40) | index);
}

void CheckpointStorage::cancel_all() {
  ++generation_;
  active_.clear();
  sim_.cancel(next_finish_);
}

void CheckpointStorage::cancel_if(const std::function<bool(std::uint64_t)>& drop) {
  advance();
  for (Upload& u : waiting_)
    if (drop(u.token)) u.cancelled = true;
  active_.erase(std::remove_if(active_.begin(), active_.end(),
                               [&](const Upload& u) { return drop(u.token); }),
                active_.end());
  reschedule();  // the others share the bandwidth the dropped ones used
}

std::int64_t CheckpointStorage::remaining_bytes(std::uint64_t token) const {
  const double elapsed = static_cast<double>(sim_.now() - last_update_) / 1e9;
  for (const Upload& u : active_)
    if (u.token == token)
      return static_cast<std::int64_t>(std::max(0.0, u.remaining - elapsed * bandwidth_per_upload()));
  return 0;
}

void CheckpointStorage::advance() {
  const double elapsed = static_cast<double>(sim_.now() - last_update_) / 1e9;
  last_update_ = sim_.now();
  if (active_.empty() || elapsed <= 0) return;
  const double moved = elapsed * bandwidth_per_upload();
  for (Upload& u : active_) u.remaining -= moved;
}

void CheckpointStorage::reschedule() {
  sim_.cancel(next_finish_);
  if (active_.empty()) return;
  double least = active_.front().remaining;
  for (const Upload& u : active_) least = std::min(least, u.remaining);
  const double seconds = std::max(0.0, least) / bandwidth_per_upload();
  next_finish_ = sim_.schedule_in(static_cast<Duration>(std::ceil(seconds * 1e9)), this, kFinish);
}

void CheckpointStorage::on_event(std::uint32_t kind, std::uint64_t arg) {
  advance();
  if (kind == kLatencyDone) {
    if ((arg >> 40) != generation_) return;
    const Upload& u = waiting_[arg & ((std::uint64_t{1} << 40) - 1)];
    if (u.cancelled) return;
    active_.push_back(u);
  } else {
    // Every upload within a byte of the end finishes now, in start order.
    std::vector<std::uint64_t> finished;
    auto done = [](const Upload& u) { return u.remaining < 1.0; };
    for (const Upload& u : active_)
      if (done(u)) finished.push_back(u.token);
    active_.erase(std::remove_if(active_.begin(), active_.end(), done), active_.end());
    reschedule();
    for (std::uint64_t token : finished) listener_.upload_finished(token);
    return;
  }
  reschedule();
}

}  // namespace ckptsim::model
