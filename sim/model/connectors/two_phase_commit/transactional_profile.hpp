// What differs between the transactional (two-phase-commit) sinks ckptsim models as one
// TwoPhaseCommittingSink: when the external transaction begins, whether the system times it out,
// how a rejected commit is retried, what a restore does, and each one's exception texts, read from
// the connectors' sources (facts, not code):
//  - StarRocks: starrocks-connector-for-apache-flink 1.2.x, sink.semantic exactly-once
//    (StarRocksDynamicSinkFunctionV2, DefaultStreamLoadManager, TransactionStreamLoader);
//  - Iceberg: IcebergFilesCommitter (iceberg-flink 1.x), commits in notifyCheckpointComplete;
//  - Paimon: CommitterOperator / StoreCommitter / FileStoreCommitImpl (paimon 0.8+);
//  - JDBC XA: flink-connector-jdbc 3.1 JdbcSink.exactlyOnceSink (JdbcXaSinkFunction,
//    XaGroupOpsImpl, XaFacadeImpl): the transaction is prepared in snapshotState and committed
//    in notifyCheckpointComplete; a transient commit failure is kept for the next one.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/time.hpp"
#include "sim/model/connectors/specs.hpp"

namespace ckptsim::model {

struct TransactionalProfileRules {
  // The transaction begins at the first cache-full flush (StarRocks); otherwise there is no
  // external transaction before the precommit (data files are written, invisible until commit).
  bool external_transaction;
  // A restore that committed restored committables fails the task on purpose once (Paimon's
  // RestoreAndFailCommittableStateManager).
  bool fail_after_restore_commit;
  // The commit call's exception when the commit is given up.
  const char* commit_exception;
};

const TransactionalProfileRules& rules(TransactionalProfile p);

// The sink's defaults under its own option names (StarRocks 600 s begin->prepare timeout and
// 90 MiB flush; Iceberg commit.retry.* 4 / 100 ms / 60 s / 30 min; Paimon commit.max-retries 10,
// 10 ms .. 10 s, commit.timeout unlimited).
TransactionalSinkSpec default_sink_spec(TransactionalProfile p);

// The waits of a retried commit: before retry k (k = 1, 2, ...) min * 2^(k-1), at most max
// (Iceberg Tasks.runTaskWithRetry, Paimon RetryWaiter; their random jitter is left out).
core::Duration retry_wait(const TransactionalSinkSpec& spec, int retry);

// Exception texts, word for word where the connector's source gives them.
std::string starrocks_load_failed(const std::string& db, const std::string& table,
                                  const std::string& label, core::Duration load_time);
std::string starrocks_commit_failed(const std::string& db, const std::string& table,
                                    const std::string& label, const std::string& status,
                                    const std::string& label_state);
std::string starrocks_begin_failed(const std::string& db, const std::string& table,
                                   const std::string& label);
std::string paimon_commit_failed(core::Duration timeout, int retries, const std::string& cause);
extern const char* const kPaimonRestoreMessage;
// A JDBC XA transaction's xid, and the transaction as XaGroupOpsImpl's messages list it.
std::string xa_xid(int subtask, std::int64_t checkpoint);
std::string xa_transaction(int subtask, std::int64_t checkpoint, bool restored);

}  // namespace ckptsim::model
