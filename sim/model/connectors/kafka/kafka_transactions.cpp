// KafkaWriter / KafkaCommitter transactions (see kafka.hpp).
#include "sim/model/connectors/kafka/kafka_transactions.hpp"

#include <algorithm>

namespace ckptsim::model {

void KafkaTransactions::write(core::SimTime now, std::int64_t records) {
  if (records <= 0) return;
  if (!open_) {
    open_ = KafkaTxn{};
    open_->opened = now;
  }
  open_->records += records;
}

void KafkaTransactions::precommit(std::int64_t id) {
  if (!open_) return;  // nothing written since the last snapshot: no transaction to commit
  open_->checkpoint = id;
  committables_.push_back(*open_);
  open_.reset();
}

std::vector<KafkaTransactions::Outcome> KafkaTransactions::commit(core::SimTime now,
                                                                  std::int64_t id) {
  std::vector<Outcome> out;
  auto it = committables_.begin();
  for (; it != committables_.end() && it->checkpoint <= id; ++it) {
    const core::Duration open_for = now - it->opened;
    // The transaction coordinator aborts it once transaction.timeout.ms has passed.
    out.push_back({*it, open_for > timeout_, open_for});
  }
  committables_.erase(committables_.begin(), it);
  return out;
}

}  // namespace ckptsim::model
