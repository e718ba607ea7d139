// Version names and the version-dependent defaults of the Flink options in config.hpp.
#include "sim/model/config.hpp"

namespace ckptsim::model {

const char* to_string(NetworkMode m) {
  return m == NetworkMode::hybrid ? "hybrid" : "exact";
}

const char* to_string(FlinkVersion v) {
  switch (v) {
    case FlinkVersion::v1_15: return "1.15";
    case FlinkVersion::v1_16: return "1.16";
    case FlinkVersion::v1_17: return "1.17";
    case FlinkVersion::v1_18: return "1.18";
    case FlinkVersion::v1_19: return "1.19";
    case FlinkVersion::v1_20: return "1.20";
    case FlinkVersion::v2_0: return "2.0";
    case FlinkVersion::v2_1: return "2.1";
  }
  return "?";
}

// The releases whose source the version rules were checked against: 1.15.1 (release-1.15.1; the
// rules were read on release-1.15 a month later, with no runtime change since the tag), 1.16.3
// (release-1.16.3-rc1, the release), 2.1.0 (release-2.1.0-rc1, the release; rules also checked
// on release-2.1.2-rc2, which changes no checkpoint log line or REST field).
const char* flink_release(FlinkVersion v) {
  switch (v) {
    case FlinkVersion::v1_15: return "1.15.1";
    case FlinkVersion::v1_16: return "1.16.3";
    case FlinkVersion::v1_17: return "1.17.2";
    case FlinkVersion::v1_18: return "1.18.1";
    case FlinkVersion::v1_19: return "1.19.1";
    case FlinkVersion::v1_20: return "1.20.0";
    case FlinkVersion::v2_0: return "2.0.0";
    case FlinkVersion::v2_1: return "2.1.0";
  }
  return "?";
}

std::optional<FlinkVersion> parse_flink_version(std::string_view s) {
  for (const FlinkVersion v : kFlinkVersions) {
    const std::string_view name = to_string(v);
    // "1.17", "1.17.2", "2.0", "2.0.0" all name the minor version.
    if (s == name || (s.size() > name.size() && s.substr(0, name.size()) == name &&
                      s[name.size()] == '.'))
      return v;
  }
  return std::nullopt;
}

void resolve_defaults(FlinkConfig& config, bool max_backoff_set, bool multiplier_set) {
  // 1.15 and 1.16 have 1.17's defaults: RestartStrategyOptions and
  // RestartBackoffTimeStrategyFactoryLoader are identical on release-1.15, -1.16 and -1.17.
  const bool before_1_19 = config.version < FlinkVersion::v1_19;
  RestartConfig& r = config.restart;
  // RestartStrategyOptions: exponential-delay max-backoff 5 min -> 1 min and multiplier
  // 2.0 -> 1.5 in 1.19 (FLINK-33736).
  if (!max_backoff_set) r.exp_max_backoff = before_1_19 ? core::minutes(5) : core::minutes(1);
  if (!multiplier_set) r.exp_multiplier = before_1_19 ? 2.0 : 1.5;
  if (!r.kind) {
    // RestartBackoffTimeStrategyFactoryLoader: no checkpointing => no restart; otherwise
    // fixed-delay(Integer.MAX_VALUE, 1 s) up to 1.18 (from 1.15), exponential-delay from 1.19 (FLINK-33738).
    if (!config.checkpointing.interval) {
      r.kind = RestartStrategyKind::none;
    } else if (before_1_19) {
      r.kind = RestartStrategyKind::fixed_delay;
      r.fixed_delay_attempts = 2147483647;
      r.fixed_delay = core::seconds(1);
    } else {
      r.kind = RestartStrategyKind::exponential_delay;
    }
  }
}

}  // namespace ckptsim::model
