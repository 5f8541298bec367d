#!/usr/bin/env python3
"""Check the kernel matrix's results (cases.sh's files, one folder per
kernel) as a user would judge them: every case exited 0 and wrote an
ETDump flatc decodes; its events are the ones the same case gave on this
machine's own kernel (the "host" row: names, ids, order); the real
runners' events are ETDumpGen's (reference/ ETDumps), compared the way
the end-to-end tests compare them, with their helpers; the counters asked
for are on every operator. Nothing here measures time.

usage: tests/kernels/check.py [--results DIR] [KERNEL...]
       (default: build/kernels, the host row and every kernel)
The last line is "N passed, N failed"; exit status 0 only when nothing
failed.
"""
import argparse
import math
import os
import struct
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "tests", "e2e"),
                os.path.join(ROOT, "scripts")]
import executorch_env as et  # noqa: E402
import kernels  # noqa: E402
from etdump_counters import parse_counters  # noqa: E402
from etdump_e2e import (DEFAULT_EVENTS, EXECUTE_EVENTS, decode,  # noqa: E402
                        read_timings, run_keys)
from test_executorch_symbol_values import (  # noqa: E402
    reference_without_program_output)
from test_executorch_symbols import runs_visible  # noqa: E402
from test_executorch_values import read, runs  # noqa: E402
from test_executorch_tracer import runs_identity  # noqa: E402
from test_executorch_xnn_symbols import execute_runs, operators  # noqa: E402
from test_live import LiveTest, tables  # noqa: E402
from test_record import (COUNTER_CLOCKSOURCES,  # noqa: E402
                         COUNTER_STAMP_BOUND_NS)

EXECUTIONS = 3  # the real runners' cases: reference/*-x3.etdp
AMD64_ONLY = {"tracer", "symbols_xnn", "symbols_late"}
ARM64_ONLY = {"counters_cycles"}
# the host row's case a case's events are compared with
SAME_EVENTS_AS = {"counters_cycles": "precise"}


def expected_cases(kernel):
    """What cases.sh runs on the kernel's architecture."""
    arch = "amd64" if kernel == kernels.HOST else kernels.arch_of(kernel)
    other = ARM64_ONLY if arch == "amd64" else AMD64_ONLY
    return [name[len("check_"):] for name in sorted(dir(CaseChecks))
            if name.startswith("check_") and name[len("check_"):] not in other]


def last_lines(path, n=6):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def tensors_split(runs_):
    """(runs with each float tensor's bytes left out, its floats)."""
    floats = []

    def split(t):
        kind, sizes, strides, data = t
        if kind != "FLOAT":
            return t
        floats.extend(struct.unpack(f"<{len(data) // 4}f", data))
        return (kind, sizes, strides, len(data))

    def event(ev):
        if ev[0] != "debug":
            return ev
        d = ev[1]
        return ("debug", d[:7] + ([split(t) for t in d[7]],))

    shape = [(name, [event(ev) for ev in evs]) for name, evs in runs_]
    return shape, floats


