// The transactions of a KafkaSink writer with sink.delivery-guarantee exactly-once
// (flink-connector-kafka KafkaWriter / KafkaCommitter; field-scenarios.md B9). Pure
// bookkeeping of simulated time; the TaskExecutor calls it from the task's thread.
//
// A transaction opens at the first record after a checkpoint's snapshot (the broker's clock
// starts with the first AddPartitionsToTxn), is precommitted by the next snapshot (flush), and is
// committed by notifyCheckpointComplete, or on restore from the checkpoint that holds it. The
// broker aborts a transaction open longer than transaction.timeout.ms and fences its producer:
// committing it then fails and its records are lost ("Unable to commit transaction ... because
// its producer is already fenced ... recovery took longer than 'transaction.timeout.ms'").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/model/types.hpp"

namespace ckptsim::model {

using KafkaTxn = Committable;  // a KafkaCommittable: the producer of one transaction

class KafkaTransactions {
 public:
  explicit KafkaTransactions(core::Duration timeout) : timeout_(timeout) {}

  void write(core::SimTime now, std::int64_t records);
  // The snapshot of checkpoint `id`: the open transaction (if any) becomes a committable.
  void precommit(std::int64_t id);
  struct Outcome {
    KafkaTxn txn;
    bool lost = false;            // the broker had aborted it: its records are gone
    core::Duration open_for = 0;  // from its first record to the commit attempt
  };
  // Commits the committables of checkpoints up to `id` at `now`.
  std::vector<Outcome> commit(core::SimTime now, std::int64_t id);
  // What a snapshot holds: committables not committed yet (the one just precommitted included).
  const std::vector<KafkaTxn>& committables() const { return committables_; }
  // A restored writer: the committables of the restored checkpoint are committed again.
  void restore(std::vector<KafkaTxn> committables) { committables_ = std::move(committables); }
  core::Duration timeout() const { return timeout_; }

 private:
  core::Duration timeout_;
  std::optional<KafkaTxn> open_;
  std::vector<KafkaTxn> committables_;
};

}  // namespace ckptsim::model
