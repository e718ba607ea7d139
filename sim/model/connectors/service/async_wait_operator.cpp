// AsyncWaitOperator (AsyncDataStream.orderedWait / unorderedWait, an async lookup join) calling
// a service: processElement puts each record's request into a queue of `capacity` and returns;
// with the queue full, addToWorkQueue loops on the operator's MailboxExecutor.yield until a
// request completes (ordered: the oldest). That yield runs only mails of the operator's
// priority or higher (results, its timers), not the task's checkpoint trigger or the input
// gate's priority events (unaligned barriers), and no input is read: so no barrier passes the
// operator until a slot frees (FLINK-39835 changes this after 2.1). A request not complete
// `timeout` after processElement (retries included) is completed exceptionally by the default
// AsyncFunction.timeout, and so is one that failed after its retries; either fails the task
// (ResultHandler.completeExceptionally -> failExternally). snapshotState writes the queued
// elements to state without waiting for them.
// Not modelled: results emitted later than their records are processed (output goes on when
// the thread is done with the buffer), and the re-issue of the restored elements at open().
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "sim/model/connectors/service/external_service.hpp"

namespace ckptsim::model {

namespace {

class AsyncWaitOperator final : public ServiceCaller {
 public:
  AsyncWaitOperator(ConnectorContext& ctx, int vertex, const ServiceCallsSpec& spec,
                    ExternalService& service)
      : ServiceCaller(ctx, vertex, spec, service),
        queues_(static_cast<std::size_t>(
            ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].parallelism)) {}

  void open(int index) override {
    reset(index);
    queues_[static_cast<std::size_t>(index)] = {};
  }
  void close(int index) override { queues_[static_cast<std::size_t>(index)] = {}; }

  Duration process(int index, const Buffer& b, Duration cpu) override {
    if (b.kind != Buffer::Kind::data) return cpu;
    const std::int64_t calls = calls_for(index, b.records);
    Queue& q = queues_[static_cast<std::size_t>(index)];
    const SimTime now = ctx_.sim().now();
    SimTime t = now;  // when the thread puts the next request into the queue
    for (std::int64_t i = 0; i < calls && t != core::kNever; ++i) {
      while (!q.slots.empty() && q.slots.front() <= t) pop(q);
      if (static_cast<int>(q.slots.size()) >= spec_.capacity) {  // yield until a slot frees
        t = q.slots.front();
        pop(q);
        if (t == core::kNever) break;
      }
      const ExternalService::Outcome o = service_.call(t, spec_);
      SimTime done = o.done;
      if (spec_.timeout && (done == core::kNever || done - t > *spec_.timeout)) {
        done = t + *spec_.timeout;
        fail_at(
            index, done,
            failure("java.util.concurrent.TimeoutException: Async function call has timed out."));
      } else if (o.error) {
        fail_at(index, done, failure(*o.error));
      }
      // Ordered: a slot frees when every older request completed too.
      if (spec_.mode == CallMode::async_ordered) done = std::max(done, q.last);
      q.last = done;
      q.slots.push_back(done);
      std::push_heap(q.slots.begin(), q.slots.end(), std::greater<>());
    }
    const SimTime free = std::max(now + cpu, t);
    if (free > now + cpu)
      ctx_.run_on_task_thread(
          vertex_, index, free == core::kNever ? static_cast<Duration>(1e18) : free - now,
          "AsyncWaitOperator of " + spec_.operator_name + ": its queue of " +
              std::to_string(spec_.capacity) + " requests to " + service_.spec().name +
              " is full; processElement waits in MailboxExecutor.yield, which runs no "
              "checkpoint mail, for a request to complete (" +
              latency_text(now) + ")",
          true);
    return cpu;
  }

  double seconds_per_record(int) const override {
    return spec_.per_record * service_.seconds_per_call(ctx_.sim().now()) /
           static_cast<double>(spec_.capacity);
  }

 private:
  struct Queue {
    std::vector<SimTime> slots;  // min-heap of when each request's slot frees
    SimTime last = 0;            // the youngest request's
  };
  static void pop(Queue& q) {
    std::pop_heap(q.slots.begin(), q.slots.end(), std::greater<>());
    q.slots.pop_back();
  }
  ConnectorException failure(const std::string& cause) const {
    return {"java.lang.Exception",
            "Could not complete the stream element: Record @ (undef) : (a record of " +
                spec_.operator_name + ").\nCaused by: " + cause};
  }

  std::vector<Queue> queues_;
};

}  // namespace

std::unique_ptr<UserFunction> make_async_wait_operator(ConnectorContext& ctx, int vertex,
                                                       const ServiceCallsSpec& spec,
                                                       ExternalService& service) {
  return std::make_unique<AsyncWaitOperator>(ctx, vertex, spec, service);
}

}  // namespace ckptsim::model