class CaseChecks(unittest.TestCase):
    """One kernel's cases; subclassed per kernel with kernel, results and
    host set (the folders of its results and of the host row's)."""
    kernel = results = host = None

    def dir_of(self, case, row=None):
        return os.path.join(row or self.results, case)

    def ran(self, case):
        """The case ran and exited 0; its folder."""
        d = self.dir_of(case)
        status_file = os.path.join(d, "status")
        self.assertTrue(os.path.exists(status_file),
                        f"{case} did not run on {self.kernel}")
        status = open(status_file).read().strip()
        # what it said last (doctor says it on stdout)
        said = last_lines(os.path.join(d, "stderr")) or \
            last_lines(os.path.join(d, "stdout"))
        self.assertEqual(status, "0", f"{case} on {self.kernel}: exit status "
                         f"{status}; its output ends:\n{said}")
        return d

    def text(self, case, name, row=None):
        with open(os.path.join(self.dir_of(case, row), name),
                  errors="replace") as f:
            return f.read()

    def dump(self, case, row=None, name="out.etdp"):
        path = os.path.join(self.dir_of(case, row), name)
        self.assertTrue(os.path.exists(path), f"{case}: no {name} written")
        return decode(path)

    def recorded(self, case, name="out.etdp"):
        """The case's ETDump, its events those of the host row's case."""
        self.ran(case)
        ours = self.dump(case, name=name)
        host = self.dump(SAME_EVENTS_AS.get(case, case), self.host, name)
        self.assertEqual(runs_identity(ours), runs_identity(host),
                         f"{case}: events differ from the host's")
        return ours

    def assert_example_runs(self, dump, executions):
        names = [r["name"] for r in dump["run_data"]]
        self.assertEqual(names, ["Default"] + ["Execute"] * executions)
        for r in dump["run_data"]:
            self.assertEqual(run_keys(r), EXECUTE_EVENTS if r["name"] ==
                             "Execute" else DEFAULT_EVENTS, r["name"])

    def assert_counter_on_operators(self, dump, counter):
        ops = [e["profile_event"] for r in dump["run_data"]
               for e in r["events"]
               if e["profile_event"].get("name", "").startswith(
                   "native_call_")]
        self.assertTrue(ops)
        for pe in ops:
            values = parse_counters(bytes(pe["delegate_debug_metadata"]))
            self.assertIsNotNone(values, pe["name"])
            self.assertIsNotNone(values.get(counter), (pe["name"], values))

    # -- the cases (cases.sh's names) --
    def check_doctor(self):
        self.ran("doctor")
        self.assertIn("recording can work here", self.text("doctor", "stdout"))

    def check_batched(self):
        """The example's runs, each event inside the runtime's own clock
        reads around its site: to the ns where the kernel's clock is a
        line of the counter the stamps read (the recorder turns them on
        it), else within the anchors' bound."""
        dump = self.recorded("batched")
        self.assert_example_runs(dump, 5)
        stderr = self.text("batched", "stderr")
        source = self.text("batched", "clocksource").strip()
        counter = "batched stamps: the CPU's counter" in stderr
        if counter and source in COUNTER_CLOCKSOURCES:
            self.assertIn("the clock to the ns", stderr, self.kernel)
        slack = COUNTER_STAMP_BOUND_NS if counter and \
            "the clock to the ns" not in stderr else 0
        reads = {}
        for r in read_timings(os.path.join(self.dir_of("batched"),
                                           "timings.tsv")):
            reads.setdefault((r["name"], r["chain"], r["instr"]),
                             []).append((r["start_ns"], r["end_ns"]))
        checked = 0
        for run_data in dump["run_data"]:
            for ev in run_data["events"]:
                pe = ev["profile_event"]
                # a delegate's events carry its own times, not stamps
                if not pe.get("name"):
                    continue
                key = (pe["name"], pe["chain_index"], pe["instruction_id"])
                start, end = int(pe["start_time"]), int(pe["end_time"])
                self.assertTrue(any(a - slack <= start <= end <= b + slack
                                    for a, b in reads.get(key, ())),
                                f"{key} ({start}, {end}) inside none of the "
                                f"runtime's reads {reads.get(key)} (slack "
                                f"{slack} ns, clock source {source}) on "
                                f"{self.kernel}")
                checked += 1
        self.assertTrue(checked)

    def check_precise(self):
        self.assert_example_runs(self.recorded("precise"), 5)

    def check_values(self):
        # the example logs no values: the mode's programs load and its
        # events are whole (values themselves: symbols_values)
        self.assert_example_runs(self.recorded("values"), 5)

    def check_allocations(self):
        self.assert_example_runs(self.recorded("allocations"), 5)

    def check_counters(self):
        dump = self.recorded("counters")
        self.assert_counter_on_operators(dump, "task-clock")

    def check_counters_cycles(self):
        """A per-CPU counter's count is a scope's only where its thread
        stayed on the CPU and was never switched out: else "cycles=?",
        as perf leaves a count it cannot attribute (a guest's kernel
        threads preempt the longest scopes at times). Each operator has
        its cycles in some of its calls, and a scope's cycles hold those
        of every scope within it."""
        dump = self.recorded("counters_cycles")
        self.assert_example_runs(dump, 5)
        counted = {}
        for r in dump["run_data"]:
            scopes = []
            for e in r["events"]:
                pe = e["profile_event"]
                values = parse_counters(bytes(pe["delegate_debug_metadata"]))
                if values is None or "cycles" not in values:
                    continue
                name = pe["name"]
                counted.setdefault(name, 0)
                if values["cycles"] is not None:
                    counted[name] += 1
                    scopes.append((int(pe["start_time"]),
                                   int(pe["end_time"]), values["cycles"],
                                   name))
            for b0, e0, c0, outer in scopes:
                for b1, e1, c1, inner in scopes:
                    if (b0, e0) != (b1, e1) and b0 <= b1 and e1 <= e0:
                        self.assertLessEqual(c1, c0, (inner, outer))
        ops = [n for n in counted if n.startswith("native_call_")]
        self.assertTrue(ops)
        self.assertEqual([n for n in counted if not counted[n] and
                          n.startswith("native_call_")], [], counted)

    def check_every(self):
        self.recorded("every")
        self.assertIn("kept 1 run in 10", self.text("every", "stderr"))

    def check_flight(self):
        dump = self.recorded("flight", "out.0001.etdp")
        self.assertEqual(len(dump["run_data"]), 5)

    def check_slower(self):
        self.ran("slower")
        runs = self.dump("slower")["run_data"]
        # the 4 executions 20 ms slower at least; each whole
        self.assertGreaterEqual(len(runs), 4)
        for r in runs:
            self.assertEqual(run_keys(r), EXECUTE_EVENTS if r["name"] ==
                             "Execute" else DEFAULT_EVENTS)
        self.assertIn(f"21 run(s) seen, {len(runs)} kept",
                      self.text("slower", "stderr"))

    def check_live(self):
        self.assert_example_runs(self.recorded("live"), 100)
        self.assert_tables(self.text("live", "stdout"))

    def check_top(self):
        self.ran("top")
        self.assert_tables(self.text("top", "stdout"))
        self.assertIn("quit: ", self.text("top", "stderr"))

    def assert_tables(self, out):
        found = [rows for rows in tables(out) if rows]
        self.assertTrue(found, out)
        for rows in found:
            LiveTest.assert_counts_add_up(self, rows)

    def check_pid(self):
        self.assert_example_runs(self.recorded("pid"), 5)

    def check_children(self):
        self.ran("children")
        ours = self.dump("children")
        host = self.dump("children", self.host)
        # two processes' runs: in whichever order their runs ended
        self.assertEqual(sorted(map(repr, runs_identity(ours))),
                         sorted(map(repr, runs_identity(host))))
        names = [r["name"] for r in ours["run_data"]]
        self.assertEqual((names.count("Default"), names.count("Execute")),
                         (2, 2 + 3 * 2))
        self.assertIn("followed 2 process(es)", self.text("children",
                                                          "stderr"))

    def check_report(self):
        self.ran("report")
        out = self.text("report", "stdout")
        for name, _, _ in EXECUTE_EVENTS:
            if not name.startswith("delegate:") and name != "OPERATOR_CALL":
                self.assertIn(name, out)

    def check_tracer(self):
        self.ran("tracer")
        ref = decode(et.reference("cnn", EXECUTIONS))
        self.assertEqual(runs_identity(self.recorded("tracer")),
                         runs_identity(ref))

    def assert_symbols_as_etdumpgen(self, case):
        ours = self.recorded(case)
        ref = decode(et.reference("cnn", EXECUTIONS))
        self.assertEqual(runs_visible(ours), runs_visible(ref))
        self.assertEqual(sum(len(r["events"]) for r in ours["run_data"]),
                         sum(len(r["events"]) for r in ref["run_data"]))
        self.assertIn("symbol mode", self.text(case, "stderr"))

    def check_symbols_stock(self):
        self.assert_symbols_as_etdumpgen("symbols_stock")

    def check_symbols_stripped(self):
        self.assert_symbols_as_etdumpgen("symbols_stripped")

    def check_symbols_late(self):
        """Two copies of a stock library loaded after the attach: ETDumpGen's
        runs once per copy."""
        ours = self.recorded("symbols_late")
        ref = decode(et.reference("cnn", EXECUTIONS))
        self.assertEqual(runs_visible(ours), runs_visible(ref) * 2)
        err = self.text("symbols_late", "stderr")
        self.assertEqual(err.count("after the attach: attached"), 2, err)

    def check_symbols_xnn(self):
        ours = execute_runs(self.recorded("symbols_xnn"))
        ref = execute_runs(decode(et.reference("xnn_mlp", EXECUTIONS)))
        self.assertEqual(len(ours), EXECUTIONS)
        for got, want in zip(ours, ref):
            self.assertTrue(operators(want))
            self.assertEqual(operators(got), operators(want))

    def check_symbols_values(self):
        """Each kernel's out tensors read at its return: ETDumpGen's
        intermediates, ids, dtypes, sizes and bytes."""
        d = self.ran("symbols_values")
        ours = runs(self.dump("symbols_values"),
                    read(os.path.join(d, "out.debug.bin")))
        ref = reference_without_program_output()
        if self.kernel == kernels.HOST or \
                kernels.arch_of(self.kernel) == "amd64":
            self.assertEqual(ours, ref)
            return
        # ETDumpGen's references ran on x86-64: arm64's build of the
        # kernels (fused multiply-adds) rounds some floats an ulp apart
        (ours, ours_floats), (ref, ref_floats) = (tensors_split(ours),
                                                  tensors_split(ref))
        self.assertEqual(ours, ref)
        for got, want in zip(ours_floats, ref_floats):
            self.assertTrue(math.isclose(got, want, rel_tol=1e-5,
                                         abs_tol=1e-6), (got, want))

    def check_one_trap(self):
        """Once the first runs measured the gaps, a kernel call takes one
        trap: cnn.pte's 10 kernels and Method::execute's entry and
        return, 12 traps an execution; on arm64 Method::execute's first
        instruction is single-stepped (two traps), 13."""
        self.ran("one_trap")
        err = self.text("one_trap", "stderr")
        arm64 = self.kernel != kernels.HOST and \
            kernels.arch_of(self.kernel) == "arm64"
        want = "13 traps per 'Execute' run (1 single-stepped hits)" \
            if arm64 else "12 traps per 'Execute' run (0 single-stepped hits)"
        self.assertIn(want, err, self.kernel)
        self.assertIn("that measured the gaps", err)
        self.assertRegex(err, r"wrote \S+: \d+ runs \(\d+ Execute\)")

    def check_duty(self):
        self.ran("duty")
        dump = self.dump("duty")
        ref = runs_visible(decode(et.reference("cnn", EXECUTIONS)))
        execute = [keys for name, keys in ref if name == "Execute"][0]
        got = runs_visible(dump)
        # the load's run is written when a window held it (not on a slow
        # guest, where the first window can end before the load does)
        if got and got[0][0] == "Default":
            got = got[1:]
        self.assertTrue(got, "no execution written")
        for name, keys in got:
            self.assertEqual((name, keys), ("Execute", execute))
        self.assertIn("--duty 50.0/1000ms", self.text("duty", "stderr"))


