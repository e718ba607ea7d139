// Real and simulated checkpoints matched by order from each side's first trigger, failovers by
// order, and the first place where they differ.
#include "analysis/import/real_compare.hpp"

#include "analysis/import/import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace ckptsim::analysis {
namespace {

using run::CheckpointRecord;
using run::CheckpointStatus;

std::int64_t to_ms(core::SimTime t) {
  return t / core::kMillisecond;
}

std::vector<const CheckpointRecord*> in_trigger_order(const run::RunResult& r) {
  std::vector<const CheckpointRecord*> all;
  for (const CheckpointRecord& c : r.earlier_checkpoints) all.push_back(&c);
  for (const CheckpointRecord& c : r.checkpoints) all.push_back(&c);
  std::stable_sort(all.begin(), all.end(),
                   [](const CheckpointRecord* a, const CheckpointRecord* b) {
                     return a->trigger_time < b->trigger_time;
                   });
  return all;
}

CheckpointSide side(const CheckpointRecord& c, core::SimTime origin) {
  CheckpointSide s;
  s.id = c.id;
  s.status = c.status == CheckpointStatus::completed ? "COMPLETED"
             : c.status == CheckpointStatus::failed  ? "FAILED"
                                                     : "IN_PROGRESS";
  if (c.failure_reason) s.reason = model::name(*c.failure_reason);
  s.trigger_ms = to_ms(c.trigger_time - origin);
  if (c.end_time >= c.trigger_time) s.duration_ms = to_ms(c.end_time - c.trigger_time);
  return s;
}

// When the job failed over (analysis::failover_times), from `origin`.
std::vector<std::int64_t> failovers_since(const run::RunResult& r, core::SimTime origin) {
  std::vector<std::int64_t> times;
  for (core::SimTime t : failover_times(r)) times.push_back(to_ms(t - origin));
  return times;
}

bool far_apart(std::int64_t a, std::int64_t b, double share, std::int64_t floor_ms) {
  const std::int64_t gap = std::llabs(a - b);
  return gap > floor_ms && static_cast<double>(gap) > share * static_cast<double>(std::max(a, b));
}

std::string clock(std::int64_t ms) {
  const std::int64_t s = ms / 1000;
  return fmt::format("{}{:02}:{:02}:{:02}", ms < 0 ? "-" : "", std::llabs(s) / 3600,
                     (std::llabs(s) / 60) % 60, std::llabs(s) % 60);
}

std::string duration(const std::optional<std::int64_t>& ms) {
  if (!ms) return "-";
  if (*ms < 1000) return fmt::format("{} ms", *ms);
  return fmt::format("{:.1f} s", static_cast<double>(*ms) / 1000.0);
}

std::string status_text(const std::optional<CheckpointSide>& s) {
  if (!s) return "-";
  return s->reason.empty() ? s->status : s->status + " (" + s->reason + ")";
}

void compare_row(CheckpointRow& row, std::int64_t window_ms) {
  if (!row.sim) return row.differences.push_back("missing");
  if (!row.real) return row.differences.push_back("extra");
  // Still in progress when the real files end: only a simulated end before that point differs.
  if (row.real->status == "IN_PROGRESS") {
    if (row.sim->duration_ms && *row.sim->duration_ms < window_ms - row.real->trigger_ms)
      row.differences.push_back("status");
    return;
  }
  if (row.real->status != row.sim->status)
    row.differences.push_back("status");
  else if (!row.real->reason.empty() && !row.sim->reason.empty() &&
           row.real->reason != row.sim->reason)
    row.differences.push_back("reason");
  else if (row.real->status == "COMPLETED" && row.real->duration_ms && row.sim->duration_ms &&
           far_apart(*row.real->duration_ms, *row.sim->duration_ms, 0.2, 1000))
    row.differences.push_back("duration");
}

std::string describe(const CheckpointRow& row, std::size_t index) {
  const std::string what = row.differences.front();
  if (what == "missing")
    return fmt::format(
        "checkpoint #{} (real {}): real {} at {}, the simulation has no checkpoint "
        "in its place",
        index + 1, row.real->id, status_text(row.real), clock(row.real->trigger_ms));
  if (what == "extra")
    return fmt::format(
        "checkpoint #{}: the simulation triggers one more (sim {}, {}) at {} that "
        "the real job does not have",
        index + 1, row.sim->id, status_text(row.sim), clock(row.sim->trigger_ms));
  return fmt::format("checkpoint #{} (real {}, sim {}): real {} in {}, simulated {} in {}",
                     index + 1, row.real->id, row.sim->id, status_text(row.real),
                     duration(row.real->duration_ms), status_text(row.sim),
                     duration(row.sim->duration_ms));
}

}  // namespace

