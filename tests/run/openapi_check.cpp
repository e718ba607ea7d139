// A small OpenAPI 3.0 checker for the subset Flink's generated spec uses: $ref to
// components/schemas, object properties / required / additionalProperties, allOf, oneOf, anyOf,
// discriminator mappings, arrays, integer (int32/int64), number, string (enum, pattern), boolean.
#include "tests/run/openapi_check.hpp"

#include <algorithm>
#include <stdexcept>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#ifndef CKPTSIM_SOURCE_DIR
#define CKPTSIM_SOURCE_DIR "."
#endif

namespace ckptsim::tests {

using nlohmann::ordered_json;
using Kind = WireDifference::Kind;

const std::vector<WireDifference>& flink_wire_differences() {
  static const std::vector<WireDifference> differences = [] {
    std::vector<WireDifference> d;
    const std::string nan_reason =
        "Jackson writes NaN doubles as the string \"NaN\" (QUOTE_NON_NUMERIC_NUMBERS): task-level "
        "summaries have no histogram, job summaries before the first completed checkpoint "
        "(flink-rest.md 3.4)";
    for (const char* p : {"p50", "p90", "p95", "p99", "p999"}) {
      d.push_back({"StatsSummaryDto", p, Kind::nan_string, nan_reason});
    }
    d.push_back({"CheckpointConfigInfo", "mode", Kind::lowercase_enum,
                 "CheckpointConfigInfo.ProcessingModeSerializer writes "
                 "mode.name().toLowerCase() (flink-rest.md 3.1)"});
    const std::string latest_reason =
        "CheckpointingStatistics.LatestCheckpoints: null when there is no such checkpoint "
        "(flink-rest.md 4.1, 10.2)";
    for (const char* p : {"completed", "savepoint", "failed", "restored"}) {
      d.push_back({"LatestCheckpoints", p, Kind::nullable, latest_reason});
    }
    d.push_back({"CheckpointStatistics", "savepointFormat", Kind::nullable,
                 "@Nullable: null for checkpoints (flink-rest.md 4.1, 10.2)"});
    d.push_back({"FailedCheckpointStatistics", "failure_message", Kind::nullable,
                 "@Nullable: cause == null ? null : cause.getMessage() (flink-rest.md 4.1)"});
    d.push_back({"RestoredCheckpointStatistics", "external_path", Kind::nullable,
                 "@Nullable external pointer of the restored checkpoint (flink-rest.md 4.1)"});
    d.push_back({"CheckpointConfigInfo", "changelog_storage", Kind::nullable,
                 "@Nullable: null without the changelog state backend (flink-rest.md 4.4)"});
    d.push_back({"CheckpointConfigInfo", "state_backend", Kind::nullable,
                 "@Nullable state backend name (flink-rest.md 4.4)"});
    d.push_back({"CheckpointConfigInfo", "checkpoint_storage", Kind::nullable,
                 "@Nullable checkpoint storage name (flink-rest.md 4.4)"});
    const std::string v2_reason =
        "JobDetails fields of the 2.x wire, absent from the 1.20 spec (flink-rest.md 5.3, 8)";
    for (const char* p : {"pending-operators", "jobType", "schedulerType"}) {
      d.push_back({"JobDetails", p, Kind::extra_field, v2_reason});
    }
    const std::string bp_reason =
        "@Hidden @JsonProperty(\"backpressure-level\") getter, read by the dashboard "
        "(flink-rest.md 3.3)";
    d.push_back({"JobVertexBackPressureInfo", "backpressure-level", Kind::extra_field, bp_reason});
    d.push_back({"SubtaskBackPressureInfo", "backpressure-level", Kind::extra_field, bp_reason});
    d.push_back({"SubtaskExecutionAttemptDetailsInfo", "start_time", Kind::extra_field,
                 "hidden compat duplicate of start-time (flink-rest.md 3.8)"});
    d.push_back({"SubtaskExecutionAttemptDetailsInfo", "host", Kind::extra_field,
                 "deprecated 1.x duplicate of the endpoint's host, dropped in 2.0 "
                 "(flink-rest.md 8)"});
    d.push_back({"JobDetailsInfo", "pending-operators", Kind::extra_field,
                 "JobDetailsInfo field of the 2.x wire, absent from the 1.20 spec "
                 "(flink-rest.md 5.4, 8)"});
    const std::string config_reason =
        "JobConfigInfo.Serializer writes jid, name and execution-config, not the spec's "
        "jobId, jobName and executionConfigInfo (flink-rest.md 3.5)";
    for (const char* p : {"jid", "name", "execution-config"}) {
      d.push_back({"JobConfigInfo", p, Kind::extra_field, config_reason});
    }
    d.push_back({"TaskManagerInfo", "id", Kind::any_pattern,
                 "a ResourceID is any string (a standalone TaskManager's is host:port-suffix); "
                 "the generated spec's 32-hex pattern is AbstractID's"});
    d.push_back({"MetricCollectionResponseBody", "metrics", Kind::unwrapped_list,
                 "MetricCollectionResponseBody.Serializer writes the metric list as a "
                 "top-level array (flink-rest.md 3.2)"});
    const std::string raw_reason =
        "JobPlanInfo.RawJson: the plan is embedded as raw JSON (flink-rest.md 3.7)";
    d.push_back({"JobDetailsInfo", "plan", Kind::raw_json, raw_reason});
    d.push_back({"JobPlanInfo", "plan", Kind::raw_json, raw_reason});
    d.push_back({"JobDetailsVertexInfo", "slotSharingGroupId", Kind::hex_id_string,
                 "SlotSharingGroupIDSerializer writes the id as a hex string (flink-rest.md 3.6)"});
    d.push_back({"JobExceptionsInfoWithHistory", "root-exception", Kind::nullable,
                 "1.x deprecated root-exception: null before the first failure"});
    d.push_back({"JobExceptionsInfoWithHistory", "timestamp", Kind::nullable,
                 "1.x deprecated root timestamp: null before the first failure"});
    return d;
  }();
  return differences;
}

namespace {

const std::string kRefPrefix = "#/components/schemas/";

std::string describe(const ordered_json& v) {
  std::string text = v.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  const char* type = v.is_null()             ? "null"
                     : v.is_boolean()        ? "boolean"
                     : v.is_number_integer() ? "integer"
                     : v.is_number()         ? "number"
                     : v.is_string()         ? "string"
                     : v.is_array()          ? "array"
                                             : "object";
  return std::string(type) + " " + text;
}

// "text" in double quotes (built by appending: GCC 12 warns falsely on "literal" + string).
std::string quoted(const std::string& text) {
  std::string q;
  q.reserve(text.size() + 2);
  q += '"';
  q += text;
  q += '"';
  return q;
}

std::string scalar(const YAML::Node& n) {
  return n && n.IsScalar() ? n.Scalar() : std::string();
}

// A property as the checker sees it: its schema and the component that declares it.
struct Property {
  YAML::Node schema;
  std::string owner;
};

struct ObjectShape {
  std::map<std::string, Property> properties;
  std::set<std::string> required;
  std::optional<Property> additional;
  // discriminator property -> (type id -> $ref of the concrete schema), from the base schemas
  std::map<std::string, std::map<std::string, std::string>> discriminators;
};

class Checker {
 public:
  Checker(const YAML::Node& schemas, const std::vector<WireDifference>& allowed,
          std::vector<std::string>& out)
      : schemas_(schemas), allowed_(allowed), out_(out) {}

