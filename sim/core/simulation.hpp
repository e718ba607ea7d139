// The kernel: a clock and the pending-event set. A Simulation is a plain value (no globals), so
// many run side by side. Components receive events through EventHandler (a virtual call, not a
// std::function). Knows nothing about Flink.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "sim/core/event_queue.hpp"
#include "sim/core/time.hpp"

namespace ckptsim::core {

class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void on_event(std::uint32_t kind, std::uint64_t arg) = 0;
  // Whether an event of `kind` is quiet: it changes no rate, cost or thread of what the
  // simulation models, only bookkeeping elsewhere (a model that skips steady periods need not
  // wait for the job to settle after it). Whatever it sets off must show on its own.
  virtual bool quiet(std::uint32_t kind) const {
    (void)kind;
    return false;
  }
  // Whether an event of `kind` is a step of triggering a checkpoint at the JobManager, up to the
  // RPCs to the tasks (a model that replays a checkpoint's effect on the tasks lets it run).
  virtual bool triggers_checkpoint(std::uint32_t kind) const {
    (void)kind;
    return false;
  }
};

class Simulation {
 public:
  SimTime now() const { return now_; }

  EventId schedule_at(SimTime at, EventHandler* target, std::uint32_t kind, std::uint64_t arg = 0) {
    return queue_.push(at < now_ ? now_ : at, target, kind, arg);
  }
  EventId schedule_in(Duration delay, EventHandler* target, std::uint32_t kind,
                      std::uint64_t arg = 0) {
    return schedule_at(delay >= kNever - now_ ? kNever : now_ + (delay < 0 ? 0 : delay), target,
                       kind, arg);
  }
  bool cancel(EventId& id) {
    const bool was = queue_.cancel(id);
    id = EventId{};
    return was;
  }
  bool is_pending(EventId id) const { return queue_.is_pending(id); }

  // Runs events with time <= until (in (time, sequence) order), then sets the clock to `until`.
  // Returns the number of events executed.
  std::uint64_t run_until(SimTime until) {
    std::uint64_t n = 0;
    ++runs_;
    stopped_ = false;
    horizon_ = until;
    while (!stopped_ && !queue_.empty() && queue_.next_time() <= until) {
      step();
      ++n;
    }
    if (!stopped_ && until > now_ && until < kNever) now_ = until;
    return n;
  }
  // Runs one event; requires pending() > 0.
  void step() {
    const EventQueue::Popped e = queue_.pop();
    now_ = e.time;
    ++executed_;
    e.payload.target->on_event(e.payload.kind, e.payload.arg);
  }
  void stop() { stopped_ = true; }
  // Runs at most `max_events` events with time <= until; true when none is left to run by
  // `until` (the clock is then at `until`, as after run_until). Lets a caller look at the wall
  // clock between slices without changing the order of events.
  bool run_slice(SimTime until, std::uint64_t max_events) {
    ++runs_;
    stopped_ = false;
    horizon_ = until;
    for (std::uint64_t n = 0; n < max_events; ++n) {
      if (stopped_ || queue_.empty() || queue_.next_time() > until) {
        if (!stopped_ && until > now_ && until < kNever) now_ = until;
        return true;
      }
      step();
    }
    return stopped_;
  }

  // The `until` of the run_until / run_slice in progress: no event handler may move the clock
  // past it.
  SimTime horizon() const { return horizon_; }
  // How many run_until / run_slice calls have started: between two, the caller may have changed
  // the model from outside any event (serve's REST calls between slices).
  std::uint64_t runs() const { return runs_; }
  // Calls f(time, target, kind) for every pending event, in no particular order.
  template <class F>
  void for_each_pending(F&& f) const { queue_.for_each_live(f); }
  // Moves the clock `by` later and every pending event earlier than `limit` with it, each by
  // delay(time, target, kind, arg) (a period the caller accounts for without running it). A clock
  // moved backwards, past horizon() or past `limit` (std::invalid_argument), or an event
  // moved to before the new clock (std::logic_error: time would run backwards), leaves the clock
  // and every event where they were.
  template <class F>
  void skip(Duration by, SimTime limit, F&& delay) {
    const SimTime clock = now_ + by;
    if (by < 0 || clock > horizon_ || clock > limit)
      throw std::invalid_argument("Simulation::skip: the clock must move forward, up to the "
                                  "limit and within the horizon");
    queue_.delay_before(limit, [&](SimTime at, const EventHandler* target, std::uint32_t kind,
                                   std::uint64_t arg) {
      const Duration d = delay(at, target, kind, arg);
      if (at + d < clock)
        throw std::logic_error("Simulation::skip: an event would run before the clock");
      return d;
    });
    now_ = clock;
  }

  std::size_t pending() const { return queue_.size(); }
  std::uint64_t executed() const { return executed_; }
  void reserve(std::size_t events) { queue_.reserve(events); }

 private:
  EventQueue queue_;
  SimTime now_ = 0;
  std::uint64_t executed_ = 0;
  std::uint64_t runs_ = 0;
  bool stopped_ = false;
  SimTime horizon_ = kNever;
};

}  // namespace ckptsim::core
