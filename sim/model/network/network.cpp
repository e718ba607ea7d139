// The job graph's channels and pools (ExecutionGraph's IntermediateResultPartitions and their
// consumers, NettyShuffleEnvironment's buffer pools), and the network's own timers.
#include "sim/model/network/network.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "sim/model/task/stream_task.hpp"
#include "sim/model/task/task_executor.hpp"

namespace ckptsim::model {

void Network::build(std::vector<Subtask>& subtasks, const std::vector<int>& vertex_first) {
  const auto& vertices = scenario_.job.vertices;
  const auto at = [&](int id) -> Subtask& { return subtasks[static_cast<std::size_t>(id)]; };
  // Forward connects i -> i; rescale connects pointwise groups; the others all to all.
  for (std::size_t v = 0; v < vertices.size(); ++v) {
    if (!vertices[v].input) continue;
    int u = -1;
    for (std::size_t k = 0; k < v; ++k)
      if (vertices[k].name == *vertices[v].input) u = static_cast<int>(k);
    assert(u >= 0);
    const auto uu = static_cast<std::size_t>(u);
    const int pu = vertices[uu].parallelism;
    const int pv = vertices[v].parallelism;
    const ShipStrategy ship = vertices[v].ship;
    for (int i = 0; i < pu; ++i) {
      OutputGroup group;
      group.ship = ship;
      group.origin = static_cast<std::size_t>(i);
      for (int j = 0; j < pv; ++j) {
        if (ship == ShipStrategy::forward && i != j) continue;
        // RescalePartitioner / POINTWISE: each upstream feeds a contiguous range downstream.
        if (ship == ShipStrategy::rescale &&
            (pu >= pv ? j != i * pv / pu : (j * pu / pv) != i))
          continue;
        Channel c;
        c.producer = vertex_first[uu] + i;
        c.consumer = vertex_first[v] + j;
        c.local = at(c.producer).taskmanager == at(c.consumer).taskmanager;
        c.input_index = static_cast<int>(at(c.consumer).inputs.size());
        c.output_group = static_cast<int>(at(c.producer).outputs.size());
        c.output_position = static_cast<int>(group.channels.size());
        const int id = static_cast<int>(channels_.size());
        channels_.push_back(c);
        group.channels.push_back(id);
        at(c.consumer).inputs.push_back(id);
      }
      if (ship == ShipStrategy::hash && vertices[v].key_distribution != KeyDistribution::uniform) {
        // Keys map to subtasks by key % parallelism (KeyGroupRangeAssignment, simplified);
        // each channel gets the probability mass of its keys.
        const VertexSpec& d = vertices[v];
        const int keys = std::max(1, d.keys);
        std::vector<double> p(static_cast<std::size_t>(keys));
        double total = 0;
        for (int k = 0; k < keys; ++k) {
          p[static_cast<std::size_t>(k)] =
              d.key_distribution == KeyDistribution::zipf ? 1.0 / std::pow(k + 1.0, d.zipf_s) : 1.0;
          total += p[static_cast<std::size_t>(k)];
        }
        for (double& x : p) x /= total;
        if (d.key_distribution == KeyDistribution::hot_key) {
          for (double& x : p) x *= 1.0 - d.hot_key_share;
          p[0] += d.hot_key_share;
        }
        group.weights.assign(group.channels.size(), 0.0);
        for (int k = 0; k < keys; ++k)
          group.weights[static_cast<std::size_t>(k % pv)] += p[static_cast<std::size_t>(k)];
        group.carry.assign(group.channels.size(), 0.0);
      }
      at(vertex_first[uu] + i).outputs.push_back(group);
    }
  }
  for (Subtask& s : subtasks) {
    std::size_t n = 0;
    for (const OutputGroup& g : s.outputs) n += g.channels.size();
    // NettyShuffleUtils.getMinMaxNetworkBuffersPerResultPartition: max = n * buffers-per-channel
    // + floating-buffers-per-gate, i.e. n*2+8 with the defaults.
    s.pool_size = static_cast<int>(n) * std::max(0, scenario_.flink.buffers_per_channel) +
                  std::max(0, scenario_.flink.floating_buffers_per_gate);
  }
}

void Network::start_debloating(int id) {
  Subtask& s = sub(id);
  if (!scenario_.flink.debloat_enabled || s.inputs.empty()) return;
  s.debloat_size = static_cast<double>(scenario_.flink.segment_size);
  s.debloat_announced = scenario_.flink.segment_size;
  sim_.schedule_in(scenario_.flink.debloat_period, this, kDebloat, arg(id));
}

void Network::on_event(std::uint32_t kind, std::uint64_t a) {
  if (!current(a)) return;
  const int id = subtask_of(a);
  Subtask& s = sub(id);
  switch (static_cast<Event>(kind)) {
    case kFlush:
      s.flush_scheduled = false;
      close_builders(s, nullptr);
      if (s.state == ExecutionState::running) schedule_flush(s, id);  // next tick
      return;
    case kDebloat:
      if (s.state != ExecutionState::running) return;
      recalculate_buffer_size(id);
      sim_.schedule_in(scenario_.flink.debloat_period, this, kDebloat, a);
      return;
  }
}

}  // namespace ckptsim::model
