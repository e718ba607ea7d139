// B2 on ns-3 (Debian libns3-dev 3.37): barrier propagation through a back-pressured pipeline
// (aligned checkpoints), the shape of apache/flink-benchmarks CheckpointingTimeBenchmark.
//
// A line-by-line port of bench/peers/b2_simpy.py (read its docstring for the model: the same
// pipeline, parameters and rules as ckptsim's bench/b2_bench.cpp, written from
// sim/model/task_runtime.cpp and the checkpoint coordinator). Only the engine differs:
//
// - Each SimPy process (one per subtask) becomes an event-driven state machine: `Task::state`
//   says where the generator would resume, and `Resume(task)` is the one event that continues
//   it. `yield env.timeout(d)` becomes `Simulator::Schedule(d, &Resume, t)`; `yield wait(t)`
//   (an event another callback succeeds) becomes a flag that `Wake(t)` turns into
//   `Simulator::ScheduleNow(&Resume, t)` (SimPy schedules a succeeded event at the current time,
//   after the ones already there; so does ns-3 for equal time stamps); `yield store.get()` on a
//   non-empty store (the only case the model has) takes the item at once and resumes through
//   `ScheduleNow`, as SimPy's StoreGet does.
// - The periodic-trigger process becomes a self-rescheduling `PeriodicTrigger` event; the
//   timeouts with callbacks (flusher, trigger RPC, acknowledgements) are `Schedule`d functions.
// - The channels' simpy.Store is a std::deque; puts need no event (SimPy's StorePut event does
//   nothing here, no get is ever pending).
// - Time is ns-3's int64 Time at 1 ns (all the model's durations are whole ns); SimPy adds
//   floats, so events that tie here may not tie there.
// - The initial trigger delay is randint(0, 100) ms from a std::mt19937 seeded exactly as
//   Python's random.Random(1) (init_by_array), so it draws the value the SimPy port draws.
//
// usage: b2_ns3 P [SECONDS [map|heap|pq|calendar]]
//   prints one B2RESULT line: engine=ns3 (default MapScheduler) or ns3-<scheduler>, wall/CPU
//   time of Simulator::Run, events = Simulator::GetEventCount() (events ns-3 executed).
// Compiled as C++17: the 3.37 headers do not compile as C++20.
#include <ns3/nstime.h>
#include <ns3/object-factory.h>
#include <ns3/simulator.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "phold_common.hpp"  // Timer (wall and CPU), peak_rss_kib

