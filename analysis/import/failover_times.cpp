// When an imported (or simulated) job failed over, for draft and compare --real.
#include <algorithm>
#include <cstdlib>

#include "analysis/import/import.hpp"

namespace ckptsim::analysis {
namespace {

bool is_failover(const run::JobStatusChange& s) {
  return s.from == model::JobStatus::running &&
         (s.to == model::JobStatus::restarting || s.to == model::JobStatus::failing);
}

}  // namespace

// When the job failed over: its RUNNING -> RESTARTING/FAILING changes, and DefaultScheduler's
// "Trying to recover from a global failure." where no status line goes with it (an excerpt).
std::vector<core::SimTime> failover_times(const run::RunResult& r) {
  std::vector<core::SimTime> out;
  for (const run::JobStatusChange& s : r.job_status_changes)
    if (is_failover(s)) out.push_back(s.time);
  const std::vector<core::SimTime> changes = out;
  for (const run::LogRecord& l : r.log) {
    if (l.message.find("Trying to recover from a global failure") == std::string::npos) continue;
    const bool has_change = std::any_of(changes.begin(), changes.end(), [&](core::SimTime t) {
      return std::llabs(t - l.time) <= core::seconds(1);
    });
    if (!has_change) out.push_back(l.time);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ckptsim::analysis
