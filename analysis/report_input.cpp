// Reads a run's output directory for the report: summary.json, the rest/ tree, timeseries.csv,
// job.json and, for old directories without job.json, the job status lines of jobmanager.log.
// Knows the files' formats only; bad or missing files become notes, never exceptions.
#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>

#include "analysis/report.hpp"

namespace ckptsim::analysis {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

// Larger files than this are not read (a report must not exhaust memory on a stray file).
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{1} << 30;

std::optional<std::string> read_text(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || fs::file_size(path, ec) > kMaxFileBytes) return {};
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<ordered_json> read_json(const fs::path& path) {
  const std::optional<std::string> text = read_text(path);
  if (!text) return {};
  ordered_json body = ordered_json::parse(*text, nullptr, false);
  if (body.is_discarded()) return {};
  return body;
}

std::int64_t int_of(const ordered_json& j, const char* key, std::int64_t fallback = 0) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  return it->get<std::int64_t>();
}

std::string string_of(const ordered_json& j, const char* key) {
  if (!j.is_object()) return {};
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned mp = m > 2 ? m - 3 : m + 9;
  const unsigned doy = (153 * mp + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// "2024-07-10 12:43:31,000" (Flink's log4j2 %d) as epoch milliseconds.
std::optional<std::int64_t> parse_log_time(std::string_view s) {
  if (s.size() < 23 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[19] != ',') return {};
  const auto number = [&](std::size_t pos, std::size_t len) -> std::optional<int> {
    int v = 0;
    const auto [end, ec] = std::from_chars(s.data() + pos, s.data() + pos + len, v);
    if (ec != std::errc() || end != s.data() + pos + len) return {};
    return v;
  };
  const auto y = number(0, 4), mo = number(5, 2), d = number(8, 2), h = number(11, 2),
             mi = number(14, 2), se = number(17, 2), ms = number(20, 3);
  if (!y || !mo || !d || !h || !mi || !se || !ms || *mo < 1 || *mo > 12 || *d < 1 || *d > 31)
    return {};
  const std::int64_t days =
      days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d));
  return ((days * 24 + *h) * 60 + *mi) * 60000 + std::int64_t{*se} * 1000 + *ms;
}

// ExecutionGraph's "Job NAME (JID) switched from state X to Y." lines.
std::vector<ReportStatusChange> status_changes_from_log(const std::string& log,
                                                        std::int64_t start_epoch_ms) {
  std::vector<ReportStatusChange> out;
  std::istringstream lines(log);
  std::string line;
  const std::string marker = " switched from state ";
  while (std::getline(lines, line)) {
    const std::size_t at = line.find(marker);
    if (at == std::string::npos || line.find(" - Job ") == std::string::npos) continue;
    const std::optional<std::int64_t> t = parse_log_time(line);
    if (!t) continue;
    const std::size_t to = line.find(" to ", at + marker.size());
    if (to == std::string::npos) continue;
    std::string target = line.substr(to + 4);
    if (!target.empty() && target.back() == '.') target.pop_back();
    out.push_back({*t - start_epoch_ms, line.substr(at + marker.size(), to - at - marker.size()),
                   target});
  }
  return out;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  // timeseries.csv has no quoting; a vertex name with a comma would shift the columns, so the
  // numeric columns are taken from the end.
  std::vector<std::string> cells;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = line.find(',', pos);
    cells.push_back(line.substr(pos, comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return cells;
}

double to_double(const std::string& s, bool& ok) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) ok = false;
  return v;
}

void read_timeseries(const std::string& text, ReportRun& run) {
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);  // header
  std::map<std::string, int> vertex_index;
  for (std::size_t i = 0; i < run.vertices.size(); ++i)
    vertex_index.emplace(run.vertices[i].name, static_cast<int>(i));
  const bool known_vertices = !run.vertices.empty();
  std::size_t bad = 0;
  while (std::getline(lines, line)) {
    std::vector<std::string> c = split_csv_line(line);
    if (c.size() < 10) {
      ++bad;
      continue;
    }
    const std::size_t n = c.size();
    std::string name = c[1];
    for (std::size_t i = 2; i + 8 < n; ++i) name += "," + c[i];
    bool ok = true;
    ReportSample s;
    s.end_ms = static_cast<std::int64_t>(to_double(c[0], ok) * 1000 + 0.5);
    s.subtask = static_cast<int>(to_double(c[n - 8], ok));
    s.busy = to_double(c[n - 7], ok);
    s.back_pressured = to_double(c[n - 6], ok);
    s.idle = to_double(c[n - 5], ok);
    s.input_buffers = static_cast<int>(to_double(c[n - 4], ok));
    s.output_buffers = static_cast<int>(to_double(c[n - 3], ok));
    if (!ok || s.subtask < 0) {
      ++bad;
      continue;
    }
    auto it = vertex_index.find(name);
    if (it == vertex_index.end()) {
      if (known_vertices) {
        ++bad;
        continue;
      }
      // An old directory without job.json: the vertices in the order the CSV names them.
      it = vertex_index.emplace(name, static_cast<int>(run.vertices.size())).first;
      run.vertices.push_back({"", name, 1});
    }
    s.vertex = it->second;
    ReportVertex& v = run.vertices[static_cast<std::size_t>(s.vertex)];
    if (!known_vertices) v.parallelism = std::max(v.parallelism, s.subtask + 1);
    if (s.subtask >= v.parallelism) {
      ++bad;
      continue;
    }
    run.samples.push_back(s);
  }
  if (bad > 0) run.notes.push_back(std::to_string(bad) + " rows of timeseries.csv were not read");
}

