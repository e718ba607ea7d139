// From YAML text to one located tree: parsing with yaml-cpp, flattening the `flink:` block to
// Flink's dotted keys, following `base:` overlays and applying `set:` and --set paths. Knows
// nothing about what the keys mean (loader.cpp does).
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "sim/scenario/internal.hpp"

namespace ckptsim::scenario::detail {
namespace {

constexpr int kMaxBaseDepth = 8;

const char* const kMinimalScenarioHint =
    "a minimal scenario is 'job: {vertices: [{name: Source}]}'";

// yaml-cpp's messages name the symptom where the parser noticed it, often a line after the
// mistake: say what usually causes it.
std::string yaml_error_hint(const std::string& message) {
  static const std::pair<const char*, const char*> kHints[] = {
      {"end of sequence flow not found", "a '[' above is not closed by ']'"},
      {"end of map flow not found", "a '{' above is not closed by '}'"},
      {"illegal map value", "a value that contains ': ' must be quoted"},
      {"end of map not found", "check the indentation: keys of one map must line up"},
      {"end of sequence not found", "check the indentation: items of one list must line up"},
      {"bad indentation of a mapping entry", "check the indentation: keys of one map must line up"},
      {"end of string not found", "a quote is not closed"},
      {"unknown escape character", "in double quotes, write a backslash as '\\\\'"},
      {"unexpected character in block scalar",
       "a value that starts with '>' or '|' must be quoted, e.g. '\">= 5\"'"},
  };
  for (const auto& [symptom, hint] : kHints)
    if (message.find(symptom) != std::string::npos) return hint;
  return "check the YAML syntax at or just above this position";
}

Loc loc_of(const YAML::Mark& mark, int source, int column_offset) {
  Loc loc;
  loc.source = source;
  loc.line = mark.line + 1;
  loc.column = mark.column + 1 + column_offset;
  return loc;
}

int token_length(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (text.find('\n') != std::string::npos) return 1;
  // yaml-cpp tags quoted (and block) scalars "!", plain ones "?": quotes widen the token.
  const int quotes = node.Tag() == "!" ? 2 : 0;
  return std::max(1, static_cast<int>(text.size()) + quotes);
}

// Guards against YAML aliases: one that refers to itself ("&x [*x]") would recurse for ever,
// and nested aliases can expand exponentially ("billion laughs").
struct ConvertState {
  std::vector<YAML::Node> ancestors;
  std::size_t nodes = 0;
};
constexpr std::size_t kMaxNodes = 100'000;  // far more than any real scenario

Node convert(Context& ctx, const YAML::Node& yaml, int source, int column_offset,
             ConvertState& state) {
  Node node;
  node.loc = loc_of(yaml.Mark(), source, column_offset);
  for (const YAML::Node& ancestor : state.ancestors) {
    if (!ancestor.is(yaml)) continue;
    ctx.error(node.loc, "a YAML alias here refers to a node that contains it");
    return node;
  }
  if (++state.nodes == kMaxNodes) {
    ctx.error(node.loc, "the YAML expands to too many values here (aliases of aliases?)");
    return node;
  }
  if (state.nodes > kMaxNodes) return node;
  state.ancestors.push_back(yaml);
  switch (yaml.Type()) {
    case YAML::NodeType::Scalar:
      node.kind = Node::Kind::scalar;
      node.text = yaml.Scalar();
      node.loc.length = token_length(yaml);
      break;
    case YAML::NodeType::Sequence:
      node.kind = Node::Kind::sequence;
      for (const YAML::Node& item : yaml)
        node.items.push_back(convert(ctx, item, source, column_offset, state));
      break;
    case YAML::NodeType::Map:
      node.kind = Node::Kind::map;
      for (const auto& pair : yaml) {
        const YAML::Node& key = pair.first;
        Loc key_loc = loc_of(key.Mark(), source, column_offset);
        if (!key.IsScalar()) {
          ctx.error(key_loc, "a key must be a plain name, not a map or a list");
          continue;
        }
        key_loc.length = token_length(key);
        if (key.Scalar().size() > kMaxNameLength) {
          ctx.error(key_loc, "a key of " + std::to_string(key.Scalar().size()) +
                                 " characters; the most is " + std::to_string(kMaxNameLength));
          continue;
        }
        Entry entry{key.Scalar(), key_loc, key.Tag() == "!",
                    convert(ctx, pair.second, source, column_offset, state)};
        // An empty value has no token of its own, and a block map or list starts on a later
        // line: point at the key instead.
        if (entry.value.is_null() ||
            (!entry.value.is_scalar() && entry.value.loc.line != key_loc.line))
          entry.value.loc = key_loc;
        node.entries.push_back(std::move(entry));
      }
      break;
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      break;
  }
  state.ancestors.pop_back();
  return node;
}

Node convert(Context& ctx, const YAML::Node& yaml, int source, int column_offset) {
  ConvertState state;
  return convert(ctx, yaml, source, column_offset, state);
}

// A silently repeated key would make one of the two values a lie: report the second and drop
// it, so that nothing after this reads both (reading both once indexed one list's per-vertex
// data with the other's vertices: issue 18 item 1).
void drop_duplicates(Context& ctx, Node& node, bool top_level) {
  if (node.is_sequence())
    for (Node& item : node.items) drop_duplicates(ctx, item, false);
  if (!node.is_map()) return;
  std::vector<Entry> kept;
  kept.reserve(node.entries.size());
  std::unordered_map<std::string, int> line_of;  // first occurrence of each key
  for (Entry& entry : node.entries) {
    if (const auto first = line_of.find(entry.key); first != line_of.end()) {
      ctx.error(entry.key_loc, "duplicate key '" + entry.key + "'",
                "it is already set at line " + std::to_string(first->second));
      continue;
    }
    line_of.emplace(entry.key, entry.key_loc.line);
    // The flink block is checked when it is flattened, across flat and nested spellings.
    if (!(top_level && entry.key == "flink")) drop_duplicates(ctx, entry.value, false);
    kept.push_back(std::move(entry));
  }
  node.entries = std::move(kept);
}

// `index`: position in `out` of each key, so a duplicate is found in constant time (a 4 MiB
// `flink:` map of 87,000 distinct keys took 20 s with a linear search per key).
void flatten_into(Context& ctx, const Node& map, const std::string& prefix,
                  std::vector<Entry>& out, std::unordered_map<std::string, std::size_t>& index) {
  for (const Entry& entry : map.entries) {
    const std::string key = prefix.empty() ? entry.key : prefix + "." + entry.key;
    if (entry.value.is_map() && !is_leaf_flink_option(key)) {
      flatten_into(ctx, entry.value, key, out, index);
      continue;
    }
    const auto [earlier, inserted] = index.try_emplace(key, out.size());
    if (!inserted) {
      ctx.error(entry.key_loc, "Flink option '" + key + "' is set twice",
                "it is already set at line " + std::to_string(out[earlier->second].key_loc.line));
      continue;  // the first one is read, as with any duplicate key
    }
    out.push_back(Entry{key, entry.key_loc, entry.key_quoted, entry.value});
  }
}

// `flink:` takes flat dotted keys, nested maps (Flink 1.19+ config.yaml style) or a mix; from
// here on it is flat, so overlays and --set replace a key whatever way it was written.
std::vector<Entry> flatten(Context& ctx, const Node& map, const std::string& prefix) {
  std::vector<Entry> out;
  std::unordered_map<std::string, std::size_t> index;
  flatten_into(ctx, map, prefix, out, index);
  return out;
}

void set_entry(Node& map, const std::string& key, const Loc& key_loc, Node value) {
  if (Entry* existing = map.find(key)) {
    existing->key_loc = key_loc;
    existing->value = std::move(value);
    return;
  }
  map.entries.push_back(Entry{key, key_loc, false, std::move(value)});
}

// Overlay semantics: maps merge key by key (the overlay wins), anything else is replaced.
void merge(Node& base, const Node& overlay) {
  for (const Entry& entry : overlay.entries) {
    Entry* existing = base.find(entry.key);
    if (existing != nullptr && existing->value.is_map() && entry.value.is_map()) {
      merge(existing->value, entry.value);
    } else if (existing != nullptr) {
      existing->key_loc = entry.key_loc;
      existing->value = entry.value;
    } else {
      base.entries.push_back(entry);
    }
  }
}

struct Segment {
  std::string name;
  bool selector = false;  // [name] or [index]
  int offset = 0;         // in the path text
  int length = 0;
};

Loc segment_loc(const Loc& path_loc, int offset, int length) {
  Loc loc = path_loc;
  loc.column += offset;
  loc.length = std::max(1, length);
  return loc;
}

std::optional<std::vector<Segment>> split_path(Context& ctx, std::string_view path,
                                               const Loc& path_loc) {
  std::vector<Segment> segments;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '[') {
      const std::size_t close = path.find(']', i);
      if (close == std::string_view::npos) {
        ctx.error(segment_loc(path_loc, static_cast<int>(i), 1), "'[' without a closing ']'",
                  "select a list item by name, e.g. job.vertices[Sink].parallelism");
        return std::nullopt;
      }
      segments.push_back({std::string(path.substr(i + 1, close - i - 1)), true,
                          static_cast<int>(i + 1), static_cast<int>(close - i - 1)});
      i = close + 1;
      if (i < path.size() && path[i] == '.') ++i;
      continue;
    }
    std::size_t end = path.find_first_of(".[", i);
    if (end == std::string_view::npos) end = path.size();
    // A connector's options have dotted names of their own (scan.startup.mode): after
    // `options` the rest of the path is one key.
    if (!segments.empty() && !segments.back().selector && segments.back().name == "options")
      end = path.size();
    if (end == i || (end == path.size() - 1 && path[end] == '.')) {
      ctx.error(segment_loc(path_loc, static_cast<int>(end), 1),
                "empty name in path '" + std::string(path) + "'");
      return std::nullopt;
    }
    segments.push_back({std::string(path.substr(i, end - i)), false, static_cast<int>(i),
                        static_cast<int>(end - i)});
    i = end;
    if (i < path.size() && path[i] == '.') ++i;
  }
  if (segments.empty()) {
    ctx.error(path_loc, "empty path", "write a key such as execution.checkpointing.timeout");
    return std::nullopt;
  }
  return segments;
}

