#!/usr/bin/env python3
"""Turns the raw results of bench/peers/run.sh into Markdown tables.

  report.py RESULTS_FILE        print the B1 and B2 tables (medians over repetitions)
  report.py --b2-json P         read Google Benchmark JSON of BM_B2 on stdin, print B2RESULT lines

Result lines are `RESULT key=value ...` (B1, one per run) and `B2RESULT key=value ...` (B2).
The time per event is CPU time of the run loop (see README.md); ratios are peer / ckptsim of
the medians measured in the same run of the script.
"""
import json
import statistics
import sys

ENGINE_ORDER = ["ckptsim", "ref-stdpq", "ns3-map", "ns3-heap", "ns3-pq", "ns3-calendar", "simgrid-timers",
                "simpy3"]
ENGINE_LABEL = {
    "ckptsim": "ckptsim kernel (core::Simulation)",
    "ref-stdpq": "reference: bare std::priority_queue (not an engine)",
    "ns3-map": "ns-3 3.37 MapScheduler (default)",
    "ns3-heap": "ns-3 3.37 HeapScheduler",
    "ns3-pq": "ns-3 3.37 PriorityQueueScheduler",
    "ns3-calendar": "ns-3 3.37 CalendarScheduler",
    "simgrid-timers": "SimGrid 3.32 kernel timers",
    "simpy3": "SimPy 3.0.11 callbacks (Python 3.11)",
}
# B2 rows, in table order: ns3 is b2_ns3.cpp on the default MapScheduler, ns3-pq on the
# PriorityQueueScheduler.
B2_ENGINES = ["ckptsim", "ns3", "ns3-pq", "simpy3"]
# Issue 6 targets: ckptsim must be at least this many times faster (ns/event ratio).
TARGETS = [
    ("ns-3 fastest scheduler", "ns3-fastest", None, 6),
    ("ns-3 default (MapScheduler)", "ns3-map", None, 8),
    ("SimGrid kernel timers", "simgrid-timers", None, 6),
    ("SimPy 3 at 1e3 pending (N=1024, M=1)", "simpy3", (1024, 1), 20),
    ("SimPy 3 at 1e6 pending (N=65536, M=16)", "simpy3", (65536, 16), 50),
]


def parse(line):
    out = {}
    for tok in line.split()[1:]:
        k, _, v = tok.partition("=")
        out[k] = v
    return out


def b2_from_json(p):
    data = json.load(sys.stdin)
    for b in data.get("benchmarks", []):
        if b.get("run_type") != "iteration":
            continue
        print(f"B2RESULT engine=ckptsim P={p} wall_s={b['wall_s']:.6f} "
              f"cpu_s={b['cpu_time'] / 1e3:.6f} events={b['events']:.0f} "
              f"buffers={b['buffers']:.0f} completed={b['completed']:.0f} "
              f"failed={b['failed']:.0f} p50_ms={b['p50_ms']:.3f} p99_ms={b['p99_ms']:.3f} "
              f"rep={b.get('repetition_index', 0) + 1}")


def fmt_int(x):
    return f"{x:,.0f}"


def fmt_ns(x):
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def fmt_ratio(x):
    return f"{x:.1f}x" if x < 100 else f"{x:.0f}x"


