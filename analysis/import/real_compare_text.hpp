// The words of `compare --real` shared by its matching (the first divergence) and its outputs:
// times, durations, a checkpoint attempt's fate. Internal to analysis/import.
#pragma once

#include <optional>
#include <string>

#include "analysis/import/real_compare.hpp"

namespace ckptsim::analysis {

std::string clock_text(std::int64_t ms);                           // 00:10:03
std::string duration_text(const std::optional<std::int64_t>& ms);  // 152 ms, 4.2 s, "-"
std::string status_text(const std::optional<CheckpointSide>& s);   // FAILED (CHECKPOINT_EXPIRED)
// "checkpoint #3 (real id 19, simulated id 3; status differs): real triggered at 00:02:00,
// FAILED (CHECKPOINT_EXPIRED) after 600.0 s; simulated triggered at 00:02:05, COMPLETED in 4.0 s"
std::string describe_divergence(const CheckpointRow& row, std::size_t index);

}  // namespace ckptsim::analysis
