"""make bench, row 7a: the EventTracer where inference pays for it, inside
the execution loop of one runner (tests/executorch/runner.cpp) built two
ways, each way timing its own loop (--loop-time: the loop's thread CPU
time; loading, attaching and ETDumpGen's final file write left out):

  untraced          --no-tracer: no EventTracer at all
  null tracer       --null-tracer: an EventTracer whose hooks do nothing
                    (what having any tracer costs the runtime: with one,
                    XNNPACK profiles every operator at each execution)
  stamps only       --stamp-tracer: the least tracer that times each
                    scope, a stamp and 16 bytes stored at each end, read
                    by nobody (the floor of any design, ours included)
  detached          our EventTracer, no recorder attached
  ETDumpGen         the same runner built with ExecuTorch's ETDumpGen
  batched           our EventTracer, etdump-bpf record -p attached
  per-scope         ... record -p --precise --no-counters
  batched --every   ... record -p --every 100: one execution in 100 traced

What an attached recorder adds is measured a second way too, free of the
~2% by which one process's pace differs from the next one's: one runner
process runs its loop in phases (--phases): a warm-up, one unattached,
one with the recorder attached with -p; the last's time over the one
before, the median over 81 processes (21 for batched) with its
confidence interval ("added, same process"). The floor is measured so
too (--stamp-tracer-last: stamping in the last phase only, nothing
attached), so that batched and the floor also stand side by side within
one process.

Time per execution = (T(MANY) - T(FEW)) / (MANY - FEW). Cost per event is
what a tracer adds over its baseline, per event it writes: on cnn.pte the
untraced runner; on xnn_mlp.pte the detached tracer, so that XNNPACK's
profiling, which both tracers pay alike, is left out. The variants that
attach nothing but ETDumpGen are cheap and run 48 times a round,
alternated, for the detached ratios and the floor; the detached ratios'
spread and the confidence interval of their median are printed. The
recorded variants run 5 processes a round on cnn.pte, 1 on xnn_mlp.pte.

The breakdown of a batched event: on cnn.pte first what ExecuTorch itself
pays for calling any tracer (the null tracer over the untraced runner,
which ETDumpGen pays too); then tests/bench/tracer.c, the same sites in
the model's pattern with no probe attached: stamps, the check that a name
was given, the stores and the rest; then the flush's BPF program (its
copy into the ring), timed by the kernel (bpf_stats) over one phase of a
recorded runner; what the recorded runner pays beyond that is the rest
in situ: the flush's uprobe hit and anchors, and whatever else the tracer
costs among the runtime's work and not in tracer.c's loop (whose cold
figure, the same loop with a level-1 data cache's worth of bytes touched
between sites, shows what fetching the tracer's lines again costs
there). "stamps only" is the least any tracer that times each scope
costs in this runner: no design of ours goes below it.
"""
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tests", "e2e"))
import bpf_stats  # noqa: E402
import executorch_env as et  # noqa: E402
import bench_executorch  # noqa: E402

# (model, FEW, MANY, recorded processes a round): ~0.1 s of loop at MANY.
# A process's pace differs from the next one's by ~2%, 20 ns an event of
# cnn.pte's: its recorded variants run five processes a round, so that
# their medians are of 25 (xnn_mlp.pte's events are 20 times denser).
MODELS = [("cnn", 200, 3200, 5), ("xnn_mlp", 2000, 42000, 1)]
DETACHED_PER_ROUND = 48
LOOP = re.compile(r"loop_cpu_ns=(\d+)")
EVENTS = re.compile(r"(\d+) events")


def loop_cpu(argv, record=None):
    """The loop's CPU time (ns) of a runner held before its load, with
    `record` (argv) attached with -p first; and record's stderr."""
    def loop_time(target):
        _, err = target.communicate(timeout=600)
        if target.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed: {err.strip()}")
        m = LOOP.search(err)
        if not m:
            raise RuntimeError(f"{argv[0]} did not time its loop")
        return int(m.group(1))
    return bench_executorch.held(argv + ["--loop-time"], record, loop_time)


PHASES = 3  # a warm-up, unattached, attached
# (variant, record's options or None, the runner's options, processes
# measured in phases): --every 100's median within ~+-0.5% (the issue's
# bound is 1%); batched and the floor (stamps only, stamping in the last
# phase, nothing attached) set against each other within one process
PHASED = [("batched --every 100", ["--every", "100"], [], 81),
          ("batched", [], [], 21),
          ("stamps only", None, ["--stamp-tracer-last"], 21)]