  // `owner`/`property`: where the value sits, for the documented wire differences.
  void check(const ordered_json& v, const YAML::Node& schema, const std::string& name,
             const std::string& path, const std::string& owner, const std::string& property,
             bool dispatch = true) {
    if (++depth_ > 64) {
      fail(path, "schema nesting too deep (recursive $ref?)");
      --depth_;
      return;
    }
    check_inner(v, schema, name, path, owner, property, dispatch);
    --depth_;
  }

 private:
  const YAML::Node& schemas_;
  const std::vector<WireDifference>& allowed_;
  std::vector<std::string>& out_;
  int depth_ = 0;

  void fail(const std::string& path, const std::string& message) {
    out_.push_back(path + ": " + message);
  }

  bool allowed(const std::string& owner, const std::string& property, Kind kind) const {
    for (const WireDifference& d : allowed_) {
      if (d.kind == kind && d.schema == owner && d.property == property) return true;
    }
    return false;
  }

  YAML::Node resolve(const std::string& ref, const std::string& path, std::string& name) {
    if (ref.rfind(kRefPrefix, 0) != 0) {
      fail(path, "unsupported $ref " + ref);
      return YAML::Node();
    }
    name = ref.substr(kRefPrefix.size());
    const YAML::Node target = schemas_[name];
    if (!target) fail(path, "unknown schema " + name);
    return target;
  }

