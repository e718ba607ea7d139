// The hybrid network (network: hybrid, issue 17): the exact buffer model, except that periods in
// which the job runs steadily are not simulated but accounted for from the periods before. Not a
// Flink part: a way of running the model faster where its result is the same.
//
// It looks at the job every look period (period(): 200 ms with Flink's defaults, a divisor of the
// sample period). A skip needs: nothing but data moving (no barrier or cancel marker queued or
// being aligned, no mail, lock or stall on a thread, every subtask RUNNING, no connector, fixed
// arrivals and costs, no buffer debloating); nothing else having happened in the periods compared
// (a quiet event, core::EventHandler::quiet, such as a checkpoint's upload or notification, does
// not count; a restart, a checkpoint taken or a mail started at a subtask does); no saturated
// subtask (one paces the buffers behind it one by one, and a queue filling up has one); the periods
// grown like the reference, three sample periods' worth of look periods that were alike (each
// subtask's busy, back-pressured and idle time within 0.5 ms/s of their mean or of the time of the
// records the periods show, records within 1 % or the lumps below, queued buffers within one),
// taken at least a sample period after a disturbance; after a disturbance such as a checkpoint,
// while the reference serves (kReferenceLifetime after it is taken; twice as long as the last
// time when the new reference found the one it replaced still right), one period like the
// reference is enough,
// or a job that has caught up: a whole period after the last look that saw a disturbance, the
// periods since the look the last skip ended at, taken together, grew as the reference did (the
// records a barrier's broadcast flushed early into one period are missing from the next), with the
// busy time not on records (a checkpoint's synchronous part, a mail) counted as idle; and no busy
// time that could swing by more than 1 ms/s between periods for what the periods do not show (a
// reading step or a filling channel whose lumps beat with the period, one record more or less) or
// do show (flushes landing on either side of a look, up to a flush per input channel). Then the
// next k periods, up to the last look before the first pending event that is neither data moving
// nor quiet (a checkpoint trigger, an RPC to a task, a timeline action, the end of the run or of
// the slice run_until runs), are skipped: every counter grows k times the reference's mean growth
// per period, the open samples get the mean per period and close at the sample boundaries, the
// end-to-end latency histogram gets the mean records, and the data in flight and the pending data
// events move k periods later (a source's reading steps and the output flushers by whole ticks, to
// their first tick at or after the new clock, so their phase stays the exact run's). Quiet events
// within the k periods (a checkpoint's uploads, acknowledgements, completion and notifications) run
// at their own times: the skip moves the data events past the first of them, lets it run, and goes
// on (kResume), and the counters grow once at the end (a notification whose cost grows with the
// data is therefore not quiet: TaskExecutor::quiet). If one sets something off at a subtask (a
// mail: a notifyCheckpointComplete that costs time) or an event that is not quiet before the next
// look, the skip ends there, off the looks' beat, with its share of a look period, and the looks
// start again at the next one; what was in flight then lands up to a tick out of phase with the
// flushers, for a tick. A skip through a checkpoint of a thousand subtasks stops at hundreds of
// quiet events; at each the data events would be taken out of the queue and put back. So at the
// first stop they are parked (park): placed where the moves would have put them at the skip's end,
// or just after the first quiet event before it that may run a mail
// (TaskExecutor::quiet_event_runs_mail); later stops move only the clock and the threads' steps,
// and a skip that ends early places them back where the stop it ends at would have. After a stop
// whose events run no mail, eligible() and disturbed_since() are not read again: such events
// change nothing they read. Each data event lands where it did; two that land at the same
// nanosecond may run in the other order (each stop used to put back the events it did not move
// first), which every scenario's golden fingerprint and the runs bench/README.md compares did
// not show. A caller that
// stops the run between a quiet event and kResume (run_slice's event budget) sees the counters as
// at the skip's start. What happens at the disturbance (a barrier behind the queued data, an
// alignment, a rate change) runs buffer by buffer.
//
// Replayed checkpoints. In a steady job each periodic checkpoint does the same: its trigger comes
// at the same phase of the looks (an interval of whole look periods), its barriers cross the same
// channels behind the same data, and the early flushes of its barriers' broadcast move the same
// records across the same look. So the window a checkpoint ran buffer by buffer in (from the look
// the last skip ended at, before its trigger, to the look the next skip started at) is recorded
// (record_window): each subtask's checkpoint_state (when, its start and alignment, its bytes
// processed and persisted, its synchronous part, its bytes since the checkpoint at the window's
// end) and the window's looks. It is recorded only where nothing but that checkpoint happened in
// it, the window is shorter than the interval, the checkpoint was aligned without a timeout,
// every subtask took it, its synchronous parts took what the last checkpoint's did within 1 %
// (not the first of a submission, whose RocksDB flush holds all the state written since the start), the
// RPCs' latency is fixed (a spread one gives every checkpoint's sources other trigger times), no
// master step's or hook's duration grows, fails or hangs, no coordinator is held busy, no
// timeline action is anchored to a checkpoint and no notification costs time (its mail would end
// a skip within a window). A later checkpoint triggered at the same phase of a window, while the
// same reference serves to the window's end, with the same attempts and nothing else pending in
// the window or on the look that ends it, is replayed (can_replay, replay_checkpoint) if its
// RPCs go out as long after its trigger as the recorded one's: the skip goes on through it, the
// trigger's steps at the JobManager run at their own times as quiet events, no trigger RPC goes
// out, and each subtask takes the checkpoint when the recorded one did, with the recorded
// alignment and start (SubtaskCheckpointCoordinator::replay_state: its synchronous part is its
// own, its upload and acknowledgement follow as quiet events). A window whose checkpoint did not
// reach the tasks so grows as the reference did. The window's samples and
// latencies are the recorded window's, a synchronous part that took longer or shorter than the
// recorded one moves that much busy time to or from idle, and the counters grow by the reference
// (over the window, as much as it did: the recorded job caught up at its end); a subtask's own
// counters are grown to the moment it takes the checkpoint (catch_up), its snapshot reads the
// bytes since the last checkpoint as the recorded one did (the records the barriers' broadcast
// flushed early come before it: Window::Taken::surge), and they reach the recorded value at the
// window's end.
//
// Where it is exact: a job whose state repeats every look period gets the exact model's result (up
// to rounding in the means). tests/equivalence holds both modes to the tolerances of
// docs/scenario-format.md ("network").
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/model/latency.hpp"
#include "sim/model/network/buffer.hpp"
#include "sim/model/task/subtask.hpp"
#include "sim/model/task/task_part.hpp"

