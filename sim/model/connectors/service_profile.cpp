#include "sim/model/connectors/service_profile.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ckptsim::model {

using core::SimTime;

ServiceProfile::ServiceProfile(const Scenario& scenario, const std::string& system) {
  for (const TimelineAction& a : scenario.timeline)
    if (a.kind == ActionKind::slow_down && a.system == system)
      add_window(a.at, a.duration ? a.at + *a.duration : core::kNever, a.factor);
}

void ServiceProfile::add_window(SimTime from, SimTime until, double factor) {
  windows_.push_back({from, until, std::max(0.0, factor)});
}

namespace {

// The factor in force at `t` and the next time it may change (kNever if never).
template <typename Windows>
std::pair<double, SimTime> segment_at(const Windows& windows, SimTime t) {
  double factor = 1.0;
  SimTime next = core::kNever;
  for (const auto& w : windows) {
    if (t >= w.from && t < w.until) {
      factor *= w.factor;
      next = std::min(next, w.until);
    } else if (w.from > t) {
      next = std::min(next, w.from);
    }
  }
  return {factor, next};
}

}  // namespace

double ServiceProfile::amount(SimTime from, SimTime to, double rate) const {
  double total = 0;
  for (SimTime t = from; t < to;) {
    const auto [factor, next] = segment_at(windows_, t);
    const SimTime end = std::min(next, to);
    total += rate * factor * static_cast<double>(end - t) / 1e9;
    t = end;
  }
  return total;
}

double ServiceProfile::factor_at(SimTime t) const {
  return segment_at(windows_, t).first;
}

bool ServiceProfile::changes_within(SimTime from, SimTime to) const {
  return std::any_of(windows_.begin(), windows_.end(),
                     [&](const Window& w) { return w.from < to && w.until > from; });
}

SimTime ServiceProfile::finish_time(SimTime from, double work, double rate) const {
  if (work <= 0) return from;
  for (SimTime t = from;;) {
    const auto [factor, next] = segment_at(windows_, t);
    const double speed = rate * factor;  // units per second
    if (speed > 0) {
      const double needed = work / speed * 1e9;
      if (next == core::kNever || static_cast<double>(t) + needed <= static_cast<double>(next))
        return t + static_cast<SimTime>(std::ceil(needed));
      work -= speed * static_cast<double>(next - t) / 1e9;
    } else if (next == core::kNever) {
      return core::kNever;  // stalled for ever
    }
    t = next;
  }
}

}  // namespace ckptsim::model
