// The JobMaster's main thread (RpcEndpoint.getMainThreadExecutor, a ComponentMainThreadExecutor):
// one thread that runs what is handed to it one at a time, in the order it was handed in.
// Knows nothing about checkpoints: callers hand it (handler, event) pairs.
#pragma once

#include <cstdint>
#include <deque>

#include "sim/core/simulation.hpp"

namespace ckptsim::model {

// Flink hands runnables to the main thread with runAsync (a message into the RPC endpoint's
// mailbox); they run in that order. So a runnable handed in earlier runs first even when a later
// one could have started sooner: DefaultExecutionGraph's FailJobCallback.failJob
// (execute(() -> failGlobal(cause))) from the checkpoint timer thread runs before a checkpoint
// plan (DefaultCheckpointPlanCalculator.calculateCheckpointPlan, supplyAsync on the main
// executor) requested after it, and that plan then sees the tasks CANCELING.
class MainThreadExecutor final : public core::EventHandler {
 public:
  explicit MainThreadExecutor(core::Simulation& sim) : sim_(sim) {}

  // Runs handler->on_event(kind, arg) on the main thread: not before `latency` from now (the
  // message's way into the mailbox) and after everything executed before it.
  void execute(core::EventHandler* handler, std::uint32_t kind, std::uint64_t arg = 0,
               core::Duration latency = 0);
  // Called from a runnable: it keeps the thread for `busy` more and then continues with
  // handler->on_event(kind, arg); nothing queued runs in between.
  void continue_after(core::Duration busy, core::EventHandler* handler, std::uint32_t kind,
                      std::uint64_t arg = 0);

  bool busy() const { return running_; }
  std::size_t queued() const { return queue_.size(); }

  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  // As quiet as what it runs next, and everything queued behind it.
  bool quiet(std::uint32_t kind) const override;
  // Likewise: what runs next, and everything queued behind it, is quiet or a trigger's step.
  bool triggers_checkpoint(std::uint32_t kind) const override;

 private:
  struct Runnable {
    core::EventHandler* handler;
    std::uint32_t kind;
    std::uint64_t arg;
    core::SimTime ready;  // when its message reached the mailbox
  };
  enum Event : std::uint32_t { kRunNext, kContinue };

  void dispatch_next();
  // Whether `runs` holds for what an event of `kind` runs next and everything queued after it.
  template <class Runs>
  bool runs_only(std::uint32_t kind, Runs&& runs) const;
  void run(Runnable r);  // a copy: a continuation replaces continuation_

  core::Simulation& sim_;
  std::deque<Runnable> queue_;
  bool running_ = false;      // a runnable (or its continuation) holds the thread
  core::EventId next_;        // the head's start
  Runnable continuation_{};
};

}  // namespace ckptsim::model
