// Real and simulated checkpoint attempts matched by order from each side's first, failovers by
// order, and the first place where they differ.
#include "analysis/import/real_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "analysis/import/real_compare_text.hpp"

namespace ckptsim::analysis {
namespace {

using run::CheckpointRecord;
using run::CheckpointStatus;

std::int64_t to_ms(core::SimTime t) {
  return t / core::kMillisecond;
}

struct Attempt {
  core::SimTime trigger = 0;
  CheckpointSide side;
};

CheckpointSide side_of(const CheckpointRecord& c) {
  CheckpointSide s;
  s.id = c.id;
  s.status = c.status == CheckpointStatus::completed ? "COMPLETED"
             : c.status == CheckpointStatus::failed  ? "FAILED"
                                                     : "IN_PROGRESS";
  if (c.failure_reason) s.reason = model::name(*c.failure_reason);
  if (c.end_time >= c.trigger_time) s.duration_ms = to_ms(c.end_time - c.trigger_time);
  return s;
}

// Every checkpoint of every submission and every trigger that failed before it got an id, in
// trigger order.
std::vector<Attempt> attempts(const Imported& imported) {
  std::vector<Attempt> all;
  const run::RunResult& r = imported.result;
  for (const auto* list : {&r.earlier_checkpoints, &r.checkpoints})
    for (const CheckpointRecord& c : *list) all.push_back({c.trigger_time, side_of(c)});
  for (const TriggerFailure& f : imported.trigger_failures)
    all.push_back(
        {f.time, {std::nullopt, "FAILED", f.reason ? model::name(*f.reason) : "", 0, {}}});
  std::stable_sort(all.begin(), all.end(),
                   [](const Attempt& a, const Attempt& b) { return a.trigger < b.trigger; });
  return all;
}

// Where the real files end: their last line, or a later time a REST body gives.
core::SimTime real_end(const Imported& real, const std::vector<Attempt>& real_attempts) {
  core::SimTime end = real.result.end_time;
  for (const Attempt& a : real_attempts) {
    end = std::max(end, a.trigger);
    if (a.side.duration_ms)
      end = std::max(end, a.trigger + *a.side.duration_ms * core::kMillisecond);
  }
  for (core::SimTime t : failover_times(real.result)) end = std::max(end, t);
  return end;
}

// The tolerances' floors. They are also the grace at the real files' end: what the simulation
// does within them of that point the real job may have done just after the files were cut.
constexpr std::int64_t kDurationFloorMs = 1000;
constexpr std::int64_t kTimeFloorMs = 10'000;  // trigger and failover times

bool far_apart(std::int64_t a, std::int64_t b, double share, std::int64_t floor_ms) {
  const std::int64_t gap = std::llabs(a - b);
  return gap > floor_ms && static_cast<double>(gap) > share * static_cast<double>(std::max(a, b));
}

// What became of it: status, then reason, then duration (the first that differs).
std::optional<std::string> fate_difference(const CheckpointSide& real, const CheckpointSide& sim,
                                           std::int64_t window_ms) {
  // Still in progress when the real files end: only a simulated end before that point differs.
  if (real.status == "IN_PROGRESS") {
    if (sim.duration_ms && *sim.duration_ms + kDurationFloorMs < window_ms - real.trigger_ms)
      return "status";
    return std::nullopt;
  }
  if (real.status != sim.status) return "status";
  if (!real.reason.empty() && !sim.reason.empty() && real.reason != sim.reason) return "reason";
  if (real.duration_ms && sim.duration_ms &&
      far_apart(*real.duration_ms, *sim.duration_ms, 0.2, kDurationFloorMs))
    return "duration";
  return std::nullopt;
}

void compare_row(CheckpointRow& row, std::int64_t window_ms) {
  if (!row.sim) return row.differences.push_back("missing");
  if (!row.real) return row.differences.push_back("extra");
  if (const auto what = fate_difference(*row.real, *row.sim, window_ms))
    row.differences.push_back(*what);
  // When, as failovers are compared: matched by order, they may still drift apart in time.
  if (far_apart(row.real->trigger_ms, row.sim->trigger_ms, 0.05, kTimeFloorMs))
    row.differences.push_back("time");
}

void count(SideCounts& counts, const CheckpointSide& s) {
  ++counts.checkpoints;
  counts.completed += s.status == "COMPLETED";
  counts.failed += s.status == "FAILED";
  counts.in_progress += s.status == "IN_PROGRESS";
  counts.without_id += !s.id.has_value();
}

void match_checkpoints(RealComparison& out, const std::vector<Attempt>& real_attempts,
                       core::SimTime real_origin, const std::vector<Attempt>& sim_attempts,
                       core::SimTime sim_origin) {
  // Every simulated attempt that has a real one in its place; beyond them, those the simulation
  // triggers before the real files end.
  std::vector<CheckpointSide> sims;
  for (const Attempt& a : sim_attempts)
    if (sims.size() < real_attempts.size() ||
        to_ms(a.trigger - sim_origin) + kDurationFloorMs <= out.window_ms) {
      sims.push_back(a.side);
      sims.back().trigger_ms = to_ms(a.trigger - sim_origin);
    }
  for (std::size_t i = 0; i < std::max(real_attempts.size(), sims.size()); ++i) {
    CheckpointRow row;
    if (i < real_attempts.size()) {
      row.real = real_attempts[i].side;
      row.real->trigger_ms = to_ms(real_attempts[i].trigger - real_origin);
      count(out.real, *row.real);
    }
    if (i < sims.size()) {
      row.sim = sims[i];
      count(out.sim, *row.sim);
    }
    compare_row(row, out.window_ms);
    if (!row.differences.empty() && out.first_divergence.empty())
      out.first_divergence = describe_divergence(row, i);
    out.checkpoints.push_back(std::move(row));
  }
}

std::vector<std::int64_t> failovers_since(const run::RunResult& r, core::SimTime origin) {
  std::vector<std::int64_t> times;
  for (core::SimTime t : failover_times(r)) times.push_back(to_ms(t - origin));
  return times;
}

void match_failovers(RealComparison& out, const std::vector<std::int64_t>& real_failovers,
                     const std::vector<std::int64_t>& all_sim_failovers) {
  std::vector<std::int64_t> sim_failovers;  // as for checkpoints: paired, or within the span
  for (std::int64_t t : all_sim_failovers)
    if (sim_failovers.size() < real_failovers.size() || t + kTimeFloorMs <= out.window_ms)
      sim_failovers.push_back(t);
  for (std::size_t i = 0; i < std::max(real_failovers.size(), sim_failovers.size()); ++i) {
    FailoverRow row;
    if (i < real_failovers.size()) row.real_ms = real_failovers[i];
    if (i < sim_failovers.size()) row.sim_ms = sim_failovers[i];
    row.differs =
        !row.real_ms || !row.sim_ms || far_apart(*row.real_ms, *row.sim_ms, 0.05, kTimeFloorMs);
    out.real.failovers += row.real_ms.has_value();
    out.sim.failovers += row.sim_ms.has_value();
    if (row.differs && out.first_divergence.empty())
      out.first_divergence =
          fmt::format("failover #{}: real {}, simulated {}", i + 1,
                      row.real_ms ? "at " + clock_text(*row.real_ms) : std::string("none"),
                      row.sim_ms ? "at " + clock_text(*row.sim_ms) : std::string("none"));
    out.failovers.push_back(row);
  }
}

}  // namespace

RealComparison compare_real(const Imported& real, const Imported& sim) {
  RealComparison out;
  const std::vector<Attempt> real_attempts = attempts(real);
  const std::vector<Attempt> sim_attempts = attempts(sim);
  out.from_first_attempt = !real_attempts.empty();
  const auto origin = [&](const std::vector<Attempt>& a) {
    return out.from_first_attempt && !a.empty() ? a.front().trigger : core::SimTime{0};
  };
  const core::SimTime real_origin = origin(real_attempts), sim_origin = origin(sim_attempts);
  out.window_ms = std::max<std::int64_t>(0, to_ms(real_end(real, real_attempts) - real_origin));
  match_checkpoints(out, real_attempts, real_origin, sim_attempts, sim_origin);
  match_failovers(out, failovers_since(real.result, real_origin),
                  failovers_since(sim.result, sim_origin));
  return out;
}

}  // namespace ckptsim::analysis