namespace ckptsim::model {

class HybridNetwork final : public TaskPart, public core::EventHandler {
 public:
  explicit HybridNetwork(TaskExecutor& executor) : TaskPart(executor) {}
  // Starts looking at the job every sample period (hybrid mode only).
  void start();

  Duration skipped() const { return skipped_; }  // simulated time not run buffer by buffer
  std::int64_t skips() const { return skips_; }
  std::int64_t references() const { return references_; }  // references taken
  std::int64_t replayed() const { return replayed_; }  // checkpoints replayed

  // TaskExecutor::trigger_checkpoint: whether the checkpoint `barrier` starts is replayed (the
  // trigger came in a replayed window with the recorded one's options): then each subtask takes
  // it as in the recorded window and no trigger RPC goes out.
  bool replay_checkpoint(const Buffer& barrier);
  // In a skip, grows subtask `id`'s own counters (its position, records, state) to now, for a
  // replayed checkpoint to read and reset; grow_counters goes on from there.
  void catch_up(int id);
  // catch_up, and the bytes since the checkpoint as the recorded snapshot read them, for
  // `checkpoint`.
  void catch_up_to_snapshot(int id, std::int64_t checkpoint);
  // A replayed checkpoint's synchronous part at subtask `id` took `sync` (the recorded window's
  // samples hold the recorded one's): the samples get the difference.
  void replayed_sync(int id, Duration sync);

  void on_event(std::uint32_t kind, std::uint64_t arg) override;

