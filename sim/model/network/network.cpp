// The job graph's channels and pools (ExecutionGraph's IntermediateResultPartitions and their
// consumers, NettyShuffleEnvironment's buffer pools), and the network's own timers.
#include "sim/model/network/network.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <string>
#include <variant>

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
  // One NetworkBufferPool per TaskManager, of the buffers its network memory holds.
  const FlinkConfig& f = scenario_.flink;
  const auto spec = process_spec_from_config(f.memory, f.segment_size, f.version);
  const auto* memory = std::get_if<TaskExecutorProcessSpec>(&spec);
  assert(memory != nullptr);  // the loader rejects a configuration Flink cannot start with
  const int buffers = memory ? memory->network_buffers : std::numeric_limits<int>::max();
  int taskmanagers = 1;
  for (const Subtask& s : subtasks) taskmanagers = std::max(taskmanagers, s.taskmanager + 1);
  buffer_pools_.assign(static_cast<std::size_t>(taskmanagers),
                       NetworkBufferPool(buffers, f.segment_size));
  taskmanager_tasks_.assign(static_cast<std::size_t>(taskmanagers), {});
  for (std::size_t id = 0; id < subtasks.size(); ++id)
    taskmanager_tasks_[static_cast<std::size_t>(subtasks[id].taskmanager)].push_back(
        static_cast<int>(id));
}

std::optional<std::string> Network::setup_partitions_and_gates(int id) {
  Subtask& s = sub(id);
  NetworkBufferPool& pool = buffer_pools_[static_cast<std::size_t>(s.taskmanager)];
  const FlinkConfig& f = scenario_.flink;
  const int per_channel = std::max(0, f.buffers_per_channel);
  const int floating = std::max(0, f.floating_buffers_per_gate);
  // ResultPartition.setup: NettyShuffleUtils.getMinMaxNetworkBuffersPerResultPartition gives a
  // PIPELINED_BOUNDED partition of M subpartitions M + 1 required and M * b + f at most; then
  // SingleInputGate.setup: InputGateSpecUtils.createGateBuffersSpec gives the gate 1 required
  // floating buffer and f at most (the streaming defaults, 1.15 to 2.1).
  std::vector<std::pair<int, int>> requests;
  for (const OutputGroup& g : s.outputs) {
    const int m = static_cast<int>(g.channels.size());
    requests.emplace_back(m + 1, m * per_channel + floating);
  }
  if (!s.inputs.empty()) requests.emplace_back(1, floating);
  std::vector<int> handles;
  for (const auto& [required, max] : requests) {
    auto created = pool.create_buffer_pool(required, max);
    if (auto* error = std::get_if<std::string>(&created)) {
      for (int h : handles) pool.destroy_buffer_pool(h);
      pool.take_resized();
      apply_pool_sizes(s.taskmanager, -1);
      return *error;
    }
    handles.push_back(std::get<int>(created));
  }
  for (std::size_t g = 0; g < s.outputs.size(); ++g) s.outputs[g].buffer_pool = handles[g];
  if (!s.inputs.empty()) s.gate_pool = handles.back();
  apply_pool_sizes(s.taskmanager, id);
  return std::nullopt;
}

std::optional<std::string> Network::request_exclusive_buffers(int id) {
  Subtask& s = sub(id);
  NetworkBufferPool& pool = buffer_pools_[static_cast<std::size_t>(s.taskmanager)];
  const int per_channel = std::max(0, scenario_.flink.buffers_per_channel);
  // One request per channel, as RemoteInputChannel.setup asks: the first that does not fit
  // fails the task (the channels converted before keep theirs until it is released).
  for (int c : s.inputs) {
    if (chan(c).local || per_channel == 0) continue;
    if (auto error = pool.request_unpooled(per_channel)) {
      apply_pool_sizes(s.taskmanager, -1);
      return error;
    }
    s.exclusive_buffers += per_channel;
  }
  apply_pool_sizes(s.taskmanager, -1);
  return std::nullopt;
}

void Network::release_buffers(int id) {
  Subtask& s = sub(id);
  NetworkBufferPool& pool = buffer_pools_[static_cast<std::size_t>(s.taskmanager)];
  bool any = s.exclusive_buffers > 0 || s.gate_pool >= 0;
  for (OutputGroup& g : s.outputs) {
    if (g.buffer_pool < 0) continue;
    pool.destroy_buffer_pool(g.buffer_pool);
    g.buffer_pool = -1;
    any = true;
  }
  if (s.gate_pool >= 0) pool.destroy_buffer_pool(s.gate_pool);
  s.gate_pool = -1;
  if (s.exclusive_buffers > 0) pool.recycle_unpooled(s.exclusive_buffers);
  s.exclusive_buffers = 0;
  if (any) apply_pool_sizes(s.taskmanager, id);
}

void Network::apply_pool_sizes(int taskmanager, int own) {
  NetworkBufferPool& pool = buffer_pools_[static_cast<std::size_t>(taskmanager)];
  if (pool.take_resized()) {
    for (int id : taskmanager_tasks_[static_cast<std::size_t>(taskmanager)])
      apply_pool_sizes(sub(id), id);
  } else if (own >= 0) {
    apply_pool_sizes(sub(own), own);
  }
}

void Network::apply_pool_sizes(Subtask& s, int id) {
  const NetworkBufferPool& pool = buffer_pools_[static_cast<std::size_t>(s.taskmanager)];
  int partitions = 0;
  for (const OutputGroup& g : s.outputs)
    if (g.buffer_pool >= 0) partitions += pool.pool_size(g.buffer_pool);
  const bool grew = partitions > s.pool_size;
  s.pool_size = partitions;
  const int gate = s.gate_pool >= 0 ? pool.pool_size(s.gate_pool) : 0;
  // The gate's floating buffers follow its pool's size (LocalBufferPool.setNumBuffers); lent
  // ones come back through recycling.
  s.floating_free += gate - s.gate_pool_size;
  s.gate_pool_size = gate;
  if (s.state != ExecutionState::running) return;
  if (grew && s.waiting_output) tasks().wake(id);
  if (gate > 0 && s.floating_free > 0)
    for (int c : s.inputs)
      if (!chan(c).local && chan(c).backlog > chan(c).credits) {
        request_floating(c);
        pump(c);
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
