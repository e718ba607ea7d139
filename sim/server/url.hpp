// The parts of a request target: path and query split, percent-decoding, path segments.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ckptsim::server {

// "/a/b?x=1" -> {"/a/b", "x=1"}.
std::pair<std::string, std::string> split_target(const std::string& target);
// %XX decoded; nullopt for a bad escape or a decoded NUL.
std::optional<std::string> percent_decode(const std::string& text);
// "/a//b/" -> {"a", "b"}.
std::vector<std::string> split_path(const std::string& path);
// The (decoded) value of `name` in a query string, if present.
std::optional<std::string> query_value(const std::string& query, const std::string& name);

}  // namespace ckptsim::server