 private:
  struct SubtaskLook {
    // What other than data moving shows at the subtask: its attempt, the last checkpoint it took
    // and when its last mail started (a look that finds one changed follows a disturbance).
    int attempt = -1;
    std::int64_t checkpoint = -1;
    SimTime mail = 0;
    Duration busy = 0, back_pressured = 0, idle = 0;
    Duration other_work = 0;  // Subtask::other_work
    std::int64_t records_in = 0, records_out = 0;
    int input_buffers = 0, output_buffers = 0;
  };
  // The job at one sample boundary: what the counters had reached.
  struct Look {
    SimTime at = -1;
    bool steady_state = false;  // only data moves (see eligible())
    std::vector<SubtaskLook> subtasks;
    std::vector<std::int64_t> counts;  // for_each_counter order
    std::vector<double> sums;
    // The bytes channel c delivered: the first counters are the channels'.
    std::int64_t drained(int c) const { return counts[static_cast<std::size_t>(c)]; }
    LatencyHistogram latency;
  };
  // Looks come every period(), at least kShortestLook apart; the reference spans
  // kReferenceSamples sample periods (seconds without time series), so that its means hold
  // enough records of a sparse flow.
  static constexpr Duration kShortestLook = 200 * core::kMillisecond;
  static constexpr std::int64_t kReferenceSamples = 3;
  // How long a reference serves after a disturbance by default; then a new one is taken. A few
  // seconds' latencies can be off what a job with slow beats (timers and buffers that almost
  // fill) averages over minutes: bench/production.yaml at P = 8 averages 124.3 ms over its hour,
  // its first reference 116.4 ms.
  // A new reference that finds the one it replaces still right (its periods grew as that one's
  // did, their latencies' mean within 1 % and p50 and p99 the same) serves twice as long as that
  // one did, up to kLongestReferenceLifetime; one that finds it wrong, kReferenceLifetime. (A
  // beat whose period divides the renewals' spacing would be sampled at one phase each time.)
  static constexpr Duration kReferenceLifetime = 10 * core::kMinute;
  static constexpr Duration kLongestReferenceLifetime = 80 * core::kMinute;

  // The sample period (a second without time series), the length of a look's period, and the
  // periods a reference spans.
  Duration sample_period() const;
  Duration period() const;
  std::size_t reference_periods() const;

