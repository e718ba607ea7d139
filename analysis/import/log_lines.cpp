#include "analysis/import/log_lines.hpp"

#include "analysis/import/json_log_line.hpp"

#include <array>
#include <cctype>
#include <map>

namespace ckptsim::analysis {

namespace {

bool digits(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return false;
  for (std::size_t i = at; i < at + n; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

int number(std::string_view s, std::size_t at, std::size_t n) {
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<std::int64_t>(era) * 146097 + doe - 719468;
}

constexpr std::array<std::string_view, 6> kLevels = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR",
                                                     "FATAL"};

bool is_level(std::string_view word) {
  for (std::string_view l : kLevels)
    if (word == l) return true;
  return word == "WARNING";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_throwable_line(std::string_view line) {
  if (line.empty()) return false;
  if (line[0] == '\t' || line.rfind("    at ", 0) == 0 || line.rfind("  at ", 0) == 0)
    return true;
  const std::string_view t = trim(line);
  if (t.rfind("Caused by: ", 0) == 0 || t.rfind("Suppressed: ", 0) == 0 ||
      t.rfind("at ", 0) == 0 || (t.rfind("... ", 0) == 0 && t.find("more") != std::string_view::npos))
    return true;
  // "org.apache.flink....SomeException: message" (a throwable's first line).
  const std::size_t colon = t.find(": ");
  const std::string_view head = t.substr(0, colon);
  return colon != std::string_view::npos && head.find(' ') == std::string_view::npos &&
         head.find('.') != std::string_view::npos &&
         (head.find("Exception") != std::string_view::npos ||
          head.find("Error") != std::string_view::npos ||
          head.find("Throwable") != std::string_view::npos);
}

}  // namespace

std::optional<std::int64_t> parse_log_timestamp(std::string_view s) {
  // yy/MM/dd HH:mm:ss (Hadoop's and YARN's log4j layout)
  if (digits(s, 0, 2) && s.size() >= 17 && s[2] == '/' && digits(s, 3, 2) && s[5] == '/' &&
      digits(s, 6, 2) && s[8] == ' ' && digits(s, 9, 2) && s[11] == ':' && digits(s, 12, 2) &&
      s[14] == ':' && digits(s, 15, 2)) {
    const int month = number(s, 3, 2), day = number(s, 6, 2);
    if (month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
    return (days_from_civil(2000 + number(s, 0, 2), month, day) * 86400 + number(s, 9, 2) * 3600 +
            number(s, 12, 2) * 60 + number(s, 15, 2)) * 1000;
  }
  // yyyy-MM-dd[ T]HH:mm:ss[,.]SSS
  if (!digits(s, 0, 4) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2) || s[7] != '-' ||
      !digits(s, 8, 2) || (s[10] != ' ' && s[10] != 'T') || !digits(s, 11, 2) || s[13] != ':' ||
      !digits(s, 14, 2) || s[16] != ':' || !digits(s, 17, 2))
    return std::nullopt;
  const int year = number(s, 0, 4), month = number(s, 5, 2), day = number(s, 8, 2);
  const int hour = number(s, 11, 2), minute = number(s, 14, 2), second = number(s, 17, 2);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  int millis = 0;
  std::size_t at = 19;
  if (at < s.size() && (s[at] == ',' || s[at] == '.') && digits(s, at + 1, 3)) {
    millis = number(s, at + 1, 3);
    at += 4;
    while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at]))) ++at;  // micro/nano
  }
  std::int64_t offset_minutes = 0;
  if (at < s.size() && (s[at] == '+' || s[at] == '-') && digits(s, at + 1, 2)) {
    const int sign = s[at] == '-' ? -1 : 1;
    const std::size_t mm = s[at + 3] == ':' ? at + 4 : at + 3;
    if (digits(s, mm, 2))
      offset_minutes = sign * (number(s, at + 1, 2) * 60 + number(s, mm, 2));
  }
  const std::int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 +
                               minute * 60 + second - offset_minutes * 60;
  return seconds * 1000 + millis;
}

namespace {

// The length of the date-and-time at the start of `s` (0: none).
std::size_t timestamp_length(std::string_view s) {
  if (!parse_log_timestamp(s)) return 0;
  if (s[2] == '/') return 17;
  std::size_t at = 19;
  if (at < s.size() && (s[at] == ',' || s[at] == '.')) {
    ++at;
    while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at]))) ++at;
  }
  if (at < s.size() && (s[at] == 'Z')) ++at;
  if (at < s.size() && (s[at] == '+' || s[at] == '-') && digits(s, at + 1, 2)) {
    at += 3;
    if (at < s.size() && s[at] == ':') ++at;
    while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at]))) ++at;
  }
  return at;
}

// "HH:mm:ss.SSS" (or ','): its length and the milliseconds of the day.
std::size_t time_of_day(std::string_view s, std::int64_t& ms) {
  if (!digits(s, 0, 2) || s.size() < 12 || s[2] != ':' || !digits(s, 3, 2) || s[5] != ':' ||
      !digits(s, 6, 2) || (s[8] != '.' && s[8] != ',') || !digits(s, 9, 3))
    return 0;
  ms = ((number(s, 0, 2) * 60 + number(s, 3, 2)) * 60 + number(s, 6, 2)) * 1000LL + number(s, 9, 3);
  return 12;
}

