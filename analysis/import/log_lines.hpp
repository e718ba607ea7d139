// Lines of a real Flink JobManager log: the layouts Flink has shipped (log4j2 since 1.11:
// "2023-05-04 10:11:12,345 INFO  org.apache...CheckpointCoordinator [] - msg"; log4j1 up to 1.10,
// the same without "[]") and the common vendor variants (a thread name in brackets, ISO
// timestamps with 'T' and a zone, a container runtime's prefix, abbreviated logger names), split
// into records with the stack-trace lines that follow each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckptsim::analysis {

// What a record's leading clock is: a date and time (read as UTC), a time of day without a date
// (logback's default), milliseconds since the process started (a test's log), or none. The
// importer places the last two (and a local zone) on the epoch with a checkpoint trigger's
// "@ <epoch ms>".
enum class LogClock { none, absolute, time_of_day, relative };

struct LogLine {
  int line = 0;                         // 1-based line of the record's first line
  LogClock clock = LogClock::none;
  std::int64_t clock_ms = 0;            // as the clock says (epoch, ms of the day, ms since start)
  std::string level;                    // INFO, WARN, ...
  std::string logger;                   // as written (may be abbreviated)
  std::string message;
  std::vector<std::string> throwable;   // "Caused by: ...", "\tat ..." lines under it
};

struct LogLayout {
  std::string name;       // "log4j2", "log4j1", "vendor (thread in brackets)", "unknown"
  int records = 0;
  int unparsed_lines = 0; // lines that are neither a record nor part of a stack trace
  int without_timestamp = 0;
  std::vector<int> unparsed_examples;  // line numbers, at most 5
};

// Splits `text` into records; `layout` tells what was recognised.
std::vector<LogLine> parse_log_lines(std::string_view text, LogLayout& layout);

// Epoch milliseconds of "yyyy-MM-dd HH:mm:ss,SSS" (also '.', 'T' and a trailing zone, read as
// UTC unless an offset is given) or of Hadoop's "yy/MM/dd HH:mm:ss", or nullopt.
std::optional<std::int64_t> parse_log_timestamp(std::string_view text);

}  // namespace ckptsim::analysis
