// The hybrid network's looks and skips (hybrid_network.hpp).
#include "sim/model/network/hybrid_network.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "sim/model/network/network.hpp"
#include "sim/model/task/stream_task.hpp"
#include "sim/model/task/task_executor.hpp"

namespace ckptsim::model {

namespace {
enum Event : std::uint32_t { kLook, kResume };

// `total` grown over a reference's periods, scaled by `periods_per_window`.
std::int64_t scaled(std::int64_t total, double periods_per_window) {
  return static_cast<std::int64_t>(std::llround(static_cast<double>(total) * periods_per_window));
}

// How much later a timer that ticks every `tick` (> 0) and fires next `at` fires next once the
// clock has moved to `clock`: whole ticks, keeping its phase, to its first firing at or after the
// clock. Rounding the skip to the nearest tick could put it before the clock.
Duration whole_ticks(SimTime at, SimTime clock, Duration tick) {
  const Duration behind = clock - at;
  return behind <= 0 ? 0 : (behind + tick - 1) / tick * tick;
}
}  // namespace

Duration HybridNetwork::period() const {
  // The shortest period of at least kShortestLook that divides the sample period (a second
  // without time series), so that every sample boundary is a look, and that the output flusher's
  // timeout divides, so that every period holds the same flushes; else the sample period.
  const Duration sample = sample_period();
  const Duration timeout = scenario_.flink.buffer_timeout;
  for (Duration parts = sample / kShortestLook; parts > 1; --parts) {
    const Duration p = sample / parts;
    if (sample % parts == 0 && (timeout <= 0 || p % timeout == 0)) return p;
  }
  return sample;
}

Duration HybridNetwork::sample_period() const {
  return scenario_.sample_period > 0 ? scenario_.sample_period : core::kSecond;
}

std::size_t HybridNetwork::reference_periods() const {
  return static_cast<std::size_t>(kReferenceSamples * sample_period() / period());
}

bool HybridNetwork::at_sample_boundary(SimTime t) const { return t % sample_period() == 0; }

void HybridNetwork::keep_counters_at_sample_boundary(Look& l) const {
  if (at_sample_boundary(l.at)) return;
  l.counts = {};
  l.sums = {};
}

void HybridNetwork::start() {
  if (scenario_.network != NetworkMode::hybrid) return;
  sim_.schedule_at(period(), this, kLook);
}

bool HybridNetwork::eligible() const {
  if (scenario_.flink.debloat_enabled) return false;
  const SimTime now = sim_.now();
  for (int v = 0; v < x_.num_vertices(); ++v) {
    const VertexSpec& spec = scenario_.job.vertices[static_cast<std::size_t>(v)];
    if (x_.source(v) || !x_.sinks(v).empty() || !x_.functions(v).empty()) return false;
    if (spec.arrivals != Variability::fixed || spec.service != Variability::fixed) return false;
    // A source whose own processing cannot keep up drops what it cannot read (schedule_emission):
    // a pace of its own, as a saturated subtask's.
    if (!spec.input &&
        x_.tasks().configured_rate(v) * static_cast<double>(spec.cost_per_record) >= 0.99e9)
      return false;
    for (const StreamTask::Stall& st : x_.tasks().stalls(v))
      if (st.until > now) return false;  // a stall or slow-down now or to come
  }
  for (int id = 0; id < x_.num_subtasks(); ++id) {
    const Subtask& s = sub(id);
    if (s.state != ExecutionState::running || s.stopped || s.lock_until_record ||
        s.lock_held_until > now || s.mail_busy_until > now || s.remainder ||
        !s.pending_triggers.empty() || s.checkpoint_pending || s.uc_collecting ||
        s.priority_pending > 0 || s.output_barriers_queued > 0 || s.output_timeout_mail >= 0 ||
        s.timed_out_checkpoint >= 0 || s.ack_waits_for_output || s.end_of_input_abort ||
        s.final_checkpoint_min >= 0 || s.finished_inputs > 0 ||
        (s.busy && s.processing.kind != Buffer::Kind::data))
      return false;
  }
  return true;
}

bool HybridNetwork::only_data_queued() const {
  for (const Channel& c : network().channels_) {
    if (c.blocked || c.finished) return false;
    for (std::size_t i = 0; i < c.queues.size(); ++i)
      if (!c.queues.at(network().arena_, i).is_data()) return false;
  }
  return true;
}

template <class Counts, class Sums, class Writers>
void HybridNetwork::for_each_counter(Counts&& counts, Sums&& sums, Writers&& writers) {
  Network& net = x_.network();
  for (Channel& c : net.channels_) counts(c.drained_bytes, -1);  // first: Look::drained
  for (int id = 0; id < x_.num_subtasks(); ++id) {
    Subtask& s = sub(id);
    for (std::int64_t* v : own_counters(s)) counts(*v, id);
    for (OutputGroup& g : s.outputs) writers(s, g);
  }
  for (QueueStatistics& q : net.queue_statistics_) {
    counts(q.consumed, -1);
    sums(q.occupancy_integral);
    sums(q.sojourn_total);
  }
  auto transferred = static_cast<std::int64_t>(net.buffers_transferred_);
  counts(transferred, -1);
  net.buffers_transferred_ = static_cast<std::uint64_t>(transferred);
}

HybridNetwork::Look HybridNetwork::look(const Look* previous) const {
  Look l;
  const SimTime now = sim_.now();
  l.at = now;
  l.subtasks.resize(static_cast<std::size_t>(x_.num_subtasks()));
  for (int id = 0; id < x_.num_subtasks(); ++id) {
    const Subtask& s = sub(id);
    SubtaskLook& t = l.subtasks[static_cast<std::size_t>(id)];
    t.attempt = s.attempt;
    t.checkpoint = s.last_checkpoint_taken;
    t.mail = s.mail_started;
    t.other_work = s.other_work;
    // What the samples add up to: the closed ones, the open one and the time since it was last
    // accounted.
    t.busy = s.closed_samples.busy + s.sample.busy;
    t.back_pressured = s.closed_samples.back_pressured + s.sample.back_pressured;
    t.idle = s.closed_samples.idle + s.sample.idle;
    const Duration open = now - s.accounted_until;
    switch (s.thread_state) {
      case ThreadState::busy:
        t.busy += open;
        if (s.busy_off_records) t.other_work += open;
        break;
      case ThreadState::back_pressured:
        t.back_pressured += open;
        break;
      case ThreadState::idle:
        t.idle += open;
        break;
    }
    t.records_in = s.closed_samples.records_in + s.sample.records_in;
    t.records_out = s.closed_samples.records_out + s.sample.records_out;
    t.output_buffers = s.partition_buffers;
  }
  // A subtask saturated since the previous look (idle less than 1 % of the time: see steady())
  // rules the look out before the channels are visited (a back-pressured job has many).
  if (previous != nullptr && previous->subtasks.size() == l.subtasks.size()) {
    for (std::size_t i = 0; i < l.subtasks.size(); ++i)
      if ((l.subtasks[i].idle - previous->subtasks[i].idle) * 100 < now - previous->at)
        return l;
  }
  if (!eligible() || !only_data_queued()) return l;
  l.steady_state = true;
  for (int id = 0; id < x_.num_subtasks(); ++id)
    for (int c : sub(id).inputs)
      l.subtasks[static_cast<std::size_t>(id)].input_buffers +=
          static_cast<int>(chan(c).received_size());
  l.counts.reserve(counts_size_);
  l.sums.reserve(sums_size_);
  auto& self = const_cast<HybridNetwork&>(*this);  // the visitor only reads here
  self.for_each_counter([&](std::int64_t& v, int) { l.counts.push_back(v); },
                        [&](double& v) { l.sums.push_back(v); },
                        [&](Subtask&, OutputGroup& g) { l.counts.push_back(g.written); });
  l.latency = x_.tasks().end_to_end_latency();
  counts_size_ = l.counts.size();
  sums_size_ = l.sums.size();
  return l;
}

bool HybridNetwork::steady(std::span<const Look* const> looks, const Reference& ref) const {
  // The windows between the looks, each the same whole number of periods long, each grew as the
  // reference did in as many periods.
  const Duration p = period();
  if (looks.size() < 2) return false;
  const Duration window = looks[1]->at - looks[0]->at;
  if (window <= 0 || window % p != 0) return false;
  for (std::size_t k = 0; k < looks.size(); ++k) {
    if (!looks[k]->steady_state) return false;
    if (k > 0 && looks[k]->at - looks[k - 1]->at != window) return false;
  }
  // 1 ms per second: of a look period (however long the windows: what a window longer than a
  // period may leave held back at its end is no more than a period's); of a sample for the
  // lumps, which move records between windows but only seldom across a sample's boundary.
  const Duration tolerance = p / 1000;
  const auto periods_per_window = static_cast<double>(window / p);
  const Duration sample_tolerance = sample_period() / 1000;
  const auto periods = static_cast<double>(ref.periods);
  const auto windows = periods * static_cast<double>(p) / static_cast<double>(window);
  // The output flusher ticks in step with the periods; the sources' records, and the records
  // per step of the sources whose step does not divide the period.
  const Duration timeout = scenario_.flink.buffer_timeout;
  if (timeout > 0 && p % timeout != 0) return false;
  double sources_growth = 0;
  double beating_records = 0;
  for (int id = 0; id < x_.num_subtasks(); ++id) {
    const Subtask& s = sub(id);
    if (!is_source(s)) continue;
    const auto i = static_cast<std::size_t>(id);
    const auto growth = static_cast<double>(ref.last->subtasks[i].records_out -
                                            ref.first->subtasks[i].records_out);
    sources_growth += growth;
    if (s.step_period > 0 && p % s.step_period != 0)
      beating_records +=
          growth / periods * static_cast<double>(s.step_period) / static_cast<double>(p);
  }
  sources_growth = std::max(sources_growth, 1.0);
  for (std::size_t i = 0; i < looks.back()->subtasks.size(); ++i) {
    const SubtaskLook& r0 = ref.first->subtasks[i];
    const SubtaskLook& r1 = ref.last->subtasks[i];
    // A reading step that does not divide the period puts one step's records more or less into
    // some periods (a beat of steps and periods, too slow to show in a few periods): at this
    // subtask's share of the sources' records, a lump of records. Likewise each input channel
    // that fills buffers before the flusher ticks delivers a whole buffer's records more or less
    // into some periods; a source's own records come a step at a time; and any count may be one
    // record off (fractional shares). The periods' records may differ by the lumps; the busy
    // time the lumps could swing must be within a sample's tolerance.
    const Subtask& consumer = sub(static_cast<int>(i));
    const double share = static_cast<double>(r1.records_in - r0.records_in) / sources_growth;
    double lumps = 1 + share * beating_records;
    if (is_source(consumer) && consumer.step_period > 0)
      lumps += static_cast<double>(r1.records_out - r0.records_out) / periods *
               static_cast<double>(consumer.step_period) / static_cast<double>(p);
    double flushes = 0;  // one flush of records per input channel that does not fill buffers
    for (int c : consumer.inputs) {
      const Channel& ch = chan(c);
      const auto bytes =
          static_cast<double>(ref.last->drained(c) - ref.first->drained(c)) / periods;
      const auto buffer = static_cast<double>(network().buffer_size(ch));
      const bool fills = timeout <= 0 ||
                         bytes * static_cast<double>(timeout) / static_cast<double>(p) >= buffer;
      const double record_size =
          static_cast<double>(std::max<std::int64_t>(1, vertex(sub(ch.producer)).record_size));
      if (fills)
        lumps += buffer / record_size;
      else
        flushes += bytes * static_cast<double>(timeout) / static_cast<double>(p) / record_size;
    }
    // What the periods show: the largest difference of a period's records from the mean
    // (`shown`), and the same where it is beyond 1 % of the mean (`swing`). Flushes that land on
    // one side of a look or the other move records between periods, and back in the next: up to
    // a flush per input channel, and where their busy time stays within a sample's tolerance,
    // they are lumps too.
    double shown = 0;
    double swing = 0;
    for (const auto field : {&SubtaskLook::records_in, &SubtaskLook::records_out}) {
      const double mean = static_cast<double>(r1.*field - r0.*field) / windows;
      for (std::size_t k = 1; k < looks.size(); ++k) {
        const double off = std::abs(
            static_cast<double>(looks[k]->subtasks[i].*field - looks[k - 1]->subtasks[i].*field) -
            mean);
        shown = std::max(shown, off);
        if (off > mean / periods_per_window / 100) swing = std::max(swing, off);
      }
    }
    // Records within 1 % of the mean or the lumps: a swing no flushes explain is not steady.
    if (swing > lumps + flushes) return false;
    lumps = std::max(lumps, swing);
    const auto cost = static_cast<double>(vertex(consumer).cost_per_record);
    const double lump_time = lumps * cost;
    if (lump_time > static_cast<double>(sample_tolerance)) return false;
    // The thread times may swing with the records the periods show (and one more, being
    // processed at a look), within a sample's tolerance.
    double swing_time = std::max(static_cast<double>(tolerance) / 2, lump_time);
    if ((shown + 1) * cost <= static_cast<double>(sample_tolerance))
      swing_time = std::max(swing_time, (shown + 1) * cost);
    for (std::size_t k = 1; k < looks.size(); ++k) {
      const SubtaskLook& a = looks[k - 1]->subtasks[i];
      const SubtaskLook& b = looks[k]->subtasks[i];
      if (a.attempt != r1.attempt || b.attempt != r1.attempt) return false;
      // A saturated subtask (idle less than 1 % of a window) sets the pace of what is behind
      // it buffer by buffer: the phase of that chain of buffers decides where a barrier waits,
      // and no timer keeps it through a skip. Nor is a queue filling up steady, however slowly.
      if ((b.idle - a.idle) * 100 < window) return false;
      // Thread times within half the tolerance of the reference's mean (so the windows are
      // within the tolerance of one another) or swing_time. The time a window spent on other
      // work than records (a checkpoint's synchronous part, a mail) counts as idle: the records
      // wait it out and come through after it.
      for (const auto field :
           {&SubtaskLook::busy, &SubtaskLook::back_pressured, &SubtaskLook::idle}) {
        const auto on_records = [&](const SubtaskLook& from, const SubtaskLook& to) {
          const Duration other = to.other_work - from.other_work;
          const Duration t = to.*field - from.*field;
          return static_cast<double>(field == &SubtaskLook::busy   ? t - other
                                     : field == &SubtaskLook::idle ? t + other
                                                                   : t);
        };
        const double mean = on_records(r0, r1) / windows;
        if (std::abs(on_records(a, b) - mean) > swing_time) return false;
      }
    }
    // Queues that hold their length.
    for (const auto level : {&SubtaskLook::input_buffers, &SubtaskLook::output_buffers}) {
      int lo = r1.*level;
      int hi = lo;
      for (const Look* l : looks) {
        lo = std::min(lo, l->subtasks[i].*level);
        hi = std::max(hi, l->subtasks[i].*level);
      }
      if (hi - lo > 1) return false;
    }
  }
  return true;
}

bool HybridNetwork::same_latencies(const Reference& window, const Reference& ref) {
  const LatencyHistogram a = window.last->latency.since(window.first->latency);
  const LatencyHistogram b = ref.last->latency.since(ref.first->latency);
  if (a.records() == 0 || b.records() == 0) return a.records() == b.records();
  return std::abs(a.mean_ms() - b.mean_ms()) <= 0.01 * b.mean_ms() &&
         a.percentile_ms(0.5) == b.percentile_ms(0.5) &&
         a.percentile_ms(0.99) == b.percentile_ms(0.99);
}

int HybridNetwork::stepping_source(const core::EventHandler* target, std::uint32_t kind,
                                   std::uint64_t arg) const {
  return target == &x_.tasks() && kind == StreamTask::source_step_event() ? subtask_of(arg) : -1;
}

bool HybridNetwork::moves_data(const core::EventHandler* target, std::uint32_t kind) const {
  return (target == &x_.tasks() && StreamTask::moves_data(kind)) ||
         (target == &x_.network() && Network::moves_data(kind));
}

Duration HybridNetwork::tick_of(const core::EventHandler* target, std::uint32_t kind,
                                std::uint64_t arg) const {
  if (const int source = stepping_source(target, kind, arg); source >= 0)
    return sub(source).step_period;
  return target == &x_.network() && Network::moves_data(kind) ? scenario_.flink.buffer_timeout
                                                               : 0;
}

Duration HybridNetwork::delay_of(SimTime at, const core::EventHandler* target, std::uint32_t kind,
                                 std::uint64_t arg, SimTime clock, Duration by,
                                 bool past_clock) const {
  if (!moves_data(target, kind)) return 0;  // a quiet event or a disturbance keeps its time
  const Duration tick = tick_of(target, kind, arg);
  const SimTime first = past_clock ? clock + 1 : clock;
  return tick > 0 ? whole_ticks(at, first, tick) : std::max(by, first - at);
}

HybridNetwork::Pending HybridNetwork::note_pending() {
  Pending pending;
  const SimTime now = sim_.now();
  pending.last_data = now;
  const bool runs_mail = x_.quiet_event_runs_mail();
  sim_.for_each_pending([&](SimTime t, const core::EventHandler* target, std::uint32_t kind) {
    if (moves_data(target, kind)) {
      pending.last_data = std::max(pending.last_data, t);
      return;
    }
    if (target == this) return;
    pending.first_other = std::min(pending.first_other, t);
    if (target->quiet(kind)) {
      if (target == &x_ && runs_mail) pending.first_mail = std::min(pending.first_mail, t);
      return;
    }
    const bool trigger = target->triggers_checkpoint(kind);
    if (trigger && replaying(t) >= 0) return;  // a replayed window's trigger is quiet
    if (!trigger) pending.first_not_trigger = std::min(pending.first_not_trigger, t);
    if (t < pending.first_disturbance) {
      pending.first_disturbance = t;
      pending.first_triggers = trigger;
    } else if (t == pending.first_disturbance) {
      pending.first_triggers = pending.first_triggers && trigger;
    }
  });
  // Something other than data moving happened since the last look (it ran or was cancelled):
  // the periods before it say nothing about the ones after. A quiet event (an upload, an
  // acknowledgement, a notification) is not such a thing, only what it sets off at a subtask,
  // which the looks see (on_event).
  if (next_disturbance_ <= now) disturbed_at_ = std::max(disturbed_at_, next_disturbance_);
  next_disturbance_ = pending.first_disturbance;
  return pending;
}

HybridNetwork::Plan HybridNetwork::plan_skip() {
  // Up to the last look before the first pending event that is neither data moving nor quiet (a
  // disturbance); or up to the first quiet event before that look, which then runs at its own
  // time before the skip goes on. Every data event moves, whether it lands before the
  // disturbance or after it, as it would in the exact run.
  Pending pending = note_pending();
  Plan plan;
  // A checkpoint triggered where the recorded window can be replayed: its trigger is quiet, and
  // the skip goes on through the window (skip_to commits it).
  if (pending.first_triggers &&
      can_replay(pending.first_disturbance, pending.first_not_trigger)) {
    plan.replay_from = (pending.first_disturbance - 1) / period() * period();
    planned_replay_ = plan.replay_from;
    pending = note_pending();
    planned_replay_ = -1;
  }
  first_not_trigger_ = pending.first_not_trigger;
  const SimTime first_other = pending.first_other;
  const SimTime first_disturbance = pending.first_disturbance;
  const SimTime now = sim_.now();
  plan.limit = std::max(first_other, pending.last_data + 1);
  plan.stop = now;
  const SimTime horizon = std::min(sim_.horizon(), scenario_.duration);
  if (horizon >= core::kNever) return plan;
  const Duration p = period();
  SimTime end = horizon;
  if (first_disturbance < core::kNever)
    end = std::min(end, first_disturbance - 1);
  end = end / p * p;  // a look
  if (first_other < end) {
    plan.stop = first_other;
    plan.at_quiet_event = true;
    plan.runs_no_mail = first_other < pending.first_mail;
    plan.park_at = std::min(end, pending.first_mail);
    plan.park_past_clock = pending.first_mail < end;
  } else if (end > now) {
    plan.stop = end;
    plan.at_look = true;
  }
  return plan;
}

HybridNetwork::Look HybridNetwork::extrapolated(const Look& from, std::int64_t periods,
                                               const Reference& ref, bool counters) const {
  const Look& first = *ref.first;
  const Look& last = *ref.last;
  const double factor = static_cast<double>(periods) / static_cast<double>(ref.periods);
  Look l;
  l.at = from.at + periods * period();
  l.steady_state = from.steady_state;
  l.subtasks = from.subtasks;
  l.latency = from.latency;
  if (counters) {
    l.counts = from.counts;
    l.sums = from.sums;
  }
  for (std::size_t i = 0; i < l.subtasks.size(); ++i) {
    SubtaskLook& t = l.subtasks[i];
    const SubtaskLook& a = last.subtasks[i];
    const SubtaskLook& b = first.subtasks[i];
    t.busy += scaled(a.busy - b.busy, factor);
    t.back_pressured += scaled(a.back_pressured - b.back_pressured, factor);
    t.idle += scaled(a.idle - b.idle, factor);
    t.records_in += scaled(a.records_in - b.records_in, factor);
    t.records_out += scaled(a.records_out - b.records_out, factor);
  }
  for (std::size_t i = 0; i < l.counts.size(); ++i)
    l.counts[i] += scaled(last.counts[i] - first.counts[i], factor);
  for (std::size_t i = 0; i < l.sums.size(); ++i)
    l.sums[i] += factor * (last.sums[i] - first.sums[i]);
  l.latency.add_difference(last.latency, first.latency, factor);
  return l;
}

void HybridNetwork::grow(SimTime from, SimTime to, const Reference& ref) {
  const Duration p = period();
  const Look& last = looks_.back();
  // Each skipped period adds the reference's mean growth per period to the open samples, which
  // close at the sample boundaries as in the exact run (time_accounting.cpp). A skip that ends
  // between looks (at a quiet event, when it cannot go on) gets its share of a period.
  const Look one = extrapolated(last, 1, ref, false);
  const Duration sample_period = scenario_.sample_period;
  // A replayed window's periods grow as its recorded ones did.
  Duration replayed = 0;
  std::erase_if(replays_, [](const Replay& r) { return !r.confirmed; });
  for (const Replay& r : replays_) {
    const SimTime w = r.from;
    const Duration covered = std::min(to, w + window_.length) - std::max(from, w);
    if (covered <= 0) continue;
    replayed += covered;
    x_.tasks().end_to_end_latency().add_difference(
        window_.looks.back().latency, window_.looks.front().latency,
        static_cast<double>(covered) / static_cast<double>(window_.length));
  }
  // The windows and the corrections come in time order: each period takes its own.
  auto window = replays_.begin();
  auto correction = sync_corrections_.begin();
  for (SimTime a = from; a < to;) {
    const SimTime end = std::min(to, (a / p + 1) * p);
    const auto share = [&](std::int64_t per_period) {
      if (end - a == p) return per_period;
      return scaled(per_period, static_cast<double>(end - a) / static_cast<double>(p));
    };
    const Look* l0 = &last;
    const Look* l1 = &one;
    while (window != replays_.end() && window->from + window_.length <= a) ++window;
    if (window != replays_.end() && a >= window->from) {
      const auto k = static_cast<std::size_t>((a - window->from) / p);
      l0 = &window_.looks[k];
      l1 = &window_.looks[k + 1];
    }
    for (; correction != sync_corrections_.end() && correction->at < end; ++correction) {
      Subtask& s = sub(correction->subtask);
      s.sample.busy += correction->by;
      s.sample.idle -= correction->by;
    }
    for (int id = 0; id < x_.num_subtasks(); ++id) {
      Subtask& s = sub(id);
      const SubtaskLook& s0 = l0->subtasks[static_cast<std::size_t>(id)];
      const SubtaskLook& s1 = l1->subtasks[static_cast<std::size_t>(id)];
      s.sample.busy += share(s1.busy - s0.busy);
      s.sample.back_pressured += share(s1.back_pressured - s0.back_pressured);
      s.sample.idle += share(s1.idle - s0.idle);
      s.sample.records_in += share(s1.records_in - s0.records_in);
      s.sample.records_out += share(s1.records_out - s0.records_out);
      if (sample_period > 0 && end == s.sample_start + sample_period) {
        const SubtaskLook& levels = last.subtasks[static_cast<std::size_t>(id)];
        x_.tasks().close_sample(s, levels.input_buffers, levels.output_buffers);
      }
    }
    a = end;
  }
  grow_counters(from, to, ref);
  x_.tasks().end_to_end_latency().add_difference(
      ref.last->latency, ref.first->latency,
      static_cast<double>(to - from - replayed) / static_cast<double>(p * ref.periods));
  replays_.clear();
  sync_corrections_.clear();
  first_replayed_ = last_replayed_ = -1;
  // The data in flight moves on.
  x_.network().delay_data(to - from);
  if (to > from) ++skips_;
  skipped_ += to - from;
}

void HybridNetwork::grow_counters(SimTime from_start, SimTime to, const Reference& ref) {
  // Every counter grows as over the last periods; round-robin writers hand their channels the
  // records written meanwhile.
  const auto factor_from = [&](SimTime from) {
    return static_cast<double>(to - from) / static_cast<double>(period() * ref.periods);
  };
  const double factor = factor_from(from_start);
  std::size_t i = 0;
  std::size_t j = 0;
  const auto growth = [&](double f = -1) {
    const std::int64_t g =
        scaled(ref.last->counts[i] - ref.first->counts[i], f < 0 ? factor : f);
    ++i;
    return g;
  };
  for_each_counter(
      [&](std::int64_t& v, int id) {
        // A subtask's own counters may stand later already (catch_up).
        const SimTime from =
            id >= 0 && !caught_up_.empty() ? caught_up_[static_cast<std::size_t>(id)] : -1;
        v += growth(from > from_start ? factor_from(from) : -1);
      },
      [&](double& v) {
        v += factor * (ref.last->sums[j] - ref.first->sums[j]);
        ++j;
      },
      [&](Subtask& s, OutputGroup& g) { x_.network().skip_round_robin(s, g, growth()); });
  caught_up_.clear();
}

void HybridNetwork::replayed_sync(int id, Duration sync) {
  // (After a skip that gave up within the window, the job runs buffer by buffer: its samples
  // miss this synchronous part.)
  const SimTime from = replaying(sim_.now());
  if (skip_from_ < 0 || from < 0) return;
  const Window::Taken& taken = window_.taken[static_cast<std::size_t>(id)];
  if (sync != taken.sync) sync_corrections_.push_back({sim_.now(), id, sync - taken.sync});
  // The bytes since the checkpoint reach the recorded window's at its end: what the barriers'
  // broadcast flushed ahead of them came before this checkpoint, not after it.
  sub(id).bytes_since_checkpoint =
      taken.bytes_at_end -
      own_growth(id, kBytesSinceCheckpoint, from + window_.length - sim_.now());
}

std::int64_t HybridNetwork::own_growth(int id, std::size_t k, Duration d) {
  // Where the subtask's counters start in for_each_counter's order.
  if (counter_index_.empty()) {
    std::size_t at = 0;
    for_each_counter(
        [&](std::int64_t&, int subtask) {
          if (subtask >= 0 && counter_index_.size() == static_cast<std::size_t>(subtask))
            counter_index_.push_back(at);
          ++at;
        },
        [](double&) {}, [&](Subtask&, OutputGroup&) { ++at; });
  }
  const std::size_t i = counter_index_[static_cast<std::size_t>(id)] + k;
  return scaled(reference_[1].counts[i] - reference_[0].counts[i],
                static_cast<double>(d) /
                    static_cast<double>(period() *
                                        static_cast<std::int64_t>(reference_periods())));
}

void HybridNetwork::catch_up_to_snapshot(int id, std::int64_t checkpoint) {
  // A replayed state left from a window a skip gave up in: a checkpoint taken (disturbed_since).
  if (checkpoint < first_replayed_ || checkpoint > last_replayed_) stray_replay_ = true;
  catch_up(id);
  // What the barriers' broadcast flushed ahead of them came before the checkpoint.
  if (skip_from_ >= 0 && replaying(sim_.now()) >= 0)
    sub(id).bytes_since_checkpoint += window_.taken[static_cast<std::size_t>(id)].surge;
}

void HybridNetwork::catch_up(int id) {
  // The subtask's own counters, from where they stand to now, as grow_counters grows them.
  if (skip_from_ < 0 || reference_.size() != 2) return;
  const auto i = static_cast<std::size_t>(id);
  if (caught_up_.empty()) caught_up_.assign(x_.subtasks_.size(), -1);
  const SimTime from = std::max(skip_from_, caught_up_[i]);
  const SimTime now = sim_.now();
  if (now <= from) return;
  std::size_t k = 0;
  for (std::int64_t* v : own_counters(sub(id))) *v += own_growth(id, k++, now - from);
  caught_up_[i] = now;
}

void HybridNetwork::move(Duration by, SimTime limit, bool past_clock) {
  // The threads' steps and the pending data events move on; a source's step with its timer,
  // which keeps its phase (delay_of).
  const SimTime clock = sim_.now() + by;
  if (parked_.to >= 0) {
    // The data events are already at or after the clock (park): the clock and the threads move.
    sim_.skip(by, clock, [](SimTime, const core::EventHandler*, std::uint32_t, std::uint64_t) {
      return Duration{0};
    });
    for (std::size_t id = 0; id < x_.subtasks_.size(); ++id) {
      SimTime& step = step_at_[id];
      const Duration tick = x_.subtasks_[id].step_period;
      const SimTime first = past_clock ? clock + 1 : clock;
      const Duration d =
          step < 0 ? by : (tick > 0 ? whole_ticks(step, first, tick) : std::max(by, first - step));
      if (step >= 0) step += d;
      move_thread(x_.subtasks_[id], by, d);
    }
    return;
  }
  step_at_.assign(x_.subtasks_.size(), -1);
  std::vector<Duration> step_delay(x_.subtasks_.size(), by);
  sim_.skip(by, limit,
            [&](SimTime at, const core::EventHandler* target, std::uint32_t kind, std::uint64_t a) {
              const Duration d = delay_of(at, target, kind, a, clock, by, past_clock);
              if (const int source = stepping_source(target, kind, a); source >= 0) {
                step_delay[static_cast<std::size_t>(source)] = d;
                step_at_[static_cast<std::size_t>(source)] = at + d;
              }
              return d;
            });
  for (std::size_t id = 0; id < x_.subtasks_.size(); ++id)
    move_thread(x_.subtasks_[id], by, step_delay[id]);
}

void HybridNetwork::move_thread(Subtask& s, Duration by, Duration step_delay) {
  s.busy_since += step_delay;
  if (s.read_from >= 0) s.read_from += step_delay;
  s.processing_started += by;
  if (s.busy) s.processing.born += by;
  s.accounted_until += by;
}

void HybridNetwork::park(SimTime to, bool past_clock) {
  if (parked_.to == to && parked_.past_clock == past_clock) return;
  // From where the moves so far put them (parked_) to where a move to `to` puts them: the data
  // in flight by the difference, to after the clock; a timer that ticks to its first firing at
  // or after it, earlier too (it never fires more than a tick after the clock it was placed at,
  // so its first firing at or after a later clock is where the moves would put it).
  const SimTime from = parked_.to;
  const SimTime first = past_clock ? to + 1 : to;
  sim_.skip(0, core::kNever,
            [&](SimTime at, const core::EventHandler* target, std::uint32_t kind, std::uint64_t a) {
              if (!moves_data(target, kind)) return Duration{0};
              const Duration tick = tick_of(target, kind, a);
              if (tick <= 0) return std::max(at + (to - from), first) - at;
              return at < first ? whole_ticks(at, first, tick) : -((at - first) / tick * tick);
            });
  parked_ = {to, past_clock};
}

bool HybridNetwork::disturbed_since(const Look& l) const {
  if (l.subtasks.size() != x_.subtasks_.size()) return true;
  for (std::size_t i = 0; i < l.subtasks.size(); ++i) {
    const SubtaskLook& a = l.subtasks[i];
    const Subtask& s = x_.subtasks_[i];
    // A replayed checkpoint is no disturbance: the window replayed holds what it did.
    if (a.attempt != s.attempt || a.mail != s.mail_started ||
        (a.checkpoint != s.last_checkpoint_taken &&
         (s.last_checkpoint_taken < first_replayed_ ||
          s.last_checkpoint_taken > last_replayed_)))
      return true;
  }
  return false;
}

void HybridNetwork::skip_to(const Plan& plan, const Reference& ref) {
  if (skip_from_ < 0) {
    // A skip starts at a look: the open samples are accounted up to it first.
    for (Subtask& s : x_.subtasks_) x_.tasks().account(s);
    skip_from_ = sim_.now();
  }
  if (plan.replay_from >= 0 &&
      std::none_of(replays_.begin(), replays_.end(),
                   [&](const Replay& r) { return r.from == plan.replay_from; }))
    replays_.push_back({plan.replay_from, false});
  if (plan.at_quiet_event) {
    // The skip stops at a quiet event: it runs, then the skip goes on (kResume). No data event
    // runs in between: the skip moves them all past the clock. The counters grow once, when the
    // skip ends.
    // The data events go on to where the skip's end, or the next stop that may run a mail,
    // wants them, not again at each stop: a skip through a replayed checkpoint stops at
    // hundreds of quiet events. Parked ones go there before the clock moves (the last stop's
    // target may lie before this one: a notification that ran no mail after all, an end that
    // moved on).
    if (parked_.to >= 0) park(plan.park_at, plan.park_past_clock);
    if (plan.stop > sim_.now()) {
      move(plan.stop - sim_.now(), plan.limit, true);
      if (parked_.to < 0) {
        parked_ = {plan.stop, true};
        park(plan.park_at, plan.park_past_clock);
      }
    }
    stopped_without_mail_ = plan.runs_no_mail;
    stopped_in_run_ = sim_.runs();
    sim_.schedule_at(plan.stop, this, kResume);
    return;
  }
  if (parked_.to >= 0) park(plan.stop, false);
  move(plan.stop - sim_.now(), plan.limit, false);
  parked_ = {};
  grow(std::exchange(skip_from_, -1), sim_.now(), ref);
  // The looks go on as if the reference's growth had gone on up to now.
  const Look now = look(nullptr);
  std::vector<Look> history;
  for (std::int64_t k = ref.periods; k > 0; --k)
    history.push_back(extrapolated(now, -k, ref, at_sample_boundary(now.at - k * period())));
  history.push_back(now);
  looks_ = std::move(history);
  settled_at_ = now.at;
  settled_clear_until_ = first_not_trigger_;
  settled_bytes_.clear();
  for (const Subtask& s : x_.subtasks_) settled_bytes_.push_back(s.bytes_since_checkpoint);
  sim_.schedule_in(period(), this, kLook);
}

void HybridNetwork::resume() {
  // Only quiet events ran since the skip stopped here (they queue nothing in a channel), unless
  // they set something off at a subtask: then the skip ends here, off the looks' beat, the job
  // runs buffer by buffer, and the looks start again at the next one. Quiet events that run no
  // mail on a task's thread change nothing eligible() and disturbed_since() read: a skip with
  // thousands of subtasks stops at thousands of them per checkpoint (their syncs, uploads,
  // acknowledgements and notifications), so they are not read again.
  const Reference ref{&reference_[0], &reference_[1],
                      static_cast<std::int64_t>(reference_periods())};
  const bool nothing_else_ran =
      stopped_without_mail_ && !stray_replay_ && stopped_in_run_ == sim_.runs();
  stray_replay_ = false;
  if (nothing_else_ran || (eligible() && !disturbed_since(looks_.back()))) {
    const Plan plan = plan_skip();
    if (plan.at_look || plan.at_quiet_event) {
      skip_to(plan, ref);
      return;
    }
  }
  // The skip ends here: the data events go where the stop here put them.
  if (parked_.to >= 0) park(sim_.now(), true);
  parked_ = {};
  grow(std::exchange(skip_from_, -1), sim_.now(), ref);
  disturbed_at_ = sim_.now();
  note_pending();
  looks_.clear();
  sim_.schedule_at((sim_.now() / period() + 1) * period(), this, kLook);
}

void HybridNetwork::on_event(std::uint32_t kind, std::uint64_t) {
  if (kind == kResume) {
    resume();
    return;
  }
  // A subtask that restarted, took a checkpoint or started a mail since the last look was
  // disturbed (the events that set it off may have been quiet, or come and gone between looks).
  if (!looks_.empty() && disturbed_since(looks_.back())) disturbed_at_ = sim_.now();
  Look current = look(looks_.empty() ? nullptr : &looks_.back());
  if (looks_.size() == reference_periods() + 1) looks_.erase(looks_.begin());
  if (!looks_.empty()) keep_counters_at_sample_boundary(looks_.back());
  looks_.push_back(std::move(current));
  if (!looks_.back().steady_state) {
    // Not steady now: no window ending at this look is, and a new one starts after it. What is
    // pending still counts: a caught-up window from before this look ends after it.
    disturbed_at_ = sim_.now();
    note_pending();
    sim_.schedule_in(period(), this, kLook);
    return;
  }
  const Plan plan = plan_skip();
  if (plan.at_look || plan.at_quiet_event) {
    // The periods of kReferenceSamples sample periods alike become the reference, once the job
    // has settled for a sample period after a disturbance (records that crossed the disturbance
    // wait differently); after a disturbance (a checkpoint), one period that grew as the
    // reference did, or a job that has caught up, is enough to go on, while the reference
    // serves (reference_lifetime_).
    const auto periods = static_cast<std::int64_t>(reference_periods());
    std::vector<const Look*> all;
    for (const Look& l : looks_) all.push_back(&l);
    const Reference window{&looks_.front(), &looks_.back(), periods};
    // A reference is made of looks the job ran through, none that a skip extrapolated (a skip
    // that ended at a slice's end, as serve's are, not at a disturbance, leaves those behind).
    bool go = looks_.size() == reference_periods() + 1 && !looks_.front().counts.empty() &&
              looks_.front().at >= disturbed_at_ + sample_period() &&
              looks_.front().at >= settled_at_ && steady(all, window);
    if (go) {
      // A new reference. If the one it replaces was still right, that one would have served
      // longer: this one serves twice as long (a job without slow beats renews its reference
      // less and less often).
      if (reference_.size() == 2) {
        const Reference old{&reference_[0], &reference_[1], periods};
        reference_lifetime_ = steady(all, old) && same_latencies(window, old)
                                  ? std::min(2 * reference_lifetime_, kLongestReferenceLifetime)
                                  : kReferenceLifetime;
      }
      reference_ = {looks_.front(), looks_.back()};
      ++references_;
    } else if (reference_.size() == 2 && sim_.now() - reference_[1].at < reference_lifetime_ &&
               all.size() >= 2 && all[all.size() - 2]->at >= disturbed_at_) {
      // A period since the last disturbance grew as the reference did. Or the job has caught
      // up: from the look the last skip ended at to now, across the disturbance, it grew as the
      // reference did (what the disturbance moved has come through), and its queues hold their
      // length.
      const Reference ref{&reference_[0], &reference_[1], periods};
      const Look* previous = all[all.size() - 2];
      go = steady(std::array{previous, all.back()}, ref);
      const Look* settled = settled_look();
      if (!go && settled != nullptr && settled != previous)
        go = steady(std::array{settled, all.back()}, ref);
    }
    if (go) {
      record_window();
      skip_to(plan, {&reference_[0], &reference_[1], periods});
      return;
    }
  }
  sim_.schedule_in(period(), this, kLook);
}

const HybridNetwork::Look* HybridNetwork::settled_look() const {
  for (const Look& l : looks_)
    if (l.at == settled_at_) return &l;
  return nullptr;
}

void HybridNetwork::record_window() {
  // The job ran buffer by buffer from the look the last skip ended at to now, and a checkpoint
  // triggered in the first period of that window was all that happened in it: no other
  // disturbance was pending then (settled_clear_until_), no subtask restarted or started a mail,
  // and each took that checkpoint (aligned, without a timeout) in it. The RPCs' latency is fixed
  // and no timeline action follows a checkpoint, so a checkpoint triggered at the same phase of a
  // window while the same reference serves does the same.
  const Look* start = settled_look();
  const SimTime now = sim_.now();
  const Duration p = period();
  if (start == nullptr || settled_clear_until_ <= now ||
      !scenario_.cluster.rpc_latency.is_fixed() ||
      scenario_.flink.checkpointing.interval <= now - start->at)
    return;
  // No timeline action follows a checkpoint or holds a coordinator busy (below).
  for (const TimelineAction& a : scenario_.timeline)
    if (a.anchor == ActionAnchor::checkpoint_triggered ||
        a.anchor == ActionAnchor::checkpoint_completed || a.kind == ActionKind::coordinator_busy)
      return;
  // A notification that costs time runs a mail, which would end a skip within a window (a
  // replay does not occupy the threads); one whose cost grows with the data would also read the
  // bytes since the checkpoint, which a replay gets right only at the window's end.
  for (const VertexSpec& v : scenario_.job.vertices)
    if (v.notify_complete != CostLaw{}) return;
  // The JobManager's steps before the RPCs take what they took (no master step or hook whose
  // duration grows, fails or hangs from some checkpoint on, no coordinator held busy).
  for (const MasterStepSpec& m : scenario_.jobmanager.master_steps)
    if (m.duration.grows() || m.fail_from || m.hang_from) return;
  const Buffer barrier = x_.snapshots().sync_phase(0).barrier;
  const SimTime trigger = barrier.timestamp;
  if (dispatched_.first != barrier.checkpoint_id) return;
  if (trigger <= start->at || trigger > start->at + p || barrier.kind != Buffer::Kind::barrier ||
      !barrier.aligned || barrier.unaligned || barrier.timeoutable || barrier.savepoint ||
      barrier.last_from_source)
    return;
  Window w;
  w.reference = references_;
  w.phase = trigger - start->at;
  w.length = now - start->at;
  w.dispatch = dispatched_.second;
  w.barrier = barrier;
  for (int id = 0; id < x_.num_subtasks(); ++id) {
    const Subtask& s = sub(id);
    const SubtaskLook& before = start->subtasks[static_cast<std::size_t>(id)];
    const SubtaskCheckpointCoordinator::SyncPhase& taken = x_.snapshots().sync_phase(id);
    if (s.attempt != before.attempt || s.mail_started != before.mail ||
        before.checkpoint >= barrier.checkpoint_id ||
        s.last_checkpoint_taken != barrier.checkpoint_id ||
        taken.barrier.checkpoint_id != barrier.checkpoint_id || taken.pre_barrier != 0 ||
        taken.sync_started < trigger || taken.sync_end < taken.sync_started ||
        taken.sync_end > now)
      return;
    // The bytes since the checkpoint the snapshot read beyond what the reference grew from the
    // window's start (settled_bytes_) to it.
    const std::int64_t surge =
        settled_bytes_.size() == x_.subtasks_.size()
            ? taken.bytes_read - settled_bytes_[static_cast<std::size_t>(id)] -
                  own_growth(id, kBytesSinceCheckpoint, taken.sync_started - start->at)
            : 0;
    w.taken.push_back({taken.sync_started - trigger, taken.started - trigger, taken.alignment,
                       taken.processed_bytes, taken.persisted_bytes, taken.sync,
                       s.bytes_since_checkpoint, surge});
  }
  // A checkpoint whose synchronous parts took what the last one's did, within 1 % or 10 us (not
  // the first of a submission, whose RocksDB flush holds everything written since the start; a
  // law that grows with the bytes since the checkpoint varies by a few records' worth).
  std::vector<Duration> syncs;
  for (const Window::Taken& t : w.taken) syncs.push_back(t.sync);
  const bool alike =
      syncs.size() == previous_syncs_.size() &&
      std::equal(syncs.begin(), syncs.end(), previous_syncs_.begin(), [](Duration a, Duration b) {
        return std::abs(a - b) <= std::max<Duration>(10 * core::kMicrosecond, b / 100);
      });
  previous_syncs_ = std::move(syncs);
  if (!alike) return;
  for (const Look& l : looks_) {
    if (l.at < start->at) continue;
    Look kept;
    kept.at = l.at;
    kept.subtasks = l.subtasks;
    kept.latency = l.latency;
    w.looks.push_back(std::move(kept));
  }
  if (static_cast<Duration>(w.looks.size()) != w.length / p + 1) return;
  window_ = std::move(w);
}

bool HybridNetwork::can_replay(SimTime trigger, SimTime next_other) const {
  // The window recorded beside the reference that serves, and serves to the window's end (when
  // it stops serving, the checkpoint runs buffer by buffer and the looks after it take a new
  // one); at the same phase; nothing else to happen in it or on the look that ends it (a skip
  // ends at the last look before a disturbance); within the run or the slice; the same
  // attempts.
  const Duration p = period();
  const SimTime from = (trigger - 1) / p * p;
  const SimTime to = from + window_.length;
  if (window_.length == 0 || window_.reference != references_ || reference_.size() != 2 ||
      to - reference_[1].at >= reference_lifetime_ || from < sim_.now() ||
      trigger - from != window_.phase || next_other <= to ||
      to > std::min(sim_.horizon(), scenario_.duration))
    return false;
  // The same attempts (a restart deploys anew: other flushers' phases).
  for (int id = 0; id < x_.num_subtasks(); ++id)
    if (sub(id).attempt != window_.looks.front().subtasks[static_cast<std::size_t>(id)].attempt)
      return false;
  return true;
}

SimTime HybridNetwork::replaying(SimTime t) const {
  for (const Replay& r : replays_)
    if (t >= r.from && t < r.from + window_.length) return r.from;
  if (planned_replay_ >= 0 && t >= planned_replay_ && t < planned_replay_ + window_.length)
    return planned_replay_;
  return -1;
}

bool HybridNetwork::replay_checkpoint(const Buffer& barrier) {
  // Only in a skip, within the window it replays, for a checkpoint like the recorded one.
  const SimTime now = sim_.now();
  const Buffer& recorded = window_.barrier;
  const SimTime from = replaying(now);
  const bool alike = barrier.timestamp - from == window_.phase &&
                     now - barrier.timestamp == window_.dispatch &&
                     barrier.aligned == recorded.aligned &&
                     barrier.unaligned == recorded.unaligned &&
                     barrier.timeoutable == recorded.timeoutable &&
                     barrier.savepoint == recorded.savepoint && barrier.full == recorded.full &&
                     barrier.last_from_source == recorded.last_from_source;
  if (skip_from_ < 0 || from < 0 || !alike) {
    // Not replayed: the RPCs go out, and end the skip (they are no quiet events); the window
    // stays unconfirmed, and grows as the reference did. This checkpoint may be recorded.
    dispatched_ = {barrier.checkpoint_id, now - barrier.timestamp};
    return false;
  }
  for (Replay& r : replays_)
    if (r.from == from) r.confirmed = true;
  for (int id = 0; id < x_.num_subtasks(); ++id) {
    const Window::Taken& t = window_.taken[static_cast<std::size_t>(id)];
    x_.snapshots().replay_state(id, barrier.timestamp + t.at, barrier,
                                barrier.timestamp + t.started, t.alignment, t.processed,
                                t.persisted);
  }
  if (first_replayed_ < 0) first_replayed_ = barrier.checkpoint_id;
  last_replayed_ = barrier.checkpoint_id;
  ++replayed_;
  return true;
}

}  // namespace ckptsim::model
