// A function that calls a service with a blocking client from processElement (a RichMapFunction
// with a database or HTTP client, a synchronous lookup TableFunction such as the JDBC lookup
// join's): the task thread waits for every call in turn, and a mail (a source's trigger, an
// unaligned barrier) runs only between two records' calls, so a slow service back-pressures the
// job and an aligned barrier behind the records waits for their calls. A
// call that fails after its retries (or times out with the client's `timeout`) throws from
// processElement: the task fails.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/connectors/service/external_service.hpp"
#include "sim/model/cost_law.hpp"  // duration_text

namespace ckptsim::model {

namespace {

class BlockingCall final : public ServiceCaller {
 public:
  BlockingCall(ConnectorContext& ctx, int vertex, const ServiceCallsSpec& spec,
               ExternalService& service)
      : ServiceCaller(ctx, vertex, spec, service),
        blocked_(static_cast<std::size_t>(
            ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].parallelism)) {}

  void open(int index) override {
    reset(index);
    blocked(index) = {};
  }
  void close(int index) override { blocked(index) = {}; }

  // The records after the cut made their calls already: the rest of the buffer takes the rest
  // of their time.
  void cut(int index, std::int64_t done, std::int64_t records) override {
    Blocked& b = blocked(index);
    if (b.calls_took == core::kNever) return;
    b.resume =
        static_cast<Duration>(static_cast<double>(b.calls_took) *
                              static_cast<double>(records - done) / static_cast<double>(records));
  }

  Duration process(int index, const Buffer& b, Duration cpu) override {
    if (b.kind != Buffer::Kind::data) return cpu;
    const SimTime now = ctx_.sim().now();
    Blocked& blk = blocked(index);
    if (blk.resume) {  // the rest of a buffer a mail cut
      const Duration rest = *std::exchange(blk.resume, std::nullopt);
      blk.since = now;
      blk.until = now + cpu + rest;
      return cpu + rest;
    }
    const std::int64_t calls = calls_for(index, b.records);
    if (calls == 0) return cpu;
    SimTime t = now + cpu;
    if (service_.steady_from(t)) {
      const double took = static_cast<double>(calls) * static_cast<double>(service_.spec().latency);
      t = took >= 1e18 ? core::kNever : t + static_cast<Duration>(took);
    } else {
      for (std::int64_t i = 0; i < calls && t != core::kNever; ++i) {
        const ExternalService::Outcome o = service_.call(t, spec_);
        if (o.error) {
          fail_at(index, o.done, exception_of(*o.error));
          t = core::kNever;  // the thread is in the call until the exception fails the task
          break;
        }
        t = o.done;
      }
    }
    blk = {now, t, calls, t == core::kNever ? core::kNever : t - now - cpu, std::nullopt};
    return t == core::kNever ? core::kNever : t - now;
  }

  double seconds_per_record(int) const override {
    return spec_.per_record * service_.seconds_per_call(ctx_.sim().now());
  }

  bool explain_wait(int index, WaitState& w) const override {
    const Blocked& b = blocked_[static_cast<std::size_t>(index)];
    const SimTime now = ctx_.sim().now();
    if (b.until <= now) return false;
    w.kind = WaitState::Kind::in_call;
    w.call = spec_.operator_name + "'s processElement calling " + service_.spec().name +
             " with a blocking client (" + std::to_string(b.calls) + " calls for the buffer, " +
             latency_text(now) + ")";
    w.since = b.since;
    w.until = b.until;
    return true;
  }

 private:
  struct Blocked {
    SimTime since = 0;
    SimTime until = 0;
    std::int64_t calls = 0;
    Duration calls_took = 0;         // the calls' share of the buffer's time
    std::optional<Duration> resume;  // a cut buffer's rest still to take
  };
  Blocked& blocked(int index) { return blocked_[static_cast<std::size_t>(index)]; }
  std::vector<Blocked> blocked_;
};

}  // namespace

std::unique_ptr<UserFunction> make_blocking_call(ConnectorContext& ctx, int vertex,
                                                 const ServiceCallsSpec& spec,
                                                 ExternalService& service) {
  return std::make_unique<BlockingCall>(ctx, vertex, spec, service);
}

}  // namespace ckptsim::model