void set_flink_key(Context& ctx, Node& root, const std::string& key, const Loc& key_loc,
                   const Node& value) {
  Entry* flink = root.find("flink");
  if (flink == nullptr) {
    root.entries.push_back(Entry{"flink", key_loc, false, Node{}});
    flink = &root.entries.back();
    flink->value.kind = Node::Kind::map;
    flink->value.loc = key_loc;
  }
  if (flink->value.is_null()) flink->value.kind = Node::Kind::map;
  if (!flink->value.is_map()) {
    ctx.error(key_loc, "cannot set Flink option '" + key + "': 'flink' is not a map");
    return;
  }
  if (!value.is_map()) {
    set_entry(flink->value, key, key_loc, value);
    return;
  }
  for (Entry& entry : flatten(ctx, value, key))
    set_entry(flink->value, entry.key, entry.key_loc, entry.value);
}

std::optional<std::size_t> find_item(const Node& list, const std::string& selector) {
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const Entry* name = list.items[i].is_map() ? list.items[i].find("name") : nullptr;
    if (name != nullptr && name->value.is_scalar() && name->value.text == selector) return i;
  }
  std::size_t index = 0;
  const auto [end, ec] = std::from_chars(selector.data(), selector.data() + selector.size(), index);
  if (!selector.empty() && ec == std::errc() && end == selector.data() + selector.size() &&
      index < list.items.size())
    return index;
  return std::nullopt;
}