  void check_inner(const ordered_json& v, const YAML::Node& schema, const std::string& name,
                   const std::string& path, const std::string& owner, const std::string& property,
                   bool dispatch) {
    if (!schema) return;
    if (v.is_object() && allowed(owner, property, Kind::raw_json)) return;
    if (allowed(owner, property, Kind::hex_id_string)) {
      if (!v.is_string() || !std::regex_match(v.get<std::string>(), std::regex("[0-9a-f]{32}")))
        fail(path, "expected a 32-hex-char id but got " + describe(v) + " " +
                       where(name, owner, property));
      return;
    }
    if (const YAML::Node ref = schema["$ref"]) {
      std::string target_name;
      const YAML::Node target = resolve(scalar(ref), path, target_name);
      if (target) check(v, target, target_name, path, owner, property);
      return;
    }
    if (v.is_null()) {
      if (!allowed(owner, property, Kind::nullable)) {
        fail(path, "null is not allowed for " + where(name, owner, property));
      }
      return;
    }
    if (dispatch && schema["discriminator"]) {
      dispatch_discriminator(v, schema, name, path, owner, property);
      return;
    }
    if (const YAML::Node one_of = schema["oneOf"]) {
      check_alternatives(v, one_of, name, path, owner, property, true);
      return;
    }
    if (const YAML::Node any_of = schema["anyOf"]) {
      check_alternatives(v, any_of, name, path, owner, property, false);
      return;
    }
    const std::string type = scalar(schema["type"]);
    if (type == "object" || schema["properties"] || schema["allOf"]) {
      check_object(v, schema, name, path);
    } else if (type == "array") {
      if (!v.is_array()) {
        fail(path, "expected array but got " + describe(v) + " " + where(name, owner, property));
        return;
      }
      for (std::size_t i = 0; i < v.size(); ++i) {
        check(v[i], schema["items"], name, path + "[" + std::to_string(i) + "]", name, "");
      }
    } else if (type == "integer") {
      check_integer(v, schema, name, path, owner, property);
    } else if (type == "number") {
      const bool nan = v.is_string() && v.get<std::string>() == "NaN" &&
                       allowed(owner, property, Kind::nan_string);
      if (!v.is_number() && !nan) {
        fail(path, "expected number but got " + describe(v) + " " + where(name, owner, property));
      }
    } else if (type == "string") {
      check_string(v, schema, name, path, owner, property);
    } else if (type == "boolean") {
      if (!v.is_boolean()) {
        fail(path, "expected boolean but got " + describe(v) + " " + where(name, owner, property));
      }
    }
    // No type: anything goes (the spec says nothing).
  }

  static std::string where(const std::string& name, const std::string& owner,
                           const std::string& property) {
    if (!property.empty()) return "[" + owner + "." + property + "]";
    return "[" + name + "]";
  }

