// Reads scenario files (YAML) into a model::Scenario and reports every mistake in them the way a
// compiler does (file:line:col, the source line, a caret, a hint). Also the parsers of the
// quantities with units used in scenarios. The only module that knows about YAML.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/model/config.hpp"
#include "sim/scenario/expectations.hpp"

namespace ckptsim::scenario {

// One error in a scenario. line == 0 means "no location" (e.g. a file that cannot be opened).
struct Diagnostic {
  enum class Severity { error, warning, note };
  std::string file;  // as given by the caller, or "--set" for a command-line override
  int line = 0;      // 1-based
  int column = 0;    // 1-based
  std::string message;
  std::string hint;         // empty = no hint line
  std::string source_line;  // the text of `line`, without its line break
  int length = 1;           // characters under the caret: '^' then length-1 times '~'
  Severity severity = Severity::error;
};

struct LoadResult {
  std::optional<model::Scenario> scenario;  // set only when there is no diagnostic
  std::vector<Diagnostic> diagnostics;      // every error found, in file order
  // Accepted keys that change nothing in the simulation (a real Flink or connector option
  // ckptsim does not model): the run goes ahead; `validate --strict` makes them errors.
  std::vector<Diagnostic> warnings;
  // Keys of Flink's configuration reference that ckptsim accepts without modelling (rest.port,
  // taskmanager.memory.process.size, ...): one note each, shown with --verbose; `warnings` has
  // one line that counts them.
  std::vector<Diagnostic> notes;
  // Errors past LoadLimits::max_errors: counted, not kept (`diagnostics` ends with one line that
  // says how many).
  std::size_t errors_not_shown = 0;
  Expectations expectations;                // the `expect:` section (what `ckptsim test` checks)
  bool ok() const { return scenario.has_value() && diagnostics.empty(); }
};

// Bounds on what a scenario can make ckptsim read and print (issue 18 item 2): a scenario is a
// few kilobytes; a device, a runaway generator or a fuzzer must not exhaust memory.
struct LoadLimits {
  static constexpr std::int64_t kDefaultMaxInputBytes = 4 * 1024 * 1024;
  std::int64_t max_input_bytes = kDefaultMaxInputBytes;  // per file, `base:` files included
  std::size_t max_errors = 100;  // more are counted: "... and N more errors"
  // Flink configuration files (--flink-conf) laid under every scenario's flink block, after its
  // own `flink-conf:` files; the scenario's keys win.
  std::vector<std::string> flink_conf;
};
// The longest name (vertex, table, system, ...) a scenario may give.
inline constexpr std::size_t kMaxNameLength = 1000;

// A scenario file's text: only a regular file or a pipe, at most `max_bytes`; nullopt with the
// reason in `error` ("No such file or directory", "is a character device, not a file", "is
// larger than 16 MiB ...").
std::optional<std::string> read_scenario_text(const std::string& path, std::string& error,
                                              std::int64_t max_bytes =
                                                  LoadLimits::kDefaultMaxInputBytes);

// `overrides` are "KEY=VALUE" strings from --set. KEY is a dotted path such as
// flink.execution.checkpointing.timeout, job.vertices[Sink].parallelism or seed; a key that is not
// a top-level scenario key but contains a dot is a Flink option (execution.checkpointing.timeout
// means flink.execution.checkpointing.timeout). Never throws.
LoadResult load_file(const std::string& path, const std::vector<std::string>& overrides = {},
                     const LoadLimits& limits = {});
// `file_name` is used in diagnostics and to find a `base:` file relative to it.
LoadResult load_string(std::string_view yaml_text, const std::string& file_name,
                       const std::vector<std::string>& overrides = {},
                       const LoadLimits& limits = {});

// Compiler-style text of one diagnostic, each line ending in '\n':
//   file:12:3: error: message
//      12 |   source line
//         |   ^~~~~~
//   hint: ...
std::string format_diagnostic(const Diagnostic& diagnostic);
std::string format_diagnostics(const std::vector<Diagnostic>& diagnostics);

// The built-in scenario `ckptsim run` uses when it is given no file.
std::string_view default_scenario_yaml();

// The top-level keys of a scenario file (`name`, `flink`, `job`, ...): a dotted `--set` path
// that starts with none of them is a Flink key written alone.
const std::vector<std::string>& top_level_keys();

// Flink's TimeUtils syntax: "100 ms", "10s", "3 min", "2 h", "1 d", "5 us", "7 ns", also "m"
// (minutes), "milli(s)", "sec(s)", "minute(s)", "hour(s)", "day(s)"; case-insensitive; a bare
// number means milliseconds. A decimal number ("1.5 s") is accepted too. Negative -> nullopt.
std::optional<core::Duration> parse_duration(std::string_view text);
// Flink's MemorySize syntax, 1024-based: "32kb", "32 kb", "1 mb", "20 GiB", "1024" (bytes);
// units b/bytes, k/kb/kib, m/mb/mib, g/gb/gib, t/tb/tib. Decimals ("1.2 kb") are rounded.
std::optional<std::int64_t> parse_size(std::string_view text);
// Per-second value of "50000 rows/s", "1000 records/s", "2k records/s", "20 MB/s" (bytes per
// second), "600 rows/min"; a bare number is per second. Above 1e12 records or 1 PB
// (2^50 bytes) per second -> nullopt.
std::optional<double> parse_rate(std::string_view text);
// "40M", "8096", "2k", "1.5 M": k = 1e3, M = 1e6, G = 1e9.
std::optional<std::int64_t> parse_count(std::string_view text);

}  // namespace ckptsim::scenario
