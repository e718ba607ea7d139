// flink-connector-kafka 3.x KafkaSink with sink.delivery-guarantee exactly-once behind the Sink
// seams (field B9): the KafkaWriter's transaction runs from its first record to the commit; the
// snapshot precommits it as a committable; the KafkaCommitter commits at
// notifyCheckpointComplete and again on restore, which the broker refuses for transactions it
// aborted after transaction.timeout.ms (their records are lost). A timeout above the broker's
// transaction.max.timeout.ms fails InitProducerId.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/connectors/connector.hpp"
#include "sim/model/connectors/kafka/kafka_transactions.hpp"

namespace ckptsim::model {

namespace {

class KafkaSink final : public Sink {
 public:
  KafkaSink(ConnectorContext& ctx, int vertex)
      : ctx_(ctx),
        vertex_(vertex),
        spec_(*ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].kafka_sink) {
    const int p = ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)].parallelism;
    txns_.assign(static_cast<std::size_t>(p), KafkaTransactions(spec_.transaction_timeout));
    committed_.assign(static_cast<std::size_t>(p), 0);
  }

  void deploy_writer(int index, const TaskSnapshot* restored, std::int64_t) override {
    // A new attempt: the open transaction of the old one was aborted (its records are
    // replayed); KafkaCommitter commits the restored committables again, which the broker
    // refuses for those it aborted in the meantime.
    auto& k = txns_[static_cast<std::size_t>(index)];
    k = KafkaTransactions(k.timeout());
    if (!restored) return;
    std::vector<KafkaTxn> pending;
    for (const KafkaTxn& t : restored->committables)
      if (t.checkpoint > committed_[static_cast<std::size_t>(index)]) pending.push_back(t);
    if (pending.empty()) return;
    const std::int64_t newest = pending.back().checkpoint;
    k.restore(std::move(pending));
    commit(index, newest);
  }
  std::optional<ConnectorException> init_failure(int, std::int64_t) const override {
    // KafkaWriter's transactional producer: initTransactions asks the broker for a producer id
    // with its transaction.timeout.ms, which must not exceed transaction.max.timeout.ms (B9).
    const auto& broker = ctx_.scenario().systems.kafka;
    if (!broker || spec_.transaction_timeout <= broker->transaction_max_timeout) return std::nullopt;
    return ConnectorException{
        "org.apache.kafka.common.KafkaException",
        "Unexpected error in InitProducerIdResponse; The transaction timeout is larger than the "
        "maximum value allowed by the broker (as configured by transaction.max.timeout.ms)."};
  }
  Duration write(int index, const Buffer& b, Duration cpu) override {
    if (b.kind == Buffer::Kind::data) txns_[static_cast<std::size_t>(index)].write(ctx_.sim().now(), b.records);
    return cpu;
  }
  Prepared prepare_commit(int index, std::int64_t checkpoint) override {
    // KafkaWriter.prepareCommit / snapshotState: flush, the transaction becomes a committable.
    txns_[static_cast<std::size_t>(index)].precommit(checkpoint);
    return {};
  }
  void snapshot_state(int index, TaskSnapshot& state) const override {
    state.committables = txns_[static_cast<std::size_t>(index)].committables();
  }
  Committed notify_checkpoint_complete(int index, std::int64_t id) override {
    commit(index, id);
    return {};
  }

 private:
  void commit(int index, std::int64_t checkpoint) {
    auto& k = txns_[static_cast<std::size_t>(index)];
    const bool restoring = ctx_.state(vertex_, index) != ExecutionState::running;
    for (const KafkaTransactions::Outcome& o : k.commit(ctx_.sim().now(), checkpoint)) {
      auto& committed = committed_[static_cast<std::size_t>(index)];
      committed = std::max(committed, o.txn.checkpoint);
      const std::string detail =
          "transaction of checkpoint " + std::to_string(o.txn.checkpoint) + " open for " +
          std::to_string(core::to_millis(o.open_for)) + " ms, transaction.timeout.ms " +
          std::to_string(core::to_millis(k.timeout()));
      if (o.lost)
        ctx_.connector_event(ConnectorEvent::Kind::kafka_txn_lost, vertex_, index, spec_.topic,
                             detail, o.txn.records);
      else if (restoring)
        ctx_.connector_event(ConnectorEvent::Kind::kafka_txn_recommitted, vertex_, index,
                             spec_.topic, detail, o.txn.records);
    }
  }

  ConnectorContext& ctx_;
  int vertex_;
  const KafkaSinkSpec& spec_;
  std::vector<KafkaTransactions> txns_;
  // Per subtask slot, across attempts: the newest checkpoint whose transaction was committed or
  // found aborted (the broker's view; a restore does not undo it).
  std::vector<std::int64_t> committed_;
};

}  // namespace

void add_kafka_sink(const Scenario& scenario, ConnectorContext& ctx, Connectors& connectors) {
  for (std::size_t v = 0; v < scenario.job.vertices.size(); ++v) {
    const auto& sink = scenario.job.vertices[v].kafka_sink;
    if (sink && sink->guarantee == DeliveryGuarantee::exactly_once)
      connectors.vertices[v].sinks.push_back(std::make_unique<KafkaSink>(ctx, static_cast<int>(v)));
  }
}

}  // namespace ckptsim::model