  void check_integer(const ordered_json& v, const YAML::Node& schema, const std::string& name,
                     const std::string& path, const std::string& owner,
                     const std::string& property) {
    if (!v.is_number_integer()) {
      fail(path, "expected integer but got " + describe(v) + " " + where(name, owner, property));
      return;
    }
    if (scalar(schema["format"]) == "int32") {
      const bool fits =
          v.is_number_unsigned()
              ? v.get<std::uint64_t>() <=
                    static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())
              : (v.get<std::int64_t>() >= std::numeric_limits<std::int32_t>::min() &&
                 v.get<std::int64_t>() <= std::numeric_limits<std::int32_t>::max());
      if (!fits)
        fail(path, "int32 out of range: " + describe(v) + " " + where(name, owner, property));
    }
  }

  void check_string(const ordered_json& v, const YAML::Node& schema, const std::string& name,
                    const std::string& path, const std::string& owner,
                    const std::string& property) {
    if (!v.is_string()) {
      fail(path, "expected string but got " + describe(v) + " " + where(name, owner, property));
      return;
    }
    const std::string s = v.get<std::string>();
    if (const YAML::Node values = schema["enum"]) {
      const bool lowercase = allowed(owner, property, Kind::lowercase_enum);
      bool found = false;
      std::string expected;
      for (const YAML::Node& e : values) {
        std::string option = scalar(e);
        if (lowercase) {
          for (char& ch : option) {
            if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
          }
        }
        found = found || option == s;
        expected += (expected.empty() ? "" : "|") + option;
      }
      if (!found) {
        fail(path, quoted(s) + " is not one of " + expected + " " + where(name, owner, property));
      }
    }
    if (const YAML::Node pattern = schema["pattern"];
        pattern && !allowed(owner, property, Kind::any_pattern)) {
      if (!std::regex_match(s, std::regex(scalar(pattern)))) {
        fail(path,
             quoted(s) + " does not match " + scalar(pattern) + " " + where(name, owner, property));
      }
    }
  }

  void dispatch_discriminator(const ordered_json& v, const YAML::Node& schema,
                              const std::string& name, const std::string& path,
                              const std::string& owner, const std::string& property) {
    const std::string key = scalar(schema["discriminator"]["propertyName"]);
    if (!v.is_object()) {
      fail(path, "expected object but got " + describe(v) + " " + where(name, owner, property));
      return;
    }
    if (!v.contains(key) || !v[key].is_string()) {
      fail(path, "missing discriminator \"" + key + "\" of " + name);
      return;
    }
    const std::string value = v[key].get<std::string>();
    const YAML::Node target = schema["discriminator"]["mapping"][value];
    if (!target) {
      fail(path, "unknown " + key + " \"" + value + "\" for " + name);
      return;
    }
    std::string target_name;
    const YAML::Node resolved = resolve(scalar(target), path, target_name);
    if (resolved) check(v, resolved, target_name, path, owner, property, false);
  }

  void check_alternatives(const ordered_json& v, const YAML::Node& alternatives,
                          const std::string& name, const std::string& path,
                          const std::string& owner, const std::string& property, bool exactly_one) {
    int matches = 0;
    std::vector<std::string> first_errors;
    for (const YAML::Node& alternative : alternatives) {
      std::vector<std::string> errors;
      Checker sub(schemas_, allowed_, errors);
      sub.check(v, alternative, name, path, owner, property);
      if (errors.empty()) {
        ++matches;
      } else if (first_errors.empty()) {
        first_errors = errors;
      }
    }
    if (matches == 0) {
      fail(path, "matches no alternative of " + name +
                     (first_errors.empty() ? std::string() : " (first: " + first_errors[0] + ")"));
    } else if (exactly_one && matches > 1) {
      fail(path, "matches " + std::to_string(matches) + " alternatives of oneOf in " + name);
    }
  }