def kernel_suite(kernel, results_root):
    """A TestCase class of the kernel's cases: test_<case> for each."""
    attrs = {"kernel": kernel,
             "results": os.path.join(results_root, kernel),
             "host": os.path.join(results_root, kernels.HOST)}
    for case in expected_cases(kernel):
        attrs["test_" + case] = getattr(CaseChecks, "check_" + case)
    cls = type(kernel.replace(".", "_").replace("-", "_"), (CaseChecks,),
               attrs)
    cls.__qualname__ = cls.__name__ = f"kernel {kernel}"
    return unittest.TestLoader().loadTestsFromTestCase(cls)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", default=os.path.join(ROOT, "build",
                                                      "kernels"))
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()
    names = args.kernels or [kernels.HOST, *kernels.KERNELS]
    for k in names:
        if k != kernels.HOST:
            kernels.check(k)
    suite = unittest.TestSuite(kernel_suite(k, args.results) for k in names)
    # the suite lets go of its tests as they run
    tests = list(suite_tests(suite))
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    failed = {t.id() for t, _ in result.failures + result.errors}
    by_kernel = {}
    for test in tests:
        k = type(test).kernel
        ok = test.id() not in failed
        by_kernel.setdefault(k, [0, []])
        if ok:
            by_kernel[k][0] += 1
        else:
            by_kernel[k][1].append(test._testMethodName[len("test_"):])
    print()
    for k, (p, f) in by_kernel.items():
        print(f"{k}: {p} passed, {len(f)} failed"
              + (f" ({', '.join(f)})" if f else ""))
    passed = result.testsRun - len(failed)
    print(f"{passed} passed, {len(failed)} failed")
    return 1 if failed or passed == 0 else 0


def suite_tests(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from suite_tests(t)
        else:
            yield t


if __name__ == "__main__":
    sys.exit(main())
