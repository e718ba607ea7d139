// cluster.checkpoint-storage: a named profile (checkpoint_storage_profile.hpp) and the values a
// user overrides. Without a profile the Flink configuration chooses one: the scheme of
// state.checkpoints.dir, or `jobmanager` for JobManagerCheckpointStorage.
#include <string>
#include <vector>

#include "sim/model/checkpoint_storage_profile.hpp"
#include "sim/scenario/internal.hpp"

namespace ckptsim::scenario::detail {
namespace {

const std::vector<std::string> kKeys = {"profile",        "bandwidth",  "latency",
                                        "latency-spread", "slow-share", "slow-latency",
                                        "slow-spread"};

// Object stores without a profile of their own get the s3 profile, anything else local.
bool is_object_store_scheme(std::string_view directory) {
  for (std::string_view scheme : {"abfs:", "abfss:", "wasb:", "wasbs:", "cosn:", "obs:", "ks3:"})
    if (to_lower(directory.substr(0, scheme.size())) == scheme) return true;
  return false;
}

std::string implied_profile(Context& ctx, const Loc& loc, const model::FlinkConfig& flink) {
  if (flink.checkpoints_dir.empty()) return "jobmanager";
  if (auto profile = model::profile_for_directory(flink.checkpoints_dir)) return *profile;
  const std::string fallback = is_object_store_scheme(flink.checkpoints_dir) ? "s3" : "local";
  ctx.warning(loc,
              "no checkpoint storage profile for '" + flink.checkpoints_dir +
                  "'; its checkpoints use the '" + fallback + "' profile",
              "set cluster.checkpoint-storage.profile, or its latency and bandwidth");
  return fallback;
}

}  // namespace

void read_checkpoint_storage(Context& ctx, const Node* map, const Loc& where,
                             const model::FlinkConfig& flink, model::CheckpointStorageSpec& out) {
  const Entry* profile = nullptr;
  if (map != nullptr)
    for (const Entry& e : map->entries)
      if (e.key == "profile") profile = &e;
  std::string name;
  if (profile != nullptr) {
    const auto& names = model::checkpoint_storage_profile_names();
    const auto index = read_choice(ctx, profile->value, "a checkpoint storage profile", names);
    if (!index) return;
    name = names[*index];
  } else {
    name = implied_profile(ctx, where, flink);
  }
  out = *model::checkpoint_storage_profile(name);
  if (map == nullptr) return;
  for (const Entry& s : map->entries) {
    model::LatencyDistribution& latency = out.latency;
    if (s.key == "profile") {
      continue;
    } else if (s.key == "bandwidth") {
      const auto v = read_rate(ctx, s.value, true);
      if (v && *v <= 0)
        ctx.error(s.value.loc, "the checkpoint storage bandwidth must be positive",
                  "write e.g. '200 MB/s'");
      else if (v)
        out.bandwidth_bytes_per_second = *v;
    } else if (s.key == "latency" || s.key == "slow-latency") {
      if (const auto v = read_duration(ctx, s.value))
        (s.key == "latency" ? latency.median : latency.slow_median) = *v;
    } else if (s.key == "latency-spread" || s.key == "slow-spread") {
      if (const auto v = read_double(ctx, s.value, "a lognormal sigma", 0.0, 3.0))
        (s.key == "latency-spread" ? latency.sigma : latency.slow_sigma) = *v;
    } else if (s.key == "slow-share") {
      if (const auto v = read_double(ctx, s.value, "a share of requests", 0.0, 1.0))
        latency.slow_share = *v;
    } else {
      unknown_key(ctx, s, "checkpoint-storage", kKeys);
    }
  }
}

}  // namespace ckptsim::scenario::detail
