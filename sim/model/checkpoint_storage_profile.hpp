// Named checkpoint storage profiles (cluster.checkpoint-storage.profile): the latency and
// bandwidth of the storage a job checkpoints to, so that healthy checkpoints spread as real
// ones do. Without a profile the scenario gets the one its Flink configuration implies: the
// scheme of state.checkpoints.dir, or `jobmanager` for JobManagerCheckpointStorage.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model/config.hpp"

namespace ckptsim::model {

std::optional<CheckpointStorageSpec> checkpoint_storage_profile(std::string_view name);
const std::vector<std::string>& checkpoint_storage_profile_names();

// The profile for a checkpoint directory's scheme (file: or none -> local, hdfs://, s3://,
// s3a://, s3p://, oss://, gs://); none for a scheme without a profile.
std::optional<std::string> profile_for_directory(std::string_view directory);

}  // namespace ckptsim::model
