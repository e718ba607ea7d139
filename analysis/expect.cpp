// Evaluates expectations on a RunResult. "within T" everywhere means "as things stood at
// simulated time T": a checkpoint's status at T, the job's status at T, what was counted or
// logged by T. Counts cover every submission of the job (earlier_checkpoints too).
#include "analysis/expect.hpp"

#include <algorithm>
#include <numeric>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "analysis/story.hpp"
#include "sim/run/writers/flink_stats.hpp"
#include "sim/run/writers/writers.hpp"

namespace ckptsim::analysis {
namespace {

using run::CheckpointRecord;
using run::CheckpointStatus;
using run::RunResult;
using scenario::Bound;
using scenario::CheckpointCountKind;
using scenario::CheckpointOutcome;
using scenario::Comparison;
using scenario::Expectation;
using scenario::ExpectationKind;

constexpr core::SimTime kForever = std::numeric_limits<core::SimTime>::max();

core::SimTime horizon(const Expectation& e) { return e.within ? *e.within : kForever; }

// " by 00:20:00.000" for a bounded expectation, "" otherwise.
std::string by(const Expectation& e) {
  return e.within ? " by " + format_sim_time(*e.within) : std::string();
}

// Every checkpoint and savepoint of the run, earlier submissions first, each in trigger order.
std::vector<const CheckpointRecord*> all_checkpoints(const RunResult& r) {
  std::vector<const CheckpointRecord*> out;
  for (const CheckpointRecord& c : r.earlier_checkpoints) out.push_back(&c);
  for (const CheckpointRecord& c : r.checkpoints) out.push_back(&c);
  return out;
}

bool ended_by(const CheckpointRecord& c, core::SimTime t) {
  return c.status != CheckpointStatus::in_progress && c.end_time >= 0 && c.end_time <= t;
}

bool is_expired(const CheckpointRecord& c) {
  return c.status == CheckpointStatus::failed &&
         c.failure_reason == model::CheckpointFailureReason::checkpoint_expired;
}

// "COMPLETED", "FAILED (CHECKPOINT_EXPIRED)".
std::string status_text(const CheckpointRecord& c) {
  switch (c.status) {
    case CheckpointStatus::completed: return "COMPLETED";
    case CheckpointStatus::in_progress: return "IN_PROGRESS";
    case CheckpointStatus::failed:
      return c.failure_reason ? fmt::format("FAILED ({})", model::name(*c.failure_reason))
                              : std::string("FAILED");
  }
  return "?";
}

std::string format_count(double value) {
  if (std::floor(value) == value && std::fabs(value) < 1e15)
    return fmt::format("{}", static_cast<std::int64_t>(value));
  return fmt::format("{:.3f}", value);
}

const char* comparison_text(Comparison c) {
  switch (c) {
    case Comparison::equal: return "=";
    case Comparison::at_most: return "<=";
    case Comparison::at_least: return ">=";
    case Comparison::less: return "<";
    case Comparison::more: return ">";
  }
  return "?";
}

std::string bound_text(const Bound& b, bool duration) {
  const std::string value = duration ? human_duration(static_cast<core::Duration>(b.value))
                                     : format_count(b.value);
  return fmt::format("{} {}", comparison_text(b.comparison), value);
}

bool satisfies(const Bound& b, double value) {
  switch (b.comparison) {
    case Comparison::equal: return value == b.value;
    case Comparison::at_most: return value <= b.value;
    case Comparison::at_least: return value >= b.value;
    case Comparison::less: return value < b.value;
    case Comparison::more: return value > b.value;
  }
  return false;
}

// ---- the checks: each fills expected, actual and passed

void check_checkpoint_status(const RunResult& r, ExpectationResult& out) {
  const Expectation& e = out.expectation;
  switch (e.outcome) {
    case CheckpointOutcome::completed: out.expected = "COMPLETED"; break;
    case CheckpointOutcome::failed: out.expected = "FAILED"; break;
    case CheckpointOutcome::expired: out.expected = "FAILED (CHECKPOINT_EXPIRED)"; break;
    case CheckpointOutcome::in_progress: out.expected = "IN_PROGRESS"; break;
    case CheckpointOutcome::failure_reason:
      out.expected = fmt::format("FAILED ({})", model::name(e.reason));
      break;
  }
  out.expected += e.within ? " at " + format_sim_time(*e.within) : std::string();
  // A restart from no state reuses ids: the latest checkpoint with the id is the one meant.
  const CheckpointRecord* found = nullptr;
  std::int64_t highest = 0;
  for (const CheckpointRecord* c : all_checkpoints(r)) {
    highest = std::max(highest, c->id);
    if (c->id == e.checkpoint_id) found = c;
  }
  const core::SimTime t = horizon(e);
  if (found == nullptr || found->trigger_time > t) {
    if (found != nullptr)
      out.actual = fmt::format("not triggered yet at {} (triggered at {})", format_sim_time(t),
                               format_sim_time(found->trigger_time));
    else if (highest == 0)
      out.actual = "no checkpoint was triggered";
    else
      out.actual = fmt::format("no checkpoint {} (the run triggered ids up to {})",
                               e.checkpoint_id, highest);
    return;
  }
  const CheckpointRecord& c = *found;
  if (!ended_by(c, t)) {
    out.passed = e.outcome == CheckpointOutcome::in_progress;
    out.actual = e.within ? "IN_PROGRESS at " + format_sim_time(t)
                          : "IN_PROGRESS at the end of the run (" + format_sim_time(r.end_time) + ")";
    return;
  }
  switch (e.outcome) {
    case CheckpointOutcome::completed: out.passed = c.status == CheckpointStatus::completed; break;
    case CheckpointOutcome::failed: out.passed = c.status == CheckpointStatus::failed; break;
    case CheckpointOutcome::expired: out.passed = is_expired(c); break;
    case CheckpointOutcome::in_progress: out.passed = false; break;
    case CheckpointOutcome::failure_reason:
      out.passed = c.status == CheckpointStatus::failed && c.failure_reason == e.reason;
      break;
  }
  out.actual = fmt::format("{} at {}", status_text(c), format_sim_time(c.end_time));
}

void check_all_completed(const RunResult& r, ExpectationResult& out) {
  const Expectation& e = out.expectation;
  out.expected = "every checkpoint COMPLETED" + by(e);
  int completed = 0;
  for (const CheckpointRecord* c : all_checkpoints(r)) {
    // One still in progress (at T or at the end of the run) has not failed: it does not count.
    if (!ended_by(*c, horizon(e))) continue;
    if (c->status == CheckpointStatus::failed) {
      out.actual = fmt::format("checkpoint {} {} at {}", c->id, status_text(*c),
                               format_sim_time(c->end_time));
      return;
    }
    ++completed;
  }
  out.passed = completed > 0;
  out.actual = out.passed ? fmt::format("{} completed, none failed", completed)
                          : std::string("no checkpoint completed") + by(e);
}

void check_count(const RunResult& r, ExpectationResult& out) {
  const Expectation& e = out.expectation;
  const core::SimTime t = horizon(e);
  std::int64_t count = 0;
  for (const CheckpointRecord* c : all_checkpoints(r)) {
    switch (e.count_kind) {
      case CheckpointCountKind::completed:
        count += ended_by(*c, t) && c->status == CheckpointStatus::completed;
        break;
      case CheckpointCountKind::failed:
        count += ended_by(*c, t) && c->status == CheckpointStatus::failed;
        break;
      case CheckpointCountKind::expired: count += ended_by(*c, t) && is_expired(*c); break;
      case CheckpointCountKind::triggered: count += c->trigger_time <= t; break;
    }
  }
  out.expected = bound_text(e.bound, false) + by(e);
  out.actual = std::to_string(count);
  out.passed = satisfies(e.bound, static_cast<double>(count));
}

// Times of the job's global failovers (RUNNING -> RESTARTING) and restarts (RESTARTING ->
// RUNNING), as the status changes show them.
std::vector<core::SimTime> failover_times(const RunResult& r) {
  std::vector<core::SimTime> times;
  for (const run::JobStatusChange& s : r.job_status_changes)
    if (s.to == model::JobStatus::restarting) times.push_back(s.time);
  return times;
}

std::vector<core::SimTime> restart_times(const RunResult& r) {
  std::vector<core::SimTime> times;
  for (const run::JobStatusChange& s : r.job_status_changes)
    if (s.from == model::JobStatus::restarting && s.to == model::JobStatus::running)
      times.push_back(s.time);
  return times;
}

void check_failed_over(const RunResult& r, ExpectationResult& out, bool wanted) {
  const Expectation& e = out.expectation;
  const std::vector<core::SimTime> times = failover_times(r);
  const bool any = e.within ? !times.empty() && times.front() <= *e.within : r.failovers > 0;
  out.expected = (wanted ? "a failover" : "no failover") + by(e);
  out.passed = any == wanted;
  if (times.empty())
    out.actual = r.failovers > 0 ? fmt::format("{} failovers", r.failovers) : "no failover";
  else if (e.within && !any)
    out.actual = "the first at " + format_sim_time(times.front());
  else
    out.actual = fmt::format("{} at {}", times.size() == 1 ? "one" : "the first",
                             format_sim_time(times.front())) +
                 (times.size() > 1 ? fmt::format(" ({} in all)", times.size()) : std::string());
}

void check_job_status(const RunResult& r, ExpectationResult& out) {
  const Expectation& e = out.expectation;
  model::JobStatus status = r.final_status;
  if (e.within) {
    status = model::JobStatus::created;
    for (const run::JobStatusChange& s : r.job_status_changes)
      if (s.time <= *e.within) status = s.to;
    out.expected = fmt::format("{} at {}", model::to_string(e.job_status),
                               format_sim_time(*e.within));
    out.actual = fmt::format("{} at {}", model::to_string(status), format_sim_time(*e.within));
  } else {
    out.expected = fmt::format("final status {}", model::to_string(e.job_status));
    out.actual = model::to_string(status);
  }
  out.passed = status == e.job_status;
}

void check_job_count(const RunResult& r, ExpectationResult& out) {
  const Expectation& e = out.expectation;
  std::int64_t count = e.kind == ExpectationKind::restarts ? r.restarts : r.failovers;
  if (e.within) {
    const auto times = e.kind == ExpectationKind::restarts ? restart_times(r) : failover_times(r);
    count = std::count_if(times.begin(), times.end(), [&](core::SimTime t) { return t <= *e.within; });
  }
  out.expected = bound_text(e.bound, false) + by(e);
  out.actual = std::to_string(count);
  out.passed = satisfies(e.bound, static_cast<double>(count));
}

// AbstractCheckpointStats.getEndToEndDuration of a completed checkpoint: its latest
// acknowledgement minus its trigger (the completion time when nothing acknowledged).
core::Duration end_to_end_duration(const CheckpointRecord& c) {
  const core::SimTime end = c.latest_ack_time >= 0 ? c.latest_ack_time : c.end_time;
  return std::max<core::Duration>(0, end - c.trigger_time);
}

std::string statistic_name(double percentile) {
  if (percentile < 0) return "avg";
  if (percentile == 0) return "min";
  if (percentile >= 100) return "max";
  if (percentile == 99.9) return "p999";
  return fmt::format("p{}", static_cast<int>(percentile));
}

void check_duration(const RunResult& r, ExpectationResult& out) {
  const Expectation& e = out.expectation;
  const std::string name = statistic_name(e.percentile);
  const std::vector<double> durations = completed_checkpoint_durations(r, horizon(e));
  out.expected = fmt::format("{} {}{}", name, bound_text(e.bound, true), by(e));
  if (durations.empty()) {
    out.actual = "no completed checkpoint" + by(e);
    return;
  }
  // Flink's summary statistics: min, max and average, and commons-math's legacy percentile
  // estimation.
  double value = 0;
  if (e.percentile < 0)
    value = std::accumulate(durations.begin(), durations.end(), 0.0) /
            static_cast<double>(durations.size());
  else if (e.percentile == 0)
    value = *std::min_element(durations.begin(), durations.end());
  else if (e.percentile >= 100)
    value = *std::max_element(durations.begin(), durations.end());
  else
    value = run::legacy_percentile(durations, e.percentile / 100.0);
  out.actual = fmt::format("{} = {} over {} completed checkpoint{}", name,
                           human_duration(static_cast<core::Duration>(std::llround(value))),
                           durations.size(), durations.size() == 1 ? "" : "s");
  out.passed = satisfies(e.bound, value);
}

// The log as jobmanager.log has it, one entry per record: its first line number and its text
// (the record's line and its throwable lines).
struct LogEntry {
  core::SimTime time;
  int line;
  std::string text;
};

std::vector<LogEntry> log_entries(const RunResult& r) {
  std::vector<LogEntry> entries;
  int line = 1;
  for (const run::LogRecord& record : r.log) {
    LogEntry entry{record.time, line, run::format_log_line(r, record)};
    for (const std::string& t : record.throwable) entry.text += "\n" + t;
    line += 1 + static_cast<int>(record.throwable.size());
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Why a checkpoint waited (an expired one's late subtasks, a slow one's slowest): the first
// explanation that contains the text.
void check_diagnosis(const RunResult& r, ExpectationResult& out) {
  const Expectation& e = out.expectation;
  out.expected = fmt::format("an explanation containing \"{}\"{}", e.log_text, by(e));
  out.actual = "none";
  for (const auto* list : {&r.earlier_checkpoints, &r.checkpoints})
    for (const run::CheckpointRecord& c : *list)
      for (const auto* waits : {&c.waits, &c.slow_waits})
        for (const run::WaitRecord& w : *waits) {
          const std::string text = run::describe_wait(r, w);
          if (text.find(e.log_text) == std::string::npos) continue;
          out.passed = c.trigger_time <= horizon(e);
          out.actual = fmt::format("checkpoint {}: {}", c.id, text);
          return;
        }
  std::string any;
  for (const auto* list : {&r.earlier_checkpoints, &r.checkpoints})
    for (const run::CheckpointRecord& c : *list)
      if (any.empty() && !c.waits.empty()) any = run::describe_wait(r, c.waits.front());
  if (!any.empty()) out.actual = "none; the first: " + any;
}

void check_log(const std::vector<LogEntry>& log, ExpectationResult& out) {
  const Expectation& e = out.expectation;
  const bool wanted = e.kind == ExpectationKind::log_contains;
  const LogEntry* first = nullptr;
  for (const LogEntry& entry : log) {
    if (entry.text.find(e.log_text) == std::string::npos) continue;
    first = &entry;
    break;
  }
  const bool found = first != nullptr && first->time <= horizon(e);
  out.passed = found == wanted;
  out.expected = fmt::format("{} line containing \"{}\"{}", wanted ? "a" : "no", e.log_text, by(e));
  if (first == nullptr) {
    out.actual = "no such line";
  } else {
    std::string text = first->text.substr(0, first->text.find('\n'));
    out.actual = fmt::format("{} line {}: {}", found ? "at" : "only after, at", first->line, text);
  }
}

}  // namespace

std::vector<double> completed_checkpoint_durations(const RunResult& result, core::SimTime until) {
  std::vector<double> durations;
  for (const CheckpointRecord* c : all_checkpoints(result))
    if (ended_by(*c, until) && c->status == CheckpointStatus::completed)
      durations.push_back(static_cast<double>(end_to_end_duration(*c)));
  return durations;
}

std::string format_sim_time(core::SimTime time) {
  const std::int64_t total_ms = time / core::kMillisecond;
  const std::int64_t s = total_ms / 1000;
  return fmt::format("{:02}:{:02}:{:02}.{:03}", s / 3600, (s / 60) % 60, s % 60, total_ms % 1000);
}

std::vector<ExpectationResult> check_expectations(const std::vector<Expectation>& expectations,
                                                  const RunResult& result) {
  std::vector<ExpectationResult> out;
  std::vector<LogEntry> log;
  bool log_ready = false;
  for (const Expectation& e : expectations) {
    ExpectationResult r;
    r.expectation = e;
    switch (e.kind) {
      case ExpectationKind::checkpoint_status: check_checkpoint_status(result, r); break;
      case ExpectationKind::all_checkpoints_completed: check_all_completed(result, r); break;
      case ExpectationKind::checkpoint_count: check_count(result, r); break;
      case ExpectationKind::job_failed_over: check_failed_over(result, r, true); break;
      case ExpectationKind::job_no_failover: check_failed_over(result, r, false); break;
      case ExpectationKind::job_status: check_job_status(result, r); break;
      case ExpectationKind::restarts:
      case ExpectationKind::failovers: check_job_count(result, r); break;
      case ExpectationKind::checkpoint_duration: check_duration(result, r); break;
      case ExpectationKind::replayed_records:
      case ExpectationKind::lost_records: {
        const std::int64_t n = e.kind == ExpectationKind::replayed_records ? result.replayed_records
                                                                           : result.lost_records;
        r.expected = bound_text(e.bound, false);
        r.actual = std::to_string(n);
        r.passed = satisfies(e.bound, static_cast<double>(n));
        break;
      }
      case ExpectationKind::diagnosis_contains: check_diagnosis(result, r); break;
      case ExpectationKind::log_contains:
      case ExpectationKind::log_lacks:
        // The log is formatted once, and only for scenarios that look into it.
        if (!log_ready) log = log_entries(result);
        log_ready = true;
        check_log(log, r);
        break;
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string describe_result(const ExpectationResult& result) {
  const Expectation& e = result.expectation;
  std::string where = e.file;
  if (e.line > 0) where += fmt::format(":{}:{}", e.line, e.column);
  return fmt::format("{}: {}: expected {}, got {}", where, e.text, result.expected, result.actual);
}

}  // namespace ckptsim::analysis
