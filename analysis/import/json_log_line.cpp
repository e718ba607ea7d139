#include "analysis/import/json_log_line.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace ckptsim::analysis {
namespace {

using nlohmann::json;

// The first of `keys` that holds a string ("log.logger" is also read nested: {"log":{"logger"}}).
std::string text(const json& j, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    const auto it = j.find(key);
    if (it != j.end() && it->is_string()) return it->get<std::string>();
    const std::string_view k = key;
    const std::size_t dot = k.find('.');
    if (dot == std::string_view::npos) continue;
    const auto outer = j.find(std::string(k.substr(0, dot)));
    if (outer == j.end() || !outer->is_object()) continue;
    const auto inner = outer->find(std::string(k.substr(dot + 1)));
    if (inner != outer->end() && inner->is_string()) return inner->get<std::string>();
  }
  return {};
}

std::optional<std::int64_t> integer(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

// JsonLayout's "instant" {epochSecond, nanoOfSecond} or "timeMillis"; else "@timestamp" /
// "timestamp" as text (JsonLayout's own pattern may write "2020-11-27_02:55:53.417").
std::optional<std::int64_t> epoch_ms(const json& j) {
  const auto instant = j.find("instant");
  if (instant != j.end() && instant->is_object()) {
    const auto seconds = integer(*instant, "epochSecond");
    if (seconds && *seconds >= 0 && *seconds < (std::int64_t{1} << 40))
      return *seconds * 1000 + integer(*instant, "nanoOfSecond").value_or(0) / 1'000'000;
  }
  if (const auto ms = integer(j, "timeMillis"); ms && *ms >= 0) return ms;
  std::string stamp = text(j, {"@timestamp", "timestamp", "time"});
  if (stamp.size() > 10 && stamp[10] == '_') stamp[10] = ' ';
  return parse_log_timestamp(stamp);
}

// The stack trace lines: JsonLayout's thrown.extendedStackTrace (or its name and message), ECS's
// error.stack_trace, logstash's stack_trace.
std::vector<std::string> throwable(const json& j) {
  std::string trace = text(j, {"stack_trace", "error.stack_trace"});
  const auto thrown = j.find("thrown");
  if (trace.empty() && thrown != j.end() && thrown->is_object()) {
    trace = text(*thrown, {"extendedStackTrace"});
    if (trace.empty() && !text(*thrown, {"name"}).empty())
      trace = text(*thrown, {"name"}) + ": " + text(*thrown, {"message"});
  }
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < trace.size()) {
    std::size_t end = trace.find('\n', start);
    if (end == std::string::npos) end = trace.size();
    if (end > start) lines.push_back(trace.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

std::optional<LogLine> parse_json_log_line(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos || line[first] != '{') return std::nullopt;
  const json j = json::parse(line.substr(first), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  LogLine out;
  out.logger = text(j, {"loggerName", "logger_name", "log.logger", "logger"});
  out.message = text(j, {"message", "msg"});
  if (out.logger.empty() || out.message.empty()) return std::nullopt;
  out.level = text(j, {"level", "log.level", "severity"});
  if (const auto ms = epoch_ms(j)) {
    out.clock = LogClock::absolute;
    out.clock_ms = *ms;
  }
  out.throwable = throwable(j);
  return out;
}

}  // namespace ckptsim::analysis
