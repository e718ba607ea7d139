// jobmanager.log: LogRecords laid out with the pattern of Flink's log4j-console.properties,
// `%d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n`. Timestamps are UTC, computed without the
// C library's time zone or locale so that every machine writes the same bytes.
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "sim/run/writers/writers.hpp"

namespace ckptsim::run {

namespace {

struct CivilDate {
  std::int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

// Howard Hinnant's civil_from_days: days since 1970-01-01 to a proleptic Gregorian date.
CivilDate civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;                                       // [0, 146096]
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const std::int64_t y = yoe + era * 400;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);  // [0, 365]
  const std::int64_t mp = (5 * doy + 2) / 153;                       // [0, 11]
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;               // [1, 31]
  const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;                  // [1, 12]
  return {m <= 2 ? y + 1 : y, static_cast<int>(m), static_cast<int>(d)};
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// %-5p: the level name left-aligned in five columns.
const char* level_column(LogLevel level) {
  switch (level) {
    case LogLevel::debug:
      return "DEBUG";
    case LogLevel::info:
      return "INFO ";
    case LogLevel::warn:
      return "WARN ";
    case LogLevel::error:
      return "ERROR";
  }
  return "INFO ";
}

}  // namespace

std::string format_log_timestamp(std::int64_t epoch_ms) {
  const std::int64_t ms_per_day = 86'400'000;
  const std::int64_t days = floor_div(epoch_ms, ms_per_day);
  const std::int64_t ms_of_day = epoch_ms - days * ms_per_day;
  const CivilDate date = civil_from_days(days);
  const std::int64_t hour = ms_of_day / 3'600'000;
  const std::int64_t minute = ms_of_day / 60'000 % 60;
  const std::int64_t second = ms_of_day / 1000 % 60;
  const std::int64_t millis = ms_of_day % 1000;
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02},{:03}", date.year, date.month, date.day,
                     hour, minute, second, millis);
}

std::string format_log_line(const RunResult& result, const LogRecord& record) {
  // %-60c pads the logger name to 60 columns and never truncates a longer one; %x is the empty
  // NDC, printed as "[]".
  return fmt::format("{} {} {:<60} [] - {}", format_log_timestamp(epoch_ms(result, record.time)),
                     level_column(record.level), record.logger, record.message);
}

std::string format_flink_log(const RunResult& result) {
  std::string text;
  for (const LogRecord& record : result.log) {
    text += format_log_line(result, record);
    text += '\n';
    for (const std::string& line : record.throwable) {
      text += line;
      text += '\n';
    }
  }
  return text;
}

}  // namespace ckptsim::run
