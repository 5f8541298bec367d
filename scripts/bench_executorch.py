"""make bench, row 7: the real ExecuTorch runtime on cnn.pte, every way of
running it side by side, interleaved in one run:

  stock runner, untraced        bin/executor_runner (tracer compiled out)
  ETDumpGen                     bin/executor_runner_etdump --etdump_path
  ours, no tracer               build/executorch-runner --no-tracer
  ours, tracer detached         build/executorch-runner
  ours, batched                 etdump-bpf record -- build/executorch-runner
  ours, per-scope               etdump-bpf record --precise --no-counters -- ...
  stock runner, symbol mode     etdump-bpf record --program cnn.pte -p PID
  stock runner, floor           bench-floor -p PID --symbol-sites: the same
                                sites and links, programs that only count

Each variant is timed at two execution counts, and the time per execution
is the difference over the difference in counts, so start-up, loading,
attaching and writing cancel out. The time is the runner's own CPU time
(user + sys, the probes' kernel work included); our runner is held before
its load (--wait-signal) while record attaches with -p; the stock runner,
which cannot wait, is held at its exec by ptrace (PTRACE_TRACEME) while
record attaches with -p, then let go.
Cost per event = (time per execution - its baseline's) / events per
execution, the events counted in what each wrote. The floor's share of what
symbol mode adds is what the kernel's uprobes and uretprobes cost by
themselves: no work in our programs or collector can take it away.

Then each kernel's median duration in what symbol mode wrote against its
median in what ETDumpGen wrote, in the same run (the median over the
repetitions of each one's median in the longer runs): symbol mode takes its
probes' time, measured when it attaches, out of its durations.
"""
import contextlib
import ctypes
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tests", "e2e"))
import executorch_env as et  # noqa: E402

MODEL = "cnn"
FEW, MANY = 200, 10200


def cpu_of(proc, argv):
    """The CPU time (user + sys) of a child, reaped here."""
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed")
    return ru.ru_utime + ru.ru_stime


def timed(argv, wall=False):
    """The CPU time of a command (its wall time with wall=True: for a
    recorder and the command it starts), and its stderr."""
    with tempfile.TemporaryFile("w+") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err,
                                text=True)
        cpu = cpu_of(proc, argv)
        elapsed = time.monotonic() - t0
        err.seek(0)
        return (elapsed if wall else cpu), err.read()


def held(argv, record, finish):
    """A runner held before its load (--wait-signal), `record` (an argv,
    or None) attached with -p first, then let go: finish(target) once the
    runner runs, and record's stderr."""
    target = subprocess.Popen(argv + ["--wait-signal"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    rec = None
    try:
        if not target.stdout.readline().startswith("ready "):
            raise RuntimeError(f"{argv[0]} did not get ready")
        if record:
            rec = attached(record, target.pid)
        target.send_signal(signal.SIGUSR1)
        result = finish(target)
        err = rec.communicate(timeout=600)[1] if rec else ""
        if rec and rec.returncode != 0:
            raise RuntimeError(f"record failed: {err.strip()}")
        return result, err
    finally:
        kill_all(target, rec)


def attached(record, pid, stdout=None):
    """`record` started with -p pid (or record(pid), when a function of the
    pid gives its argv), once it says it attached."""
    argv = record(pid) if callable(record) else record + ["-p", str(pid)]
    rec = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE,
                           text=True)
    for line in rec.stderr:
        if "attached" in line:
            return rec
    rec.wait()
    raise RuntimeError("record did not attach")


def kill_all(*procs):
    """The processes still running, killed and reaped."""
    for p in procs:
        if p and p.poll() is None:
            p.kill()
            p.wait()


def timed_held(argv, record):
    """Our runner held before its load, `record` attached with -p first:
    the runner's CPU time, and record's stderr."""
    def cpu(target):
        return cpu_of(target, argv)
    return held(argv, record, cpu)


PTRACE_TRACEME, PTRACE_DETACH = 0, 17
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                        ctypes.c_void_p]


