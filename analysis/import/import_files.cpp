// import_files: each file read (bounded), recognised by its content (a JSON body or a log), and
// merged into one RunResult: a log gives the story; REST bodies add what logs do not say (sizes,
// the checkpointing configuration, the job graph).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

#include "analysis/import/import.hpp"
#include "analysis/import/json_log_line.hpp"

namespace ckptsim::analysis {

std::string merge_rest_json(const nlohmann::json& j, run::RunResult& r);

namespace {

std::optional<std::string> read_bounded(const std::string& path, std::int64_t max_bytes,
                                        std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open it";
    return std::nullopt;
  }
  std::string text;
  text.resize(static_cast<std::size_t>(max_bytes) + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (static_cast<std::int64_t>(text.size()) > max_bytes) {
    error = path + ": larger than " + std::to_string(max_bytes >> 20) +
            " MiB; cut the log to the incident's hours";
    return std::nullopt;
  }
  return text;
}

}  // namespace

std::optional<Imported> import_files(const std::vector<std::string>& paths, std::string& error,
                                     std::int64_t max_bytes) {
  std::vector<std::pair<std::string, std::string>> texts;
  for (const std::string& path : paths) {
    auto text = read_bounded(path, max_bytes, error);
    if (!text) return std::nullopt;
    texts.emplace_back(path, std::move(*text));
  }
  return import_texts(std::move(texts), error);
}

namespace {

// A log written by a JSON layout: its first non-empty line is a log record on its own, and the
// whole text is no single JSON document.
bool is_json_log(const std::string& text) {
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  const std::size_t end = text.find('\n', start);
  const std::string_view first(text.data() + start,
                               (end == std::string::npos ? text.size() : end) - start);
  return parse_json_log_line(first).has_value() &&
         nlohmann::json::parse(text, nullptr, false).is_discarded();
}

}  // namespace

std::optional<Imported> import_texts(std::vector<std::pair<std::string, std::string>> texts,
                                     std::string& error) {
  Imported out;
  std::vector<std::string> paths;
  std::vector<std::pair<std::string, std::string>> logs, jsons;
  for (auto& [path, content] : texts) {
    paths.push_back(path);
    std::string* text = &content;
    const auto first = std::find_if(text->begin(), text->end(),
                                    [](char c) { return !std::isspace(static_cast<unsigned char>(c)); });
    // A JSON body, or (a log line may begin with "[thread]", and a JSON layout writes one
    // object per line) a log.
    const bool json = first != text->end() &&
                      ((*first == '{' && !is_json_log(*text)) ||
                       (*first == '[' && !nlohmann::json::parse(*text, nullptr, false).is_discarded()));
    (json ? jsons : logs).emplace_back(path, std::move(*text));
  }
  if (logs.size() > 1) {
    error = "give one JobManager log (" + logs[0].first + " and " + logs[1].first +
            " are both logs); concatenate rotated files in time order first";
    return std::nullopt;
  }
  if (!logs.empty()) {
    out = import_log(logs[0].second, logs[0].first);
    if (out.result.job_id.empty()) {
      error = logs[0].first + ": no checkpoint or job status line of a Flink job in it" +
              (out.report.problems.empty() ? std::string() : " (" + out.report.problems[0] + ")");
      return std::nullopt;
    }
  }
  for (const auto& [path, text] : jsons) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) {
      error = path + ": not valid JSON (a truncated response?)";
      return std::nullopt;
    }
    const std::string kind = merge_rest_json(j, out.result);
    if (kind.empty()) {
      error = path + ": a JSON body of no REST endpoint ckptsim imports (/jobs/overview, "
              "/jobs/:jid, /jobs/:jid/checkpoints, .../checkpoints/config, "
              ".../checkpoints/details/:id, /overview)";
      return std::nullopt;
    }
    out.report.files.push_back(path + ": Flink REST " + kind);
  }
  run::RunResult& r = out.result;
  if (logs.empty()) {
    std::sort(r.checkpoints.begin(), r.checkpoints.end(),
              [](const run::CheckpointRecord& a, const run::CheckpointRecord& b) { return a.id < b.id; });
    if (r.counts.total == 0) {
      for (const run::CheckpointRecord& c : r.checkpoints) {
        ++r.counts.total;
        if (c.status == run::CheckpointStatus::completed) ++r.counts.completed;
        else if (c.status == run::CheckpointStatus::failed) ++r.counts.failed;
        else ++r.counts.in_progress;
      }
    }
    for (const run::CheckpointRecord& c : r.checkpoints) r.end_time = std::max({r.end_time, c.end_time, c.trigger_time});
    if (r.job_name.empty()) r.job_name = "(imported job)";
    if (r.job_id.empty()) r.job_id = std::string(32, '0');
    r.scenario_name = "imported: " + (paths.empty() ? std::string() : paths[0]);
    out.report.flink_version = "unknown (REST JSON only)";
    r.imported_version = out.report.flink_version;
  }
  r.imported_from.clear();
  for (const std::string& p : paths) r.imported_from += (r.imported_from.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace ckptsim::analysis
