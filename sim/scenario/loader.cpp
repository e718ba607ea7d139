// What the keys of a scenario mean: turns the located tree of document.cpp into a
// model::Scenario, checking every value and the job graph, and reporting all mistakes at once.
#include <algorithm>
#include <filesystem>
#include <map>

#include "sim/scenario/internal.hpp"

namespace ckptsim::scenario {
namespace {

using detail::Context;
using detail::Entry;
using detail::Loc;
using detail::Node;
using detail::unknown_key;

// Calibrated against the real jobs of scenarios/calibration/.
const model::LatencyDistribution kRpcLatency{core::milliseconds(2), 0.8, 0.01,
                                             core::milliseconds(20), 0.5};
constexpr core::Duration kCheckpointWarmUp = core::milliseconds(60);
// finalizationTime=0 ms and 1 ms in a real 1.18.1 log (doris#45965).
const model::LatencyDistribution kStoreLatency{core::microseconds(600), 0.6, 0, 0, 0};

const char* const kMinimalJobHint = "a minimal job is 'job: {vertices: [{name: Source}]}'";

// A value that may carry a "/record" (or " per record") suffix, such as "40 us/record".
Node without_per_record(const Node& node) {
  Node copy = node;
  if (!copy.is_scalar()) return copy;
  for (std::string_view suffix : {"/record", "/rec", " per record"}) {
    const std::string lower = detail::to_lower(copy.text);
    if (lower.size() > suffix.size() && lower.ends_with(suffix)) {
      copy.text.resize(copy.text.size() - suffix.size());
      break;
    }
  }
  return copy;
}

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  // Howard Hinnant's days_from_civil: days since 1970-01-01 in the proleptic Gregorian calendar.
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// "2024-07-10 12:30:00" (also "2024-07-10T12:30:00Z", "2024-07-10 12:30", "2024-07-10",
// milliseconds "12:30:00.250"), UTC, to milliseconds since the epoch.
std::optional<std::int64_t> parse_start(std::string_view text) {
  text = detail::trim(text);
  if (!text.empty() && (text.back() == 'Z' || text.back() == 'z')) text.remove_suffix(1);
  std::size_t pos = 0;
  auto number = [&](std::size_t digits) -> std::optional<unsigned> {
    if (pos + digits > text.size()) return std::nullopt;
    unsigned value = 0;
    for (std::size_t i = 0; i < digits; ++i) {
      const char c = text[pos + i];
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    pos += digits;
    return value;
  };
  auto expect = [&](char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  };
  const auto year = number(4);
  if (!year || !expect('-')) return std::nullopt;
  const auto month = number(2);
  if (!month || !expect('-')) return std::nullopt;
  const auto day = number(2);
  if (!day) return std::nullopt;
  unsigned hour = 0, minute = 0, second = 0, millis = 0;
  if (pos < text.size()) {
    if (!expect(' ') && !expect('T')) return std::nullopt;
    const auto h = number(2);
    if (!h || !expect(':')) return std::nullopt;
    const auto m = number(2);
    if (!m) return std::nullopt;
    hour = *h;
    minute = *m;
    if (expect(':')) {
      const auto s = number(2);
      if (!s) return std::nullopt;
      second = *s;
      if (expect('.')) {
        const auto ms = number(3);
        if (!ms) return std::nullopt;
        millis = *ms;
      }
    }
  }
  if (pos != text.size()) return std::nullopt;
  static constexpr unsigned kDaysInMonth[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (*month < 1 || *month > 12 || *day < 1 || *day > kDaysInMonth[*month - 1] || hour > 23 ||
      minute > 59 || second > 59)
    return std::nullopt;
  const std::int64_t days = days_from_civil(*year, *month, *day);
  return ((days * 24 + hour) * 60 + minute) * 60'000 + second * 1000 + millis;
}

const Node& empty_map() {
  static const Node node = [] {
    Node n;
    n.kind = Node::Kind::map;
    return n;
  }();
  return node;
}

// A section (flink:, cluster:, ...) may be left empty; anything else than a map is an error.
const Node* section(Context& ctx, const Entry& entry) {
  if (entry.value.is_null()) return &empty_map();
  if (!detail::expect_map(ctx, entry.value, "'" + entry.key + "' to be a map")) return nullptr;
  return &entry.value;
}

// ---- cluster:

void read_cluster(Context& ctx, const Node& map, const model::FlinkConfig& flink,
                  model::ClusterSpec& cluster) {
  const Entry* storage = nullptr;
  static const std::vector<std::string> keys = {"taskmanagers", "slots-per-taskmanager",
                                                "checkpoint-storage", "deploy-time", "rpc-latency",
                                                "mtbf", "local-disk-bandwidth",
                                                "heap-snapshot-rate", "checkpoint-warm-up",
                                                "rpc-latency-spread", "taskmanager-restart"};
  for (const Entry& e : map.entries) {
    if (e.key == "taskmanagers") {
      if (auto v = detail::read_int(ctx, e.value, "taskmanagers", 1)) cluster.taskmanagers = *v;
    } else if (e.key == "slots-per-taskmanager") {
      if (auto v = detail::read_int(ctx, e.value, "slots-per-taskmanager", 1))
        cluster.slots_per_taskmanager = *v;
    } else if (e.key == "checkpoint-storage") {
      storage = &e;
    } else if (e.key == "deploy-time") {
      if (auto v = detail::read_duration(ctx, e.value)) cluster.deploy_time = *v;
    } else if (e.key == "taskmanager-restart") {
      if (auto v = detail::read_duration(ctx, e.value)) cluster.taskmanager_restart = *v;
    } else if (e.key == "rpc-latency") {
      if (auto v = detail::read_duration(ctx, e.value)) cluster.rpc_latency.median = *v;
    } else if (e.key == "rpc-latency-spread") {
      if (auto v = detail::read_double(ctx, e.value, "a lognormal sigma", 0.0, 3.0)) {
        cluster.rpc_latency.sigma = *v;
        // 0: always rpc-latency, and no slow RPCs either (docs/scenario-format.md).
        if (*v == 0) cluster.rpc_latency.slow_share = 0;
      }
    } else if (e.key == "checkpoint-warm-up") {
      if (auto v = detail::read_duration(ctx, e.value)) cluster.checkpoint_warm_up = *v;
    } else if (e.key == "local-disk-bandwidth" || e.key == "heap-snapshot-rate") {
      const auto v = detail::read_rate(ctx, e.value, true);
      if (v && *v <= 0)
        ctx.error(e.value.loc, e.key + " must be positive", "write e.g. '200 MB/s'");
      else if (v)
        (e.key == "local-disk-bandwidth" ? cluster.local_disk_bandwidth_bytes_per_second
                                         : cluster.heap_snapshot_bytes_per_second) = *v;
    } else if (e.key == "mtbf") {
      if (auto v = detail::read_duration(ctx, e.value)) {
        if (*v <= 0)
          ctx.error(e.value.loc, "mtbf must be positive", "write e.g. '2 h', or leave it out");
        else
          cluster.mtbf = *v;
      }
    } else {
      unknown_key(ctx, e, "cluster", keys);
    }
  }
  if (storage == nullptr)
    detail::read_checkpoint_storage(ctx, nullptr, map.loc, flink, cluster.checkpoint_storage);
  else if (const Node* values = section(ctx, *storage))
    detail::read_checkpoint_storage(ctx, values, storage->key_loc, flink,
                                    cluster.checkpoint_storage);
}

// ---- jobmanager:

void read_master_steps(Context& ctx, const Entry& list, bool is_hook,
                       std::vector<model::MasterStepSpec>& out) {
  if (list.value.is_null()) return;
  if (!detail::expect_sequence(ctx, list.value, "a list of " + list.key)) return;
  static const std::vector<std::string> keys = {"name", "checkpoint-duration", "hangs-at",
                                                "fails-at"};
  for (const Node& item : list.value.items) {
    if (!detail::expect_map(ctx, item, "a map with a 'name'")) continue;
    model::MasterStepSpec step;
    step.is_hook = is_hook;
    if (item.find("name") == nullptr)
      ctx.error(item.loc, std::string(is_hook ? "master hook" : "coordinator") + " has no 'name'",
                "write e.g. '- {name: Enumerator, checkpoint-duration: 50 ms}'");
    for (const Entry& e : item.entries) {
      if (e.key == "name") {
        if (auto v = detail::read_name(ctx, e.value, "a step name")) step.name = *v;
      } else if (e.key == "checkpoint-duration") {
        if (auto v = detail::read_cost_law(ctx, e.value)) step.duration = *v;
      } else if (e.key == "hangs-at") {
        if (auto v = detail::read_duration(ctx, e.value)) step.hang_from = *v;
      } else if (e.key == "fails-at") {
        if (auto v = detail::read_duration(ctx, e.value)) step.fail_from = *v;
      } else {
        unknown_key(ctx, e, is_hook ? "hook" : "coordinator", keys);
      }
    }
    out.push_back(std::move(step));
  }
}

void read_jobmanager(Context& ctx, const Node& map, model::JobManagerSpec& jobmanager) {
  std::vector<model::MasterStepSpec> coordinators;
  std::vector<model::MasterStepSpec> hooks;
  for (const Entry& e : map.entries) {
    if (e.key == "coordinators")
      read_master_steps(ctx, e, false, coordinators);
    else if (e.key == "hooks")
      read_master_steps(ctx, e, true, hooks);
    else
      unknown_key(ctx, e, "jobmanager", {"coordinators", "hooks"});
  }
  // CheckpointCoordinator snapshots the operator coordinators, then the master hooks.
  jobmanager.master_steps = std::move(coordinators);
  jobmanager.master_steps.insert(jobmanager.master_steps.end(), hooks.begin(), hooks.end());
}

// ---- job:

struct VertexLocs {
  Loc name;
  std::optional<Loc> input;  // the input value
  std::optional<Loc> ship;   // an explicit ship: value
  std::optional<Loc> rate;   // the rate key
  std::optional<Loc> partitions;
};

void read_input(Context& ctx, const Node& node, model::VertexSpec& vertex, VertexLocs& locs,
                std::string& from, std::optional<Loc>& from_loc) {
  locs.input = node.loc;
  if (node.is_scalar()) {
    from = node.text;
    from_loc = node.loc;
    return;
  }
  if (!node.is_map()) {
    ctx.error(node.loc, "expected the name of the upstream vertex or {from: ..., ship: ...}, got " +
                            detail::describe(node));
    return;
  }
  const Entry* from_entry = node.find("from");
  if (from_entry == nullptr)
    ctx.error(node.loc, "input has no 'from'",
              "write e.g. 'input: {from: Source, ship: rebalance}'");
  for (const Entry& e : node.entries) {
    if (e.key == "from") {
      if (auto v = detail::read_string(ctx, e.value)) {
        from = *v;
        from_loc = e.value.loc;
      }
    } else if (e.key == "ship") {
      using model::ShipStrategy;
      if (auto v = detail::read_enum<ShipStrategy>(ctx, e.value, "ship strategy",
                                                   {{"forward", ShipStrategy::forward},
                                                    {"rebalance", ShipStrategy::rebalance},
                                                    {"hash", ShipStrategy::hash},
                                                    {"broadcast", ShipStrategy::broadcast},
                                                    {"rescale", ShipStrategy::rescale}})) {
        vertex.ship = *v;
        locs.ship = e.value.loc;
      }
    } else {
      unknown_key(ctx, e, "input", {"from", "ship"});
    }
  }
}

void read_vertex_key(Context& ctx, const Entry& e, model::VertexSpec& v, VertexLocs& locs,
                     std::string& from, std::optional<Loc>& from_loc) {
  static const std::vector<std::string> keys = {
      "name",          "parallelism", "input",       "rate",          "cost",
      "record-size",   "state-size",  "state-growth", "sync-snapshot", "arrivals",
      "service",       "selectivity", "keys",        "key-distribution", "zipf-exponent",
      "hot-key-share", "source-api",  "partitions",  "notify-complete", "connector", "system",
      "options",       "tables",      "table",       "table-model", "lag",
      "fetch-rate",    "calls"};
  if (e.key == "name" || detail::is_connector_key(e.key)) {
    // read by read_job
  } else if (e.key == "parallelism") {
    if (auto p = detail::read_int(ctx, e.value, "parallelism", 1)) v.parallelism = *p;
  } else if (e.key == "input") {
    read_input(ctx, e.value, v, locs, from, from_loc);
  } else if (e.key == "rate") {
    locs.rate = e.key_loc;
    if (auto r = detail::read_rate(ctx, e.value, false)) v.records_per_second = *r;
  } else if (e.key == "cost") {
    if (auto d = detail::read_duration(ctx, without_per_record(e.value))) {
      v.cost_per_record = *d;
      v.cost_given = true;
    }
  } else if (e.key == "record-size") {
    if (auto s = detail::read_size(ctx, e.value)) {
      if (*s < 1)
        ctx.error(e.value.loc, "record-size must be at least 1 byte, got '" + e.value.text + "'");
      else
        v.record_size = *s;
    }
  } else if (e.key == "state-size") {
    if (auto s = detail::read_size(ctx, e.value)) v.state_size = *s;
  } else if (e.key == "state-growth") {
    if (auto s = detail::read_size(ctx, without_per_record(e.value)))
      v.state_growth_per_record = *s;
  } else if (e.key == "sync-snapshot") {
    if (auto d = detail::read_cost_law(ctx, e.value)) v.sync_snapshot = *d;
  } else if (e.key == "notify-complete") {
    if (auto d = detail::read_cost_law(ctx, e.value)) v.notify_complete = *d;
  } else if (e.key == "arrivals") {
    if (auto a = detail::read_enum<model::Variability>(
            ctx, e.value, "arrival process",
            {{"fixed", model::Variability::fixed}, {"poisson", model::Variability::exponential}}))
      v.arrivals = *a;
  } else if (e.key == "service") {
    if (auto a = detail::read_enum<model::Variability>(
            ctx, e.value, "service time distribution",
            {{"fixed", model::Variability::fixed},
             {"exponential", model::Variability::exponential}}))
      v.service = *a;
  } else if (e.key == "selectivity") {
    if (auto x = detail::read_double(ctx, e.value, "selectivity", 0.0, 1e6)) v.selectivity = *x;
  } else if (e.key == "keys") {
    if (auto k = detail::read_int(ctx, e.value, "keys", 1)) v.keys = *k;
  } else if (e.key == "key-distribution") {
    if (auto d = detail::read_enum<model::KeyDistribution>(
            ctx, e.value, "key distribution",
            {{"uniform", model::KeyDistribution::uniform},
             {"zipf", model::KeyDistribution::zipf},
             {"hot-key", model::KeyDistribution::hot_key}}))
      v.key_distribution = *d;
  } else if (e.key == "zipf-exponent") {
    if (auto x = detail::read_double(ctx, e.value, "zipf-exponent", 0.0, 10.0)) v.zipf_s = *x;
  } else if (e.key == "source-api") {
    if (auto a = detail::read_enum<bool>(ctx, e.value, "source API",
                                         {{"flip-27", false}, {"legacy", true}}))
      v.legacy_source = *a;
  } else if (e.key == "partitions") {
    if (auto n = detail::read_int(ctx, e.value, "partitions", 1)) v.partitions = *n;
    locs.partitions = e.key_loc;
  } else if (e.key == "hot-key-share") {
    if (auto x = detail::read_double(ctx, e.value, "hot-key-share", 0.0, 1.0)) v.hot_key_share = *x;
  } else {
    unknown_key(ctx, e, "vertex", keys);
  }
}

std::vector<std::string> vertex_names(const model::JobSpec& job) {
  std::vector<std::string> names;
  for (const auto& v : job.vertices) names.push_back(v.name);
  return names;
}

void read_vertices(Context& ctx, const Node& list, std::optional<int> default_parallelism,
                   const model::SystemsSpec& systems, const model::AsyncLookupConfig& async_lookup,
                   model::JobSpec& job) {
  if (!detail::expect_sequence(ctx, list, "a list of vertices")) return;
  if (list.items.empty()) {
    ctx.error(list.loc, "the job has no vertices", kMinimalJobHint);
    return;
  }
  // All names first, so an input naming a later vertex gets a precise message.
  std::map<std::string, std::size_t> index_of;
  std::map<std::string, int> line_of;
  std::vector<std::string> all_names;
  for (const Node& item : list.items) {
    const Entry* name = item.is_map() ? item.find("name") : nullptr;
    if (name != nullptr && name->value.is_scalar()) all_names.push_back(name->value.text);
  }
  std::vector<VertexLocs> locs;
  std::vector<bool> explicit_ship;
  for (const Node& item : list.items) {
    if (!item.is_map()) {
      ctx.error(item.loc, "expected a vertex (a map with a 'name'), got " + detail::describe(item),
                "write e.g. '- {name: Sink, input: Process}'");
      continue;
    }
    model::VertexSpec vertex;
    vertex.parallelism = default_parallelism.value_or(1);
    VertexLocs vertex_locs;
    const Entry* name = item.find("name");
    if (name == nullptr) {
      ctx.error(item.loc, "vertex has no 'name'",
                "every vertex needs a unique name, e.g. '- name: Sink'");
    } else if (auto n = detail::read_name(ctx, name->value, "a vertex name")) {
      vertex.name = *n;
      vertex_locs.name = name->value.loc;
      if (auto it = line_of.find(*n); it != line_of.end()) {
        ctx.error(name->value.loc, "duplicate vertex name '" + *n + "'",
                  "it is first defined at line " + std::to_string(it->second));
      } else {
        line_of[*n] = name->value.loc.line;
      }
    }
    std::string from;
    std::optional<Loc> from_loc;
    for (const Entry& e : item.entries)
      read_vertex_key(ctx, e, vertex, vertex_locs, from, from_loc);
    if (from_loc) vertex.input = from;  // provisional: checked below
    detail::read_connector(ctx, item, systems, vertex);
    detail::read_calls(ctx, item, systems, async_lookup, vertex);
    vertex.input.reset();
    if (from_loc) {
      const auto upstream = index_of.find(from);
      if (upstream != index_of.end() && job.vertices[upstream->second].doris) {
        // A Doris sink ends its pipeline: its prepareCommit runs before the barrier would be
        // forwarded, and the writer emits nothing.
        ctx.error(*from_loc, "vertex '" + vertex.name + "' reads from the doris sink '" + from + "'",
                  "a doris connector is a sink; read from its upstream instead");
      } else if (upstream != index_of.end()) {
        vertex.input = from;
      } else if (from == vertex.name) {
        ctx.error(*from_loc, "vertex '" + from + "' cannot read from itself");
      } else if (std::find(all_names.begin(), all_names.end(), from) != all_names.end()) {
        ctx.error(
            *from_loc,
            "vertex '" + vertex.name + "' reads from '" + from + "', which is defined after it",
            "list the vertices in topological order: move '" + from + "' above '" + vertex.name +
                "'");
      } else {
        std::string hint = detail::did_you_mean(from, all_names);
        if (hint.empty()) hint = "earlier vertices: " + detail::join(vertex_names(job), ", ");
        ctx.error(*from_loc, "unknown vertex '" + from + "'", hint);
      }
    }
    if (vertex_locs.partitions && vertex_locs.input)
      ctx.error(*vertex_locs.partitions,
                "'partitions' only applies to sources; '" + vertex.name + "' has an input",
                "give the partitions of the topic the source reads");
    if (vertex_locs.rate && vertex_locs.input)
      ctx.error(*vertex_locs.rate,
                "'rate' only applies to sources; '" + vertex.name + "' has an input",
                "the rate of a vertex with an input follows from its upstream vertices");
    if (!vertex.name.empty() && index_of.find(vertex.name) == index_of.end())
      index_of[vertex.name] = job.vertices.size();
    explicit_ship.push_back(vertex_locs.ship.has_value());
    locs.push_back(vertex_locs);
    job.vertices.push_back(std::move(vertex));
  }
  for (std::size_t i = 0; i < job.vertices.size(); ++i) {
    model::VertexSpec& vertex = job.vertices[i];
    if (!vertex.input) continue;
    const model::VertexSpec& upstream = job.vertices[index_of[*vertex.input]];
    if (vertex.ship != model::ShipStrategy::forward || upstream.parallelism == vertex.parallelism)
      continue;
    if (!explicit_ship[i]) {
      // StreamGraph.addEdgeInternal: without an explicit partitioner, Flink forwards between
      // equal parallelisms and rebalances otherwise.
      vertex.ship = model::ShipStrategy::rebalance;
      continue;
    }
    ctx.error(*locs[i].ship,
              "a forward connection needs equal parallelism: '" + upstream.name + "' has " +
                  std::to_string(upstream.parallelism) + ", '" + vertex.name + "' has " +
                  std::to_string(vertex.parallelism),
              "Flink rejects this job; use 'ship: rebalance' (or rescale) to change the "
              "parallelism");
  }
  const bool has_source = std::any_of(job.vertices.begin(), job.vertices.end(),
                                      [](const model::VertexSpec& v) { return !v.input; });
  if (!has_source && !ctx.has_errors())
    ctx.error(list.loc, "the job has no source: every vertex has an input",
              "a source is a vertex without 'input'");
}

void read_job(Context& ctx, const Entry& job_entry, std::optional<int> default_parallelism,
              const model::SystemsSpec& systems, const model::AsyncLookupConfig& async_lookup,
              model::JobSpec& job) {
  const Node* map = section(ctx, job_entry);
  if (map == nullptr) return;
  const Entry* vertices = map->find("vertices");
  if (vertices == nullptr) {
    ctx.error(job_entry.key_loc, "the job has no 'vertices'", kMinimalJobHint);
  }
  for (const Entry& e : map->entries) {
    if (e.key == "name") {
      if (auto v = detail::read_name(ctx, e.value, "the job name")) job.name = *v;
    } else if (e.key == "vertices") {
      read_vertices(ctx, e.value, default_parallelism, systems, async_lookup, job);
    } else {
      unknown_key(ctx, e, "job", {"name", "vertices"});
    }
  }
}

// ---- timeline:

struct ActionInfo {
  std::string name;
  model::ActionKind kind;
  std::vector<std::string> keys;  // besides at and do
};

const std::vector<ActionInfo>& actions() {
  using model::ActionKind;
  static const std::vector<ActionInfo> list = {
      {"stop-with-savepoint", ActionKind::stop_with_savepoint, {}},
      {"start", ActionKind::start, {"state", "flink"}},
      {"trigger-savepoint", ActionKind::trigger_savepoint, {}},
      {"trigger-checkpoint", ActionKind::trigger_checkpoint, {}},
      {"stall", ActionKind::stall, {"vertex", "subtask", "for", "interruptible"}},
      {"fail-task", ActionKind::fail_task, {"vertex", "subtask"}},
      {"cancel", ActionKind::cancel, {}},
      {"set-rate", ActionKind::set_rate, {"vertex", "rate"}},
      {"hold-checkpoint-lock", ActionKind::hold_checkpoint_lock, {"vertex", "for"}},
      {"gc-pause", ActionKind::gc_pause, {"taskmanager", "for"}},
      {"lose-taskmanager", ActionKind::lose_taskmanager, {"taskmanager"}},
      {"fire-timers", ActionKind::fire_timers, {"vertex", "count", "cost", "api"}},
      {"coordinator-busy", ActionKind::coordinator_busy, {"coordinator", "for", "work"}},
      {"slow-down", ActionKind::slow_down, {"vertex", "subtask", "factor", "for"}},
  };
  return list;
}

void read_start_state(Context& ctx, const Node& node, model::TimelineAction& action) {
  const char* hint =
      "allowed values: savepoint (the latest), latest (checkpoint or savepoint), "
      "none, or a checkpoint id such as 3";
  if (!node.is_scalar()) {
    ctx.error(node.loc, "expected a start state, got " + detail::describe(node), hint);
    return;
  }
  const std::string value = detail::to_lower(detail::trim(node.text));
  if (value == "savepoint") {
    action.start_state = model::StartState::latest_savepoint;
  } else if (value == "latest") {
    action.start_state = model::StartState::latest;
  } else if (value == "none") {
    action.start_state = model::StartState::none;
  } else if (!value.empty() &&
             std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (auto id = detail::read_int64(ctx, node, "a checkpoint id", 1,
                                     std::numeric_limits<std::int64_t>::max())) {
      action.start_state = model::StartState::checkpoint;
      action.checkpoint_id = *id;
    }
  } else {
    const std::string suggestion = detail::did_you_mean(value, {"savepoint", "latest", "none"});
    ctx.error(node.loc, "unknown start state '" + node.text + "'",
              suggestion.empty() ? hint : suggestion + " " + hint);
  }
}

// `start` with `flink:`: the scenario's flink block with these keys laid over it, read again,
// so the new submission's options are what Flink would resolve. Only the options the JobManager
// reads at a submission (checkpointing, restart strategy, checkpoint directories) can change.
void read_start_flink(Context& ctx, const Node& map, const model::Scenario& scenario,
                      const Entry* flink_section, model::TimelineAction& action) {
  if (!detail::expect_map(ctx, map, "a map of Flink options such as "
                                    "'{execution.checkpointing.interval: 1 min}'"))
    return;
  Node merged;
  merged.kind = Node::Kind::map;
  merged.loc = map.loc;
  if (flink_section != nullptr && flink_section->value.is_map()) merged = flink_section->value;
  bool ok = true;
  for (const Entry& e : map.entries) {
    const bool allowed = e.key.starts_with("execution.checkpointing.") ||
                         e.key.starts_with("restart-strategy") ||
                         e.key == "state.checkpoints.dir" || e.key == "state.savepoints.dir" ||
                         e.key == "execution.checkpointing.interval";
    if (!allowed) {
      ctx.error(e.key_loc, "'" + e.key + "' cannot change at a start in ckptsim",
                "a start may change execution.checkpointing.*, restart-strategy.* and the "
                "checkpoint directories");
      ok = false;
      continue;
    }
    auto it = std::find_if(merged.entries.begin(), merged.entries.end(),
                           [&](const Entry& m) { return m.key == e.key; });
    if (it != merged.entries.end())
      it->value = e.value;
    else
      merged.entries.push_back(e);
  }
  if (!ok) return;
  auto config = std::make_shared<model::FlinkConfig>();
  std::optional<int> default_parallelism;
  detail::read_flink(ctx, merged, *config, default_parallelism);
  config->heartbeat_timeout = scenario.flink.heartbeat_timeout;
  action.flink = std::move(config);
}

// When an action happens besides a plain `at` (docs/scenario-format.md, "When an action
// happens"): after every start of the job, at a checkpoint, again and again, or until a restart.
const std::vector<std::string> kWhenKeys = {"after-start", "at-checkpoint", "at-phase", "of", "on",
                                            "after", "every", "times", "until"};

bool read_when(Context& ctx, const Node& item, const ActionInfo* info,
               model::TimelineAction& action) {
  using model::ActionAnchor;
  const Entry* at = item.find("at");
  const Entry* after_start = item.find("after-start");
  const Entry* at_checkpoint = item.find("at-checkpoint");
  const Entry* at_phase = item.find("at-phase");
  const int anchors = (at != nullptr) + (after_start != nullptr) + (at_checkpoint != nullptr) +
                      (at_phase != nullptr);
  const char* when_hint =
      "write one of 'at: 10 min', 'after-start: 30 s' (after every start of the job), "
      "'at-checkpoint: 3' (when checkpoint 3 completes) or 'at-phase: stream-started' with "
      "'of: <CDC source>'";
  if (anchors == 0) {
    ctx.error(item.loc, "timeline entry has no 'at'", when_hint);
    return false;
  }
  if (anchors > 1) {
    ctx.error(item.loc,
              "a timeline entry takes one of 'at', 'after-start', 'at-checkpoint' and 'at-phase'",
              when_hint);
    return false;
  }
  bool ok = true;
  const auto reject = [&](const char* key, const std::string& why) {
    if (const Entry* e = item.find(key)) {
      ctx.error(e->key_loc, why);
      ok = false;
    }
  };
  if (after_start != nullptr) {
    action.anchor = ActionAnchor::job_running;
    if (auto d = detail::read_duration(ctx, after_start->value))
      action.offset = *d;
    else
      ok = false;
  }
  // `after:` delays an anchored action (at-checkpoint, at-phase).
  const auto read_after = [&] {
    if (const Entry* after = item.find("after")) {
      if (auto d = detail::read_duration(ctx, after->value))
        action.offset = *d;
      else
        ok = false;
    }
  };
  if (at_phase != nullptr) {
    action.anchor = ActionAnchor::connector_phase;
    if (auto choice = detail::read_choice(ctx, at_phase->value, "connector phase",
                                          {"snapshot-started", "snapshot-finished",
                                           "stream-started"}))
      action.phase = static_cast<model::ConnectorPhase>(*choice);
    else
      ok = false;
    if (const Entry* of = item.find("of")) {
      if (auto name = detail::read_string(ctx, of->value)) action.phase_of = *name; else ok = false;
    } else {
      ctx.error(at_phase->key_loc, "'at-phase' needs 'of': the CDC source whose phase it is",
                "write e.g. 'of: \"Source: MySQL CDC\"'");
      ok = false;
    }
    read_after();
  } else {
    reject("of", "'of' belongs to 'at-phase'");
  }
  if (at_checkpoint != nullptr) {
    action.anchor = ActionAnchor::checkpoint_completed;
    const std::string text = at_checkpoint->value.is_scalar()
                                 ? detail::to_lower(detail::trim(at_checkpoint->value.text))
                                 : "";
    const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
      return c >= '0' && c <= '9';
    });
    if (digits) {
      if (auto id = detail::read_int64(ctx, at_checkpoint->value, "a checkpoint id", 1,
                                       std::numeric_limits<std::int64_t>::max()))
        action.checkpoint = *id;
      else
        ok = false;
    } else if (text != "every") {
      ctx.error(at_checkpoint->value.loc,
                "expected a checkpoint id or 'every', got " +
                    detail::describe(at_checkpoint->value),
                "write e.g. 'at-checkpoint: 3' or 'at-checkpoint: every'");
      ok = false;
    }
    if (const Entry* on = item.find("on")) {
      if (auto choice = detail::read_choice(ctx, on->value, "checkpoint event",
                                            {"completed", "triggered"}))
        action.anchor = *choice == 0u ? ActionAnchor::checkpoint_completed
                                      : ActionAnchor::checkpoint_triggered;
      else
        ok = false;
    }
    read_after();
  } else {
    reject("on", "'on' belongs to 'at-checkpoint' (on: triggered or completed)");
    if (at_phase == nullptr)
      reject("after", "'after' belongs to 'at-checkpoint' and 'at-phase'; write 'after-start: "
                      "30 s' for a time after the job starts");
  }
  if (const Entry* every = item.find("every")) {
    if (auto d = detail::read_duration(ctx, every->value)) {
      if (*d < core::milliseconds(10)) {
        ctx.error(every->value.loc, "'every' must be at least 10 ms");
        ok = false;
      }
      action.repeat_every = *d;
      action.times = 0;  // until the end of the run unless 'times' says otherwise
    } else {
      ok = false;
    }
  }
  if (const Entry* times = item.find("times")) {
    if (item.find("every") == nullptr) {
      ctx.error(times->key_loc, "'times' needs 'every'", "write e.g. 'every: 5 min, times: 3'");
      ok = false;
    } else if (auto n = detail::read_int(ctx, times->value, "times", 1)) {
      if (*n > (1 << 24) - 1) {
        ctx.error(times->value.loc, "'times' must be at most 16777215");
        ok = false;
      }
      action.times = *n;
    } else {
      ok = false;
    }
  }
  if (const Entry* until = item.find("until")) {
    if (info != nullptr && info->kind != model::ActionKind::stall &&
        info->kind != model::ActionKind::slow_down &&
        info->kind != model::ActionKind::coordinator_busy) {
      ctx.error(until->key_loc, "'until' applies to 'stall', 'slow-down' and 'coordinator-busy' only");
      ok = false;
    } else if (auto choice = detail::read_choice(ctx, until->value, "until", {"restart"})) {
      action.until_restart = *choice == 0u;
    } else {
      ok = false;
    }
  }
  return ok;
}

void read_action(Context& ctx, const Node& item, const model::JobSpec& job,
                 const model::Scenario& scenario, const Entry* flink_section,
                 std::vector<model::TimelineAction>& out) {
  if (!detail::expect_map(ctx, item, "a timeline entry such as '{at: 10 min, do: cancel}'")) return;
  std::vector<std::string> action_names;
  std::vector<std::string> all_keys = {"at", "do"};
  all_keys.insert(all_keys.end(), kWhenKeys.begin(), kWhenKeys.end());
  for (const ActionInfo& a : actions()) {
    action_names.push_back(a.name);
    for (const std::string& k : a.keys)
      if (std::find(all_keys.begin(), all_keys.end(), k) == all_keys.end()) all_keys.push_back(k);
  }
  model::TimelineAction action;
  const ActionInfo* info = nullptr;
  bool ok = true;
  const Entry* system_op = item.find("do");
  if (system_op != nullptr && system_op->value.is_scalar() &&
      system_op->value.text.find('.') != std::string::npos) {
    ok = detail::read_system_action(ctx, item, *system_op, scenario, action);
    if (const Entry* at = item.find("at"); at == nullptr) {
      ctx.error(item.loc, "timeline entry has no 'at'", "write when it happens, e.g. 'at: 10 min'");
      ok = false;
    } else if (auto when = detail::read_duration(ctx, at->value)) {
      action.at = *when;
    } else {
      ok = false;
    }
    if (ok) out.push_back(std::move(action));
    return;
  }
  if (const Entry* what = item.find("do")) {
    if (auto index = detail::read_choice(ctx, what->value, "timeline action", action_names)) {
      info = &actions()[*index];
      action.kind = info->kind;
    } else {
      ok = false;
    }
  } else {
    ctx.error(item.loc, "timeline entry has no 'do'",
              "actions: " + detail::join(action_names, ", "));
    ok = false;
  }
  const Entry* at = item.find("at");
  if (!read_when(ctx, item, info, action)) {
    ok = false;
  } else if (action.anchor == model::ActionAnchor::connector_phase) {
    // The phases are a CDC source's (its readers' snapshot, the stream split's assignment).
    const Entry* of = item.find("of");
    const auto source = std::find_if(job.vertices.begin(), job.vertices.end(), [&](const model::VertexSpec& v) {
      return v.name == action.phase_of;
    });
    if (source == job.vertices.end() || !source->cdc_source) {
      std::vector<std::string> sources;
      for (const model::VertexSpec& v : job.vertices)
        if (v.cdc_source) sources.push_back(v.name);
      ctx.error(of->value.loc,
                source == job.vertices.end() ? "unknown vertex '" + action.phase_of + "'"
                                             : "'" + action.phase_of + "' is not a CDC source",
                sources.empty() ? "phases belong to CDC sources (connector: mysql-cdc, postgres-cdc, ...)"
                                : "CDC sources: " + detail::join(sources, ", "));
      ok = false;
    }
  } else if (at != nullptr) {
    if (auto when = detail::read_duration(ctx, at->value)) {
      action.at = *when;
      if (*when > scenario.duration)
        ctx.error(at->value.loc,
                  "this action at " + detail::format_duration(*when) +
                      " comes after the end of the run (duration: " +
                      detail::format_duration(scenario.duration) + ")",
                  "make 'duration' longer or move the action earlier");
    } else {
      ok = false;
    }
  }
  const Entry* vertex_entry = nullptr;
  for (const Entry& e : item.entries) {
    if (e.key == "at" || e.key == "do" ||
        std::find(kWhenKeys.begin(), kWhenKeys.end(), e.key) != kWhenKeys.end())
      continue;
    if (std::find(all_keys.begin(), all_keys.end(), e.key) == all_keys.end()) {
      unknown_key(ctx, e, "timeline", all_keys);
      ok = false;
      continue;
    }
    if (info == nullptr) continue;
    if (std::find(info->keys.begin(), info->keys.end(), e.key) == info->keys.end()) {
      ctx.error(e.key_loc, "'" + e.key + "' does not apply to '" + info->name + "'",
                info->keys.empty()
                    ? "'" + info->name + "' takes only 'at' and 'do'"
                    : "'" + info->name + "' takes: " + detail::join(info->keys, ", "));
      ok = false;
      continue;
    }
    if (e.key == "state") {
      read_start_state(ctx, e.value, action);
    } else if (e.key == "flink") {
      read_start_flink(ctx, e.value, scenario, flink_section, action);
    } else if (e.key == "vertex") {
      vertex_entry = &e;
      if (auto name = detail::read_string(ctx, e.value)) action.vertex = *name;
    } else if (e.key == "subtask") {
      if (auto subtask = detail::read_int(ctx, e.value, "subtask", 0)) action.subtask = *subtask;
    } else if (e.key == "count") {
      if (auto n = detail::read_int64(ctx, e.value, "count", 1,
                                      std::numeric_limits<std::int64_t>::max()))
        action.timers = *n;
    } else if (e.key == "cost") {
      if (auto d = detail::read_duration(ctx, e.value)) action.duration = *d;
    } else if (e.key == "api") {
      if (auto api = detail::read_enum<bool>(ctx, e.value, "the operator's API",
                                             {{"datastream", false}, {"sql", true}, {"cep", true}}))
        action.timers_interruptible_operator = *api;
    } else if (e.key == "rate") {
      if (auto r = detail::read_rate(ctx, e.value, false)) action.rate = *r;
    } else if (e.key == "taskmanager") {
      // 1-based, as the TaskManagers are named in the log (ckptsim-taskmanager-1).
      if (auto tm = detail::read_int(ctx, e.value, "taskmanager", 1)) {
        if (*tm > scenario.cluster.taskmanagers)
          ctx.error(e.value.loc, "there is no TaskManager " + std::to_string(*tm),
                    "cluster.taskmanagers is " + std::to_string(scenario.cluster.taskmanagers));
        action.taskmanager = *tm - 1;
      }
    } else if (e.key == "coordinator") {
      if (auto name = detail::read_string(ctx, e.value)) {
        action.coordinator = *name;
        const auto& steps = scenario.jobmanager.master_steps;
        const auto step = std::find_if(steps.begin(), steps.end(),
                                       [&](const model::MasterStepSpec& m) { return m.name == *name; });
        const bool cdc = std::any_of(job.vertices.begin(), job.vertices.end(), [&](const auto& v) {
          return v.name == *name &&
                 ((v.cdc_source && v.cdc_source->incremental_snapshot) || v.hudi_sink);
        });
        if (step != steps.end() && step->is_hook) {
          ctx.error(e.value.loc, "'" + *name + "' is a master hook; coordinator-busy takes an "
                                 "operator coordinator (a hook has no thread of its own)");
        } else if (step == steps.end() && !cdc) {
          std::vector<std::string> names;
          for (const auto& m : steps)
            if (!m.is_hook) names.push_back(m.name);
          for (const auto& v : job.vertices)  // the connectors' own coordinators
            if ((v.cdc_source && v.cdc_source->incremental_snapshot) || v.hudi_sink)
              names.push_back(v.name);
          std::string hint = detail::did_you_mean(*name, names);
          if (hint.empty())
            hint = names.empty() ? "declare it under jobmanager.coordinators"
                                 : "coordinators: " + detail::join(names, ", ");
          ctx.error(e.value.loc, "unknown operator coordinator '" + *name + "'", hint);
        }
      }
    } else if (e.key == "interruptible") {
      if (auto b = detail::read_bool(ctx, e.value)) action.interruptible = *b;
    } else if (e.key == "factor") {
      // As a system's slow-down: the share of its speed it keeps (0.1: ten times slower).
      if (auto x = detail::read_double(ctx, e.value, "factor", 0.0, 1e6)) {
        if (*x <= 0)
          ctx.error(e.value.loc, "a slow-down's factor must be above 0 (the share of its speed "
                                 "it keeps)", "write 'do: stall' for a vertex that stops");
        action.factor = *x;
      }
    } else if (e.key == "work") {
      if (auto text = detail::read_string(ctx, e.value)) action.work = *text;
    } else if (e.key == "for") {
      const std::string text =
          e.value.is_scalar() ? detail::to_lower(detail::trim(e.value.text)) : "";
      if (text == "ever" || text == "for ever" || text == "forever")
        action.duration.reset();
      else if (auto d = detail::read_duration(ctx, e.value))
        action.duration = *d;
    }
  }
  using K = model::ActionKind;
  if (info != nullptr && (info->kind == K::gc_pause || info->kind == K::lose_taskmanager) &&
      item.find("taskmanager") == nullptr) {
    ctx.error(item.loc, "'" + info->name + "' needs a 'taskmanager'",
              "write e.g. 'taskmanager: 1' (TaskManagers are numbered from 1)");
    ok = false;
  }
  if (info != nullptr && info->kind == K::gc_pause && !action.duration) {
    ctx.error(item.loc, "'gc-pause' needs 'for'", "write e.g. 'for: 20 s'");
    ok = false;
  }
  if (info != nullptr && info->kind == K::fire_timers &&
      (item.find("count") == nullptr || item.find("cost") == nullptr)) {
    ctx.error(item.loc, "'fire-timers' needs 'count' and 'cost'",
              "write e.g. 'count: 200000, cost: 20 us' (per subtask, per timer)");
    ok = false;
  }
  if (info != nullptr && info->kind == K::coordinator_busy && item.find("coordinator") == nullptr) {
    ctx.error(item.loc, "'coordinator-busy' needs a 'coordinator'",
              "write e.g. 'coordinator: Source Enumerator' (a name under jobmanager.coordinators)");
    ok = false;
  }
  if (info != nullptr && info->kind == K::coordinator_busy && action.work.empty())
    action.work = "work of its own";
  if (info != nullptr && info->kind == K::slow_down && item.find("factor") == nullptr) {
    ctx.error(item.loc, "'slow-down' needs a 'factor'",
              "write e.g. 'factor: 0.1' (the vertex works at a tenth of its speed)");
    ok = false;
  }
  if (info != nullptr && info->kind == K::set_rate && item.find("rate") == nullptr) {
    ctx.error(item.loc, "'set-rate' needs a 'rate'", "write e.g. 'rate: 0 records/s'");
    ok = false;
  }
  if (info != nullptr && (info->kind == K::stall || info->kind == K::fail_task ||
                          info->kind == K::slow_down ||
                          info->kind == K::set_rate || info->kind == K::hold_checkpoint_lock ||
                          info->kind == K::fire_timers)) {
    if (vertex_entry == nullptr) {
      ctx.error(item.loc, "'" + info->name + "' needs a 'vertex'",
                "vertices: " + detail::join(vertex_names(job), ", "));
      ok = false;
    } else if (!action.vertex.empty()) {
      const auto v =
          std::find_if(job.vertices.begin(), job.vertices.end(),
                       [&](const model::VertexSpec& s) { return s.name == action.vertex; });
      if (v == job.vertices.end()) {
        std::string hint = detail::did_you_mean(action.vertex, vertex_names(job));
        if (hint.empty()) hint = "vertices: " + detail::join(vertex_names(job), ", ");
        ctx.error(vertex_entry->value.loc, "unknown vertex '" + action.vertex + "'", hint);
        ok = false;
      } else if ((info->kind == K::set_rate || info->kind == K::hold_checkpoint_lock) &&
                 v->input) {
        ctx.error(vertex_entry->value.loc,
                  "'" + info->name + "' applies to a source; '" + v->name + "' has an input");
        ok = false;
      } else if (info->kind == K::hold_checkpoint_lock && !v->legacy_source) {
        ctx.error(vertex_entry->value.loc,
                  "only a legacy SourceFunction takes the checkpoint lock; '" + v->name +
                      "' is a FLIP-27 source",
                  "add 'source-api: legacy' to it");
        ok = false;
      } else if (action.subtask && *action.subtask >= v->parallelism) {
        const Entry* subtask = item.find("subtask");
        ctx.error(subtask->value.loc,
                  "'" + v->name + "' has no subtask " + std::to_string(*action.subtask),
                  "its parallelism is " + std::to_string(v->parallelism) + ": subtasks 0 to " +
                      std::to_string(v->parallelism - 1));
        ok = false;
      }
    }
  }
  if (ok) out.push_back(std::move(action));
}

void read_timeline(Context& ctx, const Entry& entry, const model::JobSpec& job,
                   const Entry* flink_section, model::Scenario& scenario) {
  if (entry.value.is_null()) return;
  if (!detail::expect_sequence(ctx, entry.value, "a list of timeline entries")) return;
  // An occurrence's event carries the entry's index in 16 bits (timeline_anchors.cpp).
  if (entry.value.items.size() > 65535) {
    ctx.error(entry.value.loc, "a timeline has at most 65535 entries, this one " +
                                   std::to_string(entry.value.items.size()),
              "use 'every' and 'times' for repeated actions");
    return;
  }
  for (const Node& item : entry.value.items)
    read_action(ctx, item, job, scenario, flink_section, scenario.timeline);
  std::stable_sort(
      scenario.timeline.begin(), scenario.timeline.end(),
      [](const model::TimelineAction& a, const model::TimelineAction& b) { return a.at < b.at; });
}

// ---- the whole scenario

model::Scenario read_scenario(Context& ctx, const Node& root, Expectations& expectations) {
  model::Scenario scenario;
  // A scenario file's cluster spreads as a real one does (docs/scenario-format.md, "Checkpoint
  // storage and RPCs"); a Scenario built in code keeps fixed latencies.
  scenario.cluster.rpc_latency = kRpcLatency;
  scenario.cluster.checkpoint_warm_up = kCheckpointWarmUp;
  scenario.cluster.completed_checkpoint_store_latency = kStoreLatency;
  std::optional<int> default_parallelism;
  const Entry* flink = nullptr;
  const Entry* cluster = nullptr;
  const Entry* jobmanager = nullptr;
  const Entry* job = nullptr;
  const Entry* timeline = nullptr;
  const Entry* systems = nullptr;
  std::vector<std::string> keys = top_level_keys();
  for (const Entry& e : root.entries) {
    if (e.key == "name") {
      if (auto v = detail::read_name(ctx, e.value, "the scenario name")) scenario.name = *v;
    } else if (e.key == "description") {
      if (auto v = detail::read_string(ctx, e.value)) scenario.description = *v;
    } else if (e.key == "seed") {
      if (auto v = detail::read_uint64(ctx, e.value)) scenario.seed = *v;
    } else if (e.key == "start") {
      if (!e.value.is_scalar()) {
        ctx.error(e.value.loc, "expected a UTC date and time such as '2024-07-10 12:30:00', got " +
                                   detail::describe(e.value));
      } else if (auto ms = parse_start(e.value.text)) {
        scenario.start_epoch_ms = *ms;
      } else {
        ctx.error(e.value.loc,
                  "expected a UTC date and time such as '2024-07-10 12:30:00', got " +
                      detail::describe(e.value),
                  "write YYYY-MM-DD HH:MM:SS");
      }
    } else if (e.key == "duration") {
      if (auto v = detail::read_duration(ctx, e.value)) {
        if (*v <= 0)
          ctx.error(e.value.loc, "the duration of the run must be positive", "write e.g. '30 min'");
        else
          scenario.duration = *v;
      }
    } else if (e.key == "network") {
      if (auto v = detail::read_enum<model::NetworkMode>(
              ctx, e.value, "network mode",
              {{"exact", model::NetworkMode::exact}, {"hybrid", model::NetworkMode::hybrid}}))
        scenario.network = *v;
    } else if (e.key == "flink") {
      flink = &e;
    } else if (e.key == "cluster") {
      cluster = &e;
    } else if (e.key == "jobmanager") {
      jobmanager = &e;
    } else if (e.key == "job") {
      job = &e;
    } else if (e.key == "timeline") {
      timeline = &e;
    } else if (e.key == "flink-conf") {
      // laid under the flink block when the document was read (add_flink_conf_files)
    } else if (e.key == "systems") {
      systems = &e;
    } else if (e.key == "expect") {
      expectations.present = true;
      detail::read_expectations(ctx, e.value, expectations);
    } else {
      unknown_key(ctx, e, "scenario", keys);
    }
  }
  if (flink != nullptr) {
    if (const Node* map = section(ctx, *flink))
      detail::read_flink(ctx, *map, scenario.flink, default_parallelism);
  } else {
    model::resolve_defaults(scenario.flink, false, false);
  }
  if (scenario.flink.task_slots) scenario.cluster.slots_per_taskmanager = *scenario.flink.task_slots;
  if (cluster == nullptr || cluster->value.is_null())
    detail::read_checkpoint_storage(ctx, nullptr, root.loc, scenario.flink,
                                    scenario.cluster.checkpoint_storage);
  else if (const Node* map = section(ctx, *cluster))
    read_cluster(ctx, *map, scenario.flink, scenario.cluster);
  if (jobmanager != nullptr)
    if (const Node* map = section(ctx, *jobmanager))
      read_jobmanager(ctx, *map, scenario.jobmanager);
  if (systems != nullptr && !systems->value.is_null())
    detail::read_systems(ctx, systems->value, scenario.systems);
  if (job == nullptr)
    ctx.error(root.loc, "the scenario has no 'job'", kMinimalJobHint);
  else
    read_job(ctx, *job, default_parallelism, scenario.systems, scenario.flink.async_lookup,
             scenario.job);
  // table.exec.async-lookup.* are the defaults of async calls: without one they change nothing.
  const bool async_calls = std::any_of(scenario.job.vertices.begin(), scenario.job.vertices.end(), [](const auto& v) {
    return std::any_of(v.calls.begin(), v.calls.end(),
                       [](const model::ServiceCallsSpec& c) { return c.mode != model::CallMode::sync; });
  });
  if (flink != nullptr && !async_calls)
    for (const Entry& e : flink->value.entries)
      if (e.key.starts_with("table.exec.async-lookup."))
        ctx.warning(e.key_loc,
                    "'" + e.key + "' sets the defaults of async lookup calls and no vertex makes one: it "
                    "has no effect",
                    "give the looking-up vertex 'calls: {system: <service>, mode: async}', or remove it");
  if (timeline != nullptr) read_timeline(ctx, *timeline, scenario.job, flink, scenario);
  return scenario;
}

// `flink-conf:` (a path or a list, relative to the file that names it), then --flink-conf.
void add_flink_conf_files(Context& ctx, Node& root, const std::vector<std::string>& extra) {
  if (const Entry* conf = root.find("flink-conf")) {
    std::vector<const Node*> paths;
    if (conf->value.is_scalar()) paths.push_back(&conf->value);
    if (conf->value.is_sequence())
      for (const Node& item : conf->value.items) paths.push_back(&item);
    const bool valid = !paths.empty() && std::all_of(paths.begin(), paths.end(), [](const Node* n) {
      return n->is_scalar() && !n->text.empty();
    });
    if (!valid)
      ctx.error(conf->value.loc,
                "expected the path of a Flink configuration file (or a list of them), got " +
                    detail::describe(conf->value),
                "e.g. 'flink-conf: conf/flink-conf.yaml', relative to this file");
    for (const Node* n : valid ? paths : std::vector<const Node*>{}) {
      const std::filesystem::path dir =
          std::filesystem::path(ctx.source_name(n->loc.source)).parent_path();
      detail::add_flink_conf(ctx, root, (dir / n->text).lexically_normal().string(), n->loc);
    }
  }
  for (const std::string& file : extra) detail::add_flink_conf(ctx, root, file, std::nullopt);
}

}  // namespace

LoadResult load_string(std::string_view yaml_text, const std::string& file_name,
                       const std::vector<std::string>& overrides, const LoadLimits& limits) {
  LoadResult result;
  Context ctx(limits);
  try {
    std::optional<Node> root = detail::read_document(ctx, yaml_text, file_name);
    if (root) {
      for (const std::string& o : overrides) detail::apply_override(ctx, *root, o);
      add_flink_conf_files(ctx, *root, limits.flink_conf);
      Expectations expectations;
      model::Scenario scenario = read_scenario(ctx, *root, expectations);
      scenario.file = file_name;
      if (!ctx.has_errors()) {
        result.scenario = std::move(scenario);
        result.expectations = std::move(expectations);
      }
    }
  } catch (const std::exception& e) {
    // Nothing here should throw; if it does, a message beats a crash.
    ctx.error_without_location(file_name, std::string("internal error while reading: ") + e.what());
  }
  result.diagnostics = ctx.take_diagnostics();
  result.errors_not_shown = ctx.errors_not_shown();
  result.warnings = ctx.take_warnings();
  result.notes = ctx.take_notes();
  return result;
}

LoadResult load_file(const std::string& path, const std::vector<std::string>& overrides,
                     const LoadLimits& limits) {
  std::string error;
  const std::optional<std::string> text = read_scenario_text(path, error, limits.max_input_bytes);
  if (!text) {
    LoadResult result;
    result.diagnostics.push_back(
        Diagnostic{path, 0, 0, "cannot open scenario file: " + error, "", "", 1});
    return result;
  }
  return load_string(*text, path, overrides, limits);
}

}  // namespace ckptsim::scenario