RealComparison compare_real(const run::RunResult& real, const run::RunResult& sim) {
  RealComparison out;
  const auto real_cps = in_trigger_order(real);
  const auto sim_cps = in_trigger_order(sim);
  const core::SimTime real_origin = real_cps.empty() ? 0 : real_cps.front()->trigger_time;
  const core::SimTime sim_origin = sim_cps.empty() ? 0 : sim_cps.front()->trigger_time;
  for (const CheckpointRecord* c : real_cps)
    out.window_ms = std::max(
        {out.window_ms, to_ms(c->trigger_time - real_origin), to_ms(c->end_time - real_origin)});
  // Every simulated checkpoint that has a real one in its place; beyond them, those the
  // simulation triggers within the real files' span (none when the files hold no checkpoint).
  std::vector<CheckpointSide> sims;
  for (const CheckpointRecord* c : sim_cps)
    if (sims.size() < real_cps.size() ||
        (!real_cps.empty() && to_ms(c->trigger_time - sim_origin) <= out.window_ms))
      sims.push_back(side(*c, sim_origin));
  for (std::size_t i = 0; i < std::max(real_cps.size(), sims.size()); ++i) {
    CheckpointRow row;
    if (i < real_cps.size()) row.real = side(*real_cps[i], real_origin);
    if (i < sims.size()) row.sim = sims[i];
    compare_row(row, out.window_ms);
    if (!row.differences.empty() && out.first_divergence.empty())
      out.first_divergence = describe(row, i);
    out.checkpoints.push_back(std::move(row));
  }
  const auto real_failovers = failovers_since(real, real_origin);
  std::vector<std::int64_t> sim_failovers;  // as for checkpoints: paired, or within the span
  for (std::int64_t t : failovers_since(sim, sim_origin))
    if (sim_failovers.size() < real_failovers.size() || t <= out.window_ms)
      sim_failovers.push_back(t);
  for (std::size_t i = 0; i < std::max(real_failovers.size(), sim_failovers.size()); ++i) {
    FailoverRow row;
    if (i < real_failovers.size()) row.real_ms = real_failovers[i];
    if (i < sim_failovers.size()) row.sim_ms = sim_failovers[i];
    row.differs = !row.real_ms || !row.sim_ms || far_apart(*row.real_ms, *row.sim_ms, 0.05, 10000);
    if (row.differs && out.first_divergence.empty())
      out.first_divergence =
          fmt::format("failover #{}: real {}, simulated {}", i + 1,
                      row.real_ms ? "at " + clock(*row.real_ms) : std::string("none"),
                      row.sim_ms ? "at " + clock(*row.sim_ms) : std::string("none"));
    out.failovers.push_back(row);
  }
  return out;
}

std::string real_comparison_text(const RealComparison& c) {
  std::string out =
      fmt::format("{:>3}  {:>8} {:>8}  {:<40} {:<40} {:>10} {:>10}  {}\n", "#", "real id", "sim id",
                  "real status", "simulated status", "real", "simulated", "differs");
  for (std::size_t i = 0; i < c.checkpoints.size(); ++i) {
    const CheckpointRow& r = c.checkpoints[i];
    out += fmt::format("{:>3}  {:>8} {:>8}  {:<40} {:<40} {:>10} {:>10}  {}\n", i + 1,
                       r.real ? std::to_string(r.real->id) : "-",
                       r.sim ? std::to_string(r.sim->id) : "-", status_text(r.real),
                       status_text(r.sim), duration(r.real ? r.real->duration_ms : std::nullopt),
                       duration(r.sim ? r.sim->duration_ms : std::nullopt),
                       fmt::join(r.differences, ", "));
  }
  out +=
      "durations: trigger to completion or failure; checkpoints matched in trigger order from "
      "each side's first; simulated ones after the real files' last (" +
      clock(c.window_ms) + " in) are not compared\n";
  for (std::size_t i = 0; i < c.failovers.size(); ++i) {
    const FailoverRow& f = c.failovers[i];
    out += fmt::format("failover {}: real {}, simulated {}{}\n", i + 1,
                       f.real_ms ? clock(*f.real_ms) : "-", f.sim_ms ? clock(*f.sim_ms) : "-",
                       f.differs ? "  differs" : "");
  }
  std::size_t real_n = 0, sim_n = 0, real_done = 0, sim_done = 0;
  for (const CheckpointRow& r : c.checkpoints) {
    real_n += r.real.has_value();
    sim_n += r.sim.has_value();
    real_done += r.real && r.real->status == "COMPLETED";
    sim_done += r.sim && r.sim->status == "COMPLETED";
  }
  std::size_t real_f = 0, sim_f = 0;
  for (const FailoverRow& f : c.failovers) {
    real_f += f.real_ms.has_value();
    sim_f += f.sim_ms.has_value();
  }
  out += fmt::format(
      "real: {} checkpoints ({} completed), {} failovers; simulated: {} ({} "
      "completed), {} failovers\n",
      real_n, real_done, real_f, sim_n, sim_done, sim_f);
  out += c.first_divergence.empty() ? "they agree: same statuses and failovers, durations within "
                                      "20 % or 1 s\n"
                                    : "first divergence: " + c.first_divergence + "\n";
  return out;
}

std::string real_comparison_csv(const RealComparison& c) {
  std::string out =
      "index,real_id,sim_id,real_status,sim_status,real_reason,sim_reason,real_trigger_ms,"
      "sim_trigger_ms,real_duration_ms,sim_duration_ms,differences\n";
  const auto opt = [](const std::optional<std::int64_t>& v) {
    return v ? std::to_string(*v) : std::string();
  };
  for (std::size_t i = 0; i < c.checkpoints.size(); ++i) {
    const CheckpointRow& r = c.checkpoints[i];
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{}\n", i + 1, r.real ? std::to_string(r.real->id) : "",
        r.sim ? std::to_string(r.sim->id) : "", r.real ? r.real->status : "",
        r.sim ? r.sim->status : "", r.real ? r.real->reason : "", r.sim ? r.sim->reason : "",
        r.real ? std::to_string(r.real->trigger_ms) : "",
        r.sim ? std::to_string(r.sim->trigger_ms) : "",
        opt(r.real ? r.real->duration_ms : std::nullopt),
        opt(r.sim ? r.sim->duration_ms : std::nullopt), fmt::join(r.differences, ";"));
  }
  return out;
}

}  // namespace ckptsim::analysis
