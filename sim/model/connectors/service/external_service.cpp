#include "sim/model/connectors/service/external_service.hpp"

#include <algorithm>
#include <cmath>

#include "sim/model/cost_law.hpp"  // duration_text

namespace ckptsim::model {

ExternalService::ExternalService(const Scenario& scenario, const ServiceSystemSpec& spec)
    : spec_(spec), profile_(scenario, spec.name) {}

void ExternalService::system_action(const TimelineAction& a) {
  if (a.system != spec_.name || a.kind != ActionKind::reject_load) return;
  rejections_left_ += std::max(1, a.count);
  rejection_error_ =
      a.error.empty() ? "java.io.IOException: " + spec_.name + " rejected the call" : a.error;
}

bool ExternalService::steady_from(SimTime from) const {
  return spec_.calls_per_second <= 0 && rejections_left_ == 0 &&
         !profile_.changes_within(from, core::kNever);
}

double ExternalService::seconds_per_call(SimTime t) const {
  const double factor = profile_.factor_at(t);
  return factor > 0 ? static_cast<double>(spec_.latency) / 1e9 / factor : 1e9;
}

SimTime ExternalService::admit(SimTime t) {
  if (spec_.calls_per_second <= 0) return t;
  const SimTime at = std::max(t, next_admission_);
  if (at == core::kNever) return at;
  next_admission_ = profile_.finish_time(at, 1.0, spec_.calls_per_second);
  return at;
}

ExternalService::Outcome ExternalService::call(SimTime start, const ServiceCallsSpec& how) {
  const double calls_per_second = 1e9 / static_cast<double>(spec_.latency);
  for (int attempt = 0;; ++attempt) {
    if (start >= static_cast<SimTime>(1e18)) return {core::kNever, std::nullopt};  // past any run
    const SimTime admitted = admit(start);
    const SimTime answered = admitted == core::kNever
                                 ? core::kNever
                                 : profile_.finish_time(admitted, 1.0, calls_per_second);
    std::optional<std::string> error;
    if (rejections_left_ > 0) {  // the answer is an error
      --rejections_left_;
      error = rejection_error_;
    }
    // A blocking client gives up after its timeout (AsyncWaitOperator's timeout is the
    // caller's, over all attempts).
    if (how.mode == CallMode::sync && how.timeout && answered - start > *how.timeout) {
      if (!error) error = "java.net.SocketTimeoutException: Read timed out";
      if (attempt >= how.max_attempts) return {start + *how.timeout, error};
      start += *how.timeout + how.retry_delay;
      continue;
    }
    // An async client that gives up completes the request without a result.
    if (how.client_timeout && answered - start > *how.client_timeout)
      return {start + *how.client_timeout, std::nullopt};
    if (!error || answered == core::kNever) return {answered, std::nullopt};
    if (attempt >= how.max_attempts) return {answered, error};
    start = answered + how.retry_delay;
  }
}

ConnectorException exception_of(const std::string& error) {
  const auto colon = error.find(": ");
  if (colon == std::string::npos || error.find(' ') < colon)
    return {"java.lang.RuntimeException", error};
  return {error.substr(0, colon), error.substr(colon + 2)};
}

// ---------------------------------------------------------------------------------------------
// ServiceCaller

ServiceCaller::ServiceCaller(ConnectorContext& ctx, int vertex, const ServiceCallsSpec& spec,
                             ExternalService& service)
    : ctx_(ctx), vertex_(vertex), spec_(spec), service_(service) {
  const auto n = static_cast<std::size_t>(
      ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].parallelism);
  carry_.assign(n, 0.0);
  failing_at_.assign(n, core::kNever);
}

std::int64_t ServiceCaller::calls_for(int index, std::int64_t records) {
  double& carry = carry_[static_cast<std::size_t>(index)];
  carry += static_cast<double>(records) * spec_.per_record;
  const double calls = std::floor(carry);
  carry -= calls;
  return static_cast<std::int64_t>(calls);
}

void ServiceCaller::reset(int index) {
  carry_[static_cast<std::size_t>(index)] = 0;
  failing_at_[static_cast<std::size_t>(index)] = core::kNever;
}

void ServiceCaller::fail_at(int index, SimTime at, ConnectorException exception) {
  SimTime& pending = failing_at_[static_cast<std::size_t>(index)];
  if (pending <= at) return;  // an earlier failure ends the attempt first
  pending = at;
  failures_.push_back({ctx_.generation(vertex_, index), index, std::move(exception)});
  ctx_.sim().schedule_at(std::max(at, ctx_.sim().now()), this, 0, failures_.size() - 1);
}

void ServiceCaller::on_event(std::uint32_t, std::uint64_t arg) {
  const Failure& f = failures_[static_cast<std::size_t>(arg)];
  if (ctx_.generation(vertex_, f.index) != f.generation ||
      ctx_.state(vertex_, f.index) != ExecutionState::running)
    return;
  failing_at_[static_cast<std::size_t>(f.index)] = core::kNever;
  ctx_.fail_task(vertex_, f.index, f.exception.exception_class, f.exception.message);
}

std::string ServiceCaller::latency_text(SimTime t) const {
  const double seconds = service_.seconds_per_call(t);
  if (seconds >= 1e9) return "the service is stalled";
  return "a call takes " + duration_text(static_cast<Duration>(std::llround(seconds * 1e9))) +
         " now";
}

// ---------------------------------------------------------------------------------------------

void add_service_calls(const Scenario& scenario, ConnectorContext& ctx, Connectors& connectors) {
  std::vector<ExternalService*> services;
  for (const ServiceSystemSpec& spec : scenario.systems.services) {
    auto service = std::make_unique<ExternalService>(scenario, spec);
    services.push_back(service.get());
    connectors.systems.push_back(std::move(service));
  }
  for (std::size_t v = 0; v < scenario.job.vertices.size(); ++v)
    for (const ServiceCallsSpec& calls : scenario.job.vertices[v].calls)
      for (ExternalService* service : services)
        if (service->spec().name == calls.system)
          connectors.vertices[v].functions.push_back(
              calls.mode == CallMode::sync
                  ? make_blocking_call(ctx, static_cast<int>(v), calls, *service)
                  : make_async_wait_operator(ctx, static_cast<int>(v), calls, *service));
}

}  // namespace ckptsim::model