namespace {

using ns3::NanoSeconds;
using ns3::Simulator;

constexpr std::int64_t kNs = 1;
constexpr std::int64_t kUs = 1000 * kNs;
constexpr std::int64_t kMs = 1000 * kUs;
constexpr std::int64_t kS = 1000 * kMs;

constexpr std::int64_t SEGMENT = 32 * 1024;        // taskmanager.memory.segment-size
constexpr std::int64_t RECORD = 1024;              // bytes per record (UNALIGNED_RECORD_SIZE)
constexpr std::int64_t BUFFER_TIMEOUT = 100 * kMs; // execution.buffer-timeout
constexpr int EXCLUSIVE = 2;                       // buffers-per-channel
constexpr int FLOATING = 8;                        // floating-buffers-per-gate
constexpr int MAX_PER_CHANNEL = 10;                // max-buffers-per-channel
constexpr std::int64_t INTERVAL = 100 * kMs;       // checkpoint interval
constexpr std::int64_t DEPLOY = 500 * kMs;         // SCHEDULED -> RUNNING
constexpr std::int64_t RPC = 1 * kMs;              // JM <-> TM
constexpr std::int64_t STORAGE_LATENCY = 30 * kMs; // checkpoint storage latency (0-byte upload)
constexpr double SOURCE_RATE = 1e6;                // records/s without back-pressure
constexpr double STEP_S = 32e-6;                   // as the SimPy port (fractional records)
constexpr std::int64_t STEP = 32 * kUs;            // one buffer's worth at SOURCE_RATE
constexpr std::int64_t COST[3] = {1 * kUs, 1 * kUs, 1 * kMs};  // Source, Map, Sink per record
constexpr int MAX_QUEUED_REQUESTS = 1000;

enum Kind : std::uint8_t { DATA, BARRIER };
struct Buf {
  Kind kind;
  std::int64_t records;
  std::int64_t bytes;
  std::int64_t id;
};

struct Task;

struct Channel {
  Task* producer;
  Task* consumer;
  std::size_t index;
  bool local;
  std::deque<Buf> sub;    // the result subpartition
  int backlog = 0;        // data buffers in the subpartition
  std::deque<Buf> store;  // the input channel: what was handed to the consumer
  int credits;
  int floating = 0;
  bool blocked = false;
  std::int64_t open_bytes = 0;  // the BufferBuilder being filled
  std::int64_t open_records = 0;
  Channel(Task* p, Task* c, std::size_t i, bool l)
      : producer(p), consumer(c), index(i), local(l), credits(l ? 1 : EXCLUSIVE) {}
};

// Where the subtask's SimPy generator would resume.
enum class State : std::uint8_t {
  kLoop,  // after the deploy timeout or a wake: back to the top of the loop
  kStep,  // source: after the 32 us read
  kProc,  // after processing `records`: write them
  kGet,   // task: after store.get() of `cur`
  kSync,  // after checkpoint_state's timeout(0) for `sync_cp`
};

struct Task {
  int vertex;
  int index;
  std::vector<Channel*> inputs, outputs;
  std::size_t rr_next;  // RebalancePartitioner starts at the subtask index
  int pool = 0;
  int partition_buffers = 0;
  int full_subpartitions = 0;
  int floating_free = 0;
  bool waiting_output = false;
  bool waiting = false;  // SimPy's wake_ev is not None
  bool flush_scheduled = false;
  std::deque<std::int64_t> triggers;
  std::int64_t current = -1;  // barrier handler: checkpoint being aligned / last
  bool pending = false;
  std::vector<bool> seen;
  std::size_t nseen = 0;
  std::size_t next_input = 0;
  double fractional = 0.0;
  std::int64_t cost;
  // the state machine
  State state = State::kLoop;
  std::int64_t records = 0;
  Buf cur{};
  Channel* cur_c = nullptr;
  std::int64_t sync_cp = 0;
  Task(int v, int i) : vertex(v), index(i), rr_next(static_cast<std::size_t>(i)), cost(COST[v]) {}
};

// --- Python's random.Random(seed).randint on std::mt19937 ------------------------------------
// std::mt19937::seed(Sseq&) takes its 624 state words from Sseq::generate; this one generates
// what CPython's init_by_array([seed]) leaves in the state (mt[0] = 0x80000000 included), so
// the engine's outputs are CPython's.
struct PythonSeed {
  using result_type = std::uint32_t;
  std::uint32_t key;
  template <class It>
  void generate(It first, It last) const {
    constexpr int N = 624;
    std::uint32_t mt[N];
    mt[0] = 19650218U;
    for (int i = 1; i < N; ++i)
      mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + static_cast<std::uint32_t>(i);
    int i = 1, j = 0;
    const int key_length = 1;
    for (int k = std::max(N, key_length); k; --k) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key + static_cast<std::uint32_t>(j);
      ++i;
      ++j;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key_length) j = 0;
    }
    for (int k = N - 1; k; --k) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - static_cast<std::uint32_t>(i);
      ++i;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000U;
    for (int k = 0; first != last && k < N; ++first, ++k) *first = mt[k];
  }
};

