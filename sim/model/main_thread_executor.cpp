// The JobMaster main thread as a FIFO executor (see the header).
#include "sim/model/main_thread_executor.hpp"

#include <algorithm>

namespace ckptsim::model {

void MainThreadExecutor::execute(core::EventHandler* handler, std::uint32_t kind,
                                 std::uint64_t arg, core::Duration latency) {
  queue_.push_back({handler, kind, arg, sim_.now() + std::max<core::Duration>(latency, 0)});
  if (!running_ && !sim_.is_pending(next_)) dispatch_next();
}

void MainThreadExecutor::continue_after(core::Duration busy, core::EventHandler* handler,
                                        std::uint32_t kind, std::uint64_t arg) {
  continuation_ = {handler, kind, arg, sim_.now() + busy};
  sim_.schedule_in(busy, this, kContinue);
}

void MainThreadExecutor::dispatch_next() {
  if (queue_.empty()) return;
  // FIFO: the head starts when its message arrived and the thread is free, whatever arrived
  // behind it.
  next_ = sim_.schedule_at(std::max(sim_.now(), queue_.front().ready), this, kRunNext);
}

void MainThreadExecutor::run(Runnable r) {
  running_ = true;
  continuation_.handler = nullptr;
  r.handler->on_event(r.kind, r.arg);
  if (continuation_.handler) return;  // the runnable keeps the thread (continue_after)
  running_ = false;
  dispatch_next();
}

template <class Runs>
bool MainThreadExecutor::runs_only(std::uint32_t kind, Runs&& runs) const {
  // What runs next is the head and, in turn, everything queued behind it.
  const bool queued = std::all_of(queue_.begin(), queue_.end(),
                                  [&](const Runnable& r) { return runs(*r.handler, r.kind); });
  switch (static_cast<Event>(kind)) {
    case kRunNext: return !queue_.empty() && queued;
    case kContinue:
      return continuation_.handler && runs(*continuation_.handler, continuation_.kind) && queued;
  }
  return false;
}

bool MainThreadExecutor::quiet(std::uint32_t kind) const {
  return runs_only(kind, [](const EventHandler& h, std::uint32_t k) { return h.quiet(k); });
}

bool MainThreadExecutor::triggers_checkpoint(std::uint32_t kind) const {
  return runs_only(kind, [](const EventHandler& h, std::uint32_t k) {
    return h.quiet(k) || h.triggers_checkpoint(k);
  });
}

void MainThreadExecutor::on_event(std::uint32_t kind, std::uint64_t) {
  switch (static_cast<Event>(kind)) {
    case kRunNext: {
      const Runnable r = queue_.front();
      queue_.pop_front();
      run(r);
      break;
    }
    case kContinue: run(continuation_); break;
  }
}

}  // namespace ckptsim::model
