#!/usr/bin/env python3
"""B2 on SimPy 3: barrier propagation through a back-pressured pipeline (aligned checkpoints).

A port of the pipeline ckptsim's bench/b2_bench.cpp runs (the shape of apache/flink-benchmarks
CheckpointingTimeBenchmark), written from ckptsim's model (sim/model/task_runtime.cpp, the
checkpoint coordinator) at the same buffer granularity and with the same rules:

- Source(P) -rebalance-> Map(P) -rebalance-> Sink(P); subtask i of every vertex on TaskManager i
  (one slot each), so channel i -> i is local and all others remote.
- Sources read one buffer's worth per step (32 KiB / 1 KiB = 32 records every 32 us at 1e6
  records/s), process them at 1 us per record, and write round robin (RebalancePartitioner) into
  BufferBuilders of 32 KiB; builders left open are flushed by the OutputFlusher every
  execution.buffer-timeout (100 ms) once the first write started it. Map costs 1 us per record, the sink 1 ms per record (SlowDiscardSink). Records are
  1 KiB everywhere.
- Credit-based flow control: a remote channel starts with 2 exclusive credits and borrows
  floating buffers from its gate's 8 up to the sender's backlog; a local channel has one credit.
  A producer's output is available while its pool (channels x 2 + 8 buffers) has room and no
  subpartition holds 10 buffers (max-buffers-per-channel); otherwise the task waits
  (back-pressure). Consumed buffers return as credit, or to the gate when floating.
- Aligned barriers: a subpartition blocks after handing out a barrier until its consumer
  resumes consumption after the sync phase (0 here); the consumer aligns on all its channels.
- Coordinator: a periodic trigger every 100 ms from a random initial delay in [0, 100] ms; one
  checkpoint at a time, later requests queue; the trigger RPC takes 1 ms, every acknowledgement
  the checkpoint storage latency (30 ms; the state is empty) plus 1 ms. Tasks are RUNNING after
  the 500 ms deploy; triggers before that fail. 60 s simulated.

SimPy mapping (the issue's): one SimPy process per subtask, a simpy.Store per channel holding
the buffers and events the channel delivered (the input channel's queue); the subpartition
queues, credits and pools are plain counters and deques updated synchronously, as in ckptsim.
Timers (flush, trigger/ack latencies, the periodic trigger) are timeouts with callbacks.

Differences from ckptsim, all below a millisecond: a trigger that reaches a source during its
32 us read or 32 us processing step waits for the step to end (ckptsim cuts the step at the next
record), and uploads are not processor-shared (every upload is 0 bytes here).

usage: b2_simpy.py P [SECONDS]    prints one B2RESULT line (wall/CPU time of env.run, checkpoints)
Run it with Debian's /usr/bin/python3 (python3-simpy3).
"""
import collections
import math
import random
import resource
import sys
import time

import simpy

SEGMENT = 32 * 1024          # taskmanager.memory.segment-size
RECORD = 1024                # bytes per record (UNALIGNED_RECORD_SIZE)
BUFFER_TIMEOUT = 0.100       # execution.buffer-timeout
EXCLUSIVE = 2                # buffers-per-channel
FLOATING = 8                 # floating-buffers-per-gate
MAX_PER_CHANNEL = 10         # max-buffers-per-channel
INTERVAL = 0.100             # checkpoint interval
DEPLOY = 0.500               # SCHEDULED -> RUNNING
RPC = 0.001                  # JM <-> TM
STORAGE_LATENCY = 0.030      # checkpoint storage latency (the upload itself is 0 bytes)
SOURCE_RATE = 1e6            # records/s a source would read without back-pressure
STEP = 32e-6                 # one buffer's worth at SOURCE_RATE: 32 KiB / (1e6 * 1 KiB) s
COST = (1e-6, 1e-6, 1e-3)    # per record: Source, Map, Sink (SlowDiscardSink: 1 ms)
MAX_QUEUED_REQUESTS = 1000
DATA, BARRIER = 0, 1