std::vector<std::string> item_names(const Node& list) {
  std::vector<std::string> names;
  for (const Node& item : list.items) {
    const Entry* name = item.is_map() ? item.find("name") : nullptr;
    if (name != nullptr && name->value.is_scalar()) names.push_back(name->value.text);
  }
  return names;
}

// Sets `value` at a dotted path (see scenario.hpp for the path syntax). `path_loc` is where the
// path text starts, so each segment can be pointed at.
void apply_set(Context& ctx, Node& root, const std::string& path, const Loc& path_loc,
               const Node& value) {
  const auto segments = split_path(ctx, path, path_loc);
  if (!segments) return;
  const Segment& first = segments->front();
  const auto& keys = scenario::top_level_keys();
  const bool top_level =
      !first.selector && std::find(keys.begin(), keys.end(), first.name) != keys.end();
  if (top_level && (first.name == "base" || first.name == "set")) {
    ctx.error(segment_loc(path_loc, first.offset, first.length),
              "'" + first.name + "' cannot be set by a path");
    return;
  }
  if (top_level && first.name == "flink") {
    if (segments->size() == 1) {
      if (!value.is_map()) {
        ctx.error(value.loc, "expected a map of Flink options, got " + describe(value));
        return;
      }
      for (Entry& entry : flatten(ctx, value, ""))
        set_flink_key(ctx, root, entry.key, entry.key_loc, entry.value);
      return;
    }
    const int offset = segments->at(1).offset;
    set_flink_key(ctx, root, path.substr(static_cast<std::size_t>(offset)),
                  segment_loc(path_loc, offset, static_cast<int>(path.size()) - offset), value);
    return;
  }
  if (!top_level) {
    if (segments->size() > 1 && !segments->at(1).selector && path.find('[') == std::string::npos) {
      // A bare Flink key: execution.checkpointing.timeout means flink.execution.checkpointing...
      set_flink_key(ctx, root, path, segment_loc(path_loc, 0, static_cast<int>(path.size())),
                    value);
      return;
    }
    ctx.error(segment_loc(path_loc, first.offset, first.length),
              "unknown scenario key '" + first.name + "'", did_you_mean(first.name, keys));
    return;
  }
  Node* current = &root;
  std::string walked;
  for (std::size_t i = 0; i < segments->size(); ++i) {
    const Segment& segment = (*segments)[i];
    const Loc loc = segment_loc(path_loc, segment.offset, segment.length);
    const bool last = i + 1 == segments->size();
    if (!segment.selector) {
      if (current->is_null()) current->kind = Node::Kind::map;
      if (!current->is_map()) {
        ctx.error(loc, "cannot set '" + path + "': '" + walked + "' is not a map");
        return;
      }
      if (last) {
        set_entry(*current, segment.name, loc, value);
        return;
      }
      Entry* entry = current->find(segment.name);
      if (entry == nullptr) {
        Node empty;
        empty.loc = loc;
        current->entries.push_back(Entry{segment.name, loc, false, empty});
        entry = &current->entries.back();
      }
      current = &entry->value;
      walked += (walked.empty() ? "" : ".") + segment.name;
    } else {
      if (!current->is_sequence()) {
        ctx.error(loc, "cannot select [" + segment.name + "]: '" + walked + "' is not a list");
        return;
      }
      const std::optional<std::size_t> index = find_item(*current, segment.name);
      if (!index) {
        ctx.error(loc, "no item named '" + segment.name + "' in '" + walked + "'",
                  did_you_mean(segment.name, item_names(*current)));
        return;
      }
      if (last) {
        current->items[*index] = value;
        return;
      }
      current = &current->items[*index];
      walked += "[" + segment.name + "]";
    }
  }
}