ReportSubtask subtask_of(const ordered_json& j, std::int64_t start_epoch_ms) {
  ReportSubtask s;
  s.index = static_cast<int>(int_of(j, "index"));
  const std::int64_t ack = int_of(j, "ack_timestamp", -1);
  // A late report after the checkpoint failed is "completed" with "aborted": true: no ack.
  const auto aborted = j.find("aborted");
  s.acknowledged = string_of(j, "status") == "completed" && ack >= 0 &&
                   !(aborted != j.end() && aborted->is_boolean() && aborted->get<bool>());
  s.ack_ms = s.acknowledged ? ack - start_epoch_ms : -1;
  if (j.contains("checkpoint")) {
    s.sync_ms = int_of(j["checkpoint"], "sync");
    s.async_ms = int_of(j["checkpoint"], "async");
  }
  if (j.contains("alignment")) s.alignment_ms = int_of(j["alignment"], "duration");
  s.start_delay_ms = int_of(j, "start_delay");
  s.unaligned = j.value("unaligned_checkpoint", false);
  return s;
}

void read_checkpoints(const fs::path& job_dir, ReportRun& run) {
  const fs::path details = job_dir / "checkpoints" / "details";
  std::error_code ec;
  std::vector<std::int64_t> ids;
  for (fs::directory_iterator it(details, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path p = it->path();
    if (p.extension() != ".json") continue;
    std::int64_t id = 0;
    const std::string stem = p.stem().string();
    const auto [ptr, err] = std::from_chars(stem.data(), stem.data() + stem.size(), id);
    if (err == std::errc() && ptr == stem.data() + stem.size()) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  // Without job.json the vertex ids come from a detail file's task map, which lists the
  // vertices in the job graph's order as the CSV does.
  const bool ids_known = std::all_of(run.vertices.begin(), run.vertices.end(),
                                     [](const ReportVertex& v) { return !v.id.empty(); });
  if (!ids_known && !ids.empty()) {
    const std::optional<ordered_json> first =
        read_json(details / (std::to_string(ids.front()) + ".json"));
    if (first && first->contains("tasks") && (*first)["tasks"].is_object() &&
        (*first)["tasks"].size() == run.vertices.size()) {
      std::size_t i = 0;
      for (const auto& [key, value] : (*first)["tasks"].items()) run.vertices[i++].id = key;
    }
  }
  std::size_t bad = 0;
  for (std::int64_t id : ids) {
    const std::optional<ordered_json> body = read_json(details / (std::to_string(id) + ".json"));
    if (!body || !body->is_object()) {
      ++bad;
      continue;
    }
    ReportCheckpoint c;
    c.id = id;
    c.status = string_of(*body, "status");
    c.type = string_of(*body, "checkpoint_type");
    c.trigger_ms = int_of(*body, "trigger_timestamp") - run.start_epoch_ms;
    c.num_subtasks = static_cast<int>(int_of(*body, "num_subtasks"));
    c.num_acknowledged = static_cast<int>(int_of(*body, "num_acknowledged_subtasks"));
    c.failure_message = string_of(*body, "failure_message");
    if (c.status == "FAILED")
      c.end_ms = int_of(*body, "failure_timestamp", -1) - run.start_epoch_ms;
    else if (c.status == "COMPLETED")
      c.end_ms = c.trigger_ms + int_of(*body, "end_to_end_duration");
    // Per-subtask statistics, vertex by vertex in the vertices' order.
    for (const ReportVertex& v : run.vertices) {
      std::vector<ReportSubtask> subtasks;
      if (!v.id.empty()) {
        const std::optional<ordered_json> sub =
            read_json(details / std::to_string(id) / "subtasks" / (v.id + ".json"));
        if (sub && sub->contains("subtasks") && (*sub)["subtasks"].is_array()) {
          for (const ordered_json& s : (*sub)["subtasks"]) {
            ReportSubtask r = subtask_of(s, run.start_epoch_ms);
            if (r.index >= 0 && r.index < v.parallelism) subtasks.push_back(r);
          }
        }
      }
      c.subtasks.push_back(std::move(subtasks));
    }
    run.checkpoints.push_back(std::move(c));
  }
  if (bad > 0) run.notes.push_back(std::to_string(bad) + " checkpoint detail files were not read");
}

void attach_explanations(ReportRun& run) {
  // The checkpoint a summary.json entry is about (end() if none).
  const auto checkpoint_of = [&](const ordered_json& entry) {
    const std::int64_t id = int_of(entry, "checkpoint", -1);
    return std::find_if(run.checkpoints.begin(), run.checkpoints.end(),
                        [&](const ReportCheckpoint& x) { return x.id == id; });
  };
  const ordered_json& diagnosis = run.summary.value("diagnosis", ordered_json::array());
  if (!diagnosis.is_array()) return;
  for (const ordered_json& entry : diagnosis) {
    const auto c = checkpoint_of(entry);
    if (c == run.checkpoints.end() || !entry.contains("unacknowledged")) continue;
    for (const ordered_json& w : entry["unacknowledged"])
      if (w.contains("explanation") && w["explanation"].is_string())
        c->explanations.push_back(w["explanation"].get<std::string>());
  }
  // Completed checkpoints still pending at half their timeout: what held the slowest subtask.
  const ordered_json& slow = run.summary.value("slow_checkpoints", ordered_json::array());
  if (!slow.is_array()) return;
  for (const ordered_json& entry : slow) {
    const auto c = checkpoint_of(entry);
    if (c != run.checkpoints.end() && entry.contains("explanation") &&
        entry["explanation"].is_string())
      c->explanations.push_back("At half the timeout: " + entry["explanation"].get<std::string>());
  }
}

}  // namespace

std::optional<ReportRun> read_run_dir(const fs::path& dir, std::string& error) {
  try {
    ReportRun run;
    const std::optional<ordered_json> summary = read_json(dir / "summary.json");
    if (!summary || !summary->is_object() || !summary->contains("checkpoints")) {
      error = (dir / "summary.json").string() +
              ": not found or not a ckptsim summary (is this a `ckptsim run --out` directory?)";
      return std::nullopt;
    }
    run.summary = *summary;
    run.job_id = string_of(run.summary, "job_id");
    run.end_ms = int_of(run.summary, "simulated_time_ms");
    const std::optional<ordered_json> job = read_json(dir / "job.json");
    if (job && job->is_object()) {
      run.job_name = string_of(*job, "job_name");
      run.start_epoch_ms = int_of(*job, "start_epoch_ms");
      for (const ordered_json& v : job->value("vertices", ordered_json::array()))
        run.vertices.push_back({string_of(v, "id"), string_of(v, "name"),
                                std::max(1, static_cast<int>(int_of(v, "parallelism", 1)))});
      for (const ordered_json& s : job->value("job_status_changes", ordered_json::array()))
        run.status_changes.push_back(
            {int_of(s, "time_ms"), string_of(s, "from"), string_of(s, "to")});
    } else {
      run.notes.push_back(
          "no job.json (written by newer ckptsim): vertices are taken from timeseries.csv, job "
          "status changes from jobmanager.log");
      const std::optional<ordered_json> jobs = read_json(dir / "rest" / "jobs" / "overview.json");
      if (jobs && jobs->contains("jobs") && (*jobs)["jobs"].is_array() &&
          !(*jobs)["jobs"].empty()) {
        run.start_epoch_ms = int_of((*jobs)["jobs"][0], "start-time");
        run.job_name = string_of((*jobs)["jobs"][0], "name");
      }
      if (const std::optional<std::string> log = read_text(dir / "jobmanager.log"))
        run.status_changes = status_changes_from_log(*log, run.start_epoch_ms);
    }
    if (const std::optional<std::string> csv = read_text(dir / "timeseries.csv"))
      read_timeseries(*csv, run);
    else
      run.notes.push_back("no timeseries.csv: no heatmap or queue chart");
    const fs::path job_dir = dir / "rest" / "jobs" / run.job_id;
    if (const std::optional<ordered_json> config =
            read_json(job_dir / "checkpoints" / "config.json"))
      run.config = *config;
    read_checkpoints(job_dir, run);
    if (run.checkpoints.empty() && int_of(run.summary["checkpoints"], "total") > 0)
      run.notes.push_back("no checkpoint detail files under rest/: no timeline");
    attach_explanations(run);
    return run;
  } catch (const std::exception& e) {
    error = dir.string() + ": " + e.what();
    return std::nullopt;
  }
}

}  // namespace ckptsim::analysis
