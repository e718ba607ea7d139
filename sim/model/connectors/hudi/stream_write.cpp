// Hudi's Flink writer (hudi-flink 0.13 to 1.0, the SQL connector's HoodieTableSink) behind the
// Sink seams, read from Hudi's sources (facts, not code):
//  - StreamWriteOperatorCoordinator, on the JobManager, runs its actions one at a time on its
//    own thread (NonThrownExecutor). notifyCheckpointComplete submits "commits the instant":
//    commitInstant, then scheduleCompaction / scheduleClustering when the table asks for them,
//    then startInstant (the writers' next instant). notifyCheckpointAborted submits the abort of
//    the current instant (CkpMetadata.abortInstant), which lets writers reuse it. Work queued
//    on that thread before an action delays it; the timeline's coordinator-busy work that begins
//    at the checkpoint's completion is the action's own (a scheduleCompaction reading HDFS) and
//    runs before startInstant.
//  - The write function (StreamWriteFunction for upsert: records are buffered and written at the
//    checkpoint's flush; AppendWriteFunction for insert: its file writer opens at the first
//    record after a checkpoint) is "confirming" after each flush. The next time it writes with
//    data (AbstractStreamWriteFunction.instantToWrite: at the next checkpoint's flush for upsert,
//    at the first record for insert) it waits, polling every second (TimeWait, interval 1000 ms),
//    until the coordinator started a newer instant or aborted the one it wrote; past
//    write.commit.ack.timeout it throws HoodieException("Timeout(<waited>ms) while waiting for
//    instant initialize"). HoodieTableSink sets write.commit.ack.timeout to the checkpoint timeout.
//  - A new attempt of a writer has no instant: it writes with the coordinator's pending instant,
//    and waits while the coordinator is between a commit and the next startInstant.
// Not modelled: a commit that fails (failJob "Commit instant [...] failed!"), buckets flushed
// before the checkpoint when write.batch.size fills, Hudi 1.1's instant requests.
#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/connectors/connector.hpp"