std::optional<Node> read_document_at(Context& ctx, std::string_view text, const std::string& name,
                                     int depth, std::vector<std::filesystem::path>& chain);

std::optional<Node> read_base(Context& ctx, const Entry& base, const std::string& including,
                              int depth, std::vector<std::filesystem::path>& chain) {
  if (!base.value.is_scalar() || base.value.text.empty()) {
    ctx.error(base.value.loc,
              "expected the path of a base scenario file, got " + describe(base.value));
    return std::nullopt;
  }
  const std::filesystem::path path =
      (std::filesystem::path(including).parent_path() / base.value.text).lexically_normal();
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
  if (std::find(chain.begin(), chain.end(), canonical) != chain.end()) {
    ctx.error(base.value.loc, "base scenario '" + base.value.text + "' includes itself",
              "a chain of base files must not loop");
    return std::nullopt;
  }
  if (depth >= kMaxBaseDepth) {
    ctx.error(base.value.loc,
              "too many nested base scenarios (at most " + std::to_string(kMaxBaseDepth) + ")");
    return std::nullopt;
  }
  std::string error;
  const std::optional<std::string> content =
      read_scenario_text(path.generic_string(), error, ctx.limits().max_input_bytes);
  if (!content) {
    ctx.error(base.value.loc, "cannot open base scenario '" + path.generic_string() + "': " + error,
              "the path is relative to the directory of this file");
    return std::nullopt;
  }
  chain.push_back(canonical);
  std::optional<Node> node =
      read_document_at(ctx, *content, path.generic_string(), depth + 1, chain);
  chain.pop_back();
  return node;
}

