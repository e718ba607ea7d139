#include "sim/model/connectors/cdc/chunk_plan.hpp"

#include <algorithm>

namespace ckptsim::model {

const char* to_string(CdcStartupMode m) {
  switch (m) {
    case CdcStartupMode::initial: return "initial";
    case CdcStartupMode::latest_offset: return "latest-offset";
    case CdcStartupMode::earliest_offset: return "earliest-offset";
    case CdcStartupMode::specific_offset: return "specific-offset";
    case CdcStartupMode::timestamp: return "timestamp";
    case CdcStartupMode::snapshot: return "snapshot";
  }
  return "?";
}

const char* to_string(CdcPhase p) {
  switch (p) {
    case CdcPhase::none: return "none";
    case CdcPhase::snapshot: return "snapshot";
    case CdcPhase::snapshot_done: return "snapshot finished, waiting for the binlog split";
    case CdcPhase::binlog: return "binlog";
    case CdcPhase::idle: return "idle";
  }
  return "?";
}

CdcChunkPlan::CdcChunkPlan(const CdcSourceSpec& spec)
    : chunk_size_(std::max<std::int64_t>(1, spec.chunk_size)) {
  first_chunk_.push_back(0);
  for (const CdcTableSpec& t : spec.tables) {
    rows_.push_back(std::max<std::int64_t>(0, t.rows));
    first_chunk_.push_back(first_chunk_.back() + (rows_.back() + chunk_size_ - 1) / chunk_size_);
  }
}

CdcChunkPlan::Chunk CdcChunkPlan::chunk(std::int64_t index) const {
  // The table whose chunk range holds `index`.
  const auto it = std::upper_bound(first_chunk_.begin(), first_chunk_.end(), index);
  const auto table = static_cast<std::size_t>(it - first_chunk_.begin() - 1);
  const std::int64_t k = index - first_chunk_[table];
  const std::int64_t rows = std::min(chunk_size_, rows_[table] - k * chunk_size_);
  return Chunk{static_cast<int>(table), rows};
}

std::int64_t CdcChunkPlan::chunks_of(int reader, int readers) const {
  const std::int64_t n = chunk_count();
  if (reader >= n) return 0;
  return (n - reader + readers - 1) / readers;
}

CdcPhase fresh_start_phase(const CdcSourceSpec& spec, int reader) {
  switch (spec.startup_mode) {
    case CdcStartupMode::initial:
    case CdcStartupMode::snapshot: return CdcPhase::snapshot;
    default: return reader == 0 ? CdcPhase::binlog : CdcPhase::idle;
  }
}

}  // namespace ckptsim::model
