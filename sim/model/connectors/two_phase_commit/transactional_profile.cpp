// The profiles of the transactional sinks (see transactional_profile.hpp).
#include "sim/model/connectors/two_phase_commit/transactional_profile.hpp"

#include <algorithm>

namespace ckptsim::model {

const char* to_string(TransactionalProfile p) {
  switch (p) {
    case TransactionalProfile::starrocks:
      return "starrocks";
    case TransactionalProfile::iceberg:
      return "iceberg";
    case TransactionalProfile::paimon:
      return "paimon";
    case TransactionalProfile::jdbc_xa:
      return "jdbc-xa";
    case TransactionalProfile::hudi:
      return "hudi";
  }
  return "?";
}

const TransactionalProfileRules& rules(TransactionalProfile p) {
  // StarRocks: TransactionStreamLoader.commit throws StreamLoadFailException (the sink function
  // wraps it: "Failed to notify checkpoint complete for checkpoint id N"); Iceberg rethrows the
  // last CommitFailedException unchanged; Paimon throws RuntimeException("Commit failed ...").
  static const TransactionalProfileRules kStarRocks{
      true, false, "com.starrocks.data.load.stream.exception.StreamLoadFailException"};
  static const TransactionalProfileRules kIceberg{
      false, false, "org.apache.iceberg.exceptions.CommitFailedException"};
  static const TransactionalProfileRules kPaimon{false, true, "java.lang.RuntimeException"};
  // JDBC XA: XaGroupOpsImpl.commit throws FlinkRuntimeException ("failed to commit ...") or, once
  // a transaction reached maxCommitAttempts, RuntimeException.
  static const TransactionalProfileRules kJdbcXa{false, false,
                                                 "org.apache.flink.util.FlinkRuntimeException"};
  switch (p) {
    case TransactionalProfile::iceberg:
      return kIceberg;
    case TransactionalProfile::paimon:
      return kPaimon;
    case TransactionalProfile::jdbc_xa:
      return kJdbcXa;
    case TransactionalProfile::starrocks:
    case TransactionalProfile::hudi:  // its own sink (hudi/), not a TwoPhaseCommittingSink
      break;
  }
  return kStarRocks;
}

TransactionalSinkSpec default_sink_spec(TransactionalProfile p) {
  TransactionalSinkSpec s;
  s.profile = p;
  switch (p) {
    case TransactionalProfile::starrocks:
      // V2 passes no retries for a plain exactly-once sink (maxRetries 0 unless multi-table).
      break;
    case TransactionalProfile::iceberg:  // TableProperties.COMMIT_* defaults
      s.transaction_timeout = 0;
      s.commit_retries = 4;
      s.retry_min_wait = core::milliseconds(100);
      s.retry_max_wait = core::seconds(60);
      s.retry_total_timeout = core::minutes(30);
      break;
    case TransactionalProfile::paimon:  // CoreOptions commit.max-retries / min/max-retry-wait
      s.transaction_timeout = 0;
      s.commit_retries = 10;
      s.retry_min_wait = core::milliseconds(10);
      s.retry_max_wait = core::seconds(10);
      s.retry_total_timeout = 0;  // commit.timeout unset: Long.MAX_VALUE
      break;
    case TransactionalProfile::jdbc_xa:  // no retry inside a commit: the next checkpoint's
      s.transaction_timeout = 0;
      break;
    case TransactionalProfile::hudi:
      s.transaction_timeout = 0;
      break;
  }
  return s;
}

core::Duration retry_wait(const TransactionalSinkSpec& spec, int retry) {
  core::Duration wait = spec.retry_min_wait;
  for (int k = 1; k < retry && wait < spec.retry_max_wait; ++k) wait *= 2;
  return std::min(wait, spec.retry_max_wait);
}

std::string starrocks_load_failed(const std::string& db, const std::string& table,
                                  const std::string& label, core::Duration load_time) {
  // DefaultStreamLoader.send; the FE aborted the transaction (DatabaseTransactionMgr
  // TXN_TIMEOUT_BY_MANAGER), as in the StarRocks Flink connector FAQ.
  return "Stream load failed because of error, db: " + db + ", table: " + table +
         ", label: " + label +
         ", \nresponseBody: {\n    \"Status\": \"Fail\",\n    \"Message\": "
         "\"timeout by txn manager\",\n    \"LoadTimeMs\": " +
         std::to_string(core::to_millis(load_time)) + "\n}\nerrorLog: null";
}

std::string starrocks_commit_failed(const std::string& db, const std::string& table,
                                    const std::string& label, const std::string& status,
                                    const std::string& label_state) {
  // TransactionStreamLoader.commit
  std::string text = "Transaction commit failed, db: " + db + ", table: " + table +
                     ", label: " + label + ", commit response status: " + status +
                     ", label state: " + label_state;
  if (status == "TXN_NOT_EXISTS" || label_state == "UNKNOWN")
    text +=
        ". commit response status with TXN_NOT_EXISTS or label state with UNKNOWN often "
        "happens when transaction timeouts, and please check StarRocks FE leader's log to "
        "confirm it. You can find the transaction id for the label in the FE log first, and "
        "search with the transaction id and the keyword 'expired'";
  return text;
}

std::string starrocks_begin_failed(const std::string& db, const std::string& table,
                                   const std::string& label) {
  // TransactionStreamLoader.begin; StreamLoadConstants.RESULT_STATUS_LABEL_EXISTED.
  return "Transaction start failed, db: " + db + ", table: " + table + ", label: " + label +
         ", responseBody: {\n    \"Status\": \"Label Already Exists\",\n    \"Message\": \"Label "
         "[" +
         label + "] has already been used.\"\n}";
}

std::string paimon_commit_failed(core::Duration timeout, int retries, const std::string& cause) {
  // FileStoreCommitImpl.tryCommit prints commitTimeout(), Long.MAX_VALUE when unset.
  const std::string millis =
      timeout > 0 ? std::to_string(core::to_millis(timeout)) : "9223372036854775807";
  return "Commit failed after " + millis + " millis with " + std::to_string(retries) +
         " retries, there maybe exist commit conflicts between multiple jobs.\nCaused by: " + cause;
}

std::string xa_xid(int subtask, std::int64_t checkpoint) {
  // SemanticXidGenerator: format 201, the job id, the subtask and the checkpoint, shown by what
  // they are rather than as hex.
  return "201:<job id, subtask " + std::to_string(subtask) + ", checkpoint " +
         std::to_string(checkpoint) + ">";
}

std::string xa_transaction(int subtask, std::int64_t checkpoint, bool restored) {
  // CheckpointAndXid.toString
  return "CheckpointAndXid{checkpointId=" + std::to_string(checkpoint) +
         ", xid=" + xa_xid(subtask, checkpoint) + ", restored=" + (restored ? "true" : "false") + "}";
}

const char* const kPaimonRestoreMessage =
    "This exception is intentionally thrown after committing the restored checkpoints. By "
    "restarting the job we hope that writers can start writing based on these new commits.";

}  // namespace ckptsim::model
