// Checks JSON bodies against the component schemas of Flink's OpenAPI spec
// (tests/run/data/rest_v1_dispatcher.flink-1.20-branchcut.yml), allowing only the documented
// differences between the spec and what Flink really writes (reference/flink-rest.md section 3).
// Test support only; shared by the writer tests and the end-to-end tests.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

namespace ckptsim::tests {

// One way the wire may differ from the 1.20 spec, for one property of one schema.
struct WireDifference {
  enum class Kind {
    nan_string,      // a number may be the string "NaN" (Jackson QUOTE_NON_NUMERIC_NUMBERS)
    lowercase_enum,  // a string enum is written lowercase (custom serializer)
    nullable,        // the value may be null (@Nullable; the spec never says nullable)
    extra_field,     // the wire has a field the 1.20 spec does not list
    any_pattern,     // a string the spec gives a pattern that the wire does not follow
    unwrapped_list,  // the wire is the list of this property alone, a top-level JSON array
    raw_json,        // any JSON object: raw embedded JSON (JobPlanInfo.RawJson)
    hex_id_string,   // an ID the spec shows as an object is written as 32 lowercase hex chars
  };
  std::string schema;    // component schema name, e.g. "StatsSummaryDto"
  std::string property;  // property name inside it
  Kind kind;
  std::string reason;  // why Flink writes it this way
};

// The differences ckptsim's REST output relies on, each with its reason.
const std::vector<WireDifference>& flink_wire_differences();

class OpenApiSpec {
 public:
  // Loads the spec; on failure returns nothing and sets *error.
  static std::optional<OpenApiSpec> load(const std::filesystem::path& file, std::string* error);

  // Human-readable violations of `value` against components/schemas/<schema>; empty = valid.
  std::vector<std::string> validate(
      const nlohmann::ordered_json& value, const std::string& schema,
      const std::vector<WireDifference>& allowed = flink_wire_differences()) const;

  bool has_schema(const std::string& schema) const;

 private:
  explicit OpenApiSpec(YAML::Node root) : root_(std::move(root)) {}
  YAML::Node root_;
};

// The copy of Flink's 1.20 spec kept in the repository.
std::filesystem::path flink_spec_path();
// That spec, loaded once (a test fails if it cannot be).
const OpenApiSpec& flink_spec();

// The component schema of a file under a written rest/ directory, by its path relative to it
// ("jobs/<jid>/checkpoints.json" -> "CheckpointingStatistics"); nothing for unknown paths.
std::optional<std::string> schema_for_rest_path(const std::string& relative_path);

// Validates every file under `rest_dir` against the schema of its path; returns violations
// prefixed with the file's relative path. Unknown paths, unreadable files and invalid JSON are
// violations too. An empty result means the directory is valid.
std::vector<std::string> check_rest_dir(const std::filesystem::path& rest_dir);

}  // namespace ckptsim::tests
