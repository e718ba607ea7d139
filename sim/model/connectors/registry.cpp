// The registered connectors: each adds its sources, sinks and external systems to the job.
// Adding a connector is its folder plus one line here (and its spec and scenario keys).
#include "sim/model/connectors/connector.hpp"

namespace ckptsim::model {

void add_cdc_sources(const Scenario&, ConnectorContext&, Connectors&);     // cdc/
void add_kafka_source(const Scenario&, ConnectorContext&, Connectors&);  // kafka/
void add_doris(const Scenario&, ConnectorContext&, Connectors&);         // doris/
void add_kafka_sink(const Scenario&, ConnectorContext&, Connectors&);    // kafka/
void add_jdbc_sink(const Scenario&, ConnectorContext&, Connectors&);     // jdbc/
void add_transactional_sinks(const Scenario&, ConnectorContext&, Connectors&);  // two_phase_commit/
void add_hudi_sinks(const Scenario&, ConnectorContext&, Connectors&);           // hudi/
void add_service_calls(const Scenario&, ConnectorContext&, Connectors&);        // service/

namespace {
// Sources first: a sink chained to a source reads its table list.
constexpr ConnectorFactory kConnectors[] = {&add_cdc_sources, &add_kafka_source, &add_doris,
                                            &add_kafka_sink, &add_jdbc_sink,
                                            &add_transactional_sinks, &add_hudi_sinks,
                                            &add_service_calls};
}  // namespace

Connectors make_connectors(const Scenario& scenario, ConnectorContext& context) {
  Connectors connectors;
  connectors.vertices.resize(scenario.job.vertices.size());
  for (const ConnectorFactory add : kConnectors) add(scenario, context, connectors);
  return connectors;
}

}  // namespace ckptsim::model
