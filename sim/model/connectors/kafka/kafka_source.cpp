// flink-connector-kafka 3.x KafkaSource behind the Source seams: a consumer group behind the
// head of its partitions reads as fast as it can fetch until it has caught up, then at the rate
// records are produced (scan.startup.mode decides the start; after a restore the lag holds the
// replay since the checkpoint plus what was produced while the job was down).
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "sim/model/connectors/connector.hpp"

namespace ckptsim::model {

namespace {

class KafkaSource final : public Source {
 public:
  KafkaSource(ConnectorContext& ctx, int vertex)
      : ctx_(ctx),
        vertex_(ctx.scenario().job.vertices[static_cast<std::size_t>(vertex)]),
        spec_(*vertex_.kafka_source),
        lag_(static_cast<std::size_t>(vertex_.parallelism), 0.0),
        lag_at_(static_cast<std::size_t>(vertex_.parallelism), 0) {}

  void deploy_reader(const ReaderAttempt& a) override {
    auto& lag = lag_[static_cast<std::size_t>(a.index)];
    lag = start_lag(a, lag);
    lag_at_[static_cast<std::size_t>(a.index)] = ctx_.sim().now();
  }
  double rate(int index, double configured) const override {
    if (lag_[static_cast<std::size_t>(index)] >= 1.0)  // behind: as fast as it can fetch
      return std::max(spec_.fetch_records_per_second, configured);
    return configured;
  }
  Batch poll(int index, std::int64_t records, double configured) override {
    // Records produced since the last step (back-pressured time included) join the lag; what
    // was read leaves it.
    auto& lag = lag_[static_cast<std::size_t>(index)];
    auto& at = lag_at_[static_cast<std::size_t>(index)];
    const SimTime now = ctx_.sim().now();
    const double produced = configured * static_cast<double>(now - at) / 1e9;
    const double available = lag + produced;  // nothing beyond the head can be read
    records = std::min(records, static_cast<std::int64_t>(std::floor(available)));
    lag = available - static_cast<double>(records);
    at = now;
    return {records, Buffer::kNoTable};
  }

 private:
  // Its share of the configured lag on the first start; after a restart what it read since the
  // checkpoint plus what was produced while it was down.
  double start_lag(const ReaderAttempt& a, double previous_lag) const {
    if (!a.has_split) return 0;
    if (a.previous_attempt < 0 && !a.restored) {
      if (spec_.startup == KafkaStartup::latest_offset) return 0;
      const int readers = vertex_.partitions > 0 ? std::min(vertex_.partitions, vertex_.parallelism)
                                                 : vertex_.parallelism;
      return static_cast<double>(spec_.lag) / readers;
    }
    double lag = previous_lag;
    if (a.previous_attempt >= 0) {  // a restart: downtime and the replay since the checkpoint
      lag += a.configured_rate * static_cast<double>(ctx_.sim().now() - a.previous_left_running) / 1e9;
      const std::int64_t restored_position = a.state ? a.state->source_position : 0;
      lag += static_cast<double>(std::max<std::int64_t>(0, a.previous_position - restored_position));
    }
    return lag;
  }

  ConnectorContext& ctx_;
  const VertexSpec& vertex_;
  const KafkaSourceSpec& spec_;
  std::vector<double> lag_;     // per reader: records behind the head of its partitions
  std::vector<SimTime> lag_at_; // ... as of then
};

}  // namespace

void add_kafka_source(const Scenario& scenario, ConnectorContext& ctx, Connectors& connectors) {
  for (std::size_t v = 0; v < scenario.job.vertices.size(); ++v)
    if (scenario.job.vertices[v].kafka_source)
      connectors.vertices[v].source = std::make_unique<KafkaSource>(ctx, static_cast<int>(v));
}

}  // namespace ckptsim::model
