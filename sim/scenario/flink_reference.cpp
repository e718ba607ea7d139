#include "sim/scenario/flink_reference.hpp"

#include <map>
#include <unordered_set>

#include "flink_reference_keys.hpp"

namespace ckptsim::scenario::detail {
namespace {

struct KeyList {
  std::unordered_set<std::string> exact;
  std::vector<std::string> keys;      // exact keys, in file order
  std::vector<std::string> patterns;  // keys with placeholders
};

bool is_placeholder_key(std::string_view key) {
  return key.find('<') != std::string_view::npos || key.find('#') != std::string_view::npos;
}

// `pattern` with <...> and # as wildcards of one or more characters.
bool matches(std::string_view pattern, std::string_view key) {
  if (pattern.empty()) return key.empty();
  const bool hash = pattern.front() == '#';
  if (hash || pattern.front() == '<') {
    const std::size_t end = hash ? 0 : pattern.find('>');
    if (end == std::string_view::npos) return pattern == key;
    const std::string_view rest = pattern.substr(end + 1);
    for (std::size_t n = 1; n <= key.size(); ++n)
      if (matches(rest, key.substr(n))) return true;
    return false;
  }
  return !key.empty() && key.front() == pattern.front() &&
         matches(pattern.substr(1), key.substr(1));
}

const std::map<std::string, KeyList, std::less<>>& lists() {
  static const auto all = [] {
    std::map<std::string, KeyList, std::less<>> out;
    for (const FlinkKeyList& l : kFlinkKeyLists) {
      KeyList& list = out[std::string(l.version)];
      std::size_t at = 0;
      while (at < l.text.size()) {
        std::size_t end = l.text.find('\n', at);
        if (end == std::string_view::npos) end = l.text.size();
        const std::string_view line = l.text.substr(at, end - at);
        at = end + 1;
        if (line.empty() || line.front() == '#') continue;
        if (is_placeholder_key(line)) {
          list.patterns.emplace_back(line);
        } else {
          list.exact.emplace(line);
          list.keys.emplace_back(line);
        }
      }
    }
    return out;
  }();
  return all;
}

bool listed(const KeyList& list, std::string_view key) {
  if (list.exact.count(std::string(key)) != 0) return true;
  for (const std::string& p : list.patterns)
    if (matches(p, key)) return true;
  return false;
}

}  // namespace

ReferenceLookup look_up_flink_key(std::string_view key, model::FlinkVersion version) {
  ReferenceLookup out;
  const std::string_view mine = model::to_string(version);
  for (const auto& [name, list] : lists()) {
    if (!listed(list, key)) continue;
    if (name == mine) out.status = ReferenceStatus::documented;
    out.versions.push_back(name);
  }
  if (out.status != ReferenceStatus::documented && !out.versions.empty())
    out.status = ReferenceStatus::other_versions;
  return out;
}

const std::vector<std::string>& reference_keys(model::FlinkVersion version) {
  static const std::vector<std::string> none;
  const auto it = lists().find(model::to_string(version));
  return it == lists().end() ? none : it->second.keys;
}

}  // namespace ckptsim::scenario::detail
