// Internals shared by the .cpp files of sim/scenario: the YAML tree with source locations, the
// diagnostic sink, "did you mean", and readers of typed values. Nothing outside this folder
// includes it; it hides yaml-cpp from the rest of ckptsim.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace ckptsim::scenario::detail {

// Where a token is: which source (a file or one --set string), 1-based line and column, and how
// many characters the caret underlines.
struct Loc {
  int source = -1;
  int line = 0;
  int column = 0;
  int length = 1;
};

struct Entry;

// The scenario as a tree of located values. Scenario files are converted to it right after
// parsing so that overlays and --set overrides can carry their own locations.
struct Node {
  enum class Kind { null, scalar, sequence, map };
  Kind kind = Kind::null;
  Loc loc;
  std::string text;            // scalar
  std::vector<Node> items;     // sequence
  std::vector<Entry> entries;  // map, in file order

  bool is_map() const { return kind == Kind::map; }
  bool is_sequence() const { return kind == Kind::sequence; }
  bool is_scalar() const { return kind == Kind::scalar; }
  bool is_null() const { return kind == Kind::null; }
  // The last entry with this key (a later entry wins, as in an overlay), or nullptr.
  const Entry* find(std::string_view key) const;
  Entry* find(std::string_view key);
};

struct Entry {
  std::string key;
  Loc key_loc;
  bool key_quoted = false;
  Node value;
};

// Collects diagnostics and keeps the text of every source so a diagnostic can quote its line.
class Context {
 public:
  Context() = default;
  explicit Context(const LoadLimits& limits) : limits_(limits) {}
  const LoadLimits& limits() const { return limits_; }
  int add_source(std::string name, std::string_view text);
  void error(const Loc& loc, std::string message, std::string hint = {});
  void error_without_location(std::string file, std::string message, std::string hint = {});
  // An accepted key that has no effect in the simulation; it does not stop the run.
  void warning(const Loc& loc, std::string message, std::string hint = {});
  // An accepted key that concerns nothing ckptsim simulates; listed on request (--verbose).
  void note(const Loc& loc, std::string message);
  bool has_errors() const { return !pending_.empty(); }
  std::size_t error_count() const { return pending_.size(); }
  int line_length(int source, int line) const;
  // The file name (or "--set") of a source, "" for an unknown one.
  std::string source_name(int source) const;
  // Every diagnostic so far, ordered by source (in the order they were added), line, column.
  // Every error so far (at most limits().max_errors, then one "and N more errors" line).
  std::vector<Diagnostic> take_diagnostics();
  std::size_t errors_not_shown() const { return dropped_; }
  std::vector<Diagnostic> take_warnings() { return take(warnings_); }
  std::vector<Diagnostic> take_notes() { return take(notes_); }

 private:
  struct Source {
    std::string name;
    std::vector<std::string> lines;
  };
  struct Pending {
    int source;
    Diagnostic diagnostic;
  };
  Diagnostic located(const Loc& loc, std::string message, std::string hint) const;
  bool known_source(const Loc& loc) const;
  static std::vector<Diagnostic> take(std::vector<Pending>& pending);
  bool full() const { return pending_.size() >= limits_.max_errors; }
  LoadLimits limits_;
  std::vector<Source> sources_;
  std::vector<Pending> pending_;
  std::size_t dropped_ = 0;  // errors past limits_.max_errors
  std::vector<Pending> warnings_;
  std::vector<Pending> notes_;
};

// Levenshtein distance.
std::size_t edit_distance(std::string_view a, std::string_view b);
// The candidate closest to `word` when it is close enough to be a typo (distance <= a third of
// the length, at least 1), else nullopt.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);
// "did you mean 'x'?" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
std::string join(const std::vector<std::string>& items, std::string_view separator);
// "unknown <where> key 'k'", with a did-you-mean hint or the list of `allowed` keys.
void unknown_key(Context& ctx, const Entry& entry, std::string_view where,
                 const std::vector<std::string>& allowed);
std::string to_lower(std::string_view text);
std::string_view trim(std::string_view text);

// ---- document.cpp: YAML text -> tree, base/set overlays, --set overrides

// Reads one scenario document, follows its `base:` and applies its `set:`; nullopt after an
// error that leaves nothing to check (unreadable file, YAML syntax error, empty file).
std::optional<Node> read_document(Context& ctx, std::string_view text, const std::string& name);
// Applies one "KEY=VALUE" override to the tree.
void apply_override(Context& ctx, Node& root, const std::string& override_text);
// Lays the Flink configuration file `path` (flink-conf.yaml or config.yaml, flattened) under the
// scenario's flink block: the scenario's own keys win. `named_at` locates a message about it
// (none: a file named on the command line).
void add_flink_conf(Context& ctx, Node& root, const std::string& path,
                    const std::optional<Loc>& named_at);

// ---- units.cpp: the detailed forms of the public parsers, for precise messages

// compound: "4 min 30 s" where only Flink's one-number-one-unit syntax is allowed.
enum class UnitError { none, empty, negative, no_number, unknown_unit, overflow, compound };
template <typename T>
struct Parsed {
  std::optional<T> value;
  UnitError error = UnitError::none;
  std::string unit;  // the offending unit for unknown_unit
};
// `compound` allows "4 min 30 s" (ckptsim's own keys); Flink's options take one part.
Parsed<core::Duration> parse_duration_detail(std::string_view text, bool compound);
Parsed<std::int64_t> parse_size_detail(std::string_view text);
struct Rate {
  double per_second = 0;
  bool bytes = false;  // "20 MB/s" (true) or "500 rows/s" (false)
};
Parsed<Rate> parse_rate_detail(std::string_view text);
const std::vector<std::string>& duration_unit_names();
// "30 min", "1500 ms": the largest unit that divides the duration exactly.
std::string format_duration(core::Duration duration);
const std::vector<std::string>& size_unit_names();

