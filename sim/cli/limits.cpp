// The size and memory limits of the commands (limits.hpp).
#include "sim/cli/limits.hpp"

#include <charconv>

#include "sim/run/footprint.hpp"

namespace ckptsim::cli {

namespace {

// Flink's MemorySize syntax, as scenario files write sizes.
std::string parse_size_option(std::int64_t& target, const std::string& text) {
  const std::optional<std::int64_t> size = scenario::parse_size(text);
  if (!size || *size <= 0) return "expected a size such as '16 MiB' or '8 GiB', got '" + text + "'";
  target = *size;
  return {};
}

}  // namespace

const CLI::Validator kSeedCheck(
    [](std::string& text) -> std::string {
      std::uint64_t value = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        return "a seed is a whole number from 0 to 18446744073709551615, got '" + text + "'";
      return {};
    },
    "SEED");

void add_limit_options(CLI::App& cmd, Limits& limits) {
  cmd.add_option_function<std::string>(
         "--max-input-size",
         [&limits](const std::string& text) {
           const std::string error = parse_size_option(limits.load.max_input_bytes, text);
           if (!error.empty()) throw CLI::ValidationError("--max-input-size", error);
         },
         "The largest scenario file (and base: file) read (default: 4 MiB)")
      ->type_name("SIZE");
  cmd.add_option_function<std::string>(
         "--max-memory",
         [&limits](const std::string& text) {
           const std::string error = parse_size_option(limits.max_memory, text);
           if (!error.empty()) throw CLI::ValidationError("--max-memory", error);
         },
         "Refuse a run whose estimated memory is larger (default: 8 GiB)")
      ->type_name("SIZE");
  cmd.add_option("--flink-conf", limits.load.flink_conf,
                 "A real Flink configuration file (flink-conf.yaml, or config.yaml of 1.19+) laid "
                 "under the scenario's flink block; the scenario's keys win. Repeatable")
      ->type_name("FILE");
}

std::optional<std::string> too_big(const model::Scenario& scenario, const Limits& limits) {
  const run::Footprint f = run::estimate_footprint(scenario);
  if (f.bytes <= limits.max_memory) return std::nullopt;
  return "this run needs about " + run::format_bytes(f.bytes) + " (" +
         std::to_string(f.subtasks) + " subtasks, " + std::to_string(f.channels) +
         " channels, " + std::to_string(f.samples) + " time-series rows), more than --max-memory " +
         run::format_bytes(limits.max_memory) +
         "; lower the parallelism or the duration, or raise --max-memory";
}

}  // namespace ckptsim::cli
