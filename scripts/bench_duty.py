"""make bench, row 7d (alone: scripts/bench.py --rows duty): record --duty
on the stock runner, cnn.pte: what the target's CPU time gains under
symbol mode attached all the time and attached PCT % of the time, side by
side in one run, variants alternated:

  untraced       bin/executor_runner
  symbol mode    etdump-bpf record -p (the runner held at its exec)
  --duty PCT     the same with --duty PCT (the first PCT % of every second)

Each runs EXECUTIONS executions, long enough for several periods; the
runner's CPU time is taken whole (start-up is the same in all three and
cancels in the differences). added = its time less untraced's of the same
repetition; added(--duty) / added(symbol mode) is set against PCT / 100,
the bound the option promises, with the spread over the repetitions, and
what taking the probes out and putting them back took, as record said.
"""
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_executorch as row7  # noqa: E402

et = row7.et
EXECUTIONS = 150000
DUTIES = (10, 25)
COST = re.compile(r"taking the probes out took ([\d.]+) ms \(at most "
                  r"([\d.]+)\), putting them back ([\d.]+) ms")
SHARE = re.compile(r"\(([\d.]+) % of the time\)")


def row_duty(b, table, reps, log, fmt_ratio):
    ok, why = et.available()
    if not ok:
        raise RuntimeError("ExecuTorch not found: " + why)
    cli = os.path.join(b.dir, "etdump-bpf")
    model = et.model("cnn")
    argv = [et.STOCK_RUNNER, "--model_path", model, "--num_executions",
            str(EXECUTIONS), "--print_output", "none"]
    cpu = {k: [] for k in ["untraced", "full"] + list(DUTIES)}
    said = {d: [] for d in DUTIES}
    with tempfile.TemporaryDirectory(prefix="etdump-bench-") as tmp:
        rec = [cli, "record", "-f", "-o", os.path.join(tmp, "d.etdp"),
               "--program", model]
        for rep in range(reps):
            cpu["untraced"].append(row7.timed(argv)[0])
            cpu["full"].append(row7.timed_at_exec(argv, rec)[0])
            for d in DUTIES:
                t, err = row7.timed_at_exec(argv, rec + ["--duty", str(d)])
                cpu[d].append(t)
                m, s = COST.search(err), SHARE.search(err)
                if m and s:
                    said[d].append((float(s.group(1)), float(m.group(1)),
                                    float(m.group(3))))
            log(f"  repetition {rep + 1}/{reps} done")
    base = cpu["untraced"]
    added = {k: [v - u for v, u in zip(cpu[k], base)] for k in cpu}

    def spread(xs, fmt):
        return (f"{fmt(statistics.median(xs))} ({fmt(min(xs))} - "
                f"{fmt(max(xs))})")

    def ms(x):
        return f"{x * 1e3:.0f} ms"
    table.section(f"7d. record --duty on the stock runner, cnn.pte, "
                  f"{EXECUTIONS} executions: the runner's CPU time, added = "
                  f"less untraced's of the same repetition; median (least - "
                  f"greatest) of {reps} repetitions")
    table.add("untraced", spread(base, ms))
    table.add("symbol mode, attached all the time", spread(added["full"], ms),
              "", "added")
    for d in DUTIES:
        ratios = [a / f for a, f in zip(added[d], added["full"]) if f > 0]
        note = (f"added; / symbol mode's: {spread(ratios, fmt_ratio)} "
                f"against the bound {d / 100:.2f}x")
        if said[d]:
            share, out, back = (statistics.median(x) for x in zip(*said[d]))
            note += (f"; record said {share:.1f} % attached, taking the "
                     f"probes out {out:.0f} ms, back {back:.0f} ms")
        table.add(f"symbol mode --duty {d}", spread(added[d], ms), "", note)
