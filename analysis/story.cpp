// Formats the run story. Times are shown both as offsets into the run and, in the header, as the
// scenario's wall clock, so a user can match rows with the jobmanager.log lines.
#include "analysis/story.hpp"

#include "sim/run/writers/writers.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <vector>

namespace ckptsim::analysis {
namespace {

std::string clock(core::SimTime t) {
  const std::int64_t total_ms = t / core::kMillisecond;
  const std::int64_t s = total_ms / 1000;
  return fmt::format("{:02}:{:02}:{:02}.{:03}", s / 3600, (s / 60) % 60, s % 60, total_ms % 1000);
}

const char* status_name(const run::CheckpointRecord& c) {
  switch (c.status) {
    case run::CheckpointStatus::in_progress: return "IN_PROGRESS";
    case run::CheckpointStatus::completed: return "COMPLETED";
    case run::CheckpointStatus::failed: return "FAILED";
  }
  return "?";
}

const char* kind_name(const run::CheckpointRecord& c) {
  switch (c.type) {
    case model::SnapshotType::checkpoint: return "checkpoint";
    case model::SnapshotType::full_checkpoint: return "full checkpoint";
    case model::SnapshotType::savepoint: return "savepoint";
    case model::SnapshotType::sync_savepoint: return "stop savepoint";
  }
  return "?";
}

// Word-wraps `text` to `width` columns; the first line starts after `first_indent` spaces,
// continuation lines after `indent`.
std::string wrap(const std::string& text, std::size_t first_indent, std::size_t indent,
                 std::size_t width) {
  std::string out(first_indent, ' ');
  std::size_t column = first_indent;
  bool line_start = true;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::size_t length = end - pos;
    if (!line_start && column + 1 + length > width) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
      line_start = true;
    }
    if (!line_start) {
      out += ' ';
      ++column;
    }
    out.append(text, pos, length);
    column += length;
    line_start = false;
    pos = end + 1;
  }
  return out;
}

// A message with its causes on further lines, as one line.
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

struct Row {
  core::SimTime time;
  int order;  // at the same instant: connector events, then job events, then checkpoint rows
  std::string text;
};

}  // namespace