// random.randint(a, b): a + _randbelow(b - a + 1) with getrandbits(k) rejection (k <= 32).
std::int64_t python_randint(std::mt19937& g, std::int64_t a, std::int64_t b) {
  const std::uint32_t n = static_cast<std::uint32_t>(b - a + 1);
  int k = 0;
  while ((n >> k) != 0) ++k;  // n.bit_length()
  std::uint32_t r = static_cast<std::uint32_t>(g()) >> (32 - k);
  while (r >= n) r = static_cast<std::uint32_t>(g()) >> (32 - k);
  return a + r;
}

// --- the pipeline ----------------------------------------------------------------------------
struct Pipeline {
  int p = 0;
  std::mt19937 rng;
  std::uint64_t buffers = 0;  // buffers and events handed to input channels
  std::vector<std::int64_t> durations;
  int failed = 0;
  int queued = 0;  // periodic trigger requests waiting
  bool in_flight = false;
  std::int64_t in_flight_id = 0, in_flight_start = 0;
  int in_flight_acks = 0;
  std::int64_t next_id = 1;
  std::vector<std::vector<Task*>> tasks;
  std::vector<Channel*> channels;
};
Pipeline g;

std::int64_t Now() { return Simulator::Now().GetNanoSeconds(); }

void Resume(Task* t);
void Flush(Task* t);
void Ack(std::int64_t cp);
void TriggerSources(std::int64_t cp);

// --- network ---------------------------------------------------------------------------------
void Wait(Task* t) { t->waiting = true; }

void Wake(Task* t) {
  if (t->waiting) {
    t->waiting = false;
    Simulator::ScheduleNow(&Resume, t);
  }
}

bool OutputAvailable(const Task* t) {
  return t->outputs.empty() || (t->partition_buffers < t->pool && t->full_subpartitions == 0);
}

void ChangeBacklog(Channel* c, int delta) {
  Task* p = c->producer;
  const bool was_full = c->backlog >= MAX_PER_CHANNEL;
  c->backlog += delta;
  p->partition_buffers += delta;
  const bool full = c->backlog >= MAX_PER_CHANNEL;
  if (full != was_full) p->full_subpartitions += full ? 1 : -1;
}

void RequestFloating(Channel* c) {
  if (c->local) return;
  Task* consumer = c->consumer;
  while (c->credits < c->backlog && consumer->floating_free > 0) {
    --consumer->floating_free;
    ++c->floating;
    ++c->credits;
  }
}

// Hands buffers from the subpartition to the input channel while there is credit.
void Pump(Channel* c) {
  bool moved = false;
  while (!c->blocked && !c->sub.empty()) {
    const Buf head = c->sub.front();
    if (head.kind == DATA) {
      if (c->credits <= 0) {
        RequestFloating(c);
        if (c->credits <= 0) break;  // data needs credit, events do not
      }
      --c->credits;
      ChangeBacklog(c, -1);
    }
    c->sub.pop_front();
    c->store.push_back(head);
    ++g.buffers;
    moved = true;
    if (head.kind == BARRIER) c->blocked = true;  // aligned: blocks until resumeConsumption
  }
  if (moved) {
    Wake(c->consumer);
    if (c->producer->waiting_output) Wake(c->producer);
  }
}

void AddToSubpartition(Channel* c, const Buf& buf) {
  c->sub.push_back(buf);
  if (buf.kind == DATA) ChangeBacklog(c, 1);
  Pump(c);
}

// A consumed buffer returns: a floating one to the gate, an exclusive one as credit.
void Recycle(Channel* c) {
  Task* consumer = c->consumer;
  if (!c->local && c->floating > 0 && c->backlog <= c->credits) {
    --c->floating;
    ++consumer->floating_free;
    for (Channel* other : consumer->inputs) {
      if (other != c && !other->local && other->backlog > other->credits && !other->blocked) {
        Pump(other);
        break;
      }
    }
    return;
  }
  ++c->credits;
  Pump(c);
}

void ResumeConsumption(Channel* c) {
  c->blocked = false;
  Pump(c);
}