namespace ckptsim::model {

namespace {

constexpr Duration kPollInterval = core::seconds(1);  // TimeWait.Builder's interval

class HoodieStreamWrite final : public Sink, public core::EventHandler {
 public:
  HoodieStreamWrite(ConnectorContext& ctx, int vertex, const TransactionalSystemSpec& storage)
      : ctx_(ctx),
        vertex_(vertex),
        spec_(*ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].hudi_sink),
        storage_(storage),
        row_bytes_(ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].record_size),
        writers_(static_cast<std::size_t>(
            ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].parallelism)) {}

  // --- the write function

  void deploy_writer(int index, const TaskSnapshot*, std::int64_t) override {
    writer(index) = Writer{};  // no instant yet: it takes the pending one
  }

  Duration write(int index, const Buffer& b, Duration cpu) override {
    if (b.kind != Buffer::Kind::data || b.records <= 0) return cpu;
    Writer& w = writer(index);
    w.unflushed += b.records * row_bytes_;
    if (!spec_.append || w.writing) return cpu;
    // AppendWriteFunction.initWriterHelper: the file writer opens with the instant to write.
    const Wait wait = wait_for_instant(w);
    w.writing = true;
    if (wait.open) {
      // The coordinator has not been asked yet (the checkpoint is still pending): the thread
      // polls until an action it submits later is done, or gives up.
      w.blocked = true;
      w.block = ++blocks_;
      schedule(kFail, index, ctx_.sim().now() + wait.length, timeout_message(wait.length));
      return core::kNever;
    }
    if (wait.timed_out) {
      schedule(kFail, index, ctx_.sim().now() + wait.length, timeout_message(wait.length));
      return core::kNever;
    }
    return wait.length + cpu;
  }

  Prepared prepare_commit(int index, std::int64_t) override {
    Writer& w = writer(index);
    Prepared out;
    if (w.unflushed == 0) {  // no data: no wait (invalidInstant needs buffered data), no flush
      w.confirming = true;
      w.flushed_at = ctx_.sim().now();
      return out;
    }
    // StreamWriteFunction.flushRemaining asks for the instant first; AppendWriteFunction has it.
    if (!spec_.append) {
      // An end not known yet (the previous checkpoint neither completed nor aborted: concurrent
      // checkpoints) is taken as the timeout.
      const Wait wait = wait_for_instant(w);
      if (wait.timed_out || wait.open) {
        out.took = wait.length;
        out.thrown = ConnectorException{"org.apache.hudi.exception.HoodieException",
                                        timeout_message(wait.length)};
        return out;
      }
      out.took = wait.length;
    }
    out.took += static_cast<Duration>(static_cast<double>(w.unflushed) /
                                      storage_.ingest_bytes_per_second *
                                      static_cast<double>(core::kSecond));
    w.unflushed = 0;
    w.writing = false;
    w.confirming = true;
    w.has_instant = true;
    w.flushed_at = ctx_.sim().now() + out.took;
    written_ = true;  // the WriteMetadataEvent reaches the coordinator
    return out;
  }

  bool explain_wait(int index, WaitState& s) const override {
    const Writer& w = writers_[static_cast<std::size_t>(index)];
    if (w.waiting_until <= ctx_.sim().now()) return false;
    s.kind = WaitState::Kind::sink_flush;
    s.table = spec_.table;
    s.call = "AbstractStreamWriteFunction.instantToWrite, waiting for the instant the "
             "coordinator starts after its commit (write.commit.ack.timeout " +
             std::to_string(core::to_millis(ack_timeout())) + " ms)";
    s.since = w.waiting_since;
    s.until = w.waiting_until;
    return true;
  }

  // --- StreamWriteOperatorCoordinator

  bool has_coordinator() const override { return true; }
  void coordinator_checkpoint_complete(std::int64_t id) override {
    last_completed_ = std::max(last_completed_, id);
    submit(Action::Kind::commit);
  }
  // Only the coordinator's current checkpoint's abort touches its instant.
  void coordinator_checkpoint_aborted(std::int64_t id) override {
    if (id > last_completed_) submit(Action::Kind::abort);
  }
  Duration coordinator_busy(SimTime now) const override {
    if (actions_.empty() || actions_.back().done <= now) return 0;
    return actions_.back().done == core::kNever ? core::kNever - now : actions_.back().done - now;
  }

  void on_event(std::uint32_t kind, std::uint64_t a) override {
    const Scheduled& e = scheduled_[a];
    if (e.generation != ctx_.generation(vertex_, e.index)) return;
    if (ctx_.state(vertex_, e.index) != ExecutionState::running) return;
    Writer& w = writer(e.index);
    if (e.block != 0 && (!w.blocked || w.block != e.block)) return;  // released before
    w.blocked = false;
    if (kind == kRelease) return ctx_.call_returned(vertex_, e.index);
    ctx_.fail_task(vertex_, e.index, "org.apache.hudi.exception.HoodieException", e.message);
  }

 private:
  static constexpr std::uint32_t kFail = 0;
  static constexpr std::uint32_t kRelease = 1;

  struct Writer {
    std::int64_t unflushed = 0;  // bytes written since the last flush
    bool writing = false;        // an append writer's file is open (it has its instant)
    bool confirming = false;     // flushed; the next write waits for a newer instant
    bool has_instant = false;    // it flushed with an instant in this attempt
    SimTime flushed_at = 0;
    SimTime waiting_since = 0;
    SimTime waiting_until = 0;
    bool blocked = false;    // inside instantToWrite with no end known yet
    std::uint64_t block = 0;  // which wait (its failure and release events carry it)
  };
  // An action on the coordinator's thread: submitted at `submitted`, done at `done`.
  struct Action {
    enum class Kind { commit, abort } kind;
    SimTime submitted = 0;
    SimTime done = 0;
  };
  struct Wait {
    Duration length = 0;  // open: the longest it can be
    bool timed_out = false;
    bool open = false;  // no coordinator action ends it yet
  };
  // A writer's failure (kFail) or the end of its wait (kRelease), for one attempt and wait.
  struct Scheduled {
    std::uint32_t generation;
    int index;
    std::uint64_t block;  // 0: not tied to a wait
    std::string message;
  };

  Writer& writer(int index) { return writers_[static_cast<std::size_t>(index)]; }

  Duration ack_timeout() const { return ctx_.scenario().flink.checkpointing.timeout; }

  // The coordinator takes the action once the work queued before it is done (the timeline's
  // work anchored at the checkpoint's completion was queued first: the action's own).
  void submit(Action::Kind kind) {
    const SimTime now = ctx_.sim().now();
    Action action{kind, now, std::max(now, ctx_.coordinator_free_at(vertex_))};
    // commitInstant writes the commit metadata when the writers wrote (an empty checkpoint
    // only acknowledges); startInstant follows.
    if (action.kind == Action::Kind::commit && written_ && action.done != core::kNever)
      action.done += storage_.commit_latency;
    if (action.kind == Action::Kind::commit) written_ = false;
    // Actions finish in order; of those done, the last is enough to know an instant changed.
    while (actions_.size() > 1 && actions_[1].done <= now) actions_.pop_front();
    actions_.push_back(action);
    // Writers polling with no end known see this action at their first poll after it is done.
    if (action.done == core::kNever) return;
    for (std::size_t i = 0; i < writers_.size(); ++i) {
      Writer& w = writers_[i];
      if (!w.blocked || w.waiting_until != core::kNever) continue;
      const SimTime seen = w.waiting_since + polls_until(action.done - w.waiting_since) * kPollInterval;
      if (seen - w.waiting_since > poll_limit()) continue;  // it gives up first
      w.waiting_until = seen;
      schedule(kRelease, static_cast<int>(i), seen, {});
    }
  }

  // TimeWait.waitFor: a second's sleep while waitingTime <= timeout, then the exception.
  Duration poll_limit() const { return (core::to_millis(ack_timeout()) / 1000 + 1) * kPollInterval; }
  static std::int64_t polls_until(Duration d) { return (d + kPollInterval - 1) / kPollInterval; }

  // instantToWrite for writer `w` now: how long it polls, or when it gives up.
  Wait wait_for_instant(Writer& w) {
    const SimTime now = ctx_.sim().now();
    SimTime ready = now;
    if (w.confirming && w.has_instant) {
      // A commit done after its flush started a newer instant; an abort done after it lets
      // the writer reuse its own.
      ready = core::kNever;
      for (const Action& a : actions_)
        if (a.done > w.flushed_at) ready = std::min(ready, a.done);
    } else {
      // No instant yet: the pending one, unless the coordinator is between a commit and the
      // next startInstant.
      for (const Action& a : actions_)
        if (a.kind == Action::Kind::commit && a.submitted <= now && a.done > now)
          ready = std::max(ready, a.done);
    }
    w.confirming = false;
    if (ready <= now) return {};
    const bool known = !actions_.empty() && actions_.back().done > w.flushed_at;
    Wait wait;
    if (!known && w.has_instant) {
      wait = {poll_limit(), false, true};
    } else if (ready == core::kNever || ready - now > poll_limit()) {
      wait = {poll_limit(), true, false};
    } else {
      wait.length = polls_until(ready - now) * kPollInterval;
    }
    w.waiting_since = now;
    w.waiting_until = wait.open ? core::kNever : now + wait.length;
    return wait;
  }

  static std::string timeout_message(Duration waited) {
    return "Timeout(" + std::to_string(core::to_millis(waited)) +
           "ms) while waiting for instant initialize";
  }

  void schedule(std::uint32_t kind, int index, SimTime at, std::string message) {
    const Writer& w = writer(index);
    scheduled_.push_back({ctx_.generation(vertex_, index), index, w.blocked ? w.block : 0,
                          std::move(message)});
    ctx_.sim().schedule_at(at, this, kind, scheduled_.size() - 1);
  }

  ConnectorContext& ctx_;
  int vertex_;
  HudiSinkSpec spec_;
  const TransactionalSystemSpec& storage_;
  std::int64_t row_bytes_;
  std::vector<Writer> writers_;
  std::deque<Action> actions_;  // in the order the coordinator runs them
  std::vector<Scheduled> scheduled_;
  std::uint64_t blocks_ = 0;
  std::int64_t last_completed_ = 0;
  bool written_ = false;  // a writer flushed data since the last commit
};

}  // namespace

void add_hudi_sinks(const Scenario& scenario, ConnectorContext& ctx, Connectors& connectors) {
  const auto storage = std::find_if(
      scenario.systems.transactional.begin(), scenario.systems.transactional.end(),
      [](const TransactionalSystemSpec& s) { return s.kind == TransactionalProfile::hudi; });
  if (storage == scenario.systems.transactional.end()) return;  // the loader requires it
  for (std::size_t v = 0; v < scenario.job.vertices.size(); ++v)
    if (scenario.job.vertices[v].hudi_sink)
      connectors.vertices[v].sinks.push_back(
          std::make_unique<HoodieStreamWrite>(ctx, static_cast<int>(v), *storage));
}

}  // namespace ckptsim::model
