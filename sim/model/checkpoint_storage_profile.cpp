// The profiles' numbers. `oss` is calibrated against a real job (scenarios/calibration/
// oss-object-store.yaml: 63/135/6,273 ms min/avg/max over 1,914 checkpoints, REST end-to-end
// durations, trigger to the last acknowledgement). `s3` and `gcs` take OSS's numbers; `local`
// (a few ms per file) and `hdfs` (between local and the object stores) are estimates: the
// calibration jobs on local storage keep their state inline. None of them comes from a
// measurement of that system by us: a user with their own numbers writes them instead.
#include "sim/model/checkpoint_storage_profile.hpp"

#include <algorithm>

namespace ckptsim::model {
namespace {

using core::milliseconds;

struct Profile {
  const char* name;
  double bandwidth;  // bytes per second, shared by the uploads in flight
  LatencyDistribution latency;
};

constexpr double kMB = 1024.0 * 1024.0;

// name, bandwidth, {median, sigma, slow share, slow median, slow sigma}
const Profile kProfiles[] = {
    // JobManagerCheckpointStorage: the state travels inside the acknowledgement.
    {"jobmanager", 1000 * kMB, LatencyDistribution::fixed(0)},
    {"local", 300 * kMB, {milliseconds(4), 0.3, 0.002, milliseconds(60), 0.5}},
    {"hdfs", 150 * kMB, {milliseconds(25), 0.3, 0.005, milliseconds(500), 0.5}},
    {"s3", 100 * kMB, {milliseconds(75), 0.12, 0.016, milliseconds(2500), 0.45}},
    {"oss", 100 * kMB, {milliseconds(75), 0.12, 0.016, milliseconds(2500), 0.45}},
    {"gcs", 100 * kMB, {milliseconds(75), 0.12, 0.016, milliseconds(2500), 0.45}},
    // No spread: every request takes its latency (the behaviour before profiles existed).
    {"fixed", 200 * kMB, LatencyDistribution::fixed(milliseconds(30))},
};

}  // namespace

std::optional<CheckpointStorageSpec> checkpoint_storage_profile(std::string_view name) {
  for (const Profile& p : kProfiles) {
    if (name != p.name) continue;
    CheckpointStorageSpec spec;
    spec.profile = p.name;
    spec.bandwidth_bytes_per_second = p.bandwidth;
    spec.latency = p.latency;
    return spec;
  }
  return std::nullopt;
}

const std::vector<std::string>& checkpoint_storage_profile_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Profile& p : kProfiles) out.emplace_back(p.name);
    return out;
  }();
  return names;
}

std::optional<std::string> profile_for_directory(std::string_view directory) {
  const auto colon = directory.find(':');
  if (colon == std::string_view::npos) return "local";  // a plain path
  std::string scheme(directory.substr(0, colon));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (scheme == "file") return "local";
  if (scheme == "hdfs" || scheme == "viewfs") return "hdfs";
  if (scheme == "s3" || scheme == "s3a" || scheme == "s3p") return "s3";
  if (scheme == "oss") return "oss";
  if (scheme == "gs") return "gcs";
  return std::nullopt;
}

}  // namespace ckptsim::model
