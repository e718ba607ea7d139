// The words of `compare --real`: times, durations, what became of a checkpoint attempt, the
// first divergence and the verdict.
#include "analysis/import/real_compare_text.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace ckptsim::analysis {
namespace {

std::string id_text(const CheckpointSide& s) {
  return s.id ? std::to_string(*s.id) : std::string("none");
}

// What became of it: "COMPLETED in 4.2 s", "FAILED (CHECKPOINT_EXPIRED) after 600.0 s".
std::string fate(const CheckpointSide& s, bool real) {
  const std::string status = status_text(s);
  if (s.status == "IN_PROGRESS")
    return status + (real ? " where the files end" : " when the run ended");
  if (!s.id) return status + " before it got an id";
  if (!s.duration_ms) return status;
  return status + (s.status == "COMPLETED" ? " in " : " after ") + duration_text(s.duration_ms);
}

std::string plural(int n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string counts_text(const SideCounts& c) {
  std::string out = fmt::format("{} ({} completed, {} failed", plural(c.checkpoints, "checkpoint"),
                                c.completed, c.failed);
  if (c.without_id > 0) out += fmt::format(", {} of them before an id", c.without_id);
  if (c.in_progress > 0) out += fmt::format(", {} in progress", c.in_progress);
  return out + "), " + plural(c.failovers, "failover");
}

}  // namespace

std::string clock_text(std::int64_t ms) {
  const std::int64_t s = std::llabs(ms) / 1000;
  return fmt::format("{}{:02}:{:02}:{:02}", ms < 0 ? "-" : "", s / 3600, (s / 60) % 60, s % 60);
}

std::string duration_text(const std::optional<std::int64_t>& ms) {
  if (!ms) return "-";
  if (*ms < 1000) return fmt::format("{} ms", *ms);
  return fmt::format("{:.1f} s", static_cast<double>(*ms) / 1000.0);
}

std::string status_text(const std::optional<CheckpointSide>& s) {
  if (!s) return "-";
  return s->reason.empty() ? s->status : s->status + " (" + s->reason + ")";
}

std::string describe_divergence(const CheckpointRow& row, std::size_t index) {
  const std::string& what = row.differences.front();
  if (what == "missing")
    return fmt::format(
        "checkpoint #{} (real id {}): real triggered at {}, {}; the simulation has no checkpoint "
        "in its place",
        index + 1, id_text(*row.real), clock_text(row.real->trigger_ms), fate(*row.real, true));
  if (what == "extra")
    return fmt::format(
        "checkpoint #{}: the simulation triggers one more (id {}) at {}, {}, that the real files "
        "do not have",
        index + 1, id_text(*row.sim), clock_text(row.sim->trigger_ms), fate(*row.sim, false));
  return fmt::format(
      "checkpoint #{} (real id {}, simulated id {}; {} differ{}): real triggered at {}, {}; "
      "simulated triggered at {}, {}",
      index + 1, id_text(*row.real), id_text(*row.sim), fmt::join(row.differences, " and "),
      row.differences.size() == 1 ? "s" : "", clock_text(row.real->trigger_ms),
      fate(*row.real, true), clock_text(row.sim->trigger_ms), fate(*row.sim, false));
}

std::string real_comparison_verdict(const RealComparison& c) {
  const std::string counts =
      "real: " + counts_text(c.real) + "; simulated: " + counts_text(c.sim) + ".";
  if (c.checkpoints.empty() && c.failovers.empty())
    return "Nothing to compare: the real files hold no checkpoint, no failed trigger and no "
           "failover, and the simulation has none before " +
           clock_text(c.window_ms) + ", where they end.";
  if (c.first_divergence.empty())
    return fmt::format(
        "They agree: {}; {}. {}",
        c.checkpoints.empty()
            ? std::string("no checkpoint attempt on either side")
            : plural(static_cast<int>(c.checkpoints.size()), "checkpoint attempt") +
                  " in the same order with the same statuses and failure reasons, durations "
                  "within 20 % or 1 s",
        c.failovers.empty()
            ? std::string("no failover on either side")
            : plural(static_cast<int>(c.failovers.size()), "failover") + " within 5 % or 10 s",
        counts);
  int rows = 0, failovers = 0;
  for (const CheckpointRow& r : c.checkpoints) rows += !r.differences.empty();
  for (const FailoverRow& f : c.failovers) failovers += f.differs;
  return fmt::format(
      "They diverge: {} of {} checkpoint attempts and {} of {} failovers differ. The first "
      "divergence is {}. {}",
      rows, c.checkpoints.size(), failovers, c.failovers.size(), c.first_divergence, counts);
}

}  // namespace ckptsim::analysis
