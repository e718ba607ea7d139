// `ckptsim draft`: an imported RunResult written back as a scenario (docs/scenario-format.md).
// Every value is either read from the files (and says from where) or a placeholder marked
// `# TODO` with what to measure; the timeline holds stand-ins for what the files cannot explain.
#include "analysis/import/draft.hpp"

#include "analysis/import/numbers.hpp"
#include "sim/run/footprint.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckptsim::analysis {

namespace {

using model::CheckpointFailureReason;
using model::JobStatus;
using run::CheckpointRecord;
using run::CheckpointStatus;

std::int64_t ms_of(core::SimTime t) {
  return t / core::kMillisecond;
}

// A text for a comment: one line, without control characters, at most `max` characters.
std::string one_line(const std::string& s, std::size_t max = 100000) {
  std::string out = s.substr(0, max);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

// A YAML double-quoted scalar.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : one_line(s)) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Milliseconds in the scenario's duration syntax, in the largest unit that keeps them exact.
std::string duration_text(std::int64_t ms) {
  if (ms > 0 && ms % 3600000 == 0) return std::to_string(ms / 3600000) + " h";
  if (ms > 0 && ms % 60000 == 0) return std::to_string(ms / 60000) + " min";
  if (ms > 0 && ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

// Milliseconds as ckptsim's own keys take them (`duration`, `at`, `for`): parts summed,
// "3 min 24 s 250 ms".
std::string time_text(std::int64_t ms) {
  if (ms <= 0) return "0 ms";
  std::string out;
  const auto part = [&](std::int64_t unit, const char* name) {
    if (ms >= unit) {
      out += (out.empty() ? "" : " ") + std::to_string(ms / unit) + " " + name;
      ms %= unit;
    }
  };
  part(3600000, "h");
  part(60000, "min");
  part(1000, "s");
  part(1, "ms");
  return out;
}

std::string two(std::int64_t v) {
  return (v < 10 ? "0" : "") + std::to_string(v);
}

// Epoch milliseconds as the `start:` syntax, UTC (Howard Hinnant's civil_from_days).
std::string date_time(std::int64_t epoch_ms) {
  const std::int64_t day_ms = 86400000;
  std::int64_t days = epoch_ms / day_ms, rest = epoch_ms % day_ms;
  if (rest < 0) {
    rest += day_ms;
    --days;
  }
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const std::int64_t doe = days - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  std::string out = std::to_string(y) + "-" + two(m) + "-" + two(d) + " " + two(rest / 3600000) +
                    ":" + two(rest / 60000 % 60) + ":" + two(rest / 1000 % 60);
  if (rest % 1000 != 0) {
    const std::string frac = std::to_string(1000 + rest % 1000);
    out += "." + frac.substr(1);
  }
  return out;
}

bool ended(const CheckpointRecord& c) {
  return c.status != CheckpointStatus::in_progress;
}
bool expired(const CheckpointRecord& c) {
  return c.status == CheckpointStatus::failed &&
         c.failure_reason == CheckpointFailureReason::checkpoint_expired;
}

// CheckpointFailureManager counts these towards tolerable-failed-checkpoints; a failure whose
// reason the files do not give may be one of them.
bool counted(const CheckpointRecord& c) {
  if (c.status != CheckpointStatus::failed || model::is_savepoint(c.type)) return false;
  if (!c.failure_reason) return true;
  switch (*c.failure_reason) {
    case CheckpointFailureReason::io_exception:
    case CheckpointFailureReason::checkpoint_async_exception:
    case CheckpointFailureReason::checkpoint_declined:
    case CheckpointFailureReason::checkpoint_expired:
    case CheckpointFailureReason::finalize_checkpoint_failure:
      return true;
    default:
      return false;
  }
}

// Source subtasks that FINISHED while the job ran (a source with fewer partitions than subtasks),
// from task lines and from the trigger aborts that name them ("Checkpoint triggering task X (k/n)
// of job J is not in state RUNNING but FINISHED instead" before 1.14, "... is not being executed
// at the moment" after): the task's name, its parallelism, the finished subtasks, and whether
// checkpoint triggers were aborted because of them.
struct FinishedSubtasks {
  std::string task;
  int parallelism = 0;
  std::set<int> finished;
  bool aborts = false;
};

FinishedSubtasks finished_subtasks(const run::RunResult& r) {
  static const std::regex kFinished(R"(^(.+) \((\d+)/(\d+)\).* switched from RUNNING to FINISHED)");
  static const std::regex kAbort(
      R"(Checkpoint triggering task (.+) \((\d+)/(\d+)\) of job [0-9a-f]{32} is not (in state RUNNING but FINISHED|being executed))");
  FinishedSubtasks f;
  std::smatch m;
  for (const run::LogRecord& l : r.log) {
    if (l.message.find("FINISHED") == std::string::npos &&
        l.message.find("triggering task") == std::string::npos)
      continue;
    const bool finished = std::regex_search(l.message, m, kFinished);
    const bool abort = !finished && std::regex_search(l.message, m, kAbort);
    if (!finished && !abort) continue;
    const std::string task = m[1];
    // Bounded: a real file may hold any digits (read_integer saturates; Flink's max is 32768).
    const int subtask = static_cast<int>(std::min<std::int64_t>(read_integer(m[2].str()), 1 << 15));
    if (f.task.empty()) {
      f.task = task;
      f.parallelism = static_cast<int>(std::min<std::int64_t>(read_integer(m[3].str()), 1 << 15));
    }
    if (task != f.task) continue;
    if (finished || m[4].str().rfind("in state", 0) == 0) f.finished.insert(subtask);
    if (abort && f.finished.count(subtask)) f.aborts = true;
  }
  if (std::any_of(r.job_status_changes.begin(), r.job_status_changes.end(),
                  [](const run::JobStatusChange& s) { return s.to == JobStatus::finished; }))
    return {};  // a bounded job that finished: its tasks finish as it does
  return f;
}

// What the draft says about one option: its value and why (a comment, maybe a TODO).
struct Option {
  std::string key, value, comment;
};

struct Facts {
  std::vector<Option> flink;
  std::int64_t interval_ms = 60000;
  std::int64_t min_pause_ms = 0;
  std::vector<std::string> failover_notes;  // failovers the tolerable-failure logic explains
};

Facts flink_facts(const run::RunResult& r, const ImportReport& report,
                  const std::vector<const CheckpointRecord*>& cps) {
  Facts f;
  const bool config = std::any_of(
      report.files.begin(), report.files.end(),
      [](const std::string& s) { return s.find("checkpoints/config") != std::string::npos; });
  const bool tolerable_configured =
      config && std::none_of(report.files.begin(), report.files.end(), [](const std::string& s) {
        return s.find("no tolerable_failed_checkpoints") != std::string::npos;
      });
  const model::CheckpointingConfig& cc = r.flink.checkpointing;

  const std::string modelled = model::to_string(r.flink_version);
  const bool exact = report.flink_version.rfind(modelled, 0) == 0 &&
                     report.flink_version.find("guess") == std::string::npos;
  f.flink.push_back({"version", quoted(modelled),
                     exact ? "as the files state"
                           : "TODO: the Flink version per the files: " + report.flink_version +
                                 "; this is the nearest modelled one. Check the real one (the "
                                 "JobManager log's 'Version:' line at start-up, /overview)"});

  // The interval: configured, else the median spacing of consecutive periodic triggers.
  // Only the regular rhythm: after a completed checkpoint and with no failover in between (a
  // request queued behind a pending one, or the first after a restart, comes off the beat).
  const std::vector<core::SimTime> failovers = failover_times(r);
  std::vector<std::int64_t> spacing, any_spacing;
  for (std::size_t i = 1; i < cps.size(); ++i) {
    const CheckpointRecord &a = *cps[i - 1], &b = *cps[i];
    if (!a.periodic || !b.periodic || b.id != a.id + 1 || b.trigger_time <= a.trigger_time)
      continue;
    const std::int64_t gap = ms_of(b.trigger_time - a.trigger_time);
    any_spacing.push_back(gap);
    const bool failover_between =
        std::any_of(failovers.begin(), failovers.end(),
                    [&](core::SimTime t) { return t > a.trigger_time && t <= b.trigger_time; });
    if (a.status == CheckpointStatus::completed && !failover_between) spacing.push_back(gap);
  }
  // From each (re)start to the first trigger after it: the random initial delay, at most the
  // interval. Their longest, rounded up, stands in when the beat itself is never seen.
  std::int64_t longest_delay = 0;
  for (std::size_t k = 0; k < r.job_status_changes.size(); ++k) {
    const run::JobStatusChange& s = r.job_status_changes[k];
    if (s.to != JobStatus::running ||
        (s.from != JobStatus::created && s.from != JobStatus::restarting))
      continue;
    const core::SimTime next_change =
        k + 1 < r.job_status_changes.size() ? r.job_status_changes[k + 1].time : core::kNever;
    for (const CheckpointRecord* c : cps)
      if (c->periodic && c->trigger_time >= s.time && c->trigger_time < next_change) {
        longest_delay = std::max(longest_delay, ms_of(c->trigger_time - s.time));
        break;
      }
  }
  if (config && cc.interval) {
    f.interval_ms = std::max<std::int64_t>(ms_of(*cc.interval), 10);  // ckptsim's lower bound
    f.flink.push_back({"execution.checkpointing.interval", duration_text(f.interval_ms),
                       "from /jobs/:jid/checkpoints/config"});
  } else if (spacing.empty() && longest_delay > 0) {
    const std::int64_t unit = longest_delay > 60000 ? 60000 : longest_delay > 10000 ? 10000 : 1000;
    f.interval_ms = std::max<std::int64_t>((longest_delay + unit - 1) / unit * unit, 10);
    f.flink.push_back({"execution.checkpointing.interval", duration_text(f.interval_ms),
                       "TODO: at least " + time_text(longest_delay) +
                           ", the longest wait from a (re)start to its first trigger (a random "
                           "initial delay up to the interval), rounded up; no regular beat of "
                           "triggers is in the files. Read it from /jobs/:jid/checkpoints/config"});
  } else if (!spacing.empty() || !any_spacing.empty()) {
    if (spacing.empty()) spacing = any_spacing;
    std::sort(spacing.begin(), spacing.end());
    std::int64_t median = spacing[spacing.size() / 2];
    // Triggers are logged a few ms after the timer fires: whole seconds when that is the intent.
    if (median >= 10000 && std::llabs(median - (median + 500) / 1000 * 1000) <= 50)
      median = (median + 500) / 1000 * 1000;
    f.interval_ms = std::max<std::int64_t>(median, 10);
    f.flink.push_back(
        {"execution.checkpointing.interval", duration_text(f.interval_ms),
         "measured from the log: the median spacing of " + std::to_string(spacing.size()) +
             " consecutive periodic triggers (TODO: confirm in the job's configuration)"});
  } else if (cps.empty() && r.end_time > 0) {
    // No checkpoint in the whole span: an interval longer than it keeps the draft so.
    f.interval_ms = std::max<std::int64_t>((ms_of(r.end_time) / 60000 + 1) * 60000 * 2, 60000);
    f.flink.push_back({"execution.checkpointing.interval", duration_text(f.interval_ms),
                       "TODO: the files show no checkpoint in their " +
                           time_text(ms_of(r.end_time)) +
                           ": the interval is longer than that (this placeholder) or checkpointing "
                           "is off. Read it from /jobs/:jid/checkpoints/config"});
  } else {
    f.flink.push_back({"execution.checkpointing.interval", duration_text(f.interval_ms),
                       "TODO: a placeholder; the files show no two consecutive periodic "
                       "triggers. Read it from /jobs/:jid/checkpoints/config"});
  }

  // The timeout: configured, else how long the expired checkpoints lasted (= the timeout).
  std::vector<std::int64_t> lasted;
  for (const CheckpointRecord* c : cps)
    if (expired(*c) && c->end_time >= c->trigger_time)
      lasted.push_back(ms_of(c->end_time - c->trigger_time));
  if (config) {
    f.flink.push_back({"execution.checkpointing.timeout",
                       duration_text(std::max<std::int64_t>(ms_of(cc.timeout), 10)),
                       "from /jobs/:jid/checkpoints/config"});
  } else if (!lasted.empty()) {
    std::sort(lasted.begin(), lasted.end());
    std::int64_t timeout = lasted[lasted.size() / 2];
    if (timeout >= 1000) timeout = timeout / 1000 * 1000;  // expiry is logged just after it
    f.flink.push_back({"execution.checkpointing.timeout",
                       duration_text(std::max<std::int64_t>(timeout, 10)),
                       "measured from the log: how long the " + std::to_string(lasted.size()) +
                           " expired checkpoint(s) lasted"});
  } else {
    f.flink.push_back({"# execution.checkpointing.timeout", "10 min",
                       "TODO: no checkpoint expired in the files, so the timeout is unknown; "
                       "Flink's default (10 min) applies"});
  }

  // Tolerable failed checkpoints: configured, else what the failovers after failures imply.
  std::optional<int> implied_exact;
  int tolerated = 0, run_length = 0;
  std::size_t next_change = 0;
  for (const CheckpointRecord* c : cps) {
    if (c->status == CheckpointStatus::completed) run_length = 0;
    if (!counted(*c) || c->end_time < 0) continue;
    // A failover in between resets the counter.
    for (; next_change < failovers.size() && failovers[next_change] < c->end_time; ++next_change)
      run_length = 0;
    ++run_length;
    const bool failover_follows = std::any_of(
        failovers.begin(), failovers.end(),
        [&](core::SimTime t) { return t >= c->end_time && t <= c->end_time + core::seconds(2); });
    if (failover_follows) {
      if (!implied_exact) {
        implied_exact = run_length - 1;
        f.failover_notes.push_back(
            "the log shows a global failover right after failure number " +
            std::to_string(run_length) + " in a row (checkpoint " + std::to_string(c->id) +
            "), which implies execution.checkpointing.tolerable-failed-checkpoints: " +
            std::to_string(run_length - 1));
      }
      run_length = 0;
    } else {
      tolerated = std::max(tolerated, run_length);
    }
  }
  if (tolerable_configured) {
    f.flink.push_back({"execution.checkpointing.tolerable-failed-checkpoints",
                       std::to_string(cc.tolerable_failed), "from /jobs/:jid/checkpoints/config"});
  } else if (implied_exact) {
    f.flink.push_back({"execution.checkpointing.tolerable-failed-checkpoints",
                       std::to_string(*implied_exact), f.failover_notes.front()});
  } else if (tolerated > 0) {
    f.flink.push_back({"execution.checkpointing.tolerable-failed-checkpoints",
                       std::to_string(tolerated),
                       "TODO: at least this many: " + std::to_string(tolerated) +
                           " failed checkpoint(s) in a row without a failover; read the real "
                           "value from /jobs/:jid/checkpoints/config"});
  } else {
    f.flink.push_back({"# execution.checkpointing.tolerable-failed-checkpoints", "0",
                       "TODO: unknown (no failed checkpoint tells); Flink's default applies"});
  }

  // Restarts: how long RESTARTING lasted (the strategy's delay), or a job that failed for good.
  std::vector<std::int64_t> restart_ms;
  bool failing = false;
  for (std::size_t k = 0; k < r.job_status_changes.size(); ++k) {
    const run::JobStatusChange& s = r.job_status_changes[k];
    failing = failing || (s.from == JobStatus::running && s.to == JobStatus::failing);
    if (s.from == JobStatus::restarting && s.to == JobStatus::running && k > 0 &&
        r.job_status_changes[k - 1].to == JobStatus::restarting)
      restart_ms.push_back(ms_of(s.time - r.job_status_changes[k - 1].time));
  }
  const bool restarted =
      std::any_of(r.job_status_changes.begin(), r.job_status_changes.end(),
                  [](const run::JobStatusChange& s) { return s.to == JobStatus::restarting; });
  // FLINK-29372 (1.17) renamed restart-strategy and execution.checkpointing.unaligned; a 1.15 or
  // 1.16 draft takes the keys its version reads.
  const bool old_keys = r.flink_version < model::FlinkVersion::v1_17;
  const char* restart_key = old_keys ? "restart-strategy" : "restart-strategy.type";
  if (failing && !restarted) {
    f.flink.push_back({restart_key, "none",
                       "TODO: the job went from RUNNING to FAILING without a restart: no restart "
                       "strategy, or its attempts were used up. Check restart-strategy.*"});
  } else if (!restart_ms.empty()) {
    std::sort(restart_ms.begin(), restart_ms.end());
    const std::int64_t median = restart_ms[restart_ms.size() / 2];
    if (std::llabs(median - 1000) > 100) {
      f.flink.push_back(
          {restart_key, "fixed-delay",
           "TODO: measured from the log, the median of " + std::to_string(restart_ms.size()) +
               " restarts (RESTARTING to RUNNING); the real strategy may be another"});
      f.flink.push_back({"restart-strategy.fixed-delay.attempts", "2147483647", ""});
      f.flink.push_back({"restart-strategy.fixed-delay.delay",
                         duration_text(std::max<std::int64_t>(median, 0)), ""});
    }
  }
  if (const FinishedSubtasks fin = finished_subtasks(r); fin.aborts)
    f.flink.push_back({"execution.checkpointing.checkpoints-after-tasks-finish.enabled", "false",
                       "the log shows triggers aborted because subtasks of " + fin.task +
                           " FINISHED (Flink before 1.14 behaves so). TODO: confirm the option"});
  if (config) {
    f.min_pause_ms = ms_of(cc.min_pause);
    f.flink.push_back({"execution.checkpointing.min-pause", duration_text(f.min_pause_ms),
                       "from /jobs/:jid/checkpoints/config"});
    f.flink.push_back({"execution.checkpointing.max-concurrent-checkpoints",
                       std::to_string(cc.unaligned ? 1 : cc.max_concurrent),
                       "from /jobs/:jid/checkpoints/config"});
    f.flink.push_back({old_keys ? "execution.checkpointing.unaligned"
                                : "execution.checkpointing.unaligned.enabled",
                       cc.unaligned ? "true" : "false",
                       "from /jobs/:jid/checkpoints/config"});
    if (cc.mode == model::CheckpointingMode::at_least_once)
      f.flink.push_back(
          {"execution.checkpointing.mode", "AT_LEAST_ONCE", "from /jobs/:jid/checkpoints/config"});
  } else {
    f.flink.push_back({"# execution.checkpointing.min-pause", "0",
                       "TODO: min pause, max concurrent checkpoints and unaligned checkpoints are "
                       "not in the log: read them from /jobs/:jid/checkpoints/config"});
  }
  return f;
}

// One stand-in on the timeline: its lines (after "- ") and the time it happens at.
struct Action {
  std::int64_t at_ms = 0;
  std::vector<std::string> lines;
};

constexpr const char* kPlaceholderRate = "rate: 1000 records/s";

// The first periodic trigger of the drafted job (no timeline) under `seed`, found by running it
// briefly: seeds only move it by the coordinator's random initial delay (getRandomInitDelay).
std::optional<std::int64_t> first_trigger_ms(const std::string& body, std::int64_t interval_ms,
                                             std::int64_t min_pause_ms) {
  const std::int64_t horizon = std::max(interval_ms, min_pause_ms) + 60000;
  // The data rate does not move the first trigger: a trickle keeps a long interval cheap.
  std::string trickle = body;
  for (std::size_t at = trickle.find(kPlaceholderRate); at != std::string::npos;
       at = trickle.find(kPlaceholderRate, at))
    trickle.replace(at, std::string_view(kPlaceholderRate).size(), "rate: 1 records/s");
  const std::string text = "seed: 1\nduration: " + duration_text(horizon) + "\n" + trickle;
  const scenario::LoadResult loaded = scenario::load_string(text, "draft-calibration.yaml");
  if (!loaded.ok()) return std::nullopt;
  // A job too big to run here (a huge parallelism read from the files) is not calibrated: the
  // draft then keeps the files' times as they are.
  if (run::estimate_footprint(*loaded.scenario).bytes > (std::int64_t{1} << 30)) return std::nullopt;
  const run::RunResult r = run::run(*loaded.scenario);
  for (const CheckpointRecord& c : r.checkpoints)
    if (c.periodic) return ms_of(c.trigger_time);
  return std::nullopt;
}

std::int64_t init_delay_ms(std::uint64_t seed, std::int64_t lo, std::int64_t hi) {
  core::RandomStream rng(seed, "checkpoint-coordinator#1");
  return rng.uniform_int(lo, std::max(lo, hi));
}

// The draft of one imported result, section by section; every section reads the checkpoints
// in id order (`cps_`).
class Drafter {
 public:
  Drafter(const run::RunResult& r, const ImportReport& report)
      : r_(r), report_(report), fin_(finished_subtasks(r)), failovers_(failover_times(r)) {
    for (const CheckpointRecord& c : r.checkpoints) cps_.push_back(&c);
    std::sort(cps_.begin(), cps_.end(),
              [](const CheckpointRecord* a, const CheckpointRecord* b) { return a->id < b->id; });
    facts_ = flink_facts(r, report, cps_);
  }

  std::string text() {
    // The flink and job sections, the same for the calibration run and the draft.
    const std::string body = flink_section() + job_section();
    align(body);
    expired_stand_ins();
    savepoints();
    failover_stand_ins();
    exit_stand_ins();
    std::stable_sort(actions_.begin(), actions_.end(),
                     [](const Action& a, const Action& b) { return a.at_ms < b.at_ms; });
    const std::string hooks = hook_stand_in();
    return header() + body + hooks + timeline() + expect_section();
  }

 private:
  struct Vertex {
    std::string name;
    int parallelism = 1;
  };

  std::string flink_section() const {
    std::string out = "flink:\n";
    for (const Option& o : facts_.flink)
      out += "  " + o.key + ": " + o.value +
             (o.comment.empty() ? "" : "  # " + one_line(o.comment)) + "\n";
    return out;
  }

  // The vertices as the task lines or /jobs/:jid name them, a chain in that order.
  std::string job_section() {
    std::ostringstream out;
    std::set<std::string> names;
    for (const run::VertexInfo& v : r_.vertices) {
      const std::string base = v.name.empty() ? "Vertex" : one_line(v.name, 200);
      std::string name = base;
      for (int n = 2; names.count(name); ++n) name = base + " (" + std::to_string(n) + ")";
      names.insert(name);
      vertices_.push_back({name, std::clamp(v.parallelism, 1, 4096)});
    }
    if (vertices_.empty() && !fin_.task.empty())
      vertices_.push_back({fin_.task, std::clamp(fin_.parallelism, 1, 4096)});
    vertices_known_ = !vertices_.empty();
    if (!vertices_known_) vertices_.push_back({"Source -> Sink", 1});
    int total_parallelism = 0;
    for (const Vertex& v : vertices_) total_parallelism += v.parallelism;

    const CheckpointRecord* sized = nullptr;
    for (const CheckpointRecord* c : cps_)
      if (c->status == CheckpointStatus::completed && c->imported_size > 0) sized = c;
    const std::int64_t state_per_subtask = sized ? sized->imported_size / total_parallelism : 0;

    out << "job:\n  name: " << quoted(r_.job_name.empty() ? "imported-job" : r_.job_name) << "\n";
    out << "  vertices:\n";
    for (std::size_t i = 0; i < vertices_.size(); ++i) {
      const Vertex& v = vertices_[i];
      out << "    - name: " << quoted(v.name) << "\n";
      if (!vertices_known_)
        out << "      # TODO: the files name no task; one chained source -> sink stands for the "
               "job. "
               "Take the vertices from /jobs/:jid or the task lines of a longer log\n";
      out << "      parallelism: " << v.parallelism << "\n";
      if (i == 0) {
        out << "      " << kPlaceholderRate
            << "  # TODO: a placeholder; measure the source's "
               "numRecordsOutPerSecond per subtask\n";
        const int reading = v.parallelism - static_cast<int>(fin_.finished.size());
        if (v.name == fin_.task && !fin_.finished.empty() && reading >= 1)
          out << "      source-api: legacy  # TODO: a stand-in. " << fin_.finished.size()
              << " of its " << v.parallelism
              << " subtasks FINISHED while the job ran: a source with fewer "
              << "partitions than subtasks. Check its partitions and its source API\n"
              << "      partitions: " << reading << "\n";
      } else {
        out << "      input: { from: " << quoted(vertices_[i - 1].name)
            << ", ship: rebalance }  # TODO: the edge (forward, hash, rebalance) and the topology "
               "are not in the files: a chain in task order\n";
        out << "      cost: 1 us/record  # TODO: a placeholder; measure the busy time per record\n";
      }
      if (state_per_subtask > 0)
        out << "      state-size: " << state_per_subtask << " b  # TODO: checkpoint " << sized->id
            << " was " << sized->imported_size << " bytes, spread evenly over " << total_parallelism
            << " subtasks; measure each operator's state in "
            << "/jobs/:jid/checkpoints/details/:id\n";
    }

    return out.str();
  }

  // Places the draft's first periodic checkpoint on the imported one: the seed whose random
  // initial delay lands it there when the files cover the job's start, else a shift of the
  // files' times onto the draft's.
  void align(const std::string& body) {
    const CheckpointRecord* first_periodic = nullptr;
    for (const CheckpointRecord* c : cps_)
      if (c->periodic && c->trigger_time >= 0) {
        first_periodic = c;
        break;
      }
    const std::int64_t lo = facts_.min_pause_ms,
                       hi = std::max(facts_.interval_ms, facts_.min_pause_ms);
    if (first_periodic) {
      if (const auto calibrated = first_trigger_ms(body, facts_.interval_ms, facts_.min_pause_ms)) {
        const std::int64_t running_ms = *calibrated - init_delay_ms(1, lo, hi);
        const std::int64_t target = ms_of(first_periodic->trigger_time);
        bool covers_start = false;
        for (const run::JobStatusChange& s : r_.job_status_changes)
          if (s.to == JobStatus::running && s.from == JobStatus::created &&
              s.time <= first_periodic->trigger_time)
            covers_start = true;
        seed_note_ =
            "the files begin after the job started: their times are shifted so that the "
            "first checkpoint triggers when the draft's does";
        if (covers_start && target - running_ms >= lo && target - running_ms <= hi) {
          // After each restart the coordinator draws its initial delay again from the same
          // stream: among the seeds that place the first trigger best, prefer those that also
          // place the first trigger after each of the next restarts.
          std::vector<std::int64_t> later;
          for (std::size_t k = 0; k < r_.job_status_changes.size() && later.size() < 4; ++k) {
            const run::JobStatusChange& s = r_.job_status_changes[k];
            if (s.from != JobStatus::restarting || s.to != JobStatus::running) continue;
            const core::SimTime next_change = k + 1 < r_.job_status_changes.size()
                                                  ? r_.job_status_changes[k + 1].time
                                                  : core::kNever;
            for (const CheckpointRecord* c : cps_)
              if (c->periodic && c->trigger_time >= s.time && c->trigger_time < next_change) {
                later.push_back(ms_of(c->trigger_time - s.time));
                break;
              }
          }
          std::int64_t best = -1, best_later = -1;
          const std::uint64_t seeds = later.empty() ? 400000 : 2000000;
          for (std::uint64_t s = 1; s <= seeds && !(best == 0 && later.empty()); ++s) {
            core::RandomStream rng(s, "checkpoint-coordinator#1");
            const std::int64_t d = std::llabs(running_ms + rng.uniform_int(lo, hi) - target);
            if (best >= 0 && d > best) continue;
            std::int64_t off = 0;
            for (const std::int64_t want : later) off += std::llabs(rng.uniform_int(lo, hi) - want);
            if (best < 0 || d < best || off < best_later) {
              best = d;
              best_later = off;
              seed_ = s;
            }
          }
          seed_note_ =
              "chosen so that the first checkpoint triggers when the log's does (Flink's "
              "random initial delay)";
        }
        shift_ms_ = target - (running_ms + init_delay_ms(seed_, lo, hi));
      }
    }
    if (cps_.empty()) {
      // No checkpoint in the files: a seed whose random initial delay puts the first trigger past
      // their span.
      for (std::uint64_t s = 1; s <= 1000; ++s)
        if (init_delay_ms(s, lo, hi) > ms_of(r_.end_time) + 2000) {
          seed_ = s;
          seed_note_ = "chosen so that no checkpoint triggers within the files' span, as none did";
          break;
        }
    }
  }

  std::int64_t draft_ms(core::SimTime t) const {
    return std::max<std::int64_t>(ms_of(t) - shift_ms_, 0);
  }

  // A stall that holds checkpoint i's barrier starts a little before its trigger (the draft's
  // trigger may be a few ms off), but after the checkpoint before it ended.
  std::int64_t stall_start(std::size_t i) const {
    const CheckpointRecord& c = *cps_[i];
    std::int64_t start = draft_ms(c.trigger_time) - 1000;
    for (std::size_t j = i; j-- > 0;)
      if (cps_[j]->end_time >= 0 && cps_[j]->end_time <= c.trigger_time) {
        start = std::max(start, draft_ms(cps_[j]->end_time) + 1);
        break;
      }
    return std::clamp<std::int64_t>(start, 0, draft_ms(c.trigger_time));
  }

  // A stall of the last vertex for each run of expired checkpoints.
  void expired_stand_ins() {
    for (std::size_t i = 0; i < cps_.size(); ++i) {
      const CheckpointRecord& c = *cps_[i];
      if (!expired(c)) continue;
      const std::int64_t start = stall_start(i);
      std::size_t next = i + 1;
      while (next < cps_.size() && cps_[next]->status != CheckpointStatus::completed) ++next;
      Action a;
      a.at_ms = start;
      a.lines = {"do: stall", "vertex: " + quoted(vertices_.back().name)};
      std::string until = "for ever: no checkpoint completed after it";
      if (next < cps_.size()) {
        const std::int64_t end = std::max(draft_ms(cps_[next]->trigger_time) - 1, start + 1000);
        a.lines.push_back("for: " + time_text(end - start));
        until = "until checkpoint " + std::to_string(cps_[next]->id) +
                " (the next that completed) triggers";
      } else {
        a.lines.push_back("for: ever");
      }
      a.lines.push_back("# TODO: a stand-in. Checkpoint " + std::to_string(c.id) +
                        " expired: something held its barrier. Stalled from its trigger " + until +
                        ". Find out what the late subtasks waited for (back pressure, a blocked "
                        "sink or source, a slow snapshot): the checkpoint's details in the web UI");
      actions_.push_back(a);
      for (std::size_t j = i; j < next; ++j) stood_in_.insert(cps_[j]->id);
      i = next == cps_.size() ? cps_.size() : next - 1;
    }
  }

  void savepoints() {
    for (const CheckpointRecord* c : cps_) {
      if (!model::is_savepoint(c->type)) continue;
      Action a;
      a.at_ms = draft_ms(c->trigger_time);
      const bool stop = c->type == model::SnapshotType::sync_savepoint;
      a.lines = {stop ? "do: stop-with-savepoint" : "do: trigger-savepoint",
                 "# savepoint " + std::to_string(c->id) + " as the files show it"};
      actions_.push_back(a);
    }
  }

  // A task failure for each failover no checkpoint failure explains.
  void failover_stand_ins() {
    for (const core::SimTime t : failovers_) {
      bool explained = false;
      for (const CheckpointRecord* c : cps_)
        if (counted(*c) && c->end_time >= 0 && c->end_time <= t &&
            t - c->end_time <= core::seconds(2))
          explained = true;
      if (explained) continue;  // CheckpointFailureManager's doing: follows from the settings
      Action a;
      a.at_ms = std::max<std::int64_t>(draft_ms(t) - 5, 0);
      a.lines = {
          "do: fail-task", "vertex: " + quoted(vertices_.front().name), "subtask: 0",
          "# TODO: a stand-in. The job failed over with no checkpoint failure before it: find "
          "the task failure's exception (/jobs/:jid/exceptions) and which task it was"};
      actions_.push_back(a);
      // A checkpoint that failed with it (aborted, or declined by the failing task) was still
      // pending: hold it until the failover.
      for (std::size_t i = 0; i < cps_.size(); ++i) {
        const CheckpointRecord& c = *cps_[i];
        if (c.status != CheckpointStatus::failed || expired(c) || c.trigger_time >= t ||
            std::llabs(c.end_time - t) > core::seconds(2))
          continue;
        const std::int64_t start = stall_start(i);
        stood_in_.insert(c.id);
        actions_.push_back(
            {start,
             {"do: stall", "vertex: " + quoted(vertices_.back().name),
              "for: " + time_text(std::max<std::int64_t>(draft_ms(t) - start, 1)),
              "# TODO: a stand-in. Checkpoint " + std::to_string(c.id) +
                  " was still pending when the job failed over: held from its trigger "
                  "until then. Find out what made it slow (its checkpoint details)"}});
      }
    }
  }

  // A cancellation, or one the files do not show but a suspended checkpoint implies.
  void exit_stand_ins() {
    bool cancelled = false;
    for (const run::JobStatusChange& s : r_.job_status_changes)
      if (s.from == JobStatus::running && s.to == JobStatus::cancelling) {
        actions_.push_back({draft_ms(s.time), {"do: cancel", "# the job was cancelled"}});
        cancelled = true;
      }
    // A checkpoint aborted because the job left RUNNING, when the files show no failover or
    // cancellation to do it: a cancel stands in for whatever did.
    for (std::size_t i = 0; i < cps_.size() && !cancelled; ++i) {
      const CheckpointRecord& c = *cps_[i];
      if (c.failure_reason != CheckpointFailureReason::checkpoint_coordinator_suspend) continue;
      const bool failover_near = std::any_of(
          failovers_.begin(), failovers_.end(),
          [&](core::SimTime t) { return std::llabs(c.end_time - t) <= core::seconds(2); });
      if (failover_near) continue;
      const std::int64_t start = stall_start(i);
      const std::int64_t at = std::max(draft_ms(c.end_time), draft_ms(c.trigger_time) + 100);
      stood_in_.insert(c.id);
      actions_.push_back({start,
                          {"do: stall", "vertex: " + quoted(vertices_.back().name),
                           "for: " + time_text(at - start + 1),
                           "# TODO: a stand-in, holding checkpoint " + std::to_string(c.id) +
                               " until the job leaves RUNNING"}});
      actions_.push_back(
          {at,
           {"do: cancel", "# TODO: a stand-in. Checkpoint " + std::to_string(c.id) +
                              " was aborted because the job left RUNNING (the coordinator was "
                              "suspending), which the files do not show: find out whether it was "
                              "cancelled, failed, or lost its JobManager's leadership"}});
      break;
    }
  }

  // Checkpoints that failed for a reason no stand-in recreates (declined, failed at trigger),
  // from one on and none completed after: a master hook that fails from then on.
  std::string hook_stand_in() {
    for (std::size_t i = 0; i < cps_.size(); ++i) {
      const CheckpointRecord& c = *cps_[i];
      if (c.status != CheckpointStatus::failed || stood_in_.count(c.id)) continue;
      const bool none_completed_after = std::none_of(
          cps_.begin() + static_cast<long>(i), cps_.end(),
          [](const CheckpointRecord* d) { return d->status == CheckpointStatus::completed; });
      if (!none_completed_after) continue;
      for (std::size_t j = i; j < cps_.size(); ++j) stood_in_.insert(cps_[j]->id);
      return "jobmanager:\n  hooks:\n    - name: \"stand-in for checkpoint " +
             std::to_string(c.id) + "\"\n      fails-at: " + time_text(stall_start(i)) +
             "\n      # TODO: a stand-in. From checkpoint " + std::to_string(c.id) +
             " on, checkpoints failed (" +
             one_line(c.failure_message.empty() ? "the files do not say why" : c.failure_message,
                      200) +
             "): a master hook that fails makes the draft's fail too. Find out why they failed\n";
    }
    return "";
  }

  std::string header() const {
    std::int64_t duration = ms_of(r_.end_time) - shift_ms_ + 1000;
    for (const Action& a : actions_) duration = std::max(duration, a.at_ms + 1000);
    duration = std::max<std::int64_t>(duration, 1000);
    std::ostringstream out;
    out << "# Drafted by `ckptsim draft` from "
        << (r_.imported_from.empty() ? "(no file)" : one_line(r_.imported_from))
        << ".\n# Flink version: " << one_line(report_.flink_version) << ".\n"
        << "# Every `# TODO` marks a guess: measure it on the real job and replace it. `ckptsim "
           "test`\n"
        << "# on this file says whether it reproduces the incident (the `expect:` block below).\n";
    out << "name: "
        << quoted("draft of " + (r_.job_name.empty() ? std::string("imported job") : r_.job_name))
        << "\n";
    out << "seed: " << seed_ << "  # " << seed_note_ << "\n";
    out << "start: " << date_time(r_.start_epoch_ms + shift_ms_) << "  # UTC\n";
    out << "duration: " << time_text(duration) << "  # the span of the files\n";
    return out.str();
  }

  std::string timeline() const {
    if (actions_.empty()) return "";
    std::string out = "timeline:\n";
    for (const Action& a : actions_) {
      out += "  - at: " + time_text(a.at_ms) + "\n";
      for (const std::string& l : a.lines) out += "    " + one_line(l) + "\n";
    }
    return out;
  }

  // The real checkpoint pattern and failover count, for `ckptsim test`.
  std::string expect_section() const {
    std::ostringstream out;
    out << "expect:\n";
    if (!cps_.empty()) {
      const std::int64_t first = cps_.front()->id;
      out << "  # The real checkpoint pattern. A drafted run's ids start at 1: checkpoint 1 here "
             "is "
             "real checkpoint "
          << first << " (id - " << first - 1 << ").\n";
      for (const CheckpointRecord* c : cps_) {
        if (!ended(*c)) continue;
        out << "  - checkpoint " << c->id - first + 1 << ": "
            << (c->status == CheckpointStatus::completed ? "completed"
                : expired(*c)                            ? "expired"
                                                         : "failed");
        const bool suspended =
            c->failure_reason == CheckpointFailureReason::checkpoint_coordinator_suspend ||
            c->failure_reason == CheckpointFailureReason::checkpoint_coordinator_shutdown;
        if (c->status == CheckpointStatus::failed && suspended)
          out << "  # aborted by the job leaving RUNNING";
        else if (c->status == CheckpointStatus::failed && !expired(*c))
          out << "  # TODO: "
              << one_line(c->failure_message.empty() ? "failed" : c->failure_message, 200)
              << (stood_in_.count(c->id)
                      ? " (a stand-in above makes it fail: find why it failed)"
                      : " (no stand-in reproduces this failure: find why it failed)");
        out << "\n";
      }
    }
    // Flink counts a failover that restarts; RUNNING -> FAILING ends the job.
    std::size_t restarting = failovers_.size();
    bool failed_for_good = false;
    for (const run::JobStatusChange& s : r_.job_status_changes)
      if (s.from == JobStatus::running && s.to == JobStatus::failing) {
        --restarting;
        failed_for_good = true;
      }
    out << "  - failovers: " << restarting << "\n";
    if (failed_for_good && r_.final_status != JobStatus::running &&
        r_.final_status != JobStatus::restarting)
      out << "  - job: FAILED\n";
    for (const std::string& note : facts_.failover_notes) out << "  # " << note << "\n";
    return out.str();
  }

  const run::RunResult& r_;
  const ImportReport& report_;
  const FinishedSubtasks fin_;
  const std::vector<core::SimTime> failovers_;
  std::vector<const CheckpointRecord*> cps_;
  Facts facts_;
  std::vector<Vertex> vertices_;
  bool vertices_known_ = false;
  std::uint64_t seed_ = 1;
  std::int64_t shift_ms_ = 0;  // draft time = imported time - shift
  std::string seed_note_ = "any seed: nothing in the files depends on it";
  std::vector<Action> actions_;
  std::set<std::int64_t> stood_in_;  // failed checkpoints a stand-in makes fail
};

}  // namespace

std::string draft_scenario(const run::RunResult& imported, const ImportReport& report) {
  return Drafter(imported, report).text();
}

}  // namespace ckptsim::analysis
