#!/usr/bin/env python3
"""Each kernel's (and XNNPACK operator's) median duration, symbol mode on a
stock runner against ETDumpGen on its own runner, run alternately so that
both see the same machine:

  scripts/kernel_durations.py [--build build] [--model cnn] [--rounds 3]
                              [--executions 200] [-- extra record flags]

A model named xnn_* runs on the XNNPACK runners and is held to 1 us per
operator (ETDumpGen's XNNPACK profiler counts whole microseconds); each
kernel to max(25 %, 150 ns) (make bench row 7b). Prints one line per
event: both medians (the median over rounds of each round's median), the
spread of symbol mode's over rounds, and whether it is within bounds.
Exit status 1 when one is not, or a duration written is 0 or the 1 ns a
clamp leaves.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "e2e"))
import executorch_env as et  # noqa: E402
from bench_executorch import (KERNEL_BOUND_NS, KERNEL_BOUND_RATIO,  # noqa: E402
                              median_of)
from etdump_e2e import decode  # noqa: E402

XNN_BOUND_NS = 1000


def medians(path):
    """{(instruction, name): median ns} of the kernels and XNNPACK
    operators of the Execute runs of an ETDump."""
    times = {}
    for run in decode(path)["run_data"]:
        if run["name"] != "Execute":
            continue
        for ev in run["events"]:
            pe = ev.get("profile_event")
            if not pe:
                continue
            name = pe.get("delegate_debug_id_str") or pe.get("name") or ""
            if not (pe.get("delegate_debug_id_str") or
                    name.startswith("native_call_")):
                continue
            times.setdefault((pe["instruction_id"], name), []).append(
                int(pe["end_time"]) - int(pe["start_time"]))
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def runners(model):
    if model.startswith("xnn_"):
        return (os.path.join(et.BIN, "executor_runner_xnn"),
                et.ETDUMPGEN_XNN_RUNNER)
    return et.STOCK_RUNNER, et.ETDUMPGEN_RUNNER


def one_round(build, model, executions, tmp, extra=()):
    """ETDumpGen's run, then symbol mode's: the medians of each."""
    stock, etdumpgen = runners(model)
    common = ["--model_path", et.model(model), "--num_executions",
              str(executions), "--print_output", "none"]
    ref = os.path.join(tmp, "e.etdp")
    ours = os.path.join(tmp, "o.etdp")
    subprocess.run([etdumpgen, *common, "--etdump_path", ref], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([os.path.join(build, "etdump-bpf"), "record", "-f",
                    "-o", ours, *extra, "--", stock, *common], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return medians(ref), medians(ours), durations(ours)


def durations(path):
    """Every kernel and operator duration of an ETDump, in ns."""
    return [d for run in decode(path)["run_data"] for ev in run["events"]
            for pe in [ev.get("profile_event")]
            if pe and (pe.get("delegate_debug_id_str") or
                       (pe.get("name") or "").startswith("native_call_"))
            for d in [int(pe["end_time"]) - int(pe["start_time"])]]


def side_by_side(build, model, rounds, executions, extra=()):
    """Rounds of ETDumpGen and symbol mode, alternately: ETDumpGen's
    medians, symbol mode's, symbol mode's per round, the least duration
    symbol mode wrote (the median over rounds of each round's median: make
    bench row 7b's), and ETDumpGen's per round."""
    refs, ours, least = [], [], None
    with tempfile.TemporaryDirectory(prefix="kernel-durations-") as tmp:
        for _ in range(rounds):
            r, o, d = one_round(build, model, executions, tmp, extra)
            refs.append(r)
            ours.append(o)
            least = min([least, *d] if least is not None else d)
    return median_of(refs), median_of(ours), ours, least, refs


def bound_ns(model, ref_ns, name):
    """How far symbol mode's median may be from ETDumpGen's."""
    if model.startswith("xnn_") and not name.startswith("native_call_"):
        return XNN_BOUND_NS
    return max(KERNEL_BOUND_RATIO * ref_ns, KERNEL_BOUND_NS)


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--model", default="cnn")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--executions", type=int, default=200)
    args = p.parse_args(argv)
    ref, got, ours, least, _ = side_by_side(args.build, args.model, args.rounds,
                                         args.executions, extra)
    bad = 0
    print(f"{'event':52} {'ETDumpGen':>9} {'symbol':>9} {'diff':>7}  "
          f"symbol over rounds")
    for key in sorted(ref, key=lambda k: (k[0], k[1])):
        if key not in got:
            print(f"{key[0]:3} {key[1]:48} {ref[key]:9} {'missing':>9}")
            bad += 1
            continue
        diff = got[key] - ref[key]
        ok = abs(diff) <= bound_ns(args.model, ref[key], key[1])
        bad += not ok
        spread = sorted(o[key] for o in ours if key in o)
        print(f"{key[0]:3} {key[1][:48]:48} {ref[key]:9} {got[key]:9} "
              f"{diff:+7}  {spread[0]}..{spread[-1]}"
              f"{'' if ok else '  OUTSIDE'}")
    print(f"{len(ref) - bad} of {len(ref)} within bounds (kernels max("
          f"{KERNEL_BOUND_RATIO:.0%}, {KERNEL_BOUND_NS} ns), XNNPACK "
          f"operators {XNN_BOUND_NS} ns); least duration written: {least} ns")
    return 1 if bad or least is None or least <= 1 else 0


if __name__ == "__main__":
    sys.exit(main())