  void gather(const YAML::Node& schema, const std::string& name, ObjectShape& shape,
              const std::string& path, int depth) {
    if (!schema || depth > 16) return;
    if (const YAML::Node ref = schema["$ref"]) {
      std::string target_name;
      const YAML::Node target = resolve(scalar(ref), path, target_name);
      gather(target, target_name, shape, path, depth + 1);
      return;
    }
    if (const YAML::Node properties = schema["properties"]) {
      for (auto it = properties.begin(); it != properties.end(); ++it) {
        shape.properties[it->first.Scalar()] = Property{it->second, name};
      }
    }
    if (const YAML::Node required = schema["required"]) {
      for (const YAML::Node& r : required) shape.required.insert(scalar(r));
    }
    if (const YAML::Node additional = schema["additionalProperties"]) {
      if (additional.IsMap()) shape.additional = Property{additional, name};
    }
    if (const YAML::Node all_of = schema["allOf"]) {
      for (const YAML::Node& part : all_of) gather(part, name, shape, path, depth + 1);
    }
    if (const YAML::Node discriminator = schema["discriminator"]) {
      const YAML::Node mapping = discriminator["mapping"];
      for (auto it = mapping.begin(); it != mapping.end(); ++it) {
        shape.discriminators[scalar(discriminator["propertyName"])][it->first.Scalar()] =
            scalar(it->second);
      }
    }
  }

  void check_object(const ordered_json& v, const YAML::Node& schema, const std::string& name,
                    const std::string& path) {
    if (!v.is_object()) {
      fail(path, "expected object but got " + describe(v) + " [" + name + "]");
      return;
    }
    ObjectShape shape;
    gather(schema, name, shape, path, 0);
    for (const auto& [key, mapping] : shape.discriminators) {
      // A concrete subtype (e.g. CompletedCheckpointStatistics) must carry its own type id.
      std::set<std::string> values;
      for (const auto& [value, target] : mapping) {
        if (target == kRefPrefix + name) values.insert(value);
      }
      if (!values.empty() && v.contains(key) && v[key].is_string() &&
          values.count(v[key].get<std::string>()) == 0) {
        fail(path + "." + key,
             quoted(v[key].get<std::string>()) + " is not the type id of " + name);
      }
    }
    for (const std::string& r : shape.required) {
      if (!v.contains(r)) fail(path, "missing required field \"" + r + "\" [" + name + "]");
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string child = path + "." + it.key();
      const auto prop = shape.properties.find(it.key());
      if (prop != shape.properties.end()) {
        check(it.value(), prop->second.schema, name, child, prop->second.owner, it.key());
      } else if (shape.additional) {
        check(it.value(), shape.additional->schema, name, child, shape.additional->owner, "");
      } else if (!allowed(name, it.key(), Kind::extra_field)) {
        fail(child, "field not in schema " + name);
      }
    }
  }
};

}  // namespace

std::optional<OpenApiSpec> OpenApiSpec::load(const std::filesystem::path& file,
                                             std::string* error) {
  try {
    YAML::Node root = YAML::LoadFile(file.string());
    if (!root["components"] || !root["components"]["schemas"]) {
      if (error) *error = file.string() + ": no components/schemas";
      return std::nullopt;
    }
    return OpenApiSpec(root);
  } catch (const std::exception& e) {
    if (error) *error = file.string() + ": " + e.what();
    return std::nullopt;
  }
}

bool OpenApiSpec::has_schema(const std::string& schema) const {
  const YAML::Node& root = root_;
  return static_cast<bool>(root["components"]["schemas"][schema]);
}

std::vector<std::string> OpenApiSpec::validate(const ordered_json& value, const std::string& schema,
                                               const std::vector<WireDifference>& allowed) const {
  std::vector<std::string> violations;
  const YAML::Node& root = root_;
  const YAML::Node schemas = root["components"]["schemas"];
  const YAML::Node node = schemas[schema];
  if (!node) {
    violations.push_back("$: unknown schema " + schema);
    return violations;
  }
  Checker checker(schemas, allowed, violations);
  // A body whose wire is one property's list alone is checked as the object it stands for.
  for (const WireDifference& d : allowed) {
    if (d.kind == Kind::unwrapped_list && d.schema == schema && value.is_array()) {
      ordered_json wrapped;
      wrapped[d.property] = value;
      checker.check(wrapped, node, schema, "$", schema, "");
      return violations;
    }
  }
  checker.check(value, node, schema, "$", schema, "");
  return violations;
}