void ScheduleFlush(Task* t) {
  if (!t->flush_scheduled) {
    t->flush_scheduled = true;
    Simulator::Schedule(NanoSeconds(BUFFER_TIMEOUT), &Flush, t);
  }
}

void AppendToBuilder(Channel* c, std::int64_t records) {
  c->open_records += records;
  c->open_bytes += records * RECORD;
  while (c->open_bytes >= SEGMENT) {  // a full BufferBuilder becomes a finished buffer
    const double exact = static_cast<double>(c->open_records) * static_cast<double>(SEGMENT) /
                         static_cast<double>(c->open_bytes);
    const std::int64_t recs =
        std::max<std::int64_t>(1, std::min<std::int64_t>(c->open_records,
                                                         static_cast<std::int64_t>(std::floor(exact + 0.5))));
    c->open_bytes -= SEGMENT;
    c->open_records -= recs;
    if (c->open_records <= 0) c->open_records = c->open_bytes = 0;
    AddToSubpartition(c, Buf{DATA, recs, SEGMENT, 0});
  }
  if (c->open_bytes > 0) ScheduleFlush(c->producer);
}

void FinishBuilder(Channel* c) {
  if (c->open_bytes > 0) {
    const Buf buf{DATA, c->open_records, c->open_bytes, 0};
    c->open_bytes = c->open_records = 0;
    AddToSubpartition(c, buf);
  }
}

void Flush(Task* t) {
  t->flush_scheduled = false;
  for (Channel* c : t->outputs) FinishBuilder(c);
  ScheduleFlush(t);  // the OutputFlusher ticks on
}

// RebalancePartitioner: round robin record by record over the output channels.
void WriteRecords(Task* t, std::int64_t records) {
  if (records <= 0 || t->outputs.empty()) return;
  const std::size_t n = t->outputs.size();
  const std::int64_t base = records / static_cast<std::int64_t>(n);
  const std::size_t extra = static_cast<std::size_t>(records % static_cast<std::int64_t>(n));
  const std::size_t start = t->rr_next;
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t share = base + (k < extra ? 1 : 0);
    if (share) AppendToBuilder(t->outputs[(start + k) % n], share);
  }
  t->rr_next = (start + extra) % n;
}

// --- checkpoints -----------------------------------------------------------------------------
// checkpoint_state up to its `yield env.timeout(0)` (the sync snapshot, 0 here); the rest runs
// in Resume's kSync case.
void CheckpointState(Task* t, std::int64_t cp) {
  // The barrier goes downstream before the sync phase (after the open builders).
  for (Channel* c : t->outputs) {
    FinishBuilder(c);
    AddToSubpartition(c, Buf{BARRIER, 0, 0, cp});
  }
  t->state = State::kSync;
  t->sync_cp = cp;
  Simulator::Schedule(NanoSeconds(0), &Resume, t);
}

void AfterSync(Task* t) {
  for (Channel* c : t->inputs)  // resumeConsumption after the sync part
    if (c->blocked) ResumeConsumption(c);
  // Async part: storage latency (the state is empty), then the ack RPC.
  Simulator::Schedule(NanoSeconds(STORAGE_LATENCY + RPC), &Ack, t->sync_cp);
}

// Returns true when the subtask yielded (the alignment completed: checkpoint_state runs).
bool ProcessBarrier(Task* t, Channel* c, std::int64_t cp) {
  if (cp < t->current || (cp == t->current && !t->pending)) {
    ResumeConsumption(c);  // obsolete barrier
    return false;
  }
  if (cp > t->current) {
    if (t->pending) {  // subsumed: never happens with one checkpoint at a time
      std::fprintf(stderr, "subsumed alignment\n");
      std::abort();
    }
    t->current = cp;
    t->pending = true;
    t->seen.assign(t->inputs.size(), false);
    t->nseen = 0;
  }
  if (!t->seen[c->index]) {
    t->seen[c->index] = true;
    ++t->nseen;
  }
  if (t->nseen == t->inputs.size()) {
    t->pending = false;
    CheckpointState(t, cp);
    return true;
  }
  return false;
}