std::string human_duration(core::Duration d) {
  const double ms = static_cast<double>(d) / static_cast<double>(core::kMillisecond);
  if (ms < 1000) return fmt::format("{} ms", d / core::kMillisecond);
  if (ms < 60'000) return fmt::format("{:.1f} s", ms / 1000);
  const std::int64_t s = d / core::kSecond;
  if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{} h {} min", s / 3600, (s / 60) % 60);
}

std::string format_story(const run::RunResult& r) {
  std::string out;
  if (!r.imported_from.empty()) {
    out += fmt::format("ckptsim import: {} (Flink {}), job {} ({})\n", r.imported_from,
                       r.imported_version, r.job_name, r.job_id);
    out += fmt::format("the files span {} from {} UTC\n\n", human_duration(r.end_time),
                       run::format_log_timestamp(r.start_epoch_ms).substr(0, 19));
  } else {
    out += fmt::format("ckptsim run: {} (Flink {}, seed {}), job {} ({})\n", r.scenario_name,
                       model::to_string(r.flink_version), r.seed, r.job_name, r.job_id);
    // The wall clock of simulated time 0, as the jobmanager.log prints it (without millis).
    out += fmt::format("simulated {} from {} UTC{}, network {}{}\n\n", human_duration(r.end_time),
                       run::format_log_timestamp(r.start_epoch_ms).substr(0, 19),
                       r.stopped_early ? " (stopped early by --max-wall: a partial run)" : "",
                       model::to_string(r.network),
                       r.network != model::NetworkMode::hybrid ? std::string()
                       : r.network_skips == 0
                           ? std::string(" (no period skipped)")
                           : fmt::format(" ({} of it skipped as steady, in {} skips{})",
                                         human_duration(r.network_skipped), r.network_skips,
                                         r.network_replayed == 0
                                             ? std::string()
                                             : fmt::format(", {} checkpoint{} replayed",
                                                           r.network_replayed,
                                                           r.network_replayed == 1 ? "" : "s")));
  }
  std::vector<Row> rows;
  auto add_checkpoints = [&](const std::vector<run::CheckpointRecord>& list) {
    for (const run::CheckpointRecord& c : list) {
      const std::string duration =
          c.end_time >= 0 ? human_duration(c.end_time - c.trigger_time) : "-";
      std::string reason;
      if (c.failure_reason) reason = model::name(*c.failure_reason);
      std::string text =
          fmt::format("{}  {:>5}  {:<15} {:<11} {:>14} {:>7}  {}", clock(c.trigger_time), c.id,
                      kind_name(c), status_name(c), duration,
                      c.num_subtasks > 0 ? fmt::format("{}/{}", c.num_acknowledged, c.num_subtasks) : "-",
                      reason);
      // Why it waited (issue: explain each failed checkpoint), one indented line per subtask.
      for (const run::WaitRecord& w : c.waits) {
        if (w.kind == "acknowledged") continue;
        text += "\n" + wrap("- " + run::describe_wait(r, w), 21, 23, 100);
      }
      // A completed checkpoint that was still pending at half its timeout: its slowest subtask.
      if (c.status == run::CheckpointStatus::completed && !c.slow_waits.empty())
        text += "\n" + wrap(fmt::format("- slow: at {}, half the timeout, {}", clock(c.slow_probe_time),
                                        run::describe_wait(r, c.slow_waits.front())),
                             21, 23, 100);
      rows.push_back({c.trigger_time, 1, std::move(text)});
    }
  };
  add_checkpoints(r.earlier_checkpoints);
  add_checkpoints(r.checkpoints);
  for (const run::JobStatusChange& s : r.job_status_changes) {
    if (s.to == model::JobStatus::created) continue;
    rows.push_back({s.time, 0,
                    fmt::format("{}  {:>5}  job {} -> {}", clock(s.time), "", model::to_string(s.from),
                                model::to_string(s.to))});
  }
  // A row that is an event, not a checkpoint: its text wraps under the "what" column.
  const auto event_row = [&](core::SimTime t, const std::string& text) {
    rows.push_back({t, -1,  // a cause comes before the job status change it leads to
                    fmt::format("{}  {:>5}  {}", clock(t), "", wrap(text, 21, 21, 100).substr(21))});
  };
  for (const run::ConnectorRecord& e : r.connector_events) {
    // The assigner's switch is in jobmanager.log; the story shows the binlog start after it.
    if (e.event.kind == model::ConnectorEvent::Kind::cdc_assigner_finished) continue;
    event_row(e.time, run::describe_connector_event(r, e));
  }
  for (const run::RunResult::TaskFailure& f : r.task_failures) {
    const run::VertexInfo& v = r.vertices[static_cast<std::size_t>(f.vertex)];
    event_row(f.time, fmt::format("{} ({}/{}) failed: {}: {}", v.name, f.subtask + 1,
                                  v.parallelism, f.exception_class, one_line(f.message)));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.time < b.time || (a.time == b.time && a.order < b.order);
  });
  out += fmt::format("{:<12}  {:>5}  {:<15} {:<11} {:>14} {:>7}  {}\n", "time", "id", "what",
                     "status", "duration", "acked", "failure reason");
  for (Row& row : rows) {
    std::size_t blank;
    while ((blank = row.text.find(" \n")) != std::string::npos) row.text.erase(blank, 1);
    while (!row.text.empty() && row.text.back() == ' ') row.text.pop_back();
    out += row.text + "\n";
  }
  const run::CheckpointCounts& n = r.counts;
  out += fmt::format(
      "\ncheckpoints: {} triggered, {} completed, {} failed, {} in progress (latest submission)\n",
      n.total, n.completed, n.failed, n.in_progress);
  if (r.imported_from.empty())
    out += fmt::format("job: {} failover(s), {} restart(s), {} records replayed, final status {}\n",
                       r.failovers, r.restarts, r.replayed_records,
                       model::to_string(r.final_status));
  else  // a real job's files tell nothing of replayed records
    out += fmt::format("job: {} failover(s), {} restart(s), last status seen {}\n", r.failovers,
                       r.restarts, model::to_string(r.final_status));
  if (r.lost_records > 0)
    out += fmt::format("data loss: {} records in Kafka transactions the broker aborted\n",
                       r.lost_records);
  if (const run::RunResult::Latency& l = r.end_to_end_latency; l.records > 0)
    out += fmt::format("end-to-end latency (source read to sink): mean {:.1f} ms, p50 {:.1f} ms, "
                       "p99 {:.1f} ms over {} records\n",
                       l.mean_ms, l.p50_ms, l.p99_ms, l.records);
  return out;
}

}  // namespace ckptsim::analysis
