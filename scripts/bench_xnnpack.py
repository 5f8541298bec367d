"""make bench, row 7c (alone: scripts/bench.py --rows xnnpack): symbol mode on the stock runners against programs
that only count at the very same sites, and against ETDumpGen's own
runners, interleaved in one run:

  cnn.pte      bin/executor_runner (portable kernels)
  xnn_mlp.pte  bin/executor_runner_xnn (the XNNPACK delegate: its
               operators probed where xnn_invoke_runtime calls them)

each as
  untraced     the stock runner
  ETDumpGen    executor_runner_etdump / executor_runner_xnn_etdump
  symbol mode  etdump-bpf record -p on the stock runner: one trap a
               kernel (its return probed only in the first runs)
  floor        bench-floor -p PID --symbol-sites: the same sites, links
               and kinds of probe (uretprobes but for kernels, the
               operators' exit uprobes), programs that only count
  symbol mode, exact returns   ... record --exact-returns: two traps a
               kernel, each end read where it happens
  floor, exact returns         ... bench-floor --exact-returns
  stamped      bench-floor --stamped: programs that also read the clock
               and store 16 bytes a hit, the least a program that
               records a hit does: what of the 1.15x any recorder spends
               at once

CPU time per execution as in row 7 ((T(MANY) - T(FEW)) / (MANY - FEW),
the stock runner held at its exec while the tracer attaches). What a
tracer adds is its time less untraced's of the same repetition; the ratio
symbol mode / floor is taken per repetition, its median printed with the
spread (least - greatest) over the repetitions: the share of symbol mode's
cost that is ours, not the kernel's traps (issue: at most 1.15x).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_executorch as row7  # noqa: E402
import bpf_stats  # noqa: E402

et = row7.et
FEW, MANY = 200, 10200
BOUND = 1.15
# A process's pace differs ~2% from the next one's, ~5% of what a tracer
# adds to cnn.pte: one repetition's ratio moves 0.9x-1.4x there (9
# repetitions, session 17). Three times bench's --reps (15 a kind by
# default) keep the median off a lucky or unlucky draw.
REPS_FACTOR = 3
XNN_RUNNER = os.path.join(et.BIN, "executor_runner_xnn")
CASES = (("cnn", et.STOCK_RUNNER, et.ETDUMPGEN_RUNNER),
         ("xnn_mlp", XNN_RUNNER, et.ETDUMPGEN_XNN_RUNNER))
KINDS = ("untraced", "ETDumpGen", "symbol mode", "floor",
         "symbol mode, exact returns", "floor, exact returns", "stamped")
# each way symbol mode records, beside the count-only programs at its sites
WAYS = (("symbol mode", "floor"),
        ("symbol mode, exact returns", "floor, exact returns"))


def runner(binary, model, *extra):
    """argv(n) of a stock runner running the model n times."""
    path = et.model(model)
    return lambda n: [binary, "--model_path", path, "--num_executions",
                      str(n), "--print_output", "none", *extra]


def tracers(build, tmp):
    """The attached kinds: argv given -p PID (record's) or functions of the
    pid giving one (bench-floor's)."""
    cli = os.path.join(build, "etdump-bpf")
    floor = os.path.join(build, "bench-floor")
    return {
        "symbol mode": [cli, "record", "-f", "-o",
                        os.path.join(tmp, "sym.etdp")],
        "floor": lambda pid: [floor, "-p", str(pid), "--symbol-sites"],
        "symbol mode, exact returns": [cli, "record", "-f", "-o",
                                       os.path.join(tmp, "sym.etdp"),
                                       "--exact-returns"],
        "floor, exact returns": lambda pid: [floor, "-p", str(pid),
                                             "--symbol-sites",
                                             "--exact-returns"],
        "stamped": lambda pid: [floor, "-p", str(pid), "--symbol-sites",
                                "--stamped"],
    }


def variants(build, tmp, model, stock, etdumpgen):
    stock_argv = runner(stock, model)
    attached = tracers(build, tmp)

    def at_exec(kind):
        return lambda n: row7.timed_at_exec(stock_argv(n),
                                            attached[kind])[0]
    return {
        "untraced": lambda n: row7.timed(stock_argv(n))[0],
        "ETDumpGen": lambda n: row7.timed(runner(
            etdumpgen, model, "--etdump_path",
            os.path.join(tmp, "gen.etdp"))(n))[0],
        **{kind: at_exec(kind) for kind in attached},
    }


# programs per kind of probe, as bench_floor.bpf.c and symbols.bpf.c name
# them: the entries', the returns' (symbol mode's XNNPACK operators'
# entries run a program of their own, on_xnn_call)
PROGRAMS = {"floor": (("count_call",), ("count_return",)),
            "stamped": (("stamp_call",), ("stamp_return",)),
            "symbol mode": (("on_func_entry", "on_xnn_call"),
                            ("on_func_exit",))}
WINDOW = 1.0  # seconds of a runner's hits a program's time is read over
WINDOW_RUNS = 10 ** 7  # executions: more than the windows take


def program_times(argv, attached):
    """ns a hit of each kind's entry and return programs, timed by the
    kernel (bpf_stats) over WINDOW seconds of a runner with the kind
    attached (the two-trap ways: every kind of hit comes in a window):
    {kind: (entry ns, return ns)}."""
    times = {}
    two_traps = {"floor": "floor, exact returns",
                 "symbol mode": "symbol mode, exact returns"}
    for kind, groups in PROGRAMS.items():
        names = set(n for group in groups for n in group)
        tracer = attached[two_traps.get(kind, kind)]
        with row7.let_go_attached(argv, tracer) as (target, _):
            time.sleep(WINDOW)  # past the model's load
            before = bpf_stats.programs(names)
            time.sleep(WINDOW)
            after = bpf_stats.programs(names)
            if target.poll() is not None:
                raise RuntimeError(f"{argv[0]} ended inside the window")
        per_hit = []
        for group in groups:
            missing = [n for n in group if n not in before or n not in after]
            if missing:
                raise RuntimeError(f"no program {missing[0]} was loaded")
            # a hit of the group's programs, whichever ran it
            cnt = sum(after[n][0] - before[n][0] for n in group)
            if cnt <= 0:
                raise RuntimeError(f"{'/'.join(group)} ran no hit")
            per_hit.append(sum(after[n][1] - before[n][1]
                               for n in group) / cnt)
        times[kind] = tuple(per_hit)
    return times


def hits_per_execution(argv, floor):
    """Probe hits an execution (entries and returns), counted by the floor's
    programs over FEW and MANY executions of the runner (argv(n))."""
    hits = []
    for n in (FEW, MANY):
        with row7.let_go_attached(argv(n), floor,
                                  subprocess.PIPE) as (target, rec):
            target.wait()
            out = rec.communicate(timeout=600)[0]
        counted = [int(w[5:]) for w in out.split() if w.startswith("hits=")]
        if not counted:
            raise RuntimeError("bench-floor printed no hits")
        hits.append(counted[0])
    return (hits[1] - hits[0]) / (MANY - FEW)


def hit_breakdown(floor_added, hits, progs):
    """What a hit costs each kind, from the floor's added time an execution
    (seconds), hits an execution, and program_times'."""
    def mean(kind):
        return (progs[kind][0] + progs[kind][1]) / 2
    per_hit = floor_added * 1e9 / hits
    count = mean("floor")
    room = per_hit * (BOUND - 1)
    return (f"{hits:.0f} hits an execution; the floor's {per_hit:.0f} ns a "
            f"hit: the trap {per_hit - count:.0f}, its program {count:.0f} "
            f"(entry/return programs, bpf_stats: floor "
            f"{progs['floor'][0]:.0f}/{progs['floor'][1]:.0f} ns, stamped "
            f"{progs['stamped'][0]:.0f}/{progs['stamped'][1]:.0f}, symbol "
            f"mode {progs['symbol mode'][0]:.0f}/"
            f"{progs['symbol mode'][1]:.0f}); {BOUND}x leaves a recorder's "
            f"programs {room:.0f} ns a hit beyond the floor's: stamped take "
            f"{mean('stamped') - count:.0f}, symbol mode "
            f"{mean('symbol mode') - count:.0f} (its return's part beyond "
            f"its entry's: handing a run over to the ring)")


def spread(values, fmt):
    return (f"{fmt(statistics.median(values))} "
            f"({fmt(min(values))} - {fmt(max(values))})")


def row_xnnpack(b, table, reps, log, fmt_ratio):
    ok, why = et.available()
    if not ok:
        raise RuntimeError("ExecuTorch not found: " + why)
    reps *= REPS_FACTOR
    table.section(f"7c. symbol mode against count-only programs at its own "
                  f"sites and ETDumpGen's runners: CPU time per execution "
                  f"(T({MANY}) - T({FEW})) / {MANY - FEW}, added = less "
                  f"untraced's of the same repetition; median (least - "
                  f"greatest) of {reps} repetitions")
    for model, stock, etdumpgen in CASES:
        log(f"7c. {model}.pte: " + ", ".join(KINDS))
        per_exec = {k: [] for k in KINDS}
        with tempfile.TemporaryDirectory(prefix="etdump-bench-") as tmp:
            vs = variants(b.dir, tmp, model, stock, etdumpgen)
            for rep in range(reps):
                for kind in KINDS:
                    few = vs[kind](FEW)
                    many = vs[kind](MANY)
                    per_exec[kind].append((many - few) / (MANY - FEW))
                log(f"  repetition {rep + 1}/{reps} done")
        base = per_exec["untraced"]
        added = {k: [v - u for v, u in zip(per_exec[k], base)]
                 for k in KINDS[1:]}

        def us(x):
            return f"{x * 1e6:.2f} us"
        table.add(f"{model}.pte untraced ({os.path.basename(stock)})",
                  spread(base, us))
        for kind in KINDS[1:]:
            table.add(f"{model}.pte {kind}", spread(added[kind], us),
                      fmt_ratio(statistics.median(per_exec[kind]) /
                                statistics.median(base)),
                      "added per execution; ratio: to untraced")
        def per_rep(kind, against):
            return [a / b for a, b in zip(added[kind], added[against])
                    if b > 0]
        for way, floor in WAYS:
            ratios = per_rep(way, floor)
            gen = per_rep(way, "ETDumpGen")
            if ratios:
                verdict = ("within" if statistics.median(ratios) <= BOUND
                           else "OVER")
                table.add(f"{model}.pte {way} / {floor}", "",
                          spread(ratios, fmt_ratio),
                          f"{verdict} {BOUND}x: what symbol mode adds "
                          f"beyond the kernel's traps at the same sites")
            if gen:
                table.add(f"{model}.pte {way} / ETDumpGen", "",
                          spread(gen, fmt_ratio),
                          "what symbol mode adds against what ETDumpGen "
                          "adds")
        stamped = per_rep("stamped", "floor")
        if stamped:
            table.add(f"{model}.pte stamped / floor", "",
                      spread(stamped, fmt_ratio),
                      "a clock read and 16 bytes stored a hit, nothing "
                      "else: the least of the bound any recorder spends")
        log(f"7c. {model}.pte: programs timed by the kernel (bpf_stats)")
        with tempfile.TemporaryDirectory(prefix="etdump-bench-") as tmp:
            attached = tracers(b.dir, tmp)
            hits = hits_per_execution(runner(stock, model), attached["floor"])
            with bpf_stats.enabled():
                progs = program_times(runner(stock, model)(WINDOW_RUNS),
                                      attached)
        table.add(f"{model}.pte a hit, broken down", "", "",
                  hit_breakdown(statistics.median(added["floor"]), hits,
                                progs))
