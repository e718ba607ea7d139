// flink-cdc 2.4.2 MySqlSource with the incremental snapshot (field-scenarios.md A.2): the
// captured tables are cut into chunks of scan.incremental.snapshot.chunk.size rows (an evenly
// distributed numeric key: ceil(rows / chunk size) chunks per table), read table by table;
// each chunk is read whole by the split fetcher and emitted in ONE mailbox step
// (MySqlRecordEmitter loops over the chunk's SourceRecords inside one pollNext), so no
// checkpoint trigger or barrier runs in between. Then the binlog split reads the changes.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/model/connectors/specs.hpp"

namespace ckptsim::model {

// Where a CDC reader is (its checkpointed split state).
enum class CdcPhase : std::uint8_t {
  none,           // no state: a fresh start decides by scan.startup.mode
  snapshot,       // reading its snapshot chunks (HybridPendingSplitsState)
  snapshot_done,  // all chunks read; the binlog split is not assigned yet
  binlog,         // reading the binlog (this reader holds the binlog split)
  idle,           // nothing to read (another reader holds the binlog split)
};
const char* to_string(CdcPhase p);

class CdcChunkPlan {
 public:
  explicit CdcChunkPlan(const CdcSourceSpec& spec);
  struct Chunk {
    int table = 0;
    std::int64_t rows = 0;
  };
  std::int64_t chunk_count() const { return first_chunk_.back(); }
  Chunk chunk(std::int64_t index) const;
  // Chunks that reader `reader` of `readers` reads: indices reader, reader + readers, ...
  // (MySqlSnapshotSplitAssigner hands splits to readers as they ask; with equal readers that is
  // round robin).
  std::int64_t chunks_of(int reader, int readers) const;
  // The global index of that reader's k-th chunk.
  static std::int64_t global_index(int reader, int readers, std::int64_t k) {
    return static_cast<std::int64_t>(reader) + k * readers;
  }

 private:
  std::int64_t chunk_size_;
  std::vector<std::int64_t> rows_;
  std::vector<std::int64_t> first_chunk_;  // first chunk index of each table; back() = total
};

// The phase a reader starts in without restored state (MySqlSource.createEnumerator: only
// 'initial' and 'snapshot' use the hybrid assigner that snapshots; the other modes read the
// binlog from their offset). Restored state always wins (restoreEnumerator ignores the mode).
CdcPhase fresh_start_phase(const CdcSourceSpec& spec, int reader);

}  // namespace ckptsim::model