  bool eligible() const;        // the threads and tasks: nothing but data moving
  bool only_data_queued() const;  // no barrier or cancel marker in any channel
  // The job now; not steady_state as soon as eligible() or only_data_queued() fail, or a subtask
  // was saturated since `previous`.
  Look look(const Look* previous) const;
  // Visits every counter that grows while data moves, in one fixed order: counts(int64&, int
  // subtask, or -1), sums(double&), writers(Subtask&, OutputGroup&) (a writer's round robin).
  template <class Counts, class Sums, class Writers>
  void for_each_counter(Counts&& counts, Sums&& sums, Writers&& writers);
  // A subtask's own counters, in for_each_counter's order (before its writers').
  static constexpr std::size_t kOwnCounters = 4;
  static constexpr std::size_t kBytesSinceCheckpoint = 3;
  static std::array<std::int64_t*, kOwnCounters> own_counters(Subtask& s) {
    return {&s.position, &s.records_in, &s.state_size, &s.bytes_since_checkpoint};
  }
  // Subtask `id`'s own counter `k` grown over `d` by the reference.
  std::int64_t own_growth(int id, std::size_t k, Duration d);
  // What the growth per period is compared with: `periods` periods from `first` to `last`.
  struct Reference {
    const Look* first;
    const Look* last;
    std::int64_t periods;
  };
  // Whether the windows between `looks` (equally far apart, a whole number of periods) each grew
  // as the reference did in as many periods, and nothing they do not show could swing a sample
  // beyond the tolerance (see the header).
  bool steady(std::span<const Look* const> looks, const Reference& ref) const;
  // Whether the records' latencies in `window` are as in `ref` (the mean within 1 %, p50 and
  // p99 in the same bucket).
  static bool same_latencies(const Reference& window, const Reference& ref);
  // A checkpoint's window as the job ran it buffer by buffer: from the look the last skip ended
  // at, before the trigger, to the look the next skip starts at (see the header).
  struct Window {
    std::int64_t reference = -1;  // references_ when it was recorded
    Duration phase = 0;           // from its start to the trigger
    Duration length = 0;          // whole periods
    Duration dispatch = 0;        // from the trigger to the RPCs (the JobManager's steps)
    std::vector<Look> looks;      // its start and each period's end (subtasks and latency)
    Buffer barrier;               // the checkpoint's options
    struct Taken {                // a subtask's checkpoint_state, from the trigger
      Duration at = 0;
      Duration started = 0;
      Duration alignment = 0;
      std::int64_t processed = 0;
      std::int64_t persisted = 0;
      Duration sync = 0;
      std::int64_t bytes_at_end = 0;  // Subtask::bytes_since_checkpoint at the window's end
      std::int64_t surge = 0;  // the bytes its snapshot read beyond the reference's growth
    };
    std::vector<Taken> taken;
  };
  // Records the window that ends now if it held one checkpoint, the job's only disturbance.
  void record_window();
  // Whether the window a trigger pending at `trigger` falls in can be replayed.
  bool can_replay(SimTime trigger, SimTime next_other) const;
  // The start of the window replayed in the skip going on, or planned, that `t` falls in; else
  // -1.
  SimTime replaying(SimTime t) const;
  // Where a skip from now stops (`stop`; now and neither flag: nowhere): at a look (`at_look`),
  // or at a quiet event that must run at its own time before the skip goes on
  // (`at_quiet_event`). Events before `limit` move with the skip. Notes disturbances.
  struct Plan {
    SimTime stop = 0;
    SimTime limit = core::kNever;
    bool at_look = false;
    bool at_quiet_event = false;
    // The quiet events at `stop` run no mail: what they do leaves eligible() and
    // disturbed_since() as they were.
    bool runs_no_mail = false;
    // Where the data events go at a quiet stop (park): as a move to the skip's end would put
    // them, or just after the first quiet event before it that may run a mail.
    SimTime park_at = -1;
    bool park_past_clock = false;
    SimTime replay_from = -1;  // a window replayed from there (can_replay)
  };
  Plan plan_skip();
  // The pending events: the first that is not data moving (`first_other`), the first that is
  // neither that nor quiet (`first_disturbance`), the last data event. Notes the disturbance
  // the last call found pending if it has run since (disturbed_at_), and this one's.
  struct Pending {
    SimTime first_other = core::kNever;
    SimTime first_disturbance = core::kNever;
    SimTime last_data = 0;
    // Whether every disturbance at first_disturbance is a step of a checkpoint's trigger; the
    // first disturbance that is none.
    bool first_triggers = false;
    SimTime first_not_trigger = core::kNever;
    // The first quiet event that may run a mail on a task's thread
    // (TaskExecutor::quiet_event_runs_mail).
    SimTime first_mail = core::kNever;
  };
  Pending note_pending();
  // Whether a subtask restarted, took a checkpoint or started a mail since `l`.
  bool disturbed_since(const Look& l) const;
  // Whether a pending event moves data (it moves with a skip).
  bool moves_data(const core::EventHandler* target, std::uint32_t kind) const;
  // The subtask whose reading step a pending event is, else -1.
  int stepping_source(const core::EventHandler* target, std::uint32_t kind,
                      std::uint64_t arg) const;
  // How much later a pending event due `at` moves when the clock skips `by` to `clock`: timers
  // that tick keep their phase (a source's reading step, the output flusher) and fire next at or
  // after the new clock, the rest of the data events moves by `by`; with `past_clock`, every
  // data event lands after the clock. Other events keep their time.
  Duration delay_of(SimTime at, const core::EventHandler* target, std::uint32_t kind,
                    std::uint64_t arg, SimTime clock, Duration by, bool past_clock) const;
  // What the job did from `from` to `to` by the reference (see the header): the samples, the
  // counters, the latencies and the data in flight.
  void grow(SimTime from, SimTime to, const Reference& ref);
  // The counters alone, from `from` (a subtask's own ones from where catch_up left them) to `to`.
  void grow_counters(SimTime from, SimTime to, const Reference& ref);
  // Moves the clock `by` later, and the pending data events before `limit` and the threads'
  // steps with it (with `past_clock`, every data event to after the new clock). Parked data
  // events are already there.
  void move(Duration by, SimTime limit, bool past_clock);
  // A thread's step moved on: its time stamps `by`, its reading step `step_delay`.
  static void move_thread(Subtask& s, Duration by, Duration step_delay);
  // Places the pending data events where the moves so far (parked_) and one more, to `to`, put
  // them; the clock stays. The threads move with the clock (move).
  void park(SimTime to, bool past_clock);
  // The period of a pending data event's timer (a source's reading step, the output flusher),
  // else 0.
  Duration tick_of(const core::EventHandler* target, std::uint32_t kind, std::uint64_t arg) const;
  // Skips as `plan` says: to a look, where the job grows by the reference from the look the skip
  // started at (skip_from_) and the looks go on, or to a quiet event, after which kResume goes on.
  void skip_to(const Plan& plan, const Reference& ref);
  void resume();
  // The look the last skip ended at, while looks_ holds it.
  const Look* settled_look() const;
  // A look keeps its counters (a million channels' worth in a big job) while it is the newest,
  // and after that only at a sample boundary, where a reference may start.
  void keep_counters_at_sample_boundary(Look& l) const;
  bool at_sample_boundary(SimTime t) const;
  // `from` moved on by `periods` times the reference's mean growth per period; its counters
  // too if `counters`.
  Look extrapolated(const Look& from, std::int64_t periods, const Reference& ref,
                    bool counters) const;

