// A service operators call record by record (`systems: {kind: service}`): a database a lookup
// join reads, an HTTP or RPC service an enrichment function asks. Each call takes the service's
// latency, scaled by the timeline's slow-down and stall windows (`<service>.slow-down`,
// `<service>.stall`); with a throughput the service admits that many calls a second from all
// callers together, first come first served; `<service>.reject` makes the next calls fail.
// The callers are user functions in processElement (connector.hpp's UserFunction): a blocking
// client (blocking_call.cpp) or AsyncWaitOperator (async_wait_operator.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/connectors/connector.hpp"
#include "sim/model/connectors/service_profile.hpp"

namespace ckptsim::model {

class ExternalService final : public ExternalSystem {
 public:
  ExternalService(const Scenario& scenario, const ServiceSystemSpec& spec);
  const ServiceSystemSpec& spec() const { return spec_; }

  // One call with the caller's retries, from `start`: when it answers (kNever: never), or when
  // it failed for good and with what ("class: message").
  struct Outcome {
    SimTime done = 0;
    std::optional<std::string> error;
  };
  Outcome call(SimTime start, const ServiceCallsSpec& how);
  // Nothing makes calls from `from` on differ from the latency: no window, no throughput
  // limit, no rejection pending.
  bool steady_from(SimTime from) const;
  // One call's round trip starting at `t` (kNever while stalled for ever).
  double seconds_per_call(SimTime t) const;
  void system_action(const TimelineAction& a) override;

 private:
  SimTime admit(SimTime t);  // when the service takes a call that arrives at `t`

  ServiceSystemSpec spec_;
  ServiceProfile profile_;
  SimTime next_admission_ = 0;
  int rejections_left_ = 0;
  std::string rejection_error_;
};

// "class: message" split for ConnectorException.
ConnectorException exception_of(const std::string& error);

// The functions that call a service, one per `calls:` entry of a task's operators.
std::unique_ptr<UserFunction> make_blocking_call(ConnectorContext& ctx, int vertex,
                                                 const ServiceCallsSpec& spec,
                                                 ExternalService& service);
std::unique_ptr<UserFunction> make_async_wait_operator(ConnectorContext& ctx, int vertex,
                                                       const ServiceCallsSpec& spec,
                                                       ExternalService& service);

// What a service's callers share: the calls per record carried between buffers, and the
// failure of a subtask's attempt, raised on the task at its time (Task.failExternally).
class ServiceCaller : public UserFunction, public core::EventHandler {
 public:
  ServiceCaller(ConnectorContext& ctx, int vertex, const ServiceCallsSpec& spec,
                ExternalService& service);
  void on_event(std::uint32_t kind, std::uint64_t arg) override;

 protected:
  // The calls a buffer of `records` makes (fractions carry to the next buffer).
  std::int64_t calls_for(int index, std::int64_t records);
  // Subtask `index`'s attempt fails at `at` with `exception`, unless one failed earlier.
  void fail_at(int index, SimTime at, ConnectorException exception);
  void reset(int index);
  std::string latency_text(SimTime t) const;

  ConnectorContext& ctx_;
  int vertex_;
  ServiceCallsSpec spec_;
  ExternalService& service_;

 private:
  struct Failure {
    std::uint32_t generation = 0;
    int index = 0;
    ConnectorException exception;
  };
  std::vector<double> carry_;        // per subtask
  std::vector<SimTime> failing_at_;  // per subtask: a failure scheduled (kNever: none)
  std::vector<Failure> failures_;
};

}  // namespace ckptsim::model
