#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench_compare.py - the recorder's CPU per event, two builds side by side.

    scripts/bench_compare.py OLD_BUILD NEW_BUILD [--reps N]

Runs the workloads of make bench's rows 4b and 5b (batched delegate_log
events fired by bench-loop, recorded with `record -p`) with each build's
etdump-bpf in turn (old, new, old, new, ...), the same bench-loop for both,
and prints per workload the median recorder CPU (user + sys of the whole
process, and each) per captured event, and new / old. The machine is
shared: absolute numbers move with its load, the ratio much less.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

# (label, bench-loop arguments)
WORKLOADS = [
    ("4b: 5M events at 10M/s, 2 threads, one run each",
     ["-n", "5000000", "--rate", "10000000", "--threads", "2"]),
    ("5b: 1.6M events at 2M/s, runs of 16",
     ["-n", "1600000", "--rate", "2000000", "--run-events", "16"]),
]


def trial(build, loop, args):
    r = bench.run_target([loop] + args,
                         bench.Record(build, bench.BATCHED_MODE[1]))
    bench.settle()
    try:
        events, dropped, _ = bench.record_summary(r["tracer"]["err"])
    except RuntimeError:
        # every run lost a record to a full ring: nothing written, no count
        return None
    t = r["tracer"]
    n = max(events, 1)
    return {"cpu": t["cpu_s"] * 1e9 / n, "user": t["user_s"] * 1e9 / n,
            "sys": t["sys_s"] * 1e9 / n, "dropped": dropped}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", type=int, help="only workload N (0, 1)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench_compare.py: attaching uprobes needs root")
    builds = [os.path.abspath(args.old), os.path.abspath(args.new)]
    # one target binary for both: only the recorder differs
    loop = os.path.join(builds[1], "bench-loop")
    for i, (label, wargs) in enumerate(WORKLOADS):
        if args.only is not None and i != args.only:
            continue
        res = {b: [] for b in builds}
        tries = 0
        while len(res[builds[0]]) < args.reps and tries < 3 * args.reps:
            tries += 1
            pair = [trial(b, loop, wargs) for b in builds]
            if None in pair:
                bench.log(f"  {label}: a trial wrote nothing, pair repeated")
                continue
            for b, r in zip(builds, pair):
                res[b].append(r)
            bench.log(f"  {label}: repetition {len(res[builds[0]])}/"
                      f"{args.reps}")
        print(label)
        med = {}
        for b in builds:
            m = {k: bench.median([r[k] for r in res[b]])
                 for k in ("cpu", "user", "sys", "dropped")}
            med[b] = m
            trials = " ".join(f"{r['cpu']:.0f}" for r in res[b])
            print(f"  {b}: {m['cpu']:.0f} ns/event (user {m['user']:.0f}, "
                  f"sys {m['sys']:.0f}), dropped {m['dropped']:,.0f}; "
                  f"trials {trials}")
        ratios = [n["cpu"] / o["cpu"]
                  for o, n in zip(res[builds[0]], res[builds[1]])]
        print(f"  new / old: {med[builds[1]]['cpu'] / med[builds[0]]['cpu']:.2f}x"
              f" (per pair: {' '.join(f'{x:.2f}' for x in ratios)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