// ---- values.cpp: typed readers that report a diagnostic and return nullopt on bad input

std::optional<std::string> read_string(Context& ctx, const Node& node);
// A name (vertex, table, job, step): a text of at most kMaxNameLength characters.
std::optional<std::string> read_name(Context& ctx, const Node& node, std::string_view what);
// A duration of ckptsim's own keys: Flink's syntax, or parts such as "4 min 30 s".
std::optional<core::Duration> read_duration(Context& ctx, const Node& node);
// A cost: a duration ("50 ms"), or a law, e.g. "{base: 50 ms, per-checkpoint: 2 ms}"
// (model/cost_law.hpp; docs/scenario-format.md "Costs that grow").
std::optional<model::CostLaw> read_cost_law(Context& ctx, const Node& node);
// A Flink (or connector) option's duration: TimeUtils syntax, one number and one unit.
std::optional<core::Duration> read_flink_duration(Context& ctx, const Node& node);
std::optional<std::int64_t> read_size(Context& ctx, const Node& node);
std::optional<std::int64_t> read_int64(Context& ctx, const Node& node, std::string_view what,
                                       std::int64_t min, std::int64_t max);
std::optional<int> read_int(Context& ctx, const Node& node, std::string_view what, int min);
std::optional<std::uint64_t> read_uint64(Context& ctx, const Node& node);
std::optional<double> read_double(Context& ctx, const Node& node, std::string_view what, double min,
                                  double max);
std::optional<bool> read_bool(Context& ctx, const Node& node);
// A rate: records per time unit ("5000 records/s"), or bytes per time unit when `bytes`.
std::optional<double> read_rate(Context& ctx, const Node& node, bool bytes);
// Case-insensitive choice among `choices` (name, value); the hint lists the allowed names.
template <typename T>
std::optional<T> read_enum(Context& ctx, const Node& node, std::string_view what,
                           const std::vector<std::pair<std::string, T>>& choices);
// Checks that `node` is a map; reports "expected <what>" otherwise.
bool expect_map(Context& ctx, const Node& node, std::string_view what);
bool expect_sequence(Context& ctx, const Node& node, std::string_view what);
// "a map", "a list", "nothing", "'text'": how a value is named in "got ..." messages.
std::string describe(const Node& node);
// Index of the enum choice, or reports; shared implementation of read_enum. The hint lists
// `shown` (the names without their aliases), or `names` when `shown` is empty.
std::optional<std::size_t> read_choice(Context& ctx, const Node& node, std::string_view what,
                                       const std::vector<std::string>& names,
                                       const std::vector<std::string>& shown = {});

template <typename T>
std::optional<T> read_enum(Context& ctx, const Node& node, std::string_view what,
                           const std::vector<std::pair<std::string, T>>& choices) {
  std::vector<std::string> names;
  std::vector<std::string> shown;  // one name per value: aliases are accepted, not advertised
  std::vector<T> seen;
  for (const auto& [name, value] : choices) {
    names.push_back(name);
    if (std::find(seen.begin(), seen.end(), value) != seen.end()) continue;
    seen.push_back(value);
    shown.push_back(name);
  }
  const std::optional<std::size_t> index = read_choice(ctx, node, what, names, shown);
  if (!index) return std::nullopt;
  return choices[*index].second;
}

// ---- expect.cpp

// Reads the `expect:` list (each item one expectation, see docs/scenario-format.md).
void read_expectations(Context& ctx, const Node& list, Expectations& out);

// ---- connectors.cpp

// The `systems:` map (external systems by name).
void read_systems(Context& ctx, const Node& map, model::SystemsSpec& systems);
// Keys of a vertex that belong to its connector.
bool is_connector_key(std::string_view key);
// A vertex's connector (connector, system, options, tables, table, table-model), read after its
// other keys.
void read_connector(Context& ctx, const Node& vertex, const model::SystemsSpec& systems,
                    model::VertexSpec& v);
// A vertex's `calls:` (the services its operator calls from processElement).
void read_calls(Context& ctx, const Node& vertex, const model::SystemsSpec& systems,
                const model::AsyncLookupConfig& async_defaults, model::VertexSpec& v);
// A timeline entry whose `do` is "<system>.<operation>"; false after an error.
bool read_system_action(Context& ctx, const Node& item, const Entry& what,
                        const model::Scenario& scenario, model::TimelineAction& action);

// ---- flink_options.cpp

// cluster.checkpoint-storage (`map` may be null: not written) into `out`, with the profile the
// Flink configuration implies when none is named; `where` locates a warning about that choice.
void read_checkpoint_storage(Context& ctx, const Node* map, const Loc& where,
                             const model::FlinkConfig& flink, model::CheckpointStorageSpec& out);
// Reads the (already flattened) `flink:` map into `config` and resolves the version defaults.
// `default_parallelism` receives parallelism.default when it is set.
void read_flink(Context& ctx, const Node& flink, model::FlinkConfig& config,
                std::optional<int>& default_parallelism);
// True for a known Flink option that no other option extends (execution.checkpointing.timeout,
// but not state.backend, which state.backend.type extends): a map there is a wrong value, not
// nested keys.
bool is_leaf_flink_option(std::string_view key);

}  // namespace ckptsim::scenario::detail