std::filesystem::path flink_spec_path() {
  return std::filesystem::path(CKPTSIM_SOURCE_DIR) / "tests" / "run" / "data" /
         "rest_v1_dispatcher.flink-1.20-branchcut.yml";
}

const OpenApiSpec& flink_spec() {
  static const OpenApiSpec loaded = [] {
    std::string error;
    auto s = OpenApiSpec::load(flink_spec_path(), &error);
    if (!s) throw std::runtime_error(error);
    return *s;
  }();
  return loaded;
}

std::optional<std::string> schema_for_rest_path(const std::string& relative_path) {
  static const std::string id = "[0-9a-f]{32}";
  static const std::vector<std::pair<std::regex, std::string>> routes = {
      {std::regex("overview\\.json"), "ClusterOverviewWithVersion"},
      {std::regex("config\\.json"), "DashboardConfiguration"},
      {std::regex("jobs/overview\\.json"), "MultipleJobsDetails"},
      {std::regex("jobs/" + id + "\\.json"), "JobDetailsInfo"},
      {std::regex("jobs/" + id + "/checkpoints\\.json"), "CheckpointingStatistics"},
      {std::regex("jobs/" + id + "/checkpoints/config\\.json"), "CheckpointConfigInfo"},
      {std::regex("jobs/" + id + "/checkpoints/details/[0-9]+\\.json"), "CheckpointStatistics"},
      {std::regex("jobs/" + id + "/checkpoints/details/[0-9]+/subtasks/" + id + "\\.json"),
       "TaskCheckpointStatisticsWithSubtaskDetails"},
      {std::regex("jobs/" + id + "/exceptions\\.json"), "JobExceptionsInfoWithHistory"},
      {std::regex("jobs/" + id + "/vertices/" + id + "\\.json"), "JobVertexDetailsInfo"},
      {std::regex("jobs/" + id + "/vertices/" + id + "/backpressure\\.json"),
       "JobVertexBackPressureInfo"},
      {std::regex("jobs/" + id + "/vertices/" + id + "/watermarks\\.json"),
       "MetricCollectionResponseBody"},
      {std::regex("jobs\\.json"), "JobIdsWithStatusOverview"},
      {std::regex("jobs/" + id + "/plan\\.json"), "JobPlanInfo"},
      {std::regex("jobs/" + id + "/config\\.json"), "JobConfigInfo"},
      {std::regex("taskmanagers\\.json"), "TaskManagersInfo"},
      // /jobmanager/config answers an array of ConfigurationInfoEntry, the ConfigurationInfo
      // schema's shape.
      {std::regex("jobmanager/config\\.json"), "ConfigurationInfo"},
  };
  for (const auto& [pattern, schema] : routes) {
    if (std::regex_match(relative_path, pattern)) return schema;
  }
  return std::nullopt;
}

std::vector<std::string> check_rest_dir(const std::filesystem::path& rest_dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> violations;
  std::string error;
  const std::optional<OpenApiSpec> spec = OpenApiSpec::load(flink_spec_path(), &error);
  if (!spec) {
    violations.push_back(error);
    return violations;
  }
  std::error_code ec;
  if (!fs::is_directory(rest_dir, ec)) {
    violations.push_back(rest_dir.string() + ": not a directory");
    return violations;
  }
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(rest_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file()) files.push_back(it->path());
  }
  if (ec) violations.push_back(rest_dir.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());  // deterministic report order
  for (const fs::path& file : files) {
    const std::string relative = file.lexically_relative(rest_dir).generic_string();
    const std::optional<std::string> schema = schema_for_rest_path(relative);
    if (!schema) {
      violations.push_back(relative + ": no schema known for this path");
      continue;
    }
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
      violations.push_back(relative + ": cannot read");
      continue;
    }
    ordered_json body;
    try {
      body = ordered_json::parse(text.str());
    } catch (const std::exception& e) {
      violations.push_back(relative + ": invalid JSON: " + e.what());
      continue;
    }
    for (const std::string& v : spec->validate(body, *schema)) {
      violations.push_back(relative + ": " + v);
    }
  }
  return violations;
}

}  // namespace ckptsim::tests
