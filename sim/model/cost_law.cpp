#include "sim/model/cost_law.hpp"

#include <algorithm>
#include <cmath>

namespace ckptsim::model {

Duration CostLaw::at(const Inputs& in) const {
  constexpr double kMiB = 1024.0 * 1024.0;
  const double total =
      static_cast<double>(base) +
      static_cast<double>(per_checkpoint) * static_cast<double>(in.completed_checkpoints) +
      static_cast<double>(per_mb_since_checkpoint) *
          (static_cast<double>(in.bytes_since_checkpoint) / kMiB) +
      static_cast<double>(per_mb_state) * (static_cast<double>(in.state_bytes) / kMiB) +
      static_cast<double>(per_minute_since_start) *
          (static_cast<double>(in.since_start) / static_cast<double>(core::minutes(1))) +
      static_cast<double>(per_table) * static_cast<double>(in.tables);
  // Bounded to about 30 years: a law that grows past that means "never returns" anyway.
  return static_cast<Duration>(std::llround(std::clamp(total, 0.0, 1e18)));
}

std::string duration_text(Duration d) {
  if (d != 0 && d % core::kSecond == 0) return std::to_string(d / core::kSecond) + " s";
  if (d % core::kMillisecond == 0) return std::to_string(d / core::kMillisecond) + " ms";
  return std::to_string(d / core::kMicrosecond) + " us";
}

namespace {

// "12.3": one decimal.
std::string amount(double x) {
  const auto tenths = static_cast<std::int64_t>(std::llround(x * 10));
  return std::to_string(tenths / 10) + (tenths % 10 != 0 ? "." + std::to_string(tenths % 10) : "");
}

}  // namespace

std::string CostLaw::describe(const Inputs& in) const {
  constexpr double kMiB = 1024.0 * 1024.0;
  std::string out = duration_text(base);
  const auto term = [&](Duration per, const std::string& quantity) {
    if (per != 0) out += " + " + duration_text(per) + " x " + quantity;
  };
  term(per_checkpoint, std::to_string(in.completed_checkpoints) + " checkpoints completed");
  term(per_mb_since_checkpoint,
       amount(static_cast<double>(in.bytes_since_checkpoint) / kMiB) + " MiB since the checkpoint");
  term(per_mb_state, amount(static_cast<double>(in.state_bytes) / kMiB) + " MiB of state");
  term(per_minute_since_start,
       amount(static_cast<double>(in.since_start) / static_cast<double>(core::kMinute)) +
           " min since the start");
  term(per_table, std::to_string(in.tables) + " captured tables");
  if (base == 0 && grows()) out.erase(0, out.find(" + ") + 3);  // "2 s x 400 captured tables"
  return out;
}

CostLaw& CostLaw::operator+=(const CostLaw& other) {
  base += other.base;
  per_checkpoint += other.per_checkpoint;
  per_mb_since_checkpoint += other.per_mb_since_checkpoint;
  per_mb_state += other.per_mb_state;
  per_minute_since_start += other.per_minute_since_start;
  per_table += other.per_table;
  return *this;
}

}  // namespace ckptsim::model
