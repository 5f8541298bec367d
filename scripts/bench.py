#!/usr/bin/env python3
"""make bench: what tracing costs, each number set against another measured
side by side in the same run.

Within a row the variants are alternated (A B C A B C ...) and each number
is the median of --reps repetitions. The targets time themselves
(tests/bench/loop.c prints its ns per iteration); every tracer attaches
with -p to a target held before its loop (--wait-signal), so startup costs
stay out of the numbers. The rows:

  1. detached: probe sites without a tracer vs the same loop built without
  2. attached: cost per probe hit, and as a ratio to the floor (a BPF
     program that only counts hits, tests/bench/floor.c); then per ETDump
     event (a begin and an end), batched against per-scope
  3. against bpftrace, printing the events or only counting them
  4. throughput: highest rate held with zero drops at the default ring size,
     the drops at twice that rate (checked against the events fired), the
     collector's CPU time per event
  4b. producers: batched events fired at 10 M/s by 1, 2, 4 and 8 threads,
     what was captured and dropped, the recorder's CPU per event beside the
     target's
  5. writer: ETDump write rate and peak memory for 1M events
  5b. memory: the recorder's peak RSS against the ETDump it wrote, for
     10k, 100k and 1M executions of 16 events
  5c. the recorder as a user measures it (/usr/bin/time of record -p on
     the example runtime's 200,000 executions, 3.2 M events, at the pace
     the runtime runs them): its CPU per event and peak RSS against the
     ETDump; convert of a raw capture of the same
  6. per model: the example runtime, untraced vs traced
  7a. the EventTracer inside the execution loop (scripts/bench_tracer.py):
     cnn.pte and xnn_mlp.pte, untraced / null tracer / detached / ETDumpGen
     / batched / per-scope, the cost per event and its breakdown
  7. the real ExecuTorch runtime on cnn.pte: stock, ETDumpGen, our
     EventTracer detached / batched / per-scope, symbol mode
     (scripts/bench_executorch.py)
  7c. symbol mode on the stock runners (cnn.pte; xnn_mlp.pte in the
     XNNPACK runner), one trap a kernel and with --exact-returns, each
     against count-only programs at its very sites, and ETDumpGen's own
     runners, the ratios with their spread (scripts/bench_xnnpack.py)
  7d. record --duty on cnn.pte: what the runner's time gains with the
     probes attached 10 % and 25 % of the time against all the time
     (scripts/bench_duty.py)
  9. diff: how often `diff` cries wolf over same-build recordings and how
     often it catches one operator 1.3x slower (scripts/diff_alarms.py)

Recording modes are described by their `etdump-bpf record` flags
(RECORD_MODES): a new mode is one more line there, and rows 2, 4 and 6
measure it.

--short: the headline rows the README and the docs quote (4b, 5, 5b,
5c, 7), each cut to its quick form (shorten() below), in about 2 minutes.

usage: scripts/bench.py [--build DIR] [--reps N] [--out FILE] [--rows A,B]
                        [--against OLD_BUILD] [--short]
"""
import argparse
import contextlib
import os
import platform
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

import bench_duty
import bench_executorch
import bench_tracer
import bench_values
import bench_xnnpack
import kernel_durations
from bench_table import Build, Table, fmt_ratio, log, median

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (label, record flags): the ways of recording that rows 2, 4 and 6 compare
SOFTWARE_COUNTERS = "task-clock,page-faults,context-switches"
RECORD_MODES = [
    ("per-scope", ["--precise", "--no-counters"]),
    ("per-scope + counters", ["--precise", "-e", SOFTWARE_COUNTERS]),
    ("default flags", []),
]
# the mode set against the floor, bpftrace and the 1-byte sites
REFERENCE_MODE = RECORD_MODES[0]
# what a runtime built with schema/etdump_usdt.h gets by default
BATCHED_MODE = RECORD_MODES[2]


def record_label(mode):
    label, flags = mode
    return "record " + " ".join(flags or ["(" + label + ")"])

LOOP_ITERATIONS = 200_000        # 2 probe hits each
# Row 2's recorders get a ring that holds the whole loop: a flush that finds
# the ring full is dropped without its copy, and would look cheaper. Whether
# the collector keeps pace is row 4's question.
LOOP_RING = ["--ring-size", "64M"]
DETACHED_ITERATIONS = 50_000_000
DETACHED_REPS_FACTOR = 4         # ~70 ms runs: spread them over seconds
BPFTRACE_PRINTF_ITERATIONS = 20_000  # ~20 us a hit: keep the run short
HITS_PER_ITERATION = 2
LOOP_PROBES = ["block", "profile_begin", "profile_end"]

THROUGHPUT_SECONDS = 0.5         # each trial fires this long
THROUGHPUT_START = 500_000       # events/s, doubled until a trial fails
THROUGHPUT_MAX = 16_000_000
THROUGHPUT_BISECT = 3
THROUGHPUT_THREADS = 2           # producers: one per CPU of a 2-CPU box
PRODUCER_THREADS = (1, 2, 4, 8)    # row 4b: the goal's rate, shared by T
PRODUCER_RATE = 10_000_000       # events/s: the goal on two cores
PRODUCER_EVENTS = 5_000_000
MEMORY_EXECUTIONS = (10_000, 100_000, 1_000_000)  # row 5b
MEMORY_EVENTS_PER_EXEC = 16      # as the example runtime's executions
MEMORY_RATE = 2_000_000          # events/s: what the collector holds
HELD_FRACTION = 0.95             # a trial holds if it fired this much on time