void StartCheckpoint() {
  if (g.in_flight || g.queued == 0) return;
  --g.queued;
  const std::int64_t cp = g.next_id++;
  if (Now() < DEPLOY) {  // the tasks are not RUNNING yet: the trigger fails
    ++g.failed;
    StartCheckpoint();
    return;
  }
  g.in_flight = true;
  g.in_flight_id = cp;
  g.in_flight_start = Now();
  g.in_flight_acks = 0;
  Simulator::Schedule(NanoSeconds(RPC), &TriggerSources, cp);
}

void PeriodicTrigger() {  // fixed rate, independent of completions
  g.queued = std::min(g.queued + 1, MAX_QUEUED_REQUESTS);
  StartCheckpoint();
  Simulator::Schedule(NanoSeconds(INTERVAL), &PeriodicTrigger);
}

void TriggerSources(std::int64_t cp) {
  for (Task* t : g.tasks[0]) {
    t->triggers.push_back(cp);
    Wake(t);
  }
}

void Ack(std::int64_t cp) {
  if (!g.in_flight || g.in_flight_id != cp) return;
  if (++g.in_flight_acks == 3 * g.p) {  // every subtask acknowledged: complete
    g.durations.push_back(Now() - g.in_flight_start);
    g.in_flight = false;
    StartCheckpoint();  // a queued request starts at once
  }
}

// --- the subtasks: SimPy's source() and task() generators as state machines -------------------
// Each loop runs until the generator would yield, schedules what it yields on, and returns.
void SourceLoop(Task* t) {
  for (;;) {
    if (!t->triggers.empty()) {  // mails first (a FLIP-27 source runs them while
      const std::int64_t cp = t->triggers.front();  // back-pressured too)
      t->triggers.pop_front();
      t->current = cp;
      CheckpointState(t, cp);
      return;
    }
    if (!OutputAvailable(t)) {
      t->waiting_output = true;
      t->state = State::kLoop;
      Wait(t);
      return;
    }
    t->waiting_output = false;
    t->state = State::kStep;  // read one buffer's worth
    Simulator::Schedule(NanoSeconds(STEP), &Resume, t);
    return;
  }
}

void TaskLoop(Task* t) {
  const std::size_t n = t->inputs.size();
  if (!OutputAvailable(t)) {
    t->waiting_output = true;  // no input is processed while the output is full
    t->state = State::kLoop;
    Wait(t);
    return;
  }
  t->waiting_output = false;
  Channel* c = nullptr;
  for (std::size_t k = 0; k < n; ++k) {
    Channel* cand = t->inputs[(t->next_input + k) % n];
    if (!cand->store.empty()) {
      c = cand;
      t->next_input = (t->next_input + k + 1) % n;
      break;
    }
  }
  if (c == nullptr) {
    t->state = State::kLoop;
    Wait(t);
    return;
  }
  t->cur = c->store.front();  // StoreGet takes the item at once and succeeds now
  c->store.pop_front();
  t->cur_c = c;
  t->state = State::kGet;
  Simulator::ScheduleNow(&Resume, t);
}

void Loop(Task* t) {
  if (t->vertex == 0)
    SourceLoop(t);
  else
    TaskLoop(t);
}

void Resume(Task* t) {
  switch (t->state) {
    case State::kLoop:
      break;
    case State::kStep: {  // source
      if (!OutputAvailable(t)) break;  // nothing read this step
      t->fractional += SOURCE_RATE * STEP_S;
      const auto records = static_cast<std::int64_t>(t->fractional);
      t->fractional -= static_cast<double>(records);
      if (records > 0) {
        t->records = records;
        t->state = State::kProc;
        Simulator::Schedule(NanoSeconds(records * t->cost), &Resume, t);
        return;
      }
      WriteRecords(t, records);
      break;
    }
    case State::kProc:
      WriteRecords(t, t->records);
      break;
    case State::kGet: {  // task
      Channel* c = t->cur_c;
      if (t->cur.kind == DATA) {
        Recycle(c);
        t->records = t->cur.records;
        t->state = State::kProc;
        Simulator::Schedule(NanoSeconds(t->records * t->cost), &Resume, t);
        return;
      }
      if (ProcessBarrier(t, c, t->cur.id)) return;
      break;
    }
    case State::kSync:
      AfterSync(t);
      break;
  }
  Loop(t);
}