class Channel:
    __slots__ = ("producer", "consumer", "index", "local", "sub", "backlog", "store", "credits",
                 "floating", "blocked", "open_bytes", "open_records")

    def __init__(self, env, producer, consumer, index, local):
        self.producer, self.consumer, self.index, self.local = producer, consumer, index, local
        self.sub = collections.deque()   # the result subpartition: (kind, records, bytes, id)
        self.backlog = 0                 # data buffers in the subpartition
        self.store = simpy.Store(env)    # the input channel: what was handed to the consumer
        self.credits = 1 if local else EXCLUSIVE
        self.floating = 0
        self.blocked = False
        self.open_bytes = 0              # the BufferBuilder being filled
        self.open_records = 0


class Task:
    __slots__ = ("vertex", "index", "inputs", "outputs", "rr_next", "pool", "partition_buffers",
                 "full_subpartitions", "floating_free", "waiting_output", "wake_ev",
                 "flush_scheduled", "triggers", "current", "pending", "seen", "nseen",
                 "next_input", "fractional", "cost")

    def __init__(self, vertex, index):
        self.vertex, self.index = vertex, index
        self.inputs, self.outputs = [], []
        self.rr_next = index             # RebalancePartitioner starts at the subtask index
        self.pool = 0
        self.partition_buffers = 0
        self.full_subpartitions = 0
        self.floating_free = 0
        self.waiting_output = False
        self.wake_ev = None
        self.flush_scheduled = False
        self.triggers = collections.deque()
        self.current = -1                # barrier handler: checkpoint being aligned / last
        self.pending = False
        self.seen = []
        self.nseen = 0
        self.next_input = 0
        self.fractional = 0.0
        self.cost = COST[vertex]