// What precedes Flink's own line: a Markdown backtick, a `docker compose` service prefix
// ("flink-jobmanager-1  | "), a container runtime's or CI runner's timestamp before Flink's.
std::string_view strip_prefixes(std::string_view s) {
  while (!s.empty() && (s.front() == '`' || s.front() == '>')) s = trim(s.substr(1));
  const std::size_t bar = s.find(" | ");
  if (bar != std::string_view::npos && bar < 64 && s.substr(0, bar).find_first_of("[]:") == std::string_view::npos)
    s = trim(s.substr(bar + 3));
  if (const std::size_t n = timestamp_length(s); n > 0 && s.size() > n + 1) {
    std::string_view after = trim(s.substr(n));
    if (after.rfind("stdout ", 0) == 0 || after.rfind("stderr ", 0) == 0) {
      after = trim(after.substr(7));
      if (after.size() > 2 && after[1] == ' ') after = trim(after.substr(2));  // CRI's "F "/"P "
    }
    if (timestamp_length(after) > 0) return after;
  }
  return s;
}

// One record's header: [clock] ... LEVEL ... logger (" - " | ": ") message, with [thread] and
// log4j2's "[]" anywhere before the message. `layout_hint` is set to what it looked like.
bool parse_header(std::string_view line, LogLine& out, std::string& layout_hint) {
  std::string_view rest = strip_prefixes(line);
  std::size_t clock = timestamp_length(rest);
  if (clock > 0) {
    out.clock = LogClock::absolute;
    out.clock_ms = *parse_log_timestamp(rest);
  } else if ((clock = time_of_day(rest, out.clock_ms)) > 0) {
    out.clock = LogClock::time_of_day;
  } else {
    std::size_t n = 0;
    while (n < rest.size() && n < 12 && std::isdigit(static_cast<unsigned char>(rest[n]))) ++n;
    if (n > 0 && n < rest.size() && rest[n] == ' ') {
      out.clock = LogClock::relative;
      out.clock_ms = std::stoll(std::string(rest.substr(0, n)));
      clock = n;
    }
  }
  const std::string_view body = trim(rest.substr(clock));
  bool thread = false, ndc = false;
  std::size_t i = 0;
  while (i < body.size()) {
    while (i < body.size() && body[i] == ' ') ++i;
    if (i >= body.size()) break;
    if (body[i] == '[') {
      int depth = 0;
      std::size_t j = i;
      for (; j < body.size(); ++j) {
        if (body[j] == '[') ++depth;
        if (body[j] == ']' && --depth == 0) break;
      }
      if (j >= body.size()) return false;
      if (j == i + 1) ndc = true; else thread = true;
      i = j + 1;
      continue;
    }
    std::size_t j = i;
    while (j < body.size() && body[j] != ' ') ++j;
    const std::string_view word = body.substr(i, j - i);
    i = j;
    if (out.level.empty()) {
      if (!is_level(word)) return false;  // a record's level comes before its logger
      out.level = word == "WARNING" ? "WARN" : std::string(word);
      continue;
    }
    if (out.logger.empty()) {
      std::string_view logger = word;
      const bool colon = !logger.empty() && logger.back() == ':';
      if (colon) logger.remove_suffix(1);
      logger = logger.substr(0, logger.find(':'));  // "Class:123"
      if (logger.empty() || !(logger.find('.') != std::string_view::npos ||
                              std::isupper(static_cast<unsigned char>(logger[0]))))
        return false;
      out.logger = std::string(logger);
      if (colon) {  // Hadoop's "LEVEL logger: message"
        out.message = std::string(trim(body.substr(std::min(i + 1, body.size()))));
        layout_hint = "log4j (Hadoop/YARN layout)";
        return true;
      }
      continue;
    }
    if (word == "-") {
      out.message = std::string(body.substr(std::min(i + 1, body.size())));
      layout_hint = thread ? "vendor (thread in brackets)" : ndc ? "log4j2" : "log4j1";
      if (out.clock == LogClock::none) layout_hint += ", no timestamps";
      if (out.clock == LogClock::time_of_day) layout_hint += ", time of day only";
      if (out.clock == LogClock::relative) layout_hint += ", ms since start";
      return true;
    }
    return false;  // a third word before " - ": not a header
  }
  return false;
}

}  // namespace

std::vector<LogLine> parse_log_lines(std::string_view text, LogLayout& layout) {
  std::vector<LogLine> records;
  std::map<std::string, int> layouts;
  int number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = end + 1;
    ++number;
    if (trim(line).empty()) continue;
    if (auto json_record = parse_json_log_line(line)) {
      json_record->line = number;
      ++layouts["JSON (log4j2 JsonLayout, JsonTemplateLayout, ECS or logstash)"];
      if (json_record->clock == LogClock::none) ++layout.without_timestamp;
      records.push_back(std::move(*json_record));
      continue;
    }
    LogLine record;
    record.line = number;
    std::string hint;
    if (parse_header(line, record, hint)) {
      ++layouts[hint];
      if (record.clock == LogClock::none) ++layout.without_timestamp;
      records.push_back(std::move(record));
      continue;
    }
    if (!records.empty() && is_throwable_line(strip_prefixes(line))) {
      records.back().throwable.emplace_back(strip_prefixes(line));
      continue;
    }
    ++layout.unparsed_lines;
    if (layout.unparsed_examples.size() < 5) layout.unparsed_examples.push_back(number);
  }
  layout.records = static_cast<int>(records.size());
  int best = 0;
  layout.name = "unknown";
  for (const auto& [name, count] : layouts)
    if (count > best) {
      best = count;
      layout.name = name;
    }
  return records;
}

}  // namespace ckptsim::analysis