// YAML text as a located map. `what` names the file in messages ("the scenario file"), `a_map`
// is what it must be ("a scenario must be a map of keys such as 'job:'").
std::optional<Node> parse_map(Context& ctx, std::string_view text, const std::string& name,
                              const std::string& what, const std::string& a_map,
                              const char* hint) {
  const int source = ctx.add_source(name, text);
  YAML::Node yaml;
  try {
    yaml = YAML::Load(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    ctx.error(loc_of(e.mark, source, 0),
              "the YAML nests deeper than " + std::to_string(e.depth()) + " levels here",
              "a scenario needs a few levels; look for an unclosed '[' or '{' or runaway "
              "indentation");
    return std::nullopt;
  } catch (const YAML::ParserException& e) {
    ctx.error(loc_of(e.mark, source, 0), e.msg, yaml_error_hint(e.msg));
    return std::nullopt;
  } catch (const std::exception& e) {
    ctx.error(Loc{source, 1, 1, 1}, std::string("cannot read YAML: ") + e.what());
    return std::nullopt;
  }
  if (yaml.IsNull() || !yaml.IsDefined()) {
    ctx.error(Loc{source, 1, 1, 1}, what + " is empty", hint);
    return std::nullopt;
  }
  Node root = convert(ctx, yaml, source, 0);
  if (!root.is_map()) {
    ctx.error(root.loc, a_map + ", got " + describe(root), hint);
    return std::nullopt;
  }
  return root;
}

std::optional<Node> read_document_at(Context& ctx, std::string_view text, const std::string& name,
                                     int depth, std::vector<std::filesystem::path>& chain) {
  std::optional<Node> parsed =
      parse_map(ctx, text, name, "the scenario file",
                "a scenario must be a map of keys such as 'job:'", kMinimalScenarioHint);
  if (!parsed) return std::nullopt;
  Node root = std::move(*parsed);
  drop_duplicates(ctx, root, true);
  if (Entry* flink = root.find("flink"); flink != nullptr && flink->value.is_map())
    flink->value.entries = flatten(ctx, flink->value, "");

  // Pull out the overlay keys: the rest of the file is laid over the base, then `set:` applies.
  std::optional<Entry> base;
  std::optional<Entry> set;
  std::vector<Entry> rest;
  for (Entry& entry : root.entries) {
    if (entry.key == "base")
      base = std::move(entry);
    else if (entry.key == "set")
      set = std::move(entry);
    else
      rest.push_back(std::move(entry));
  }
  root.entries = std::move(rest);

  Node result = std::move(root);
  if (base) {
    std::optional<Node> base_root = read_base(ctx, *base, name, depth, chain);
    if (!base_root) return std::nullopt;
    merge(*base_root, result);
    base_root->loc = result.loc;
    result = std::move(*base_root);
  }
  if (set) {
    if (!expect_map(ctx, set->value, "'set' to be a map of paths to values")) return result;
    for (const Entry& entry : set->value.entries) {
      Loc path_loc = entry.key_loc;
      if (entry.key_quoted) ++path_loc.column;
      apply_set(ctx, result, entry.key, path_loc, entry.value);
    }
  }
  return result;
}

}  // namespace

std::optional<Node> read_document(Context& ctx, std::string_view text, const std::string& name) {
  std::vector<std::filesystem::path> chain;
  std::error_code ec;
  chain.push_back(std::filesystem::weakly_canonical(name, ec));
  return read_document_at(ctx, text, name, 0, chain);
}