def trace_me():
    """In the child before its exec: stop at the exec (SIGTRAP)."""
    LIBC.ptrace(PTRACE_TRACEME, 0, None, None)


def on_cpu(cpu):
    """A child's preexec_fn: the child runs on `cpu` alone."""
    return lambda: os.sched_setaffinity(0, {cpu})


@contextlib.contextmanager
def let_go_attached(argv, record, stdout=None, cpu=None):
    """A runner held at its exec, `record` attached with -p (record: an
    argv, or a function of the pid giving one), then let go: (runner,
    record), both killed and reaped after. With `cpu`, the runner runs on
    that CPU alone (the recorder wherever the kernel puts it)."""
    def preexec():
        if cpu is not None:
            on_cpu(cpu)()
        trace_me()
    target = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                              preexec_fn=preexec)
    rec = None
    try:
        _, status = os.waitpid(target.pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):
            raise RuntimeError(f"{argv[0]} did not stop at its exec")
        rec = attached(record, target.pid, stdout)
        if LIBC.ptrace(PTRACE_DETACH, target.pid, None, None):
            raise RuntimeError(f"cannot let {argv[0]} go")
        yield target, rec
    finally:
        kill_all(target, rec)


def timed_at_exec(argv, record):
    """The runner's CPU time with `record` attached at its exec
    (let_go_attached), and record's stderr."""
    with let_go_attached(argv, record) as (target, rec):
        cpu = cpu_of(target, argv)
        return cpu, rec.communicate(timeout=600)[1]


def variants(build, tmp):
    cli = os.path.join(build, "etdump-bpf")
    ours = os.path.join(build, "executorch-runner")
    model = et.model(MODEL)
    out = os.path.join(tmp, "out.etdp")
    rec = [cli, "record", "-f", "-o", out]
    etdumpgen_out = os.path.join(tmp, OUT_ETDUMPGEN)
    symbols_out = os.path.join(tmp, OUT_SYMBOLS)
    floor = os.path.join(build, "bench-floor")

    def runner(binary, *extra):
        return lambda n: [binary, "--model_path", model,
                          "--num_executions", str(n), *extra]

    def stock(binary, *extra):
        return runner(binary, "--print_output", "none", *extra)

    def whole(cmd):
        return lambda n: timed(cmd(n))

    def held(flags):
        return lambda n: timed_held(runner(ours)(n),
                                    rec + flags if flags is not None else None)

    return [
        ("stock runner, untraced", whole(stock(et.STOCK_RUNNER)), "stock"),
        ("ETDumpGen (executor_runner_etdump)",
         whole(stock(et.ETDUMPGEN_RUNNER, "--etdump_path", etdumpgen_out)),
         "stock"),
        ("ours, no tracer", whole(runner(ours, "--no-tracer")), "ours-none"),
        ("ours, tracer detached", whole(runner(ours)), "ours-none"),
        ("ours, record -p (batched)", held([]), "ours-none"),
        ("ours, record -p --precise --no-counters",
         held(["--precise", "--no-counters"]), "ours-none"),
        ("stock runner, record --program -p (symbol mode)",
         lambda n: timed_at_exec(stock(et.STOCK_RUNNER)(n),
                                 [cli, "record", "-f", "-o", symbols_out,
                                  "--program", model]), "stock"),
        (FLOOR_LABEL,
         lambda n: timed_at_exec(stock(et.STOCK_RUNNER)(n),
                                 lambda pid: [floor, "-p", str(pid),
                                              "--symbol-sites"]), "stock"),
    ]


OUT_ETDUMPGEN, OUT_SYMBOLS = "etdumpgen.etdp", "symbols.etdp"
# the kernel's share of symbol mode: the same functions' entries and returns
# probed at symbol mode's own sites by a program that only counts
# (tests/bench/floor.c)
FLOOR_LABEL = "stock runner, floor: count-only uprobe + uretprobe, same functions"
KERNEL_BOUND_NS, KERNEL_BOUND_RATIO = 150, 0.25


