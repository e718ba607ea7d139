#include "analysis/user_settings.hpp"

#include <algorithm>

#include "sim/scenario/scenario.hpp"

namespace ckptsim::analysis {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace

bool is_user_setting(std::string_view key) {
  if (key == "scenario" || starts_with(key, "flink.")) return true;
  if (key == "cluster.taskmanagers" || key == "cluster.slots-per-taskmanager") return true;
  if (starts_with(key, "job.vertices[")) {
    const std::size_t close = key.find(']');
    if (close == std::string_view::npos) return false;
    const std::string_view rest = key.substr(close + 1);
    return starts_with(rest, ".options.") || rest == ".parallelism" || rest == ".max-parallelism";
  }
  const std::size_t dot = key.find('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view first = key.substr(0, std::min(dot, key.find('[')));
  for (const std::string& top : scenario::top_level_keys())
    if (first == top) return false;
  return !ends_with(key, ".");
}

}  // namespace ckptsim::analysis
