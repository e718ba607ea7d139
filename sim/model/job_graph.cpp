// Operator chaining: from the scenario's operators to Flink's tasks (JobVertex = chain).
#include <algorithm>

#include "sim/model/config.hpp"

namespace ckptsim::model {

JobSpec chain_operators(const JobSpec& job) {
  const auto& ops = job.vertices;
  // How many consumers each operator has.
  std::vector<int> consumers(ops.size(), 0);
  std::vector<int> upstream(ops.size(), -1);
  for (std::size_t v = 0; v < ops.size(); ++v) {
    if (!ops[v].input) continue;
    for (std::size_t u = 0; u < v; ++u)
      if (ops[u].name == *ops[v].input) upstream[v] = static_cast<int>(u);
    if (upstream[v] >= 0) ++consumers[static_cast<std::size_t>(upstream[v])];
  }
  JobSpec out;
  out.name = job.name;
  std::vector<int> task_of(ops.size(), -1);
  std::vector<double> flow(ops.size(), 1.0);  // records per input record of the chain head
  for (std::size_t v = 0; v < ops.size(); ++v) {
    const VertexSpec& op = ops[v];
    const int u = upstream[v];
    const bool chainable = u >= 0 && op.ship == ShipStrategy::forward &&
                           op.parallelism == ops[static_cast<std::size_t>(u)].parallelism &&
                           consumers[static_cast<std::size_t>(u)] == 1;
    if (!chainable) {
      VertexSpec head = op;
      head.operators = {op.name};
      // A source's emission costs what its `cost` says (time on its task thread per record
      // emitted, SourceReader.pollNext and the emitting), nothing when none is given.
      if (!head.input && !head.cost_given) head.cost_per_record = 0;
      if (head.input) {  // the input now names the task that runs the upstream operator
        const int t = task_of[static_cast<std::size_t>(u)];
        head.input = out.vertices[static_cast<std::size_t>(t)].name;
      }
      task_of[v] = static_cast<int>(out.vertices.size());
      out.vertices.push_back(head);
      flow[v] = op.selectivity;
      continue;
    }
    const int t = task_of[static_cast<std::size_t>(u)];
    task_of[v] = t;
    VertexSpec& task = out.vertices[static_cast<std::size_t>(t)];
    const double in = flow[static_cast<std::size_t>(u)];  // records reaching `op` per head record
    // Chained operators add their cost per record reaching them.
    task.cost_per_record += static_cast<Duration>(static_cast<double>(op.cost_per_record) * in);
    task.state_size += op.state_size;
    task.state_growth_per_record +=
        static_cast<std::int64_t>(static_cast<double>(op.state_growth_per_record) * in);
    task.sync_snapshot += op.sync_snapshot;
    task.notify_complete += op.notify_complete;
    task.selectivity *= op.selectivity;
    task.record_size = op.record_size;
    if (op.service == Variability::exponential) task.service = Variability::exponential;
    if (op.doris) task.doris = op.doris;
    if (op.kafka_sink) task.kafka_sink = op.kafka_sink;
    if (op.jdbc_sink) task.jdbc_sink = op.jdbc_sink;
    if (op.transactional_sink) task.transactional_sink = op.transactional_sink;
    for (ServiceCallsSpec c : op.calls) {  // calls per record reaching `op`
      c.per_record *= in;
      task.calls.push_back(c);
    }
    task.operators.push_back(op.name);
    task.name += " -> " + op.name;
    flow[v] = in * op.selectivity;
  }
  // Inputs were renamed when their upstream task grew; point every input at its task's name.
  for (std::size_t v = 0; v < ops.size(); ++v) {
    if (upstream[v] < 0) continue;
    const int t = task_of[v];
    VertexSpec& task = out.vertices[static_cast<std::size_t>(t)];
    if (task.operators.front() != ops[v].name) continue;  // not the head of its task
    task.input = out.vertices[static_cast<std::size_t>(task_of[static_cast<std::size_t>(upstream[v])])].name;
  }
  return out;
}

int task_of_operator(const JobSpec& chained, const std::string& name) {
  for (std::size_t t = 0; t < chained.vertices.size(); ++t) {
    const VertexSpec& v = chained.vertices[t];
    if (v.name == name || std::find(v.operators.begin(), v.operators.end(), name) != v.operators.end())
      return static_cast<int>(t);
  }
  return -1;
}

}  // namespace ckptsim::model