def main(path):
    b1, b2, header = {}, {}, []
    with open(path) as f:
        for line in f:
            if line.startswith("RESULT "):
                r = parse(line)
                b1.setdefault((r["engine"], int(r["N"]), int(r["M"])), []).append(r)
            elif line.startswith("B2RESULT "):
                r = parse(line)
                b2.setdefault((r["engine"], int(r["P"])), []).append(r)
            elif line.startswith("#"):
                header.append(line.strip())
    for h in header:
        print(h.replace("#", ">", 1))
    print()

    med = {}
    for key, runs in b1.items():
        med[key] = {
            "ns": statistics.median(float(r["ns_per_event"]) for r in runs),
            "wall_ns": statistics.median(float(r["wall_ns_per_event"]) for r in runs),
            "rss": statistics.median(int(r["rss_kib"]) for r in runs),
            "events": statistics.median(int(r["events"]) for r in runs),
            "expected": float(runs[0]["expected"]),
            "reps": len(runs),
        }
    configs = sorted({(n, m) for (_, n, m) in med})
    engines = [e for e in ENGINE_ORDER if any(k[0] == e for k in med)]
    engines += sorted({k[0] for k in med} - set(engines))

    if med:
        print("### B1 PHOLD (medians; ns/event and events/s per CPU second of the run loop)")
        print()
        print("| engine | N | M | pending | ns/event | events/s | wall ns/event | peak RSS | "
              "x ckptsim | events run (expected) |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for (n, m) in configs:
            base = med.get(("ckptsim", n, m))
            for e in engines:
                r = med.get((e, n, m))
                if not r:
                    continue
                ratio = fmt_ratio(r["ns"] / base["ns"]) if base else "-"
                print(f"| {ENGINE_LABEL.get(e, e)} | {n:,} | {m} | {n * m:,} | {fmt_ns(r['ns'])} | "
                      f"{1e9 / r['ns'] / 1e6:.2f} M | {fmt_ns(r['wall_ns'])} | "
                      f"{r['rss'] / 1024:.1f} MiB | {ratio} | "
                      f"{fmt_int(r['events'])} ({fmt_int(r['expected'])}) |")
        print()
        print("ns/event (ratio to ckptsim):")
        print()
        print("| engine | " + " | ".join(f"N={n:,} M={m}" for n, m in configs) + " |")
        print("|---|" + "---:|" * len(configs))
        for e in engines:
            cells = []
            for (n, m) in configs:
                r, base = med.get((e, n, m)), med.get(("ckptsim", n, m))
                if not r:
                    cells.append("-")
                elif e == "ckptsim" or not base:
                    cells.append(fmt_ns(r["ns"]))
                else:
                    cells.append(f"{fmt_ns(r['ns'])} ({fmt_ratio(r['ns'] / base['ns'])})")
            print(f"| {ENGINE_LABEL.get(e, e)} | " + " | ".join(cells) + " |")
        print()

        print("### B1 targets of issue 6 (peer ns/event / ckptsim ns/event)")
        print()
        print("| target | config | required | measured | met |")
        print("|---|---|---:|---:|---|")
        for label, eng, only, need in TARGETS:
            for (n, m) in configs:
                if only and (n, m) != only:
                    continue
                base = med.get(("ckptsim", n, m))
                if not base:
                    continue
                if eng == "ns3-fastest":
                    cands = [(med[(e, n, m)]["ns"], e) for e in ("ns3-map", "ns3-heap", "ns3-pq",
                                                                 "ns3-calendar")
                             if (e, n, m) in med]
                    if not cands:
                        continue
                    ns, which = min(cands)
                    cfg = f"N={n:,} M={m} ({which})"
                else:
                    if (eng, n, m) not in med:
                        continue
                    ns, cfg = med[(eng, n, m)]["ns"], f"N={n:,} M={m}"
                ratio = ns / base["ns"]
                print(f"| {label} | {cfg} | {need}x | {ratio:.2f}x | "
                      f"{'yes' if ratio >= need else 'no'} |")
        print()

    if b2:
        print("### B2 barrier propagation, aligned, 60 s simulated (medians over repetitions)")
        print()
        print("| engine | P | CPU s | wall s | buffers | buffers/s (CPU) | engine events | "
              "completed | failed | p50 ms | p99 ms | CPU x ckptsim | wall x ckptsim |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        b2med = {}
        for p in sorted({k[1] for k in b2}):
            base = None
            for e in B2_ENGINES:
                runs = b2.get((e, p))
                if not runs:
                    continue
                wall = statistics.median(float(r["wall_s"]) for r in runs)
                cpu = statistics.median(float(r["cpu_s"]) for r in runs)
                r0 = runs[0]
                bufs = float(r0["buffers"])
                if e == "ckptsim":
                    base = (cpu, wall)
                b2med[(e, p)] = (cpu, bufs)
                rc = fmt_ratio(cpu / base[0]) if base and e != "ckptsim" else "-"
                rw = fmt_ratio(wall / base[1]) if base and e != "ckptsim" else "-"
                print(f"| {e} | {p} | {cpu:.3f} | {wall:.3f} | {fmt_int(bufs)} | "
                      f"{bufs / cpu / 1e6:.2f} M | {fmt_int(float(r0['events']))} | "
                      f"{r0['completed']} | {r0.get('failed', '-')} | "
                      f"{float(r0['p50_ms']):,.1f} | {float(r0['p99_ms']):,.1f} | {rc} | {rw} |")
        print()
        print("B2 targets of issue 6: SimPy 3 / ckptsim >= 100x; ckptsim >= 10 M buffer events/s. "
              "ns-3 has no B2 target; its ratio is shown for reference.")
        print()
        print("| P | ckptsim buffers/s (CPU) | " +
              " | ".join(f"{e} / ckptsim (CPU)" for e in B2_ENGINES[1:]) + " |")
        print("|---:|---:|" + "---:|" * (len(B2_ENGINES) - 1))
        for p in sorted({k[1] for k in b2}):
            base = b2med.get(("ckptsim", p))
            if not base:
                continue
            cells = [f"{base[1] / base[0] / 1e6:.2f} M (target 10 M: "
                     f"{'met' if base[1] / base[0] >= 10e6 else 'not met'})"]
            for e in B2_ENGINES[1:]:
                r = b2med.get((e, p))
                if not r:
                    cells.append("-")
                elif e == "simpy3":
                    ratio = r[0] / base[0]
                    cells.append(f"{fmt_ratio(ratio)} (target 100x: "
                                 f"{'met' if ratio >= 100 else 'not met'})")
                else:
                    cells.append(fmt_ratio(r[0] / base[0]))
            print(f"| {p} | " + " | ".join(cells) + " |")
        print()

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--b2-json":
        b2_from_json(sys.argv[2])
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        sys.exit(__doc__)
