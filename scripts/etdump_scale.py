#!/usr/bin/env python3
"""A copy of an ETDump with event durations scaled: every event's by
`factor` (a process that ran slower as a whole), and one operator's by
`op_factor` on top (a build that made that operator slower). Each event
keeps its start; its end moves. Decoded and written by flatc against
schema/etdump.fbs, as ExecuTorch reads it, so no code of ours is trusted
to make what diff is tested on.

  scripts/etdump_scale.py IN OUT [--factor F] [--op NAME --op-factor F]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "e2e"))
from etdump_e2e import SCHEMA, decode  # noqa: E402


def scale_dump(dump, factor=1.0, op=None, op_factor=1.0):
    """dump (flatc's JSON) with its profile events' durations scaled."""
    for run_data in dump.get("run_data", []):
        for ev in run_data.get("events", []):
            pe = ev.get("profile_event")
            if not pe or "end_time" not in pe:
                continue
            f = factor * (op_factor if pe.get("name") == op else 1.0)
            dur = pe["end_time"] - pe["start_time"]
            pe["end_time"] = pe["start_time"] + int(round(dur * f))
    return dump


def write_dump(dump, out):
    """flatc's JSON of an ETDump into the size-prefixed ETDump out."""
    with tempfile.TemporaryDirectory() as d:
        name = os.path.join(d, os.path.splitext(os.path.basename(out))[0])
        with open(name + ".json", "w") as f:
            json.dump(dump, f)
        proc = subprocess.run(["flatc", "-b", "--size-prefixed", "-o", d,
                               SCHEMA, name + ".json"],
                              capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f"flatc cannot write {out}: {proc.stderr}")
        os.replace(name + ".etdp", out)


def scale_file(src, out, factor=1.0, op=None, op_factor=1.0):
    write_dump(scale_dump(decode(src), factor, op, op_factor), out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--factor", type=float, default=1.0)
    ap.add_argument("--op")
    ap.add_argument("--op-factor", type=float, default=1.0)
    a = ap.parse_args()
    scale_file(a.src, a.out, a.factor, a.op, a.op_factor)


if __name__ == "__main__":
    main()
