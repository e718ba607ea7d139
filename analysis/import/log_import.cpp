// A real JobManager log's lines read as the facts the simulation records: submissions, job and
// task state changes, checkpoint triggers, completions, expiries, declines and failures (with
// their CheckpointFailureReason, from the CheckpointException under them), restores. Message
// formats of Flink 1.9 to 2.x (CheckpointCoordinator, ExecutionGraph, Dispatcher, JobMaster).
#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <regex>
#include <set>

#include "analysis/import/import.hpp"
#include "analysis/import/log_lines.hpp"
#include "analysis/import/numbers.hpp"
#include "sim/model/types.hpp"
#include "sim/run/recorder.hpp"

namespace ckptsim::analysis {

namespace {

using run::CheckpointRecord;
using run::CheckpointStatus;
using core::SimTime;

const std::regex kTrigger(R"(Triggering (?:checkpoint|Checkpoint) (\d+) (?:\(type=(.*?)\) )?@ (\d+) for job ([0-9a-f]{32}))");
const std::regex kCompleted(R"(Completed checkpoint (\d+) for job ([0-9a-f]{32}) \((\d+) bytes(?:, checkpointDuration=(\d+) ms(?:, finalizationTime=(\d+) ms)?| in (\d+) ms)?)");
const std::regex kExpired(R"(Checkpoint (\d+) of job ([0-9a-f]{32}) expired before completing)");
const std::regex kDecline(R"(Decline(?:d|ing)? checkpoint (\d+) (?:by task|from task) (\S+) of job ([0-9a-f]{32}))");
const std::regex kFailedCheckpoint(R"(Failed to trigger or complete checkpoint (\d+) for job ([0-9a-f]{32}))");
const std::regex kDiscarding(R"(Discarding checkpoint (\d+) of job ([0-9a-f]{32}))");
const std::regex kTriggerFailed(R"(Triggering Checkpoint (\d+) for job ([0-9a-f]{32}) failed due to ([^:]+)(?:: (.*))?)");
// A trigger that fails before the checkpoint gets an id (CheckpointCoordinator.startTriggeringCheckpoint,
// DefaultCheckpointPlanCalculator): "Failed to trigger checkpoint for job J since/because ..." and
// 1.x's "Checkpoint triggering task T of job J is not in state RUNNING but S instead. Aborting ...".
const std::regex kTriggerAborted(R"((?:Failed to trigger checkpoint for job ([0-9a-f]{32})|Checkpoint triggering task .* of job ([0-9a-f]{32}) is not (?:in state RUNNING|being executed)))");
const std::regex kJobStatus(R"(Job (.*) \(([0-9a-f]{32})\) switched from state ([A-Z]+) to ([A-Z]+))");
const std::regex kSubmission(R"(Received (?:JobGraph|job) submission '?(.*?)'? \(([0-9a-f]{32})\))");
const std::regex kSubmissionOld(R"(Received JobGraph submission ([0-9a-f]{32}) \((.*)\))");
const std::regex kTaskState(R"(^(.+) \((\d+)/(\d+)\)(?: - execution #\d+)? (?:\((\S+)\) )?switched from ([A-Z]+) to ([A-Z]+))");
const std::regex kRestore(R"(Restoring job ([0-9a-f]{32}) from (?:latest valid checkpoint: )?(Checkpoint|CHECKPOINT|Savepoint|SAVEPOINT) (\d+) @ (\d+) for ([0-9a-f]{32})(?: located at (.*?))?\.?$)");
// Longer messages are not matched (std::regex recurses per character: a hostile 4 MiB line
// would exhaust the stack); Flink's checkpoint and state lines are far shorter.
constexpr std::size_t kMaxMessage = 4096;

const std::regex kVersion(R"(Version: (\d+\.\d+(?:\.\d+)?))");

std::string fmt_two(std::int64_t v) {
  return (v < 10 ? "0" : "") + std::to_string(v);
}

std::optional<model::JobStatus> job_status(const std::string& s) {
  for (int i = 0; i <= static_cast<int>(model::JobStatus::reconciling); ++i)
    if (s == model::to_string(static_cast<model::JobStatus>(i)))
      return static_cast<model::JobStatus>(i);
  return std::nullopt;
}

// The reason of a CheckpointException from its message (CheckpointFailureReason's texts).
std::optional<model::CheckpointFailureReason> reason_of(const std::string& text) {
  std::optional<model::CheckpointFailureReason> best;
  std::size_t best_length = 0;
  for (int i = 0; i <= static_cast<int>(model::CheckpointFailureReason::trigger_checkpoint_failure);
       ++i) {
    const auto r = static_cast<model::CheckpointFailureReason>(i);
    const std::string m = model::message(r);
    // The longest message found wins ("... declined" vs "... declined, task not ready").
    if (text.find(m) != std::string::npos && m.size() > best_length) {
      best = r;
      best_length = m.size();
    }
  }
  return best;
}

// The first CheckpointException message in a record's throwable lines.
std::string exception_message(const LogLine& l) {
  for (const std::string& t : l.throwable) {
    const std::size_t at = t.find("CheckpointException: ");
    if (at != std::string::npos) return t.substr(at + 21);
  }
  return l.throwable.empty() ? std::string() : l.throwable.front();
}

// Flink 1.x's decline exceptions (org.apache.flink.runtime.checkpoint.decline.*), which 1.10
// folded into CheckpointException reasons.
std::optional<model::CheckpointFailureReason> decline_reason(const LogLine& l) {
  using R = model::CheckpointFailureReason;
  for (const std::string& t : l.throwable) {
    if (t.find("CheckpointDeclineTaskNotReadyException") != std::string::npos)
      return R::checkpoint_declined_task_not_ready;
    if (t.find("CheckpointDeclineOnCancellationBarrierException") != std::string::npos)
      return R::checkpoint_declined_on_cancellation_barrier;
    if (t.find("CheckpointDeclineSubsumedException") != std::string::npos)
      return R::checkpoint_declined_subsumed;
    if (t.find("InputEndOfStreamException") != std::string::npos)
      return R::checkpoint_declined_input_end_of_stream;
  }
  return std::nullopt;
}

run::LogLevel level_of(const std::string& level) {
  if (level == "WARN") return run::LogLevel::warn;
  if (level == "ERROR" || level == "FATAL") return run::LogLevel::error;
  if (level == "DEBUG" || level == "TRACE") return run::LogLevel::debug;
  return run::LogLevel::info;
}

// The model's versions, for the writers: the stated version if it is one ("1.16.0"); the
// nearest for a stated release ckptsim does not model (1.14.6: the oldest, 2.2.0: the newest); for
// a version guessed from the message formats, or none, 2.0 for a 2.x and 1.17 otherwise (the
// version whose option keys a draft writes by default).
model::FlinkVersion nearest_version(const std::string& stated) {
  if (const auto v = model::parse_flink_version(stated)) return *v;
  const bool guessed = stated.find("guess") != std::string::npos ||
                       stated.find("unknown") != std::string::npos;
  int major = 0;
  int minor = 0;
  const char* end = stated.data() + stated.size();
  const auto [dot, major_error] = std::from_chars(stated.data(), end, major);
  if (!guessed && major_error == std::errc() && dot != end && *dot == '.' &&
      std::from_chars(dot + 1, end, minor).ec == std::errc()) {
    if (major == 1 && minor < 15) return model::kFlinkVersions[0];
    if (major >= 2) return std::end(model::kFlinkVersions)[-1];
  }
  if (stated.rfind("2.", 0) == 0) return model::FlinkVersion::v2_0;
  return model::FlinkVersion::v1_17;
}

}  // namespace

Imported import_log(std::string_view text, const std::string& name) {
  Imported out;
  ImportReport& report = out.report;
  run::RunResult& r = out.result;
  LogLayout layout;
  const std::vector<LogLine> lines = parse_log_lines(text, layout);
  const auto problem = [&](int line, const std::string& what) {
    if (report.problems.size() < 50)
      report.problems.push_back(name + ":" + std::to_string(line) + ": " + what);
    else
      ++report.problems_not_shown;
  };
  for (int line : layout.unparsed_examples)
    problem(line, "not a log record of a layout ckptsim knows (nor a stack-trace line); skipped");

  // The job: the id with the most checkpoint and job lines (a session cluster's log holds many).
  std::map<std::string, int> mentions;
  static const std::regex kJid("[0-9a-f]{32}");
  for (const LogLine& l : lines) {
    if (l.message.size() > kMaxMessage) continue;
    if (l.message.find("heckpoint") == std::string::npos && l.message.find("switched from state") == std::string::npos)
      continue;
    for (auto it = std::sregex_iterator(l.message.begin(), l.message.end(), kJid);
         it != std::sregex_iterator(); ++it)
      ++mentions[it->str()];
  }
  for (const auto& [jid, n] : mentions)
    if (r.job_id.empty() || n > mentions[r.job_id]) r.job_id = jid;
  if (mentions.size() > 1)
    report.files.push_back(name + ": holds " + std::to_string(mentions.size()) +
                           " job ids; imported the most mentioned, " + r.job_id);

  // The log's clock on the epoch: a trigger line's "@ <epoch ms>" against the line's own clock
  // gives the zone of a local date and time (to 15 min), the date of a time-of-day clock, the
  // start of a relative one. Without a trigger line a date and time is read as UTC.
  std::optional<std::int64_t> offset;
  for (const LogLine& l : lines) {
    std::smatch t;
    if (l.clock != LogClock::none && l.message.size() <= kMaxMessage &&
        l.message.find("Triggering") != std::string::npos && std::regex_search(l.message, t, kTrigger)) {
      const std::int64_t delta = difference(read_integer(t[3].str()), l.clock_ms);
      constexpr std::int64_t kQuarter = 15 * 60 * 1000;
      offset = l.clock == LogClock::relative ? delta
                                             : (delta >= 0 ? (delta + kQuarter / 2) / kQuarter
                                                           : -((-delta + kQuarter / 2) / kQuarter)) * kQuarter;
      break;
    }
  }
  if (!offset && std::any_of(lines.begin(), lines.end(), [](const LogLine& l) {
        return l.clock == LogClock::time_of_day || l.clock == LogClock::relative;
      })) {
    report.problems.push_back(name + ": its clock has no date and no trigger line places it; "
                                     "times are counted from its first line");
  }
  if (offset && *offset != 0 && lines.front().clock == LogClock::absolute)
    report.files.push_back(name + ": its times are local, UTC" +
                           (*offset > 0 ? std::string("-") : std::string("+")) +
                           std::to_string(std::abs(*offset) / 3600000) + ":" +
                           fmt_two(std::abs(*offset) / 60000 % 60) +
                           " (read from a trigger line's epoch)");
  const auto epoch_of = [&](const LogLine& l) -> std::optional<std::int64_t> {
    if (l.clock == LogClock::none) return std::nullopt;
    return difference(l.clock_ms, -offset.value_or(0));
  };
  // Simulated time 0 is the first timestamp, or an earlier trigger's "@ <epoch ms>" (Flink logs
  // the trigger a few ms after the timestamp it takes).
  std::int64_t start = -1;
  for (const LogLine& l : lines)
    if (const auto e = epoch_of(l)) {
      start = *e;
      break;
    }
  for (const LogLine& l : lines) {
    std::smatch t;
    if (l.message.size() <= kMaxMessage && l.message.find("Triggering") != std::string::npos &&
        std::regex_search(l.message, t, kTrigger) &&
        (start < 0 || read_integer(t[3].str()) < start))
      start = read_integer(t[3].str());
  }
  r.start_epoch_ms = start < 0 ? 0 : start;
  const auto at = [&](std::int64_t epoch_ms) { return sim_ms(difference(epoch_ms, r.start_epoch_ms)); };
  std::int64_t last_ms = r.start_epoch_ms;

  std::map<std::int64_t, std::size_t> by_id;  // checkpoint id -> index in r.checkpoints
  std::map<std::string, std::size_t> vertex_of;
  // What the message formats tell of the version (CheckpointCoordinator across releases).
  bool type_seen = false, type_class = false, duration_field = false, v2_submission = false;
  int trigger_failures = 0;  // before an id was given: no checkpoint in the statistics
  std::set<std::int64_t> failure_logged;  // ids whose failure the failure manager logged
  std::string first_trigger_failure;
  const auto checkpoint = [&](std::int64_t id) -> CheckpointRecord& {
    const auto it = by_id.find(id);
    if (it != by_id.end()) return r.checkpoints[it->second];
    CheckpointRecord c;
    c.id = id;
    c.trigger_time = -1;
    by_id[id] = r.checkpoints.size();
    r.checkpoints.push_back(c);
    return r.checkpoints.back();
  };
  const auto fail = [&](CheckpointRecord& c, SimTime when, std::optional<model::CheckpointFailureReason> reason,
                        const std::string& message) {
    if (c.status == CheckpointStatus::completed) return;
    if (c.status == CheckpointStatus::failed && c.failure_reason) return;  // the first reason stays
    c.status = CheckpointStatus::failed;
    if (c.end_time < 0) c.end_time = when;
    c.failure_reason = reason;
    c.failure_message = reason ? model::message(*reason) : message;
  };
  std::smatch m;
  // Failovers: the job's RUNNING -> RESTARTING lines, or (a region failover restarts while the
  // job is already RESTARTING) the handled failures DefaultScheduler.restartTasksWithDelay logs,
  // when the log is one job's (the lines name an attempt, not the job).
  int status_failovers = 0;
  int restart_lines = 0;
  for (const LogLine& l : lines) {
    const std::int64_t now_ms = epoch_of(l).value_or(last_ms);
    last_ms = now_ms;
    const SimTime now = at(now_ms);
    r.log.push_back({now, level_of(l.level), l.logger, l.message, l.throwable});
    const std::string& msg = l.message;
    if (msg.size() > kMaxMessage) {
      problem(l.line, "a message of " + std::to_string(msg.size()) + " characters; not read");
      continue;
    }
    if (report.flink_version.empty() && std::regex_search(msg, m, kVersion) &&
        msg.find("Starting") != std::string::npos)
      report.flink_version = m[1];
    if (msg.find("heckpoint") != std::string::npos) {
      if (std::regex_search(msg, m, kTrigger) && m[4] == r.job_id) {
        CheckpointRecord& c = checkpoint(read_integer(m[1].str()));
        c.trigger_time = at(read_integer(m[3].str()));
        const std::string type = m[2];
        type_seen = type_seen || m[2].matched;
        type_class = type_class || type.find("Type{") != std::string::npos;
        if (type.find("SYNC") != std::string::npos || type.find("Terminate") != std::string::npos ||
            type.find("Suspend") != std::string::npos)
          c.type = model::SnapshotType::sync_savepoint;
        else if (type.find("AVEPOINT") != std::string::npos || type.find("avepoint") != std::string::npos)
          c.type = model::SnapshotType::savepoint;
        else if (type.find("Full") != std::string::npos || type.find("FULL") != std::string::npos)
          c.type = model::SnapshotType::full_checkpoint;
        c.periodic = !model::is_savepoint(c.type);
        continue;
      }
      if (std::regex_search(msg, m, kCompleted) && m[2] == r.job_id) {
        CheckpointRecord& c = checkpoint(read_integer(m[1].str()));
        c.status = CheckpointStatus::completed;
        c.end_time = now;
        c.imported_size = read_integer(m[3].str());
        const std::string duration = m[4].matched ? m[4].str() : m[6].str();
        duration_field = duration_field || m[4].matched;
        if (!duration.empty() && c.trigger_time >= 0)
          c.latest_ack_time = c.trigger_time + sim_ms(read_integer(duration));
        else
          c.latest_ack_time = now;
        continue;
      }
      if (std::regex_search(msg, m, kExpired) && m[2] == r.job_id) {
        fail(checkpoint(read_integer(m[1].str())), now, model::CheckpointFailureReason::checkpoint_expired, "");
        continue;
      }
      if (std::regex_search(msg, m, kTriggerFailed) && m[2] == r.job_id) {
        // "failed due to {}": a 1.19 logging slip; the exception is below the line.
        const std::string detail = m[4].matched ? m[4].str() : exception_message(l);
        const auto reason = reason_of(detail);
        fail(checkpoint(read_integer(m[1].str())), now, reason, detail);
        if (!reason) checkpoint(read_integer(m[1].str())).failure_message = detail;
        continue;
      }
      if (std::regex_search(msg, m, kTriggerAborted) && (m[1] == r.job_id || m[2] == r.job_id)) {
        if (trigger_failures++ == 0) first_trigger_failure = msg;
        // Flink 1.x's "Checkpoint triggering task ... Aborting checkpoint." is thrown on as
        // NOT_ALL_REQUIRED_TASKS_RUNNING; later versions name the reason in the line.
        auto reason = reason_of(msg);
        if (!reason && msg.find("Checkpoint triggering task") != std::string::npos)
          reason = model::CheckpointFailureReason::not_all_required_tasks_running;
        out.trigger_failures.push_back({now, reason});
        continue;
      }
      if ((std::regex_search(msg, m, kFailedCheckpoint) || std::regex_search(msg, m, kDiscarding)) &&
          m[2] == r.job_id) {
        const std::string detail = exception_message(l);
        const auto reason = decline_reason(l) ? decline_reason(l) : reason_of(detail);
        // CheckpointFailureManager logs each failure once. A second line for the same id, or one
        // for an id never triggered, is a failure without statistics of its own (a trigger
        // that failed before it got an id: reportFailedCheckpointsWithoutInProgress).
        const std::int64_t id = read_integer(m[1].str());
        const bool manager_line = msg.find("Failed to trigger or complete") != std::string::npos;
        const bool unknown_pre_flight = !by_id.count(id) && reason && model::is_pre_flight(*reason);
        if (manager_line && (unknown_pre_flight ||
                             (by_id.count(id) && !failure_logged.insert(id).second))) {
          if (trigger_failures++ == 0) first_trigger_failure = msg + " " + detail;
          out.trigger_failures.push_back({now, reason});
          continue;
        }
        if (!reason && detail.empty()) {
          // The reason is in a stack trace the excerpt does not have.
          CheckpointRecord& c = checkpoint(read_integer(m[1].str()));
          if (c.status != CheckpointStatus::completed) {
            c.status = CheckpointStatus::failed;
            if (c.end_time < 0) c.end_time = now;
          }
          continue;
        }
        fail(checkpoint(read_integer(m[1].str())), now, reason, detail);
        continue;
      }
      if (std::regex_search(msg, m, kDecline) && m[3] == r.job_id) {
        CheckpointRecord& c = checkpoint(read_integer(m[1].str()));
        if (const auto reason = decline_reason(l); reason && !c.failure_reason)
          fail(c, now, reason, "");
        else if (c.failure_message.empty())
          c.failure_message = exception_message(l);
        continue;
      }
    }
    if (msg.find(" tasks will be restarted to recover ") != std::string::npos) ++restart_lines;
    if (msg.find("switched from state") != std::string::npos && std::regex_search(msg, m, kJobStatus) &&
        m[2] == r.job_id) {
      const auto from = job_status(m[3]), to = job_status(m[4]);
      if (!from || !to) {
        problem(l.line, "unknown job status in '" + msg + "'");
        continue;
      }
      if (r.job_name.empty()) r.job_name = m[1];
      r.job_status_changes.push_back({now, *from, *to});
      if (*from == model::JobStatus::running && *to == model::JobStatus::restarting)
        ++status_failovers;
      if (*from == model::JobStatus::restarting && *to == model::JobStatus::running) ++r.restarts;
      continue;
    }
    if (msg.find("submission") != std::string::npos) {
      if (std::regex_search(msg, m, kSubmissionOld) && m[1] == r.job_id) {
        r.job_name = m[2];
      } else if (std::regex_search(msg, m, kSubmission) && m[2] == r.job_id) {
        r.job_name = m[1];
        v2_submission = v2_submission || msg.find("Received job submission") != std::string::npos;
      }
      continue;
    }
    if (msg.find("Restoring job") != std::string::npos && std::regex_search(msg, m, kRestore) &&
        m[1] == r.job_id) {
      r.latest_restored = run::RestoreRecord{read_integer(m[3].str()), now, m[2] == "Savepoint" || m[2] == "SAVEPOINT",
                                              m[6].matched ? m[6].str() : std::string()};
      ++r.counts.restored;
      continue;
    }
    if (msg.find(" switched from ") != std::string::npos && std::regex_search(msg, m, kTaskState)) {
      const std::string vertex = m[1];
      if (!vertex_of.count(vertex)) {
        vertex_of[vertex] = r.vertices.size();
        run::VertexInfo v;
        v.name = vertex;
        v.id = run::stable_id("imported-vertex/" + vertex);
        v.parallelism = static_cast<int>(std::min<std::int64_t>(read_integer(m[3].str()), 1 << 20));
        r.vertices.push_back(v);
      }
    }
  }
  r.failovers = mentions.size() == 1 ? std::max(status_failovers, restart_lines) : status_failovers;
  if (r.job_id.empty()) {
    report.files.push_back(name + ": no checkpoint or job status line of any job");
    return out;
  }
  if (trigger_failures > 0)
    report.files.push_back(name + ": " + std::to_string(trigger_failures) +
                           " checkpoint trigger(s) failed before an id was given (no checkpoint "
                           "in the statistics), the first: " + first_trigger_failure);
  // A checkpoint seen only by its end (the excerpt begins after its trigger).
  for (CheckpointRecord& c : r.checkpoints) {
    if (c.trigger_time < 0) {
      c.trigger_time = c.end_time >= 0 ? c.end_time : 0;
      problem(0, "checkpoint " + std::to_string(c.id) +
                     " is not triggered in the log; its trigger time is unknown");
    }
    if (c.status == CheckpointStatus::failed && !c.failure_reason && c.failure_message.empty())
      c.failure_message = "(the log does not say why)";
  }
  std::stable_sort(r.checkpoints.begin(), r.checkpoints.end(),
                   [](const CheckpointRecord& a, const CheckpointRecord& b) { return a.id < b.id; });
  for (const CheckpointRecord& c : r.checkpoints) {
    ++r.counts.total;
    if (c.status == CheckpointStatus::completed) ++r.counts.completed;
    else if (c.status == CheckpointStatus::failed) ++r.counts.failed;
    else ++r.counts.in_progress;
  }
  // CheckpointStatsTracker.reportFailedCheckpointsWithoutInProgress: a trigger that fails before
  // an id counts as a triggered and failed checkpoint, without a history entry.
  r.counts.total += trigger_failures;
  r.counts.failed += trigger_failures;
  r.final_status = r.job_status_changes.empty() ? model::JobStatus::running
                                                : r.job_status_changes.back().to;
  r.end_time = at(last_ms);
  if (r.job_name.empty()) r.job_name = "(unnamed job " + r.job_id.substr(0, 8) + ")";
  r.scenario_name = "imported: " + name;
  r.imported_from = name;
  if (report.flink_version.empty()) {
    // Guessed from the message formats: "(type=...)" came with 1.11, "checkpointDuration=" with
    // 1.14, CheckpointType as a class ("CheckpointType{name=...}") with 1.15, "Received job
    // submission" with 2.0.
    const bool any_checkpoint = !r.checkpoints.empty();
    report.flink_version =
        v2_submission ? "2.0 or newer (guessed from the log's formats)"
        : type_class  ? "1.15 or newer (guessed from the log's formats)"
        : !any_checkpoint ? "unknown (no checkpoint lines to tell)"
        : !type_seen  ? "1.10 or older (guessed from the log's formats)"
        : duration_field ? "1.14 (guessed from the log's formats)"
                         : "1.11 to 1.13 (guessed from the log's formats)";
  }
  r.flink_version = nearest_version(report.flink_version);
  r.imported_version = report.flink_version;
  report.files.insert(report.files.begin(),
                      name + ": Flink JobManager log (" + layout.name + ", " +
                          std::to_string(layout.records) + " records" +
                          (layout.unparsed_lines ? ", " + std::to_string(layout.unparsed_lines) +
                                                       " lines not read"
                                                 : std::string()) +
                          (layout.without_timestamp ? ", " + std::to_string(layout.without_timestamp) +
                                                          " without a timestamp"
                                                    : std::string()) +
                          "): job " + r.job_id + ", " + std::to_string(r.checkpoints.size()) +
                          " checkpoints, " + std::to_string(r.failovers) + " failovers");
  return out;
}

}  // namespace ckptsim::analysis
