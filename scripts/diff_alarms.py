#!/usr/bin/env python3
"""How often `diff` cries wolf, and how often it catches a real slowdown,
on this machine as it is now (docs/report-and-diff.md):

  scripts/diff_alarms.py [--build build] [--pool 20] [--side 5]
                         [--trials 20] [--executions 200] [--factor 1.3]
                         [--keep DIR] [--diff-option=--alpha=0.01 ...]

--keep DIR keeps the pool in DIR, and a pool already there is used again
instead of recorded (the same recordings judged by another build of diff).

Records the example runtime --pool times, one after another (same build),
then runs --trials comparisons, each of --side recordings a side drawn
from the pool (seeded: the same draws each time) two ways:

  in turns:     2 x --side recordings picked at random, then in the order
                they were recorded given to base and new in turns, as
                record --repeat N --alternate-with makes a comparison's
                recordings (the machine's drift over the pool's minutes
                falls on both sides alike);
  at random:    2 x --side recordings shuffled into the two sides (one
                side may hold the pool's early recordings, the other its
                late ones: five of one build and then five of the other);

and judges each draw twice:

  false alarms: base against new as recorded; any row slower or faster
                is an alarm (stricter than a --fail-above gate);
  caught:       the same draws with one operator's durations scaled by
                --factor in copies of the new recordings
                (scripts/etdump_scale.py), operators in turn; caught when
                that operator's row is "slower".

Recordings are shared between trials (a pool of 20 records in about a
minute here; 20 independent comparisons would need 200), so the trials
are not independent; every draw is still an A/A test of its own.
Prints both rates for both draws; exit status 1 when more than
--max-alarms trials drawn in turns alarmed or fewer than --min-caught of
them caught.
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


DIFF_OPTIONS = []  # --diff-option: the settings judged, defaults if none


def flagged(cli, base, new):
    """The rows diff calls slower or faster: (name, verdict, change %)."""
    proc = subprocess.run([cli, "diff", "--json"] + DIFF_OPTIONS + base +
                          ["--"] + new,
                          capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"diff_alarms: diff failed: {proc.stderr.strip()}")
    return [(r["event_name"], r["verdict"], round(r["p50_change_pct"], 1))
            for r in json.loads(proc.stdout)
            if r["verdict"] in ("slower", "faster")]


def draws(rng, pool, side):
    """One trial's two draws of 2 x side recordings from the pool: in
    turns, as record --alternate-with makes them (sorted by when they were
    recorded, base and new alternating), and at random."""
    picked = sorted(rng.sample(range(len(pool)), 2 * side))
    turns = ([pool[i] for i in picked[0::2]], [pool[i] for i in picked[1::2]])
    drawn = rng.sample(pool, 2 * side)
    return {"in turns": turns, "at random": (drawn[:side], drawn[side:])}


def trial(cli, d, t, base, new, op, factor):
    """One draw's A/A rows, and whether op scaled by factor was named."""
    same = flagged(cli, base, new)
    slow = [os.path.join(d, f"t{t}_{k}.etdp") for k in range(len(new))]
    for src, out in zip(new, slow):
        scale_file(src, out, op=op, op_factor=factor)
    rows = flagged(cli, base, slow)
    hit = (op, "slower") in [(n, v) for n, v, _ in rows]
    return same, hit, rows


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
    ap.add_argument("--diff-option", action="append", default=[],
                    help="an option to give diff (repeatable), to judge "
                    "settings other than its defaults")
    a = ap.parse_args()
    DIFF_OPTIONS.extend(a.diff_option)
    if a.pool < 2 * a.side:
        sys.exit("diff_alarms: --pool must hold two sides")
    cli = os.path.join(a.build, "etdump-bpf")
    example = os.path.join(a.build, "example-runtime")
    rng = random.Random(a.seed)
    alarms = {"in turns": 0, "at random": 0}
    caught = dict(alarms)
    with tempfile.TemporaryDirectory() as d:
        keep = a.keep or d
        os.makedirs(keep, exist_ok=True)
        pool = [os.path.join(keep, f"r{i}.etdp") for i in range(a.pool)]
        for path in pool:
            if not os.path.exists(path):
                record(cli, example, path, a.executions)
        for t in range(a.trials):
            op = OPS[t % len(OPS)]
            for how, (base, new) in draws(rng, pool, a.side).items():
                same, hit, rows = trial(cli, d, t, base, new, op, a.factor)
                alarms[how] += bool(same)
                caught[how] += hit
                print(f"trial {t + 1:2} {how}: same build "
                      f"{same or 'no alarm'}; {op} x{a.factor} "
                      f"{'caught' if hit else 'MISSED'}"
                      f"{'' if [r[0] for r in rows] == [op] else f' {rows}'}")
    for how in alarms:
        print(f"false alarms: {alarms[how]} of {a.trials} same-build "
              f"comparisons, drawn {how} ({a.side} recordings a side, "
              f"-n {a.executions})")
        print(f"caught: {caught[how]} of {a.trials} one-operator slowdowns "
              f"x{a.factor}, named, drawn {how}")
    turns = "in turns"
    return 1 if alarms[turns] > a.max_alarms or \
        caught[turns] < a.min_caught else 0


if __name__ == "__main__":
    sys.exit(main())
