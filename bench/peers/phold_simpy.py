#!/usr/bin/env python3
"""B1 PHOLD on SimPy 3 (Debian python3-simpy3 3.0.11), callbacks only, the lightest SimPy path.

Every event is an env.timeout(delay, value=destination) whose only callback is the handler; no
processes (generators). Time is float, increments random.expovariate(1.0) (mean 1), the
destination random.randrange(N). 64 bytes of state per LP: an array('Q') of 8 words per LP;
word 0 counts the LP's events, word 1 accumulates the integer part of the time stamps.
Runs env.run(until=T) with T = EVENTS / (N*M); only env.run is timed (CPU and wall). Prints the
same RESULT line as the C++ programs. Run it with Debian's /usr/bin/python3 (the interpreter
python3-simpy3 installs into).

usage: phold_simpy.py N M EVENTS
"""
import random
import resource
import sys
import time
from array import array

import simpy


def main():
    n, m, events = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    random.seed(42)
    env = simpy.Environment()
    state = array("Q", bytes(64 * n))  # 8 x 8-byte words = 64 bytes per LP
    timeout = env.timeout
    expo = random.expovariate
    pick = random.randrange

    def handle(ev):
        base = ev.value * 8
        state[base] += 1
        state[base + 1] += int(env.now)
        timeout(expo(1.0), pick(n)).callbacks.append(handle)

    for lp in range(n):
        for _ in range(m):
            timeout(expo(1.0), lp).callbacks.append(handle)
    end = events / (n * m)
    t0, c0 = time.perf_counter(), time.process_time()
    env.run(until=end)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    ran = sum(state[0::8])
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"RESULT engine=simpy3 N={n} M={m} events={ran} expected={end * n * m:.0f} "
          f"cpu_s={cpu:.6f} wall_s={wall:.6f} ns_per_event={cpu * 1e9 / ran:.1f} "
          f"events_per_s={ran / cpu:.0f} wall_ns_per_event={wall * 1e9 / ran:.1f} "
          f"rss_kib={rss}", flush=True)


if __name__ == "__main__":
    main()