DEFAULT_REPS = 5
USER_EXECUTIONS = 200_000       # row 5c: as the issue measured it
USER_TRIALS = 2                  # recordings of it (80 s each here)
USER_TOGETHER = False            # the raw capture beside the last one
IDLE_SECONDS = 1                 # row 5c: an idle recording, its length
WRITER_EVENTS = 1_000_000
CONVERT_EVENTS = 3_200_000       # row 5: a raw capture of runs of 16
MODEL_EXECUTIONS = 1000

# the probes the loop hits, as ours capture them: name, args, time, thread
BPFTRACE_PRINTF = (
    'usdt:{exe}:etdump:block {{ printf("%llu %d r %s\\n", nsecs, tid, '
    'str(arg0)); }} '
    'usdt:{exe}:etdump:profile_begin {{ printf("%llu %d b %s %d %d\\n", '
    'nsecs, tid, str(arg0), arg1, arg2); }} '
    'usdt:{exe}:etdump:profile_end {{ printf("%llu %d e %s\\n", nsecs, tid, '
    'str(arg0)); }}')
BPFTRACE_COUNT = ('usdt:{exe}:etdump:block, '
                  'usdt:{exe}:etdump:profile_begin, '
                  'usdt:{exe}:etdump:profile_end {{ @ = count(); }}')


def keyvals(text):
    """key=value pairs of a bench program's result line."""
    return {k: float(v) for k, v in re.findall(r"(\w+)=([-0-9.]+)", text)}


# --- tracers: how each attaches to a target held with --wait-signal ------

