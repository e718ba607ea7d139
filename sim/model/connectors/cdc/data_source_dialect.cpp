// The CDC family's dialects (see data_source_dialect.hpp).
#include "sim/model/connectors/cdc/data_source_dialect.hpp"

namespace ckptsim::model {

const DataSourceDialect& dialect(CdcDialect d) {
  static constexpr const char* kBaseAssigner =
      "com.ververica.cdc.connectors.base.source.assigner.SnapshotSplitAssigner";
  static constexpr const char* kBaseDiscovery =
      "IncrementalSourceReader.addSplits, discovering the stream split's table schemas";
  static const DataSourceDialect kDialects[] = {
      {"mysql-cdc", "MySQL CDC", "binlog", "binlog split", true, false,
       "MySqlSourceReader.addSplits, discovering the binlog split's table schemas",
       "com.ververica.cdc.connectors.mysql.source.assigners.MySqlSnapshotSplitAssigner"},
      {"postgres-cdc", "Postgres CDC", "WAL", "stream split", false, true, kBaseDiscovery,
       kBaseAssigner},
      {"oracle-cdc", "Oracle CDC", "redo log", "stream split", true, true, kBaseDiscovery,
       kBaseAssigner},
      {"sqlserver-cdc", "SQL Server CDC", "change tables", "stream split", true, true,
       kBaseDiscovery, kBaseAssigner},
      {"mongodb-cdc", "MongoDB CDC", "change stream", "stream split", false, true, kBaseDiscovery,
       kBaseAssigner},
  };
  return kDialects[static_cast<int>(d)];
}

}  // namespace ckptsim::model