def in_phases(argv, executions, phases, between):
    """One runner process, its loop run `phases` times (--phases):
    between(k, pid) runs at the k-th pause (1 .. phases - 1), before the
    runner is let go on, and may return a process (a recorder) to wait for
    at the end. The loop's CPU time of each phase (ns)."""
    target = subprocess.Popen(
        argv + ["--num_executions", str(executions), "--loop-time",
                "--phases", str(phases)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    procs = []
    try:
        for k in range(1, phases):
            line = target.stdout.readline()
            if not line.startswith("ready "):
                target.kill()
                _, err = target.communicate()
                raise RuntimeError(f"{argv[0]} stopped between phases "
                                   f"(said {line!r}, exit "
                                   f"{target.returncode}): {err.strip()}")
            proc = between(k, target.pid)
            if proc:
                procs.append(proc)
            target.send_signal(signal.SIGUSR1)
        _, err = target.communicate(timeout=600)
        for proc in procs:
            proc.communicate(timeout=600)
    finally:
        bench_executorch.kill_all(target, *procs)
    if target.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {err.strip()}")
    if any(proc.returncode != 0 for proc in procs):
        raise RuntimeError("record failed")
    t = [int(x) for x in LOOP.findall(err)]
    if len(t) != phases:
        raise RuntimeError(f"{argv[0]} timed {len(t)} phases")
    return t


def attached_in_phases(argv, record, executions):
    """One runner process, its loop run PHASES times (--phases): `record`
    (or nothing, None: the runner's options change the last phase)
    attached with -p for the last only. The loop's CPU time of each phase
    (ns). The last over the one before is what the attached recorder adds,
    the same process unattached the baseline: a process's own pace, which
    differs ~2% from the next one's, is out of the ratio. (No phase comes
    after the recorder: it exits before its probes are out, which takes
    ~40-50 ms more; the runtime keeps batching until then.)"""
    def between(k, pid):
        if record and k == PHASES - 1:
            return bench_executorch.attached(record, pid)
        return None
    return in_phases(argv, executions, PHASES, between)


def flush_program():
    """(run_cnt, run_time_ns) of the flush program loaded last: the
    recorder's, when no other recorder runs."""
    progs = bpf_stats.programs({"on_flush"})
    if "on_flush" not in progs:
        raise RuntimeError("no flush program is loaded")
    return progs["on_flush"]


def flush_cost(argv, record, executions):
    """What the flush's BPF program costs, measured in the kernel
    (bpf_stats) over one phase of a runner with `record` attached: ns a
    flush and flushes an execution. Its trap and the runtime's anchors are
    not in it. The first phase attached is left out of the count: its
    flushes include the first's anchoring."""
    counts = []

    def between(k, pid):
        if k == 1:
            return bench_executorch.attached(record, pid)
        counts.append(flush_program())
        return None
    with bpf_stats.enabled():
        in_phases(argv, executions, 4, between)
    (cnt0, ns0), (cnt1, ns1) = counts
    if cnt1 <= cnt0:
        raise RuntimeError("the flush program ran no flush")
    return (ns1 - ns0) / (cnt1 - cnt0), (cnt1 - cnt0) / executions


def per_execution(argv, record, few, many):
    """ns per execution, and events per execution in what record wrote."""
    t_few, err_few = loop_cpu(argv + ["--num_executions", str(few)], record)
    t_many, err_many = loop_cpu(argv + ["--num_executions", str(many)],
                                record)
    events = None
    if record:
        e_few, e_many = (EVENTS.search(e) for e in (err_few, err_many))
        if e_few and e_many:
            events = (int(e_many.group(1)) - int(e_few.group(1))) / \
                (many - few)
    return (t_many - t_few) / (many - few), events


def breakdown(build):
    """tests/bench/tracer.c's key=value line, as floats."""
    out = subprocess.run([os.path.join(build, "bench-tracer")],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    return {k: (float(v) if re.match(r"^[-0-9.]+$", v) else v)
            for k, v in re.findall(r"(\w+)=(\S+)", out)}


def spread(xs, fmt):
    """The quartiles and the extremes of the rounds' ratios."""
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return (f"quartiles {fmt(q[0])} .. {fmt(q[2])}, all "
            f"{fmt(min(xs))} .. {fmt(max(xs))}")


def median_ci(xs, level=0.95):
    """A distribution-free confidence interval of the median: the order
    statistics whose ranks the binomial distribution of B(n, 1/2) puts
    (1 - level) / 2 beyond on each side."""
    xs = sorted(xs)
    n = len(xs)
    r, tail = 1, 1 / 2 ** n
    while r < n // 2 and tail + math.comb(n, r) / 2 ** n <= (1 - level) / 2:
        tail += math.comb(n, r) / 2 ** n
        r += 1
    return xs[r - 1], xs[n - r], 1 - 2 * tail


def broken_down(model, med, base, n_events, parts, flushes, median):
    """A batched event's cost in parts: ExecuTorch's own for having a
    tracer at all (cnn.pte, whose base is the untraced runner), then
    tests/bench/tracer.c's pattern of the model without a probe (stamps,
    name checks, stores), the flush's BPF program as the kernel timed it
    (flush_cost), and the rest: the flush's trap and anchors, and what
    else the tracer costs in the runtime beyond the loop of tracer.c."""
    batched = (med["batched"] - base) / n_events
    per_flush = median([f[0] for f in flushes])
    every = 1 / median([f[1] for f in flushes])
    flush = per_flush / every / n_events
    flush_said = (f"the flush's BPF program {flush:.1f} ({per_flush:.0f} ns "
                  f"a flush, one every {every:.0f} executions; bpf_stats)")
    kib = parts[0]["l1_bytes"] / 1024
    cold = median([p["attached_cold" if model == "cnn" else
                     "attached_xnn_cold"] for p in parts])
    loop_said = (f" without a probe, {cold:.1f} when its kernels touch "
                 f"{kib:.0f} KiB between sites, a level-1 cache's worth; the "
                 f"floor's shape in cnn.pte's pattern "
                 f"{median([p['floor'] for p in parts]):.1f} and "
                 f"{median([p['floor_cold'] for p in parts]):.1f}")
    stamp = median([p["stamp_ns"] for p in parts])
    names = median([p["name_ns"] for p in parts])
    text = median([p["text_ns"] for p in parts])
    clock = parts[0]["clock"]
    if model == "cnn":
        runtime = (med["null tracer"] - med["untraced"]) / n_events
        user = median([p["attached"] - p["detached"] for p in parts])
        what = (f"ExecuTorch's own {runtime:.1f} (the null tracer: a "
                f"tracer's calls), stamps {2 * stamp:.1f} (two, clock: "
                f"{clock}), name check {names:.1f} (a literal; {text:.1f} "
                f"for a name compared by its text), stores and the rest "
                f"{user - 2 * stamp - names:.1f}, {flush_said}, the rest in "
                f"situ {batched - runtime - user - flush:.1f} ns "
                f"(tests/bench/tracer.c: {user:.1f} ns{loop_said})")
    else:
        user = median([p["attached_xnn"] - p["detached_xnn"]
                       for p in parts])
        # 4 timed scopes and 4 operators XNNPACK timed itself: a stamp
        # an event, four literal names and four compared by their text
        checks = (names + text) / 2
        what = (f"stamps {stamp:.1f} (one an event: XNNPACK times its "
                f"operators), name checks {checks:.1f} (half of them by "
                f"their text), stores and the rest "
                f"{user - stamp - checks:.1f}, {flush_said}, the rest in "
                f"situ {batched - user - flush:.1f} ns (tests/bench/tracer.c: "
                f"{user:.1f} ns{loop_said})")
    return ("  batched event, broken down", f"{batched:.1f} ns", "", what)


def row_tracer(b, table, reps, log, median, fmt_ratio):
    ok, why = et.available()
    ours = os.path.join(b.dir, "executorch-runner")
    etdumpgen = os.path.join(b.dir, "executorch-runner-etdumpgen")
    if not ok or not os.path.exists(ours):
        raise RuntimeError("ExecuTorch not found: " +
                           (why or f"{ours} not built"))
    cli = os.path.join(b.dir, "etdump-bpf")
    with tempfile.TemporaryDirectory(prefix="etdump-bench-") as tmp:
        rec = [cli, "record", "-f", "-o", os.path.join(tmp, "out.etdp")]
        for model, few, many, per_round in MODELS:
            log(f"7a. the EventTracer in the loop, {model}.pte")
            path = et.model(model)

            def runner(binary, *extra):
                return [binary, "--model_path", path, *extra]

            cheap = {"untraced": runner(ours, "--no-tracer"),
                     "null tracer": runner(ours, "--null-tracer"),
                     "detached": runner(ours),
                     "stamps only": runner(ours, "--stamp-tracer")}
            recorded = [("ETDumpGen", runner(etdumpgen), None),
                        ("batched", runner(ours), rec),
                        ("per-scope", runner(ours),
                         rec + ["--precise", "--no-counters"]),
                        ("batched --every 100", runner(ours),
                         rec + ["--every", "100"])]
            t = {k: [] for k in list(cheap) + [v[0] for v in recorded]}
            rounds = {"detached": [], "null": [], "ours": []}
            events = {}
            parts = []
            flushes = []
            for rep in range(reps):
                for _ in range(DETACHED_PER_ROUND):
                    got = {k: per_execution(a, None, few, many)[0]
                           for k, a in cheap.items()}
                    for k, v in got.items():
                        t[k].append(v)
                    rounds["detached"].append(got["detached"] /
                                              got["untraced"])
                    rounds["null"].append(got["null tracer"] /
                                          got["untraced"])
                    rounds["ours"].append(got["detached"] /
                                          got["null tracer"])
                for _ in range(per_round):
                    for label, argv, record in recorded:
                        ns, n = per_execution(argv, record, few, many)
                        t[label].append(ns)
                        if n:
                            events[label] = n
                parts.append(breakdown(b.dir))
                flushes.append(flush_cost(runner(ours), rec, many))
                log(f"  repetition {rep + 1}/{reps} done")
            log("  attached for one phase of a process")
            phased = {label: [] for label, _, _, _ in PHASED}
            added_ns = {}
            for i in range(max(n for _, _, _, n in PHASED)):
                for label, extra, options, n in PHASED:
                    if i >= n:
                        continue
                    t_phase = attached_in_phases(
                        runner(ours, *options),
                        None if extra is None else rec + extra, many)
                    phased[label].append(t_phase[-1] / t_phase[-2])
                    if label != "batched --every 100":
                        added_ns.setdefault(label, []).append(
                            (t_phase[-1] - t_phase[-2]) / many)
            med = {k: median(v) for k, v in t.items()}
            n_events = events.get("batched", float("nan"))
            base = med["untraced"] if model == "cnn" else med["detached"]
            base_name = "untraced" if model == "cnn" else "detached"
            etd_cost = (med["ETDumpGen"] - base) / n_events
            table.section(
                f"7a. {model}.pte: the tracer inside the execution loop "
                f"(the loop's CPU time, (T({many}) - T({few})) / "
                f"{many - few}); cost per event over the {base_name} "
                f"runner, {n_events:.0f} events an execution")
            for label in t:
                note = f"{med[label] / med['untraced']:.3f}x untraced"
                ratio = ""
                if label in ("null tracer", "stamps only", "ETDumpGen",
                             "batched", "per-scope") and \
                        (model == "cnn" or label != "null tracer"):
                    cost = (med[label] - base) / n_events
                    ratio = fmt_ratio(cost / etd_cost)
                    note += f"; {cost:.1f} ns/event"
                    if label != "ETDumpGen":
                        note += " (ratio: to ETDumpGen's per event)"
                table.add(label, f"{med[label] / 1000:.2f} us/exec", ratio,
                          note)
            r = {k: median(v) for k, v in rounds.items()}
            every = (med["batched --every 100"] - med["untraced"]) / \
                med["untraced"]
            table.add("batched --every 100: added", f"{every:+.2%}", "",
                      "one execution in 100 traced, the others one check "
                      "each (over the untraced runner)")
            for label, extra, _, _ in PHASED:
                lo, hi, level = median_ci(phased[label])
                what = ("attached over an unattached phase" if extra is not
                        None else "stamping over a phase that does not "
                        "(the null tracer's hooks)")
                ratio, per_event = "", ""
                if label in added_ns:
                    cost = median(added_ns[label]) / n_events
                    ratio = fmt_ratio(cost / etd_cost)
                    per_event = (f"; {cost:.1f} ns/event (ratio: to "
                                 f"ETDumpGen's per event)")
                table.add(f"{label}: added, same process",
                          f"{median(phased[label]) - 1:+.2%}", ratio,
                          f"{what} of one process (--phases), median of "
                          f"{len(phased[label])}: within {lo - 1:+.2%} .. "
                          f"{hi - 1:+.2%} ({level:.0%} confidence)"
                          f"{per_event}")
            lo, hi, level = median_ci(rounds["detached"])
            table.add("detached / untraced", "", f"{r['detached']:.3f}x",
                      f"spread {spread(rounds['detached'], '{:.3f}'.format)}"
                      f" over {len(rounds['detached'])} alternated rounds; "
                      f"the median within {lo:.3f} .. {hi:.3f} "
                      f"({level:.0%} confidence, {hi - lo:.1%} wide)")
            if model != "cnn":
                table.add("  ExecuTorch's part: null tracer / untraced", "",
                          f"{r['null']:.3f}x",
                          f"spread {spread(rounds['null'], '{:.3f}'.format)}"
                          ": XNNPACK profiles each operator once a method "
                          "has any tracer")
                table.add("  ours: detached / null tracer", "",
                          f"{r['ours']:.3f}x",
                          f"spread {spread(rounds['ours'], '{:.3f}'.format)}")
            if parts:
                table.add(*broken_down(model, med, base, n_events, parts,
                                       flushes, median))