void apply_override(Context& ctx, Node& root, const std::string& override_text) {
  const int source = ctx.add_source("--set", override_text);
  const std::size_t equals = override_text.find('=');
  if (equals == std::string::npos) {
    ctx.error(Loc{source, 1, 1, static_cast<int>(override_text.size())},
              "expected KEY=VALUE, got '" + override_text + "'",
              "for example: --set execution.checkpointing.timeout=10min");
    return;
  }
  const std::string_view whole = override_text;
  const std::string_view raw_key = whole.substr(0, equals);
  const std::string_view key = trim(raw_key);
  const int key_column = static_cast<int>(raw_key.find_first_not_of(" \t")) + 1;
  const std::string_view raw_value = whole.substr(equals + 1);
  const std::string_view value_text = trim(raw_value);
  const int value_column =
      static_cast<int>(equals + 1 + (value_text.empty() ? 0 : raw_value.find(value_text.front()))) +
      1;
  if (key.empty()) {
    ctx.error(Loc{source, 1, 1, 1}, "missing key before '='",
              "for example: --set execution.checkpointing.timeout=10min");
    return;
  }
  Node value;
  value.loc = Loc{source, 1, value_column, std::max(1, static_cast<int>(value_text.size()))};
  if (!value_text.empty() && (value_text.front() == '{' || value_text.front() == '[')) {
    // A flow map or list, e.g. --set 'job.vertices[Sink].input={from: Process, ship: rebalance}'.
    try {
      value = convert(ctx, YAML::Load(std::string(value_text)), source, value_column - 1);
    } catch (const YAML::ParserException& e) {
      ctx.error(loc_of(e.mark, source, value_column - 1), e.msg, yaml_error_hint(e.msg));
      return;
    }
  } else if (!value_text.empty()) {
    value.kind = Node::Kind::scalar;
    value.text = std::string(value_text);
  }
  apply_set(ctx, root, std::string(key), Loc{source, 1, key_column, 1}, value);
}

void add_flink_conf(Context& ctx, Node& root, const std::string& path,
                    const std::optional<Loc>& named_at) {
  std::string error;
  const std::optional<std::string> text =
      read_scenario_text(path, error, ctx.limits().max_input_bytes);
  if (!text) {
    const std::string message = "cannot open Flink configuration file '" + path + "': " + error;
    const char* hint = "a flink-conf.yaml (flat keys) or config.yaml (nested, Flink 1.19+)";
    if (named_at)
      ctx.error(*named_at, message, hint);
    else
      ctx.error_without_location(path, message, hint);
    return;
  }
  std::optional<Node> conf =
      parse_map(ctx, *text, path, "the Flink configuration file",
                "a Flink configuration file must be a map of keys such as "
                "'execution.checkpointing.interval: 10s'",
                "write one 'key: value' per line (flink-conf.yaml) or nested keys (config.yaml)");
  if (!conf) return;
  drop_duplicates(ctx, *conf, false);
  Node merged;
  merged.kind = Node::Kind::map;
  merged.entries = flatten(ctx, *conf, "");
  Entry* flink = root.find("flink");
  if (flink == nullptr) {
    Entry entry;
    entry.key = "flink";
    entry.key_loc = named_at.value_or(merged.loc);
    entry.value = merged;
    entry.value.loc = entry.key_loc;
    root.entries.push_back(std::move(entry));
    return;
  }
  if (!flink->value.is_map()) return;  // reported where the flink block is read
  merge(merged, flink->value);  // the scenario's own keys win
  merged.loc = flink->value.loc;
  flink->value = std::move(merged);
}

}  // namespace ckptsim::scenario::detail

namespace ckptsim::scenario {

const std::vector<std::string>& top_level_keys() {
  static const std::vector<std::string> keys = {
      "name",       "description", "seed",     "start",  "duration", "flink", "cluster",
      "jobmanager", "job",         "timeline", "expect", "base",     "set",   "systems",
      "flink-conf", "network"};
  return keys;
}

std::optional<std::string> read_scenario_text(const std::string& path, std::string& error,
                                              std::int64_t max_bytes) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::strerror(errno != 0 ? errno : ENOENT);
    return std::nullopt;
  }
  // Only what can hold a scenario: a device (/dev/zero, /dev/urandom) never ends.
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  using std::filesystem::file_type;
  if (type == file_type::directory) {
    error = std::strerror(EISDIR);
    return std::nullopt;
  }
  if (type != file_type::regular && type != file_type::fifo) {
    error = type == file_type::character || type == file_type::block
                ? "it is a device, not a file"
                : "it is not a regular file";
    return std::nullopt;
  }
  std::string content;
  std::array<char, 65536> chunk{};
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    content.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (static_cast<std::int64_t>(content.size()) > max_bytes) {
      error = "it is larger than " + std::to_string(max_bytes) +
              " bytes, the most ckptsim reads (raise it with --max-input-size)";
      return std::nullopt;
    }
  }
  return content;
}


}  // namespace ckptsim::scenario