class TracerProc:
    """A tracer process; stdout and stderr go to files, read at the end."""

    def __init__(self, argv, tmp):
        self.out_path = os.path.join(tmp, "tracer.out")
        self.err_path = os.path.join(tmp, "tracer.err")
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(argv, stdout=out, stderr=err)
        self.rusage = None

    def reap(self, block):
        """Whether it has exited; reaped with os.wait4 for its rusage (its
        own CPU time, not its children's)."""
        if self.rusage is None:
            flags = 0 if block else os.WNOHANG
            pid, status, ru = os.wait4(self.proc.pid, flags)
            if pid:
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                self.rusage = ru
        return self.rusage is not None

    def stderr(self):
        with open(self.err_path) as f:
            return f.read()

    def wait_for(self, marker, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if marker in self.stderr():
                return
            if self.reap(False):
                break
            time.sleep(0.005)
        self.kill()
        raise RuntimeError(f"tracer never said '{marker}': {self.stderr()}")

    def output(self, marker, timeout=120):
        """Its stdout and stderr once `marker` is in either (None: once it
        has exited); the rest comes with settle()."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            exited = self.reap(False)
            with open(self.out_path) as f:
                res = {"out": f.read(), "err": self.stderr()}
            if exited or (marker and marker in res["out"] + res["err"]):
                _detaching.append((self, res))
                return res
            time.sleep(0.005)
        self.kill()
        raise RuntimeError("tracer did not finish: " + self.stderr())

    def kill(self):
        if not self.reap(False):
            self.proc.kill()
            self.reap(True)


# Tracers that gave their result and are detaching: the kernel unregisters
# their uprobes one by one (0.1-0.5 s each here), so the next run is set up
# meanwhile, but it only starts once they are gone: settle().
_detaching = []


def settle():
    """Wait for every detaching tracer; add its exit status and rusage (its
    own CPU time, not its children's) to its result."""
    while _detaching:
        t, res = _detaching.pop()
        t.reap(True)
        res.update(rc=t.proc.returncode,
                   cpu_s=t.rusage.ru_utime + t.rusage.ru_stime,
                   user_s=t.rusage.ru_utime, sys_s=t.rusage.ru_stime,
                   maxrss_kb=t.rusage.ru_maxrss)


class Floor:
    """bench-floor: the count-only BPF program on the same probes."""
    sends_go = False
    done = "hits="

    def __init__(self, build):
        self.tool = os.path.join(build, "bench-floor")

    def start(self, pid, exe, tmp):
        t = TracerProc([self.tool, "-p", str(pid)] + LOOP_PROBES, tmp)
        t.wait_for("attached")
        return t


class Record:
    """etdump-bpf record -p PID with the given flags."""
    sends_go = False
    done = "wrote "

    def __init__(self, build, flags, output=None):
        self.cli = os.path.join(build, "etdump-bpf")
        self.flags = flags
        self.output = output  # None: a file in the run's own folder

    def start(self, pid, exe, tmp):
        t = TracerProc([self.cli, "record", "-f", "-o",
                        self.output or os.path.join(tmp, "bench.etdp"),
                        "-p", str(pid)] + self.flags, tmp)
        t.wait_for("attached")
        return t


class Bpftrace:
    """bpftrace on the same probes; it lets the target go once attached
    (BEGIN runs after every probe is attached)."""
    sends_go = True
    done = None  # prints at exit

    def __init__(self, body):
        self.body = body

    def start(self, pid, exe, tmp):
        script = (f'BEGIN {{ system("kill -USR1 {pid}"); }} ' +
                  self.body.format(exe=exe))
        # its output goes to a file: TracerProc's stdout
        return TracerProc(["bpftrace", "--unsafe", "-p", str(pid), "-e",
                           script], tmp)


def record_summary(err):
    """Events and drops from record's summary line, and the mode it chose."""
    m = re.search(r"(\d+) events, (\d+) dropped", err)
    mode = re.search(r"mode: ([\w-]+)", err)
    if not m:
        raise RuntimeError("no summary from record: " + err)
    return int(m.group(1)), int(m.group(2)), mode.group(1) if mode else "?"


def run_target(argv, tracer=None, timeout=300):
    """Run a bench target held with --wait-signal, traced by `tracer`
    (attached before the target goes). Its result line as a dict, the
    wall time from go to exit, its CPU time, and the tracer's output()."""
    with tempfile.TemporaryDirectory(prefix="etdump-bench-") as tmp:
        target = subprocess.Popen(argv + ["--wait-signal"],
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        t = None
        try:
            line = target.stdout.readline()
            if not line.startswith("ready "):
                raise RuntimeError(f"{argv[0]} not ready: {line!r}")
            pid = int(line.split()[1])
            if tracer and tracer.sends_go:
                settle()
            if tracer:
                t = tracer.start(pid, argv[0], tmp)
            settle()
            # the target is the only child reaped from here to its end
            ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.monotonic()
            if not tracer or not tracer.sends_go:
                os.kill(pid, signal.SIGUSR1)
            out, err = target.communicate(timeout=timeout)
            wall = time.monotonic() - t0
            ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            if target.returncode != 0:
                raise RuntimeError(f"{argv[0]} failed: {err}")
            res = keyvals(out.splitlines()[-1]) if out.strip() else {}
            res["wall_s"] = wall
            res["cpu_s"] = (ru1.ru_utime + ru1.ru_stime -
                            ru0.ru_utime - ru0.ru_stime)
            res["tracer"] = t.output(tracer.done) if t else None
            t = None
            return res
        finally:
            if target.poll() is None:
                target.kill()
            if t:
                t.kill()


def alternate(variants, reps):
    """{key: [result, ...]}: every variant once per repetition, in turn."""
    results = {v["key"]: [] for v in variants}
    for rep in range(reps):
        for v in variants:
            results[v["key"]].append(run_target(v["argv"], v.get("tracer")))
        log(f"  repetition {rep + 1}/{reps} done")
    settle()
    return results


def machine():
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    pmu = os.path.exists("/sys/bus/event_source/devices/cpu") or \
        os.path.exists("/sys/bus/event_source/devices/cpu_core")
    bt = subprocess.run(["bpftrace", "--version"], stdout=subprocess.PIPE,
                        text=True).stdout.strip()
    load = os.getloadavg()[0]
    return (f"machine: Linux {platform.release()} {platform.machine()}, "
            f"{model}, {os.cpu_count()} CPUs, PMU: "
            f"{'yes' if pmu else 'no (software counters only)'}; {bt}; "
            f"load average {load:.1f} at the end")


# --- rows -------------------------------------------------------------------

def row_detached(b, table, reps):
    log("1. detached cost")
    n = ["-n", str(DETACHED_ITERATIONS)]
    reps *= DETACHED_REPS_FACTOR
    res = alternate([{"key": "probes", "argv": [b.loop5] + n},
                     {"key": "none", "argv": [b.noprobes] + n}], reps)
    with_sites = median([r["ns_per_iter"] for r in res["probes"]])
    without = median([r["ns_per_iter"] for r in res["none"]])
    table.section(f"1. detached cost: a loop of probe sites, no tracer "
                  f"attached ({reps} repetitions)")
    table.add("sites vs the same loop built with -DETDUMP_USDT_DISABLE",
              f"{with_sites:.2f} vs {without:.2f} ns/iter",
              fmt_ratio(with_sites / without),
              f"{(with_sites - without) / HITS_PER_ITERATION:+.2f} ns a site")


def loop_variants(b):
    """Rows 2 and 3: every tracer on the loop, with the untraced baselines."""
    n = ["-n", str(LOOP_ITERATIONS)]
    v = [{"key": "base5", "argv": [b.loop5] + n},
         {"key": "base1", "argv": [b.loop1] + n},
         {"key": "floor5", "argv": [b.loop5] + n, "tracer": Floor(b.dir),
          "build": "5", "label": "floor: count-only BPF program"},
         {"key": "floor1", "argv": [b.loop1] + n, "tracer": Floor(b.dir),
          "build": "1", "label": "floor: count-only BPF program"}]
    for mode in RECORD_MODES:
        v.append({"key": "rec5 " + mode[0], "argv": [b.loop5] + n,
                  "tracer": Record(b.dir, mode[1] + LOOP_RING),
                  "build": "5", "label": record_label(mode)})
    v.append({"key": "rec1", "argv": [b.loop1] + n,
              "tracer": Record(b.dir, REFERENCE_MODE[1] + LOOP_RING),
              "build": "1", "label": record_label(REFERENCE_MODE)})
    v.append({"key": "bt printf",
              "argv": [b.loop5, "-n", str(BPFTRACE_PRINTF_ITERATIONS)],
              "tracer": Bpftrace(BPFTRACE_PRINTF), "build": "5",
              "label": "bpftrace: printf of the args to a file"})
    v.append({"key": "bt count", "argv": [b.loop5] + n,
              "tracer": Bpftrace(BPFTRACE_COUNT), "build": "5",
              "label": "bpftrace: @ = count()"})
    return v


def tracer_note(v, results):
    """What the tracer says about the last repetition: nothing lost?"""
    r = results[-1]
    t = r["tracer"]
    if isinstance(v["tracer"], Record):
        _, dropped, mode = record_summary(t["err"])
        return f"mode {mode}, {dropped} dropped"
    if isinstance(v["tracer"], Bpftrace):
        count = re.search(r"^@: (\d+)", t["out"], re.M)
        lines = len(re.findall(r"^\d+ \d+ [rbe] ", t["out"], re.M))
        seen = int(count.group(1)) if count else lines
    else:
        seen = int(keyvals(t["out"])["hits"])
    return f"{seen:,} of {r['fired']:,.0f} hits seen"


def row_attached(b, table, reps):
    log("2-3. attached cost per hit (floor, record modes, bpftrace)")
    variants = loop_variants(b)
    res = alternate(variants, reps)
    ns = {k: median([r["ns_per_iter"] for r in rs]) for k, rs in res.items()}

    def per_hit(key, build):
        return (ns[key] - ns["base" + build]) / HITS_PER_ITERATION

    table.section("2. attached: cost per probe hit = (traced - untraced "
                  "loop) / hits; ratio to the floor on the same sites; "
                  f"record {' '.join(LOOP_RING)}")
    table.add("untraced loop, 5-byte / 1-byte nop sites",
              f"{ns['base5']:.2f} / {ns['base1']:.2f} ns/iter")
    cost = {}
    for v in variants[2:]:
        if v["key"].startswith("bt "):
            continue
        cost[v["key"]] = per_hit(v["key"], v["build"])
        floor = per_hit("floor" + v["build"], v["build"])
        table.add(f"{v['label']}, {v['build']}-byte nop",
                  f"{cost[v['key']]:.0f} ns/hit",
                  fmt_ratio(cost[v["key"]] / floor) + " floor",
                  tracer_note(v, res[v["key"]]))
    ref = "rec5 " + REFERENCE_MODE[0]
    table.add("1-byte vs 5-byte nop sites, floor",
              "", fmt_ratio(cost["floor1"] / cost["floor5"]))
    table.add("1-byte vs 5-byte nop sites, " + record_label(REFERENCE_MODE),
              "", fmt_ratio(cost["rec1"] / cost[ref]))
    row_per_event(table, cost)

    table.section("3. against bpftrace on the same probes (5-byte nop "
                  "sites): ours per hit / theirs")
    for key in ("bt printf", "bt count"):
        v = next(x for x in variants if x["key"] == key)
        theirs = per_hit(key, "5")
        table.add(v["label"], f"{theirs:.0f} ns/hit",
                  fmt_ratio(cost[ref] / theirs),
                  f"ours: {record_label(REFERENCE_MODE)}, "
                  f"{cost[ref]:.0f} ns/hit")


def row_per_event(table, cost):
    """An ETDump profile event is a begin and an end: two hits."""
    batched = "rec5 " + BATCHED_MODE[0]
    floor = HITS_PER_ITERATION * cost["floor5"]
    table.section("2b. per ETDump event (its begin and end: two hits), "
                  "5-byte nop sites; ratio to the floor's two hits")
    for mode in RECORD_MODES:
        ns = HITS_PER_ITERATION * cost["rec5 " + mode[0]]
        table.add(f"{record_label(mode)}", f"{ns:.0f} ns/event",
                  fmt_ratio(ns / floor) + " floor",
                  f"floor {floor:.0f} ns/event")
    table.add(f"{record_label(BATCHED_MODE)} / "
              f"{record_label(REFERENCE_MODE)}", "",
              fmt_ratio(cost[batched] / cost["rec5 " + REFERENCE_MODE[0]]),
              "for scale: ExecuTorch's in-process ETDumpGen, measured on "
              "this kind of machine, 210-250 ns/event (not in this run)")


def paced_trial(b, flags, rate):
    n = int(rate * THROUGHPUT_SECONDS)
    r = run_target([b.loop5, "-n", str(n), "--rate", str(rate),
                    "--threads", str(THROUGHPUT_THREADS)],
                   Record(b.dir, flags))
    try:
        events, dropped, mode = record_summary(r["tracer"]["err"])
    except RuntimeError:
        if "no complete run recorded" not in r["tracer"]["err"]:
            raise
        # each thread's one run lost a record: nothing written, no count
        events, dropped, mode = 0, n, "batched"
        r["nothing"] = True
    r.update(captured=events, dropped=dropped, mode=mode,
             held=dropped == 0 and r["rate"] >= HELD_FRACTION * rate)
    log(f"    {rate:>10,.0f}/s asked, {r['rate']:>10,.0f}/s fired: "
        f"{events} captured, {dropped} dropped")
    return r


def search_rate(b, flags):
    """The highest rate held (doubling, then bisecting): the rate, its
    trial, and the lowest failed trial."""
    good, good_trial, bad, bad_trial = 0, None, None, None
    rate = THROUGHPUT_START
    while rate <= THROUGHPUT_MAX:
        t = paced_trial(b, flags, rate)
        if not t["held"]:
            bad, bad_trial = rate, t
            break
        good, good_trial = rate, t
        rate *= 2
    for _ in range(THROUGHPUT_BISECT if good and bad else 0):
        mid = (good + bad) // 2
        t = paced_trial(b, flags, mid)
        if t["held"]:
            good, good_trial = mid, t
        else:
            bad, bad_trial = mid, t
    return good, good_trial, bad_trial


def limit_note(failed):
    """What stopped the search: the ring (drops) or the CPUs (the target
    could not fire that fast, and nothing was dropped)."""
    if not failed:
        return "no limit found"
    asked = failed["events"] / THROUGHPUT_SECONDS
    if failed.get("nothing"):
        return f"at {asked:,.0f}/s every run lost a record: nothing written"
    if failed["dropped"]:
        return f"at {asked:,.0f}/s: {failed['dropped']:,} dropped"
    return (f"at {asked:,.0f}/s the target fired only "
            f"{failed['rate']:,.0f}/s, 0 dropped: CPU-bound")


def row_throughput(b, table, _reps):
    table.section(f"4. throughput: {THROUGHPUT_THREADS} threads fire "
                  f"delegate_log events (one ETDump event each) at a paced "
                  f"rate for {THROUGHPUT_SECONDS:g} s, default ring size")
    for label, flags in RECORD_MODES:
        if "-e" in flags:
            continue  # counters change what a record costs, not the ring
        log(f"4. throughput, {label}")
        rate, held, failed = search_rate(b, flags)
        if not held:
            table.add(f"{label}: highest rate held", "none held")
            continue
        twice = paced_trial(b, flags, 2 * rate)
        settle()  # the held trial's rusage
        fired = int(twice["events"])
        exact = twice["dropped"] == fired - twice["captured"]
        cpu = held["tracer"]["cpu_s"] / held["captured"]
        table.add(f"{label}: highest rate held with 0 drops",
                  f"{held['rate']:,.0f} ev/s", "",
                  f"mode {held['mode']}; {limit_note(failed)}")
        table.add(f"{label}: asked twice that rate "
                  f"({twice['rate']:,.0f} ev/s fired)",
                  f"{twice['dropped']:,} dropped", "",
                  "every run lost a record: no ETDump, no count"
                  if twice.get("nothing") else
                  f"fired {fired:,} - captured {twice['captured']:,} = "
                  f"{fired - twice['captured']:,}: "
                  f"{'exact' if exact else 'MISMATCH'}")
        target = held["cpu_s"] / held["events"]
        table.add(f"{label}: collector CPU per event (whole process)",
                  f"{cpu * 1e9:.0f} ns", fmt_ratio(cpu / target) + " target",
                  f"{held['tracer']['cpu_s']:.2f} s for "
                  f"{held['captured']:,} events, load/attach/write included; "
                  f"the target's CPU {target * 1e9:.0f} ns/event "
                  f"(pacing included)")


def row_producers(b, table, reps):
    """Batched events fired at PRODUCER_RATE by 1, 2, 4 threads: the rate
    sustained, what the ring lost, and what each event cost the recorder
    and the target."""
    log("4b. producers")
    # --against OLD: each trial of this build's recorder beside OLD's
    builds = [("", b.dir)] + ([(" (against)", b.against)]
                              if b.against else [])
    variants = []
    for n in PRODUCER_THREADS:
        for label, d in builds:
            variants.append({"key": (n, label), "argv": [
                b.loop5, "-n", str(PRODUCER_EVENTS), "--rate",
                str(PRODUCER_RATE), "--threads", str(n)],
                "tracer": Record(d, BATCHED_MODE[1])})
    res = alternate(variants, reps)
    table.section(f"4b. producers: {PRODUCER_EVENTS:,} batched delegate_log "
                  f"events asked at {PRODUCER_RATE:,}/s of T threads, "
                  f"default ring size; recorder CPU per captured event "
                  f"beside the target's per fired event")
    for n, label in [(n, label) for n in PRODUCER_THREADS
                     for label, _ in builds]:
        runs = []
        for r in res[(n, label)]:
            try:
                r["captured"], r["dropped"], _ = record_summary(
                    r["tracer"]["err"])
            except RuntimeError:
                # the ring lost a record of every thread's one run
                if "no complete run recorded" not in r["tracer"]["err"]:
                    raise
                continue  # every thread's one run lost a record
            runs.append(r)
        if not runs:
            table.add(f"{n} thread(s){label}: fired / captured", "nothing written",
                      "", f"every run of all {reps} trials lost a record to "
                      f"the full ring (one run a thread): no ETDump, no count")
            continue
        fired = median([r["rate"] for r in runs])
        took = median([r["captured"] * 1e9 / r["loop_ns"] for r in runs])
        dropped = median([r["dropped"] for r in runs])
        rec = median([r["tracer"]["cpu_s"] / max(r["captured"], 1)
                      for r in runs])
        tgt = median([r["cpu_s"] / r["events"] for r in runs])
        table.add(f"{n} thread(s){label}: fired / captured",
                  f"{fired:,.0f} / {took:,.0f} ev/s", "",
                  f"{dropped:,.0f} dropped of {PRODUCER_EVENTS:,}; "
                  f"{len(runs)} of {reps} trials wrote an ETDump")
        table.add(f"{n} thread(s){label}: recorder / target CPU per event",
                  f"{rec * 1e9:.0f} / {tgt * 1e9:.0f} ns",
                  fmt_ratio(rec / tgt),
                  "recorder: whole process, load/attach/write included")


def row_writer(b, table, reps):
    log("5. writer")
    runs = []
    with tempfile.TemporaryDirectory(prefix="etdump-bench-") as tmp:
        for _ in range(reps):
            out = subprocess.run([b.writer, "-n", str(WRITER_EVENTS), "-o",
                                  os.path.join(tmp, "w.etdp")],
                                 stdout=subprocess.PIPE, check=True,
                                 text=True).stdout
            runs.append(keyvals(out))
    events = runs[0]["events"]
    write_s = median([r["write_ns"] for r in runs]) / 1e9
    feed_s = median([r["feed_ns"] for r in runs]) / 1e9
    size = runs[0]["bytes"]
    rss = median([r["rss_peak_kb"] for r in runs]) * 1024
    rss_model = median([r["rss_before_write_kb"] for r in runs]) * 1024
    table.section(f"5. writer: {events:,.0f} events through the collector "
                  f"into an ETDump (bench-writer)")
    table.add("ETDump write rate", f"{events / write_s:,.0f} ev/s", "",
              f"{write_s * 1e9 / events:.0f} ns/event; the collector fed "
              f"them at {feed_s * 1e9 / events:.0f} ns/event")
    table.add("peak memory (max RSS) / ETDump size",
              f"{rss / 2**20:.0f} / {size / 2**20:.0f} MiB",
              fmt_ratio(rss / size),
              f"{rss_model / 2**20:.0f} MiB before the write")
    row_convert(b, table, reps)


def convert_walls(b, raw, out, reps, cpus=None):
    """The wall time of each of reps converts of raw into out, from start
    to the file written (synced, as convert writes it); each one's CPU
    (user + sys) appended to cpus if given."""
    walls = []
    for _ in range(reps):
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        subprocess.run([os.path.join(b.dir, "etdump-bpf"), "convert", "-f",
                        raw, "-o", out], stderr=subprocess.PIPE, check=True)
        walls.append(time.monotonic() - t0)
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if cpus is not None:
            cpus.append(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime -
                        ru0.ru_stime)
    return walls


def row_convert(b, table, reps):
    """convert of a raw capture record wrote: events a second, wall time
    from start to the file written."""
    with tempfile.TemporaryDirectory(prefix="etdump-bench-") as tmp:
        raw = os.path.join(tmp, "c.raw")
        run_target([b.loop5, "-n", str(CONVERT_EVENTS), "--rate",
                    str(MEMORY_RATE), "--run-events",
                    str(MEMORY_EVENTS_PER_EXEC)],
                   Record(b.dir, ["--raw", raw]))
        walls = convert_walls(b, raw, os.path.join(tmp, "c.etdp"), reps)
    wall = median(walls)
    table.add(f"convert of a raw capture ({CONVERT_EVENTS:,} events, "
              f"runs of {MEMORY_EVENTS_PER_EXEC})",
              f"{CONVERT_EVENTS / wall:,.0f} ev/s", "",
              f"{wall:.2f} s a convert, {min(walls):.2f} to "
              f"{max(walls):.2f} s")


def row_memory(b, table, _reps):
    """The recorder's peak RSS against the ETDump it wrote, as recordings
    grow: runs of 16 events, paced at a rate the collector holds."""
    log("5b. memory")
    table.section(f"5b. memory: record (batched) of N executions of "
                  f"{MEMORY_EVENTS_PER_EXEC} events at {MEMORY_RATE:,} "
                  f"events/s; the recorder's peak RSS / the ETDump written")
    for execs in MEMORY_EXECUTIONS:
        n = execs * MEMORY_EVENTS_PER_EXEC
        with tempfile.TemporaryDirectory(prefix="etdump-bench-") as tmp:
            out = os.path.join(tmp, "mem.etdp")
            r = run_target([b.loop5, "-n", str(n), "--rate",
                            str(MEMORY_RATE), "--run-events",
                            str(MEMORY_EVENTS_PER_EXEC)],
                           Record(b.dir, BATCHED_MODE[1], output=out))
            settle()
            size = os.path.getsize(out)
        events, dropped, _ = record_summary(r["tracer"]["err"])
        rss = r["tracer"]["maxrss_kb"] * 1024
        table.add(f"{execs:>9,} executions ({events:,} events)",
                  f"{rss / 2**20:.0f} / {size / 2**20:.0f} MiB",
                  fmt_ratio(rss / size),
                  f"{dropped:,} dropped; recorder CPU "
                  f"{r['tracer']['cpu_s'] * 1e9 / max(events, 1):.0f} "
                  f"ns/event")


def user_recordings(b, specs):
    """record -p of the example runtime as a user runs it, for each spec
    (record flags, executions, ETDump or None), all at the same time (one
    runtime a CPU); each recorder's rusage (its CPU, attach, load and write
    included: what /usr/bin/time says) and its summary."""
    with contextlib.ExitStack() as stack:
        started = []
        for flags, n, output in specs:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(
                prefix="etdump-bench-"))
            target = subprocess.Popen([b.example, "-n", str(n),
                                       "--wait-signal"],
                                      stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
            stack.callback(lambda p=target: p.poll() is None and p.kill())
            if not target.stdout.readline().startswith("ready "):
                raise RuntimeError("example-runtime not ready")
            t = Record(b.dir, BATCHED_MODE[1] + flags, output).start(
                target.pid, b.example, tmp)
            stack.callback(t.kill)
            started.append((target, t))
        settle()
        t0 = time.monotonic()
        for target, _ in started:
            os.kill(target.pid, signal.SIGUSR1)
        results = []
        for target, t in started:
            _, err = target.communicate(timeout=600)
            if target.returncode != 0:
                raise RuntimeError("example-runtime failed: " + err)
            results.append({"wall_s": time.monotonic() - t0,
                            "tracer": t.output("wrote ")})
        settle()
    out = []
    for r in results:
        t = r["tracer"]
        if t["rc"] != 0:
            raise RuntimeError("record failed: " + t["err"][-300:])
        events, dropped, _ = record_summary(t["err"])
        out.append({"events": events, "dropped": dropped,
                    "cpu_s": t["cpu_s"], "user_s": t["user_s"],
                    "sys_s": t["sys_s"], "rss": t["maxrss_kb"] * 1024,
                    "wall_s": r["wall_s"]})
    return out


def idle_recording(b, seconds):
    """The CPU of record -p of the example runtime held still for `seconds`
    (no event: it exits 1, nothing recorded): what a recording costs the
    recorder whatever its events, its load, attach, end and the wakeups
    of that time."""
    with tempfile.TemporaryDirectory(prefix="etdump-bench-") as tmp:
        target = subprocess.Popen([b.example, "-n", "1", "--wait-signal"],
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        try:
            if not target.stdout.readline().startswith("ready "):
                raise RuntimeError("example-runtime not ready")
            t = Record(b.dir, BATCHED_MODE[1] + ["-d", str(seconds)]).start(
                target.pid, b.example, tmp)
            res = t.output(None, timeout=seconds + 60)
            settle()
        finally:
            target.kill()
            target.wait()
    return res["cpu_s"]


def row_recorder(b, table, reps):
    """Row 5c: what the issue measured: the recorder's CPU per event of a
    recording of the example runtime at the pace it runs (~40,000 events
    a second here), everything of the process included; its peak RSS
    against the ETDump; convert of a raw capture of the same."""
    log(f"5c. the recorder on example-runtime -n {USER_EXECUTIONS:,}")
    with tempfile.TemporaryDirectory(prefix="etdump-bench-") as tmp:
        out = os.path.join(tmp, "user.etdp")
        raw = os.path.join(tmp, "user.raw")
        etdump = (["-f"], USER_EXECUTIONS, out)
        capture = (["--raw", raw], USER_EXECUTIONS, None)
        trials = []
        for i in range(USER_TRIALS):
            together = USER_TOGETHER and i == USER_TRIALS - 1
            got = user_recordings(b, [etdump] + [capture] * together)
            got[0]["size"] = os.path.getsize(out)
            trials.append(got[0])
            rr = got[-1]
            log(f"  recording {i + 1}/{USER_TRIALS}: "
                f"{got[0]['cpu_s'] * 1e9 / got[0]['events']:.0f} ns/event")
        if not USER_TOGETHER:
            rr = user_recordings(b, [capture])[0]
        cpus = []
        walls = convert_walls(b, raw, os.path.join(tmp, "c.etdp"), reps,
                              cpus)
        fixed = idle_recording(b, IDLE_SECONDS)
    per_event = [r["cpu_s"] * 1e9 / r["events"] for r in trials]
    events = trials[0]["events"]
    table.section(f"5c. the recorder as a user measures it: record -p of "
                  f"example-runtime -n {USER_EXECUTIONS:,} at the pace it "
                  f"runs; the recorder's CPU (user + sys of the whole "
                  f"process, as /usr/bin/time: load, attach and the write "
                  f"included) per event; {len(trials)} recording(s)" +
                  ("; the raw capture recorded at the same time, of "
                   "another runtime on the other CPU" if USER_TOGETHER
                   else ""))
    user, sys_, wall = (median([r[k] for r in trials])
                        for k in ("user_s", "sys_s", "wall_s"))
    table.add(f"record -p: recorder CPU per event ({events:,} events)",
              f"{median(per_event):.0f} ns", "",
              f"{min(per_event):.0f} to {max(per_event):.0f}; user / sys "
              f"{user:.2f} / {sys_:.2f} s over {wall:.0f} s of the "
              f"runtime's; {max(r['dropped'] for r in trials):,} dropped "
              f"(goal: 100 ns)")
    # what a recording costs whatever its events: its start and end (the
    # second of an idle recording is a few ms of it); the rest is what
    # rows 4b and 5b measure, at this pace
    events_cpu = [r["cpu_s"] - fixed for r in trials]
    table.add("record -p: recorder CPU per event, less its start and end",
              f"{median(events_cpu) * 1e9 / events:.0f} ns", "",
              f"{fixed * 1e3:.0f} ms taken out (a recording of the runtime "
              f"held still {IDLE_SECONDS} s: load, attach, the ring, the "
              f"end); rows 4b and 5b spread these over 5 M and 16 M events")
    rss = median([r["rss"] for r in trials])
    size = median([r["size"] for r in trials])
    table.add("record -p: peak memory (max RSS) / ETDump size",
              f"{rss / 2**20:.0f} / {size / 2**20:.0f} MiB",
              fmt_ratio(rss / size), "goal: 1.5x at most")
    table.add(f"record --raw -p (and its ETDump): recorder CPU per event "
              f"({rr['events']:,} events)",
              f"{rr['cpu_s'] * 1e9 / rr['events']:.0f} ns", "",
              "the capture converted below")
    wall = median(walls)
    table.add(f"convert of that raw capture ({rr['events']:,} events)",
              f"{rr['events'] / wall:,.0f} ev/s", "",
              f"{wall:.2f} s a convert, {min(walls):.2f} to "
              f"{max(walls):.2f} s, {len(walls)} converts (goal: "
              f"5,000,000 ev/s); its CPU {median(cpus):.2f} s, "
              f"{median(cpus) * 1e9 / rr['events']:.0f} ns an event: the "
              f"recorder's work an event alone (no ring, no wakeups)")


def row_model(b, table, reps):
    log("6. per model: the example runtime")
    n = ["-n", str(MODEL_EXECUTIONS)]
    variants = [{"key": "untraced", "argv": [b.example] + n}]
    for mode in RECORD_MODES:
        variants.append({"key": mode[0], "argv": [b.example] + n,
                         "tracer": Record(b.dir, mode[1]),
                         "label": record_label(mode)})
    res = alternate(variants, reps)

    def per_exec(key, what):
        return median([r[what] for r in res[key]]) * 1e6 / MODEL_EXECUTIONS

    table.section(f"6. per model: example-runtime -n {MODEL_EXECUTIONS}, "
                  f"its CPU time (user + sys, probes included) per "
                  f"execution, traced / untraced")
    table.add("untraced", f"{per_exec('untraced', 'cpu_s'):.0f} us/exec", "",
              f"wall {per_exec('untraced', 'wall_s'):.0f} us/exec")
    for v in variants[1:]:
        cpu, wall = per_exec(v["key"], "cpu_s"), per_exec(v["key"], "wall_s")
        table.add(v["label"], f"{cpu:.0f} us/exec",
                  fmt_ratio(cpu / per_exec("untraced", "cpu_s")),
                  f"wall {fmt_ratio(wall / per_exec('untraced', 'wall_s'))}; "
                  f"{tracer_note(v, res[v['key']])}")


def row_executorch(b, table, reps):
    probe_time = bench_executorch.row_executorch(b, table, reps, log, median,
                                                 fmt_ratio)
    if SHORT:
        return
    log("7b. each kernel's duration at full speed, against ETDumpGen's")
    kernel_durations.bench_row(table, b.dir, probe_time)


def row_tracer(b, table, reps):
    bench_tracer.row_tracer(b, table, reps, log, median, fmt_ratio)


def row_xnnpack(b, table, reps):
    bench_xnnpack.row_xnnpack(b, table, reps, log, fmt_ratio)


def row_duty(b, table, reps):
    bench_duty.row_duty(b, table, reps, log, fmt_ratio)


def row_values(b, table, reps):
    bench_values.row_values(b, table, reps, log, median, fmt_ratio)


DIFF_RATE = re.compile(r"^(false alarms|caught): (\d+) of (\d+) (.*)$",
                       re.M)


def row_diff(b, table, reps):
    """Row 9: scripts/diff_alarms.py's two rates, as it prints them."""
    del reps  # the script's own pool and trials
    log("9. diff: false alarms and slowdowns caught")
    proc = subprocess.run([sys.executable,
                           os.path.join(ROOT, "scripts", "diff_alarms.py"),
                           "--build", b.dir], capture_output=True, text=True)
    rates = DIFF_RATE.findall(proc.stdout)
    if len(rates) != 4:
        raise RuntimeError("diff_alarms.py said no rates: " +
                           (proc.stderr.strip() or proc.stdout[-200:]))
    table.section("9. diff on the example runtime: 20 comparisons of 5 "
                  "recordings a side drawn from a pool of 20, in turns (as "
                  "record --alternate-with records) and at random (goal: at "
                  "most 1 false alarm, at least 19 caught)")
    for what, k, n, rest in rates:
        table.add(what, f"{k} of {n}", "", rest)


# make bench-short: the rows the README and docs quote, each cut down
SHORT_ROWS = "producers,writer,memory,recorder,executorch"
SHORT_REPS = 3
SHORT = False


def shorten(args):
    """--short: SHORT_ROWS (unless --rows), SHORT_REPS repetitions (unless
    --reps), the producers of the goal's two cores, one recording size,
    one recording of the example for row 5c's CPU with the raw capture it
    converts recorded at the same time, of another runtime on the other
    CPU, row 7 without 7b: about 2 minutes, most of it row 5c's runtime at
    its pace."""
    global PRODUCER_THREADS, MEMORY_EXECUTIONS, USER_TRIALS, USER_TOGETHER
    global SHORT
    args.rows = args.rows or SHORT_ROWS
    if args.reps == DEFAULT_REPS:
        args.reps = SHORT_REPS
    SHORT = True
    PRODUCER_THREADS = (2,)
    MEMORY_EXECUTIONS = (200_000,)
    USER_TRIALS = 1
    USER_TOGETHER = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--reps", type=int, default=DEFAULT_REPS)
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--against", help="row 4b: also another build's "
                    "recorder, alternated with this one's")
    ap.add_argument("--rows", help="only these rows, by name: "
                    "detached,attached,throughput,producers,writer,memory,"
                    "recorder,model,tracer,executorch,xnnpack,duty,values,"
                    "diff")
    ap.add_argument("--short", action="store_true", help="the headline "
                    "rows, each in its quick form (make bench-short)")
    args = ap.parse_args()
    if args.short:
        shorten(args)
    if os.geteuid() != 0:
        sys.exit("bench.py: attaching uprobes needs root")
    b = Build(os.path.abspath(args.build))
    b.against = os.path.abspath(args.against) if args.against else None
    start = time.monotonic()
    table = Table()
    failed = 0
    for row in (row_detached, row_attached, row_throughput, row_producers,
                row_writer, row_memory, row_recorder, row_model, row_tracer, row_executorch,
                row_xnnpack, row_duty, row_values, row_diff):
        if args.rows and row.__name__[4:] not in args.rows.split(","):
            continue
        t0 = time.monotonic()
        try:
            row(b, table, args.reps)
        except (OSError, RuntimeError, subprocess.SubprocessError) as e:
            # one row failing leaves the others to measure
            failed += 1
            table.section(f"{row.__name__}: FAILED: {e}")
        log(f"  ({time.monotonic() - t0:.0f} s)")
    text = (f"etdump-bpf benchmark{' (short form)' if args.short else ''}"
            f": medians of {args.reps} repetitions, "
            f"variants alternated within each row "
            f"({time.monotonic() - start:.0f} s)\n{machine()}\n\n" +
            table.render())
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