double PercentileMs(std::vector<std::int64_t> d, double q) {  // nearest rank
  if (d.empty()) return 0.0;
  std::sort(d.begin(), d.end());
  const auto rank = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::ceil(q * static_cast<double>(d.size()))));
  return static_cast<double>(d[rank - 1]) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s P [SECONDS [map|heap|pq|calendar]]\n", argv[0]);
    return 2;
  }
  const int p = std::atoi(argv[1]);
  const double seconds = argc > 2 ? std::atof(argv[2]) : 60.0;
  const std::string variant = argc > 3 ? argv[3] : "map";
  std::string type = "ns3::MapScheduler";
  if (variant == "heap") type = "ns3::HeapScheduler";
  else if (variant == "pq") type = "ns3::PriorityQueueScheduler";
  else if (variant == "calendar") type = "ns3::CalendarScheduler";
  else if (variant != "map") return 2;
  ns3::ObjectFactory factory;
  factory.SetTypeId(type);
  Simulator::SetScheduler(factory);

  g.p = p;
  PythonSeed seed{1};
  g.rng.seed(seed);
  g.tasks.resize(3);
  for (int v = 0; v < 3; ++v)
    for (int i = 0; i < p; ++i) g.tasks[v].push_back(new Task(v, i));
  for (int v = 1; v < 3; ++v)  // all-to-all (rebalance) edges into Map and Sink
    for (Task* up : g.tasks[v - 1])
      for (Task* down : g.tasks[v]) {
        auto* c = new Channel(up, down, down->inputs.size(), up->index == down->index);
        up->outputs.push_back(c);
        down->inputs.push_back(c);
        g.channels.push_back(c);
      }
  // The processes start in creation order and each first waits for the deploy.
  for (auto& vertex : g.tasks)
    for (Task* t : vertex) {
      t->pool = static_cast<int>(t->outputs.size()) * EXCLUSIVE + FLOATING;
      t->floating_free = t->inputs.empty() ? 0 : FLOATING;
      t->seen.assign(t->inputs.size(), false);
      Simulator::Schedule(NanoSeconds(DEPLOY), &Resume, t);
    }
  const std::int64_t delay = python_randint(g.rng, 0, INTERVAL / kMs) * kMs;
  Simulator::Schedule(NanoSeconds(delay), &PeriodicTrigger);
  Simulator::Stop(NanoSeconds(static_cast<std::int64_t>(std::llround(seconds * kS))));

  const phold::Timer timer;
  Simulator::Run();
  const phold::Elapsed e = timer.elapsed();
  const std::uint64_t events = Simulator::GetEventCount();
  const std::string engine = variant == "map" ? std::string("ns3") : "ns3-" + variant;
  std::printf(
      "B2RESULT engine=%s P=%d wall_s=%.6f cpu_s=%.6f events=%llu buffers=%llu completed=%zu "
      "failed=%d p50_ms=%.3f p99_ms=%.3f rss_kib=%ld\n",
      engine.c_str(), p, e.wall_s, e.cpu_s, static_cast<unsigned long long>(events),
      static_cast<unsigned long long>(g.buffers), g.durations.size(), g.failed,
      PercentileMs(g.durations, 0.5), PercentileMs(g.durations, 0.99), phold::peak_rss_kib());
  std::fflush(stdout);
  Simulator::Destroy();
  return 0;
}
