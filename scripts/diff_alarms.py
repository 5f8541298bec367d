#!/usr/bin/env python3
"""How often `diff` cries wolf, and how often it catches a real slowdown,
on this machine as it is now (docs/report-and-diff.md):

  scripts/diff_alarms.py [--build build] [--pool 20] [--side 5]
                         [--trials 20] [--executions 200] [--factor 1.3]
                         [--keep DIR]

--keep DIR keeps the pool in DIR, and a pool already there is used again
instead of recorded (the same recordings judged by another build of diff).

Records the example runtime --pool times, one after another (same build),
then runs --trials comparisons, each of --side recordings a side drawn at
random from the pool (seeded: the same draws each time):

  false alarms: base against new as recorded; any row slower or faster
                is an alarm (stricter than a --fail-above gate);
  caught:       the same draws with one operator's durations scaled by
                --factor in copies of the new recordings
                (scripts/etdump_scale.py), operators in turn; caught when
                that operator's row is "slower".

Recordings are shared between trials (a pool of 20 records in about a
minute here; 20 independent comparisons would need 200), so the trials
are not independent; every draw is still an A/A test of its own.
Prints both rates; exit status 1 when more than --max-alarms trials
alarmed or fewer than --min-caught caught.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from etdump_scale import scale_file  # noqa: E402

OPS = ["native_call_convolution.out", "native_call_relu.out",
       "native_call_max_pool2d_with_indices.out"]


def record(cli, example, out, executions):
    proc = subprocess.run([cli, "record", "-q", "-f", "-o", out, "--",
                           example, "-n", str(executions)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode:
        sys.exit(f"diff_alarms: record failed: {proc.stderr.strip()}")


def flagged(cli, base, new):
    """The rows diff calls slower or faster: (name, verdict, change %)."""
    proc = subprocess.run([cli, "diff", "--json"] + base + ["--"] + new,
                          capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"diff_alarms: diff failed: {proc.stderr.strip()}")
    return [(r["event_name"], r["verdict"], round(r["p50_change_pct"], 1))
            for r in json.loads(proc.stdout)
            if r["verdict"] in ("slower", "faster")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--pool", type=int, default=20)
    ap.add_argument("--side", type=int, default=5)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--executions", type=int, default=200)
    ap.add_argument("--factor", type=float, default=1.3)
    ap.add_argument("--max-alarms", type=int, default=1)
    ap.add_argument("--min-caught", type=int, default=19)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--keep")
    a = ap.parse_args()
    if a.pool < 2 * a.side:
        sys.exit("diff_alarms: --pool must hold two sides")
    cli = os.path.join(a.build, "etdump-bpf")
    example = os.path.join(a.build, "example-runtime")
    rng = random.Random(a.seed)
    alarms = caught = 0
    with tempfile.TemporaryDirectory() as d:
        keep = a.keep or d
        os.makedirs(keep, exist_ok=True)
        pool = [os.path.join(keep, f"r{i}.etdp") for i in range(a.pool)]
        for path in pool:
            if not os.path.exists(path):
                record(cli, example, path, a.executions)
        for t in range(a.trials):
            drawn = rng.sample(pool, 2 * a.side)
            base, new = drawn[:a.side], drawn[a.side:]
            same = flagged(cli, base, new)
            alarms += bool(same)
            op = OPS[t % len(OPS)]
            slow = [os.path.join(d, f"t{t}_{k}.etdp") for k in range(a.side)]
            for src, out in zip(new, slow):
                scale_file(src, out, op=op, op_factor=a.factor)
            rows = flagged(cli, base, slow)
            hit = (op, "slower") in [(n, v) for n, v, _ in rows]
            caught += hit
            print(f"trial {t + 1:2}: same build {same or 'no alarm'}; "
                  f"{op} x{a.factor} {'caught' if hit else 'MISSED'}"
                  f"{'' if [r[0] for r in rows] == [op] else f' {rows}'}")
    print(f"false alarms: {alarms} of {a.trials} same-build comparisons "
          f"({a.side} recordings a side, -n {a.executions})")
    print(f"caught: {caught} of {a.trials} one-operator slowdowns "
          f"x{a.factor}, named")
    return 1 if alarms > a.max_alarms or caught < a.min_caught else 0


if __name__ == "__main__":
    sys.exit(main())