class Pipeline:
    def __init__(self, env, p, seed):
        self.env, self.p = env, p
        self.rng = random.Random(seed)
        self.buffers = 0                 # buffers and events handed to input channels
        self.durations = []
        self.failed = 0
        self.queued = 0                  # periodic trigger requests waiting
        self.in_flight = None            # (id, trigger time, acks received)
        self.next_id = 1
        self.tasks = [[Task(v, i) for i in range(p)] for v in range(3)]
        for v in (1, 2):                 # all-to-all (rebalance) edges into Map and Sink
            for up in self.tasks[v - 1]:
                for down in self.tasks[v]:
                    c = Channel(env, up, down, len(down.inputs), up.index == down.index)
                    up.outputs.append(c)
                    down.inputs.append(c)
        for vertex in self.tasks:
            for t in vertex:
                t.pool = len(t.outputs) * EXCLUSIVE + FLOATING
                t.floating_free = FLOATING if t.inputs else 0
                t.seen = [False] * len(t.inputs)
                env.process(self.source(t) if t.vertex == 0 else self.task(t))
        env.process(self.periodic_trigger())

    # --- network --------------------------------------------------------------------------
    def wait(self, t):
        t.wake_ev = self.env.event()
        return t.wake_ev

    def wake(self, t):
        ev = t.wake_ev
        if ev is not None:
            t.wake_ev = None
            ev.succeed()

    @staticmethod
    def output_available(t):
        return not t.outputs or (t.partition_buffers < t.pool and t.full_subpartitions == 0)

    @staticmethod
    def change_backlog(c, delta):
        p = c.producer
        was_full = c.backlog >= MAX_PER_CHANNEL
        c.backlog += delta
        p.partition_buffers += delta
        full = c.backlog >= MAX_PER_CHANNEL
        if full != was_full:
            p.full_subpartitions += 1 if full else -1

    def add_to_subpartition(self, c, buf):
        c.sub.append(buf)
        if buf[0] == DATA:
            self.change_backlog(c, 1)
        self.pump(c)

    @staticmethod
    def request_floating(c):
        if c.local:
            return
        consumer = c.consumer
        while c.credits < c.backlog and consumer.floating_free > 0:
            consumer.floating_free -= 1
            c.floating += 1
            c.credits += 1

    def pump(self, c):
        """Hands buffers from the subpartition to the input channel while there is credit."""
        moved = False
        sub = c.sub
        while not c.blocked and sub:
            head = sub[0]
            if head[0] == DATA:
                if c.credits <= 0:
                    self.request_floating(c)
                    if c.credits <= 0:
                        break            # data needs credit, events do not
                c.credits -= 1
                self.change_backlog(c, -1)
            sub.popleft()
            c.store.put(head)
            self.buffers += 1
            moved = True
            if head[0] == BARRIER:
                c.blocked = True         # an aligned barrier blocks until resumeConsumption
        if moved:
            self.wake(c.consumer)
            if c.producer.waiting_output:
                self.wake(c.producer)

    def recycle(self, c):
        """A consumed buffer returns: a floating one to the gate, an exclusive one as credit."""
        consumer = c.consumer
        if not c.local and c.floating > 0 and c.backlog <= c.credits:
            c.floating -= 1
            consumer.floating_free += 1
            for other in consumer.inputs:
                if (other is not c and not other.local and other.backlog > other.credits
                        and not other.blocked):
                    self.pump(other)
                    break
            return
        c.credits += 1
        self.pump(c)

    def resume(self, c):
        c.blocked = False
        self.pump(c)

    def append_to_builder(self, c, records):
        c.open_records += records
        c.open_bytes += records * RECORD
        while c.open_bytes >= SEGMENT:   # a full BufferBuilder becomes a finished buffer
            recs = max(1, min(c.open_records,
                              math.floor(c.open_records * SEGMENT / c.open_bytes + 0.5)))
            c.open_bytes -= SEGMENT
            c.open_records -= recs
            if c.open_records <= 0:
                c.open_records = c.open_bytes = 0
            self.add_to_subpartition(c, (DATA, recs, SEGMENT, 0))
        if c.open_bytes > 0:
            self.schedule_flush(c.producer)

    def schedule_flush(self, t):
        if not t.flush_scheduled:
            t.flush_scheduled = True
            self.env.timeout(BUFFER_TIMEOUT).callbacks.append(lambda _ev: self.flush(t))

    def finish_builder(self, c):
        if c.open_bytes > 0:
            buf = (DATA, c.open_records, c.open_bytes, 0)
            c.open_bytes = c.open_records = 0
            self.add_to_subpartition(c, buf)

    def flush(self, t):
        t.flush_scheduled = False
        for c in t.outputs:
            self.finish_builder(c)
        self.schedule_flush(t)           # the OutputFlusher ticks on

    def write_records(self, t, records):
        """RebalancePartitioner: round robin record by record over the output channels."""
        if records <= 0 or not t.outputs:
            return
        chans = t.outputs
        n = len(chans)
        base, extra = divmod(records, n)
        start = t.rr_next
        for k in range(n):
            share = base + (1 if k < extra else 0)
            if share:
                self.append_to_builder(chans[(start + k) % n], share)
        t.rr_next = (start + extra) % n

    # --- checkpoints ----------------------------------------------------------------------
    def checkpoint_state(self, t, cp):
        # The barrier goes downstream before the sync phase (after the open builders).
        for c in t.outputs:
            self.finish_builder(c)
            self.add_to_subpartition(c, (BARRIER, 0, 0, cp))
        yield self.env.timeout(0)        # sync snapshot: 0 in this benchmark
        for c in t.inputs:               # resumeConsumption after the sync part
            if c.blocked:
                self.resume(c)
        # Async part: storage latency (the state is empty), then the ack RPC.
        self.env.timeout(STORAGE_LATENCY + RPC).callbacks.append(lambda _ev: self.ack(cp))

    def process_barrier(self, t, c, cp):
        if cp < t.current or (cp == t.current and not t.pending):
            self.resume(c)               # obsolete barrier
            return
        if cp > t.current:
            if t.pending:                # subsumed: never happens with one checkpoint at a time
                raise RuntimeError("subsumed alignment")
            t.current, t.pending = cp, True
            t.seen = [False] * len(t.inputs)
            t.nseen = 0
        if not t.seen[c.index]:
            t.seen[c.index] = True
            t.nseen += 1
        if t.nseen == len(t.inputs):
            t.pending = False
            yield from self.checkpoint_state(t, cp)

    def periodic_trigger(self):
        env = self.env
        yield env.timeout(self.rng.randint(0, int(INTERVAL * 1000)) / 1000)
        while True:                      # fixed rate, independent of completions
            self.queued = min(self.queued + 1, MAX_QUEUED_REQUESTS)
            self.start_checkpoint()
            yield env.timeout(INTERVAL)

    def start_checkpoint(self):
        if self.in_flight is not None or self.queued == 0:
            return
        self.queued -= 1
        cp = self.next_id
        self.next_id += 1
        if self.env.now < DEPLOY:        # the tasks are not RUNNING yet: the trigger fails
            self.failed += 1
            self.start_checkpoint()
            return
        self.in_flight = [cp, self.env.now, 0]
        self.env.timeout(RPC).callbacks.append(lambda _ev: self.trigger_sources(cp))

    def trigger_sources(self, cp):
        for t in self.tasks[0]:
            t.triggers.append(cp)
            self.wake(t)

    def ack(self, cp):
        f = self.in_flight
        if f is None or f[0] != cp:
            return
        f[2] += 1
        if f[2] == 3 * self.p:           # every subtask acknowledged: complete
            self.durations.append(self.env.now - f[1])
            self.in_flight = None
            self.start_checkpoint()      # a queued request starts at once

    # --- the subtasks -----------------------------------------------------------------------
    def source(self, t):
        env = self.env
        yield env.timeout(DEPLOY)
        while True:
            if t.triggers:               # mails first (a FLIP-27 source runs them while
                cp = t.triggers.popleft()  # back-pressured too)
                t.current = cp
                yield from self.checkpoint_state(t, cp)
                continue
            if not self.output_available(t):
                t.waiting_output = True
                yield self.wait(t)
                continue
            t.waiting_output = False
            yield env.timeout(STEP)      # read one buffer's worth
            if not self.output_available(t):
                continue                 # nothing read this step
            t.fractional += SOURCE_RATE * STEP
            records = int(t.fractional)
            t.fractional -= records
            if records > 0:
                yield env.timeout(records * t.cost)
            self.write_records(t, records)

    def task(self, t):
        env = self.env
        yield env.timeout(DEPLOY)
        inputs = t.inputs
        n = len(inputs)
        while True:
            if not self.output_available(t):
                t.waiting_output = True  # no input is processed while the output is full
                yield self.wait(t)
                continue
            t.waiting_output = False
            c = None
            for k in range(n):
                cand = inputs[(t.next_input + k) % n]
                if cand.store.items:
                    c = cand
                    t.next_input = (t.next_input + k + 1) % n
                    break
            if c is None:
                yield self.wait(t)
                continue
            buf = yield c.store.get()
            if buf[0] == DATA:
                self.recycle(c)
                yield env.timeout(buf[1] * t.cost)
                self.write_records(t, buf[1])
            else:
                yield from self.process_barrier(t, c, buf[3])


def percentile_ms(durations, q):
    """Nearest rank, as ckptsim's bench/b2_bench.cpp."""
    if not durations:
        return 0.0
    d = sorted(durations)
    rank = max(1, math.ceil(q * len(d)))
    return d[rank - 1] * 1e3


def main():
    p = int(sys.argv[1])
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
    env = simpy.Environment()
    pipe = Pipeline(env, p, seed=1)
    t0, c0 = time.perf_counter(), time.process_time()
    env.run(until=seconds)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    events = next(env._eid)  # events SimPy scheduled (its heap's id counter)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"B2RESULT engine=simpy3 P={p} wall_s={wall:.6f} cpu_s={cpu:.6f} events={events} "
          f"buffers={pipe.buffers} completed={len(pipe.durations)} failed={pipe.failed} "
          f"p50_ms={percentile_ms(pipe.durations, 0.5):.3f} "
          f"p99_ms={percentile_ms(pipe.durations, 0.99):.3f} rss_kib={rss}", flush=True)


if __name__ == "__main__":
    main()