  std::vector<Look> looks_;            // the last reference_periods() + 1, oldest first
  std::vector<Look> reference_;        // the first and last look of the last periods alike
  Duration reference_lifetime_ = kReferenceLifetime;  // how long reference_ serves
  std::int64_t references_ = 0;
  SimTime disturbed_at_ = -1;  // the last time something other than data moving happened
  SimTime skip_from_ = -1;     // the look a skip going on started at
  // Whether the stop kResume follows ran only events that change nothing eligible() and
  // disturbed_since() read: no mail (Plan::runs_no_mail), within one run_until / run_slice
  // (Simulation::runs: serve may cancel a job between slices), and no replayed state from a
  // window a skip gave up in (catch_up_to_snapshot).
  bool stopped_without_mail_ = false;
  std::uint64_t stopped_in_run_ = 0;
  bool stray_replay_ = false;
  // Where a skip that stopped at a quiet event placed the pending data events: where moves up to
  // `to` put them (-1: nowhere ahead of the clock).
  struct Parked {
    SimTime to = -1;
    bool past_clock = false;
  };
  Parked parked_;
  // Where each source's reading step would be now if the data events had moved with each stop
  // (-1: none pending); its thread's time stamps move with it (move).
  std::vector<SimTime> step_at_;
  SimTime settled_at_ = -1;    // the look the last skip ended at (the job was like the reference)
  // The first pending event at the last look that is neither data moving nor quiet.
  SimTime next_disturbance_ = core::kNever;
  mutable std::size_t counts_size_ = 0;  // of the last look's counters (their next reserve)
  mutable std::size_t sums_size_ = 0;
  Duration skipped_ = 0;
  std::int64_t skips_ = 0;
  Window window_;                 // the last window recorded
  SimTime planned_replay_ = -1;   // the start of the window plan_skip would replay
  struct Replay {
    SimTime from = 0;        // the window's start
    bool confirmed = false;  // its checkpoint was replayed (replay_checkpoint)
  };
  std::vector<Replay> replays_;  // the windows replayed in the skip going on, in time order
  // The last checkpoint's trigger RPCs: its id, and how long after its trigger they went out.
  std::pair<std::int64_t, Duration> dispatched_{-1, 0};
  // The checkpoints replayed in the skip going on (no disturbance to its looks).
  std::int64_t first_replayed_ = -1;
  std::int64_t last_replayed_ = -1;
  std::int64_t replayed_ = 0;
  std::vector<SimTime> caught_up_;  // where a subtask's own stand, if later (catch_up)
  std::vector<std::size_t> counter_index_;  // of a subtask's own counters
  struct SyncCorrection {
    SimTime at;
    int subtask;
    Duration by;
  };
  std::vector<SyncCorrection> sync_corrections_;  // replayed_sync's, for grow
  std::vector<Duration> previous_syncs_;  // the last window's synchronous parts (record_window)
  // The first pending disturbance that is no step of a trigger, at the last plan and at the look
  // the last skip ended at (a window recorded must not hold one).
  SimTime first_not_trigger_ = core::kNever;
  SimTime settled_clear_until_ = -1;
  std::vector<std::int64_t> settled_bytes_;  // Subtask::bytes_since_checkpoint then
};

}  // namespace ckptsim::model
