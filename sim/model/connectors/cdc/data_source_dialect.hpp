// What differs between the flink-cdc 2.4 incremental-snapshot sources that ckptsim models as
// one source (incremental_source.cpp): MySQL's own MySqlSource, and the flink-cdc-base
// IncrementalSource with a DataSourceDialect for Postgres, Oracle, SQL Server and MongoDB.
// Facts from flink-cdc release-2.4.1 (not its code): the connector identifiers, the stream
// phase each reads, the default of scan.incremental.snapshot.enabled, where the reader
// discovers the stream split's table schemas, and the classes whose log lines the JobManager
// prints.
#pragma once

#include <cstdint>

namespace ckptsim::model {

enum class CdcDialect : std::uint8_t { mysql, postgres, oracle, sqlserver, mongodb };

struct DataSourceDialect {
  const char* connector;        // the SQL connector's identifier: "postgres-cdc"
  const char* display;          // "Postgres CDC", as the story names the source
  const char* stream;           // the phase after the snapshot: "binlog", "WAL", ...
  const char* split;            // the split that reads it: "binlog split", "stream split"
  bool incremental_by_default;  // scan.incremental.snapshot.enabled's default
  // The stream split the enumerator assigns after a snapshot carries no table schemas, so the
  // reader discovers every captured table's schema on the task thread when it gets it
  // (IncrementalSourceReader.addSplits -> discoverTableSchemasForStreamSplit;
  // HybridSplitAssigner.createStreamSplit builds it with an empty map). MySQL's binlog split
  // carries the snapshot's schemas: its reader discovers them only without a snapshot.
  bool discovers_after_snapshot;
  const char* discovery_call;  // that call, in the diagnosis
  const char* assigner_class;  // the snapshot split assigner's logger
};

const DataSourceDialect& dialect(CdcDialect d);

}  // namespace ckptsim::model
