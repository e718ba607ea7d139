// One line of a log written by a JSON layout: log4j2's JsonLayout (Flink's log4j2 can be
// configured with it: "loggerName", "message", "level", "thread", "instant"/"timeMillis",
// "thrown"), JsonTemplateLayout and ECS ("@timestamp", "log.logger", "log.level",
// "error.stack_trace"), logstash's encoder ("logger_name", "stack_trace").
#pragma once

#include <optional>
#include <string_view>

#include "analysis/import/log_lines.hpp"

namespace ckptsim::analysis {

// The record of a JSON log line, or nullopt when the line is no JSON object with a logger and a
// message.
std::optional<LogLine> parse_json_log_line(std::string_view line);

}  // namespace ckptsim::analysis