PROBE_TIME = re.compile(r"less the probes' own time, measured at attach: "
                        r"(\d+) ns per probed scope and (\d+) ns")


def events_written(stderr):
    m = re.search(r"(\d+) events", stderr)
    return int(m.group(1)) if m else None


def row_executorch(b, table, reps, log, median, fmt_ratio):
    """Row 7 into table; what symbol mode said it takes out of its
    durations (a PROBE_TIME match, or None), for row 7b."""
    ok, why = et.available()
    runner = os.path.join(b.dir, "executorch-runner")
    if not ok or not os.path.exists(runner):
        raise RuntimeError("ExecuTorch not found: " +
                           (why or f"{runner} not built"))
    log(f"7. the real ExecuTorch runtime on {MODEL}.pte")
    with tempfile.TemporaryDirectory(prefix="etdump-bench-") as tmp:
        vs = variants(b.dir, tmp)
        per_exec = {v[0]: [] for v in vs}
        events = {}
        probe_time = None
        for rep in range(reps):
            for label, measure, _ in vs:
                few, _ = measure(FEW)
                many, err = measure(MANY)
                per_exec[label].append((many - few) / (MANY - FEW))
                n = events_written(err)
                if n is not None:
                    events[label] = n / MANY
                probe_time = PROBE_TIME.search(err) or probe_time
            log(f"  repetition {rep + 1}/{reps} done")
    med = {k: median(v) for k, v in per_exec.items()}
    base = {"stock": med[vs[0][0]], "ours-none": med[vs[2][0]]}
    etdumpgen = vs[1][0]
    # ETDumpGen writes the same events our tracer records
    events.setdefault(etdumpgen, events.get(vs[4][0], float("nan")))
    etdumpgen_cost = (med[etdumpgen] - base["stock"]) * 1e9 / \
        events[etdumpgen]
    table.section(f"7. the real ExecuTorch on {MODEL}.pte: CPU time per "
                  f"execution = (T({MANY}) - T({FEW})) / {MANY - FEW} "
                  f"executions; ratio to untraced (its own runner's), "
                  f"cost per event against ETDumpGen's")
    for label, _, kind in vs:
        us = med[label] * 1e6
        ratio = med[label] / base[kind]
        note = f"{ratio:.2f}x untraced"
        if label in events and label not in (vs[0][0], vs[2][0], vs[3][0]):
            cost = (med[label] - base[kind]) * 1e9 / events[label]
            note += (f"; {events[label]:.0f} events/exec, {cost:.0f} "
                     f"ns/event = {fmt_ratio(cost / etdumpgen_cost)} "
                     f"ETDumpGen's")
        if label != etdumpgen and kind == "stock" and label != vs[0][0]:
            added = med[label] - base[kind]
            note += (f"; adds {added * 1e6:.1f} us/exec = "
                     f"{fmt_ratio(added / (med[etdumpgen] - base[kind]))} "
                     f"what ETDumpGen adds")
        table.add(label, f"{us:.1f} us/exec", fmt_ratio(ratio), note)
    symbols, floor = (med[vs[i][0]] - base["stock"] for i in (6, 7))
    table.add("the floor's share of what symbol mode adds", "",
              fmt_ratio(floor / symbols),
              "the kernel's uprobe + uretprobe with a program that only "
              "counts, on the same functions: what no work of ours in the "
              "programs or the collector can take away")
    return probe_time


def main():
    """Row 7 alone: scripts/bench_executorch.py [--build DIR] [--reps N]
    (7b alone: scripts/kernel_durations.py)"""
    import argparse
    import bench_table as bt
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    table = bt.Table()
    row_executorch(bt.Build(os.path.abspath(args.build)), table,
                   args.reps, bt.log, bt.median, bt.fmt_ratio)
    print(table.render())


if __name__ == "__main__":
    main()
