"""Symbol mode's one trap a kernel (docs/symbol-mode.md#one-trap-a-kernel):
a kernel is probed at its entry alone once the first runs measured the
gap after each kernel's return, and ends where its thread's next probed
event begins. tests/nested/nested_kernels.c runs, in each method_execute,
op_outer (which calls op_inner directly, spinning before and after it)
and op_plain, through pointers; with --side-thread another thread calls
op_plain outside any method_execute. Every ETDump decoded with flatc."""
import os
import re
import signal

from etdump_e2e import (BUILD, CLI, ROOT, Recorder, TempDirTest, decode,
                        run)

NESTED = os.path.join(BUILD, "nested-kernels")
RULES = os.path.join(ROOT, "tests", "nested", "nested_kernels.rules")
# the executions of a recording that ends as it will (the returns may
# still be probed then); one that must reach one trap a kernel runs on
# until the recorder took the returns out (record_one_trap)
EXECUTIONS = "20000"
DROPPED = "one trap a kernel call from then on"
OUTSIDE = ("kernel call(s) on a thread in no probed call (outside "
           "Method::execute) not written")


def events_by_name(run_data):
    """{name: [profile_event, ...]} of one run."""
    out = {}
    for ev in run_data["events"]:
        pe = ev.get("profile_event")
        if pe:
            out.setdefault(pe["name"], []).append(pe)
    return out


def span(pe):
    return int(pe["start_time"]), int(pe["end_time"])


class OneTrapTest(TempDirTest):
    def record(self, *args, extra=()):
        out = self.path(f"o{len(os.listdir(self.tmp))}.etdp")
        proc = run([CLI, "record", "-o", out, "--rules", RULES, *args, "--",
                    NESTED, "-n", EXECUTIONS, *extra], timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc, decode(out)

    def record_one_trap(self, *args, extra=(), raw=None):
        """A recording that reaches one trap a kernel whatever the
        machine's speed: the program runs on until the recorder said the
        returns come out, then EXECUTIONS more. (stderr,
        the ETDump's path, the executions the program ran)."""
        out = self.path(f"o{len(os.listdir(self.tmp))}.etdp")
        rec = Recorder(["-o", out, "--rules", RULES, *args,
                        *(["--raw", raw] if raw else []), "--", NESTED,
                        "-n", EXECUTIONS, "--until-usr1", *extra])
        try:
            rec.wait_for("attached", timeout=120)
            pid = int(re.search(r"to PID (\d+)",
                                rec.stderr_lines[-1]).group(1))
            rec.wait_for(DROPPED, timeout=120)
            os.kill(pid, signal.SIGUSR1)
            self.assertEqual(rec.wait(timeout=300), 0, rec.stderr)
        finally:
            if rec.proc.poll() is None:
                rec.proc.kill()
                rec.proc.wait()
        ran = re.search(r"^(\d+) executions$", rec.stdout, re.M)
        self.assertTrue(ran, rec.stdout)
        self.last_stdout = rec.stdout
        return rec.stderr, out, int(ran.group(1))

    def assert_nested_right(self, dump, executions=int(EXECUTIONS)):
        """Each run: the inner kernel inside the outer one, ending before it
        (the outer spins after it returns), in the outer's instruction;
        the plain kernel after the outer; no kernel lasting no time."""
        runs = dump["run_data"]
        self.assertEqual(len(runs), executions)
        for i, r in enumerate(runs):
            ev = events_by_name(r)
            outer, inner, plain = (ev.get(f"native_call_{k}.out", [])
                                   for k in ("outer", "inner", "plain"))
            self.assertEqual((len(outer), len(inner), len(plain)), (1, 1, 1),
                             f"run {i}: {sorted(ev)}")
            (os_, oe), (is_, ie), (ps, pe) = (span(outer[0]), span(inner[0]),
                                               span(plain[0]))
            for a, b in ((os_, oe), (is_, ie), (ps, pe)):
                self.assertLess(a, b, f"run {i}")
            self.assertLessEqual(os_, is_, f"run {i}")
            self.assertLess(ie, oe, f"run {i}: inner ends with outer")
            self.assertLessEqual(oe, ps, f"run {i}")
            self.assertEqual(
                (inner[0].get("chain_index"), inner[0].get("instruction_id")),
                (outer[0].get("chain_index"), outer[0].get("instruction_id")),
                f"run {i}")

    def test_a_kernel_calling_a_kernel_keeps_its_return(self):
        listed = run([CLI, "list", "--rules", RULES, NESTED])
        self.assertEqual(listed.returncode, 0, listed.stderr)
        returns = {row.split("\t")[2]: row.split("\t")[5]
                   for row in listed.stdout.splitlines()[1:]}
        self.assertEqual(returns["op_outer"], "uretprobe")
        self.assertEqual(returns["op_inner"], "next event")
        self.assertEqual(returns["op_plain"], "next event")
        self.assertIn("an 'Execute' run takes 2 trap(s) of its own, "
                      "1 a kernel call (2 for a kernel that calls another)",
                      listed.stderr)
        err, out, ran = self.record_one_trap()
        dump = decode(out)
        # Method::execute 2, op_outer 2, op_inner 1, op_plain 1; 8 while
        # the gaps are measured, fewer in the runs the returns' removal cut
        said = re.search(r"6 traps per 'Execute' run \(0 single-stepped "
                         r"hits\) and ([\d.]+) in the \d+ run\(s\) that "
                         r"measured the gaps", err)
        self.assertTrue(said, err)
        self.assertTrue(6 < float(said.group(1)) <= 8, said.group(0))
        self.assertIn("kernel call(s) ended where the thread's next event "
                      "began, less the gap measured", err)
        self.assert_nested_right(dump, ran)

    def test_exact_returns_takes_two_traps_a_kernel(self):
        proc, dump = self.record("--exact-returns")
        self.assertNotIn(DROPPED, proc.stderr)
        self.assertIn("8 traps per 'Execute' run (0 single-stepped hits)",
                      proc.stderr)
        self.assertNotIn("measured the gaps", proc.stderr)
        self.assert_nested_right(dump)

    def test_kernels_outside_method_execute_are_not_written(self):
        """The side thread's kernels have no next event known to end them:
        left out and counted, never put into the main thread's runs."""
        err, out, ran = self.record_one_trap(extra=["--side-thread"])
        dump = decode(out)
        said = re.findall(r"(\d+) " + re.escape(OUTSIDE), err)
        self.assertEqual(len(said), 1, err)
        self.assertGreater(int(said[0]), 0)
        self.assert_nested_right(dump, ran)
        proc, _ = self.record("--exact-returns", extra=["--side-thread"])
        self.assertNotIn(OUTSIDE, proc.stderr)

    def test_an_instruction_that_fails_ends_at_method_executes_return(self):
        """Every 7th execution's second instruction fails (op_fail) and
        method_execute returns at once: the failing kernel, probed at its
        entry alone, ends at Method::execute's return, inside it and after
        the kernel before; its run holds no kernel that did not run."""
        err, out, ran = self.record_one_trap(extra=["--fail-every", "7"])
        self.assertIn(DROPPED, err)
        runs = decode(out)["run_data"]
        self.assertEqual(len(runs), ran)
        failed = 0
        for i, r in enumerate(runs):
            ev = events_by_name(r)
            (execute,), (outer,) = ev["Method::execute"], \
                ev["native_call_outer.out"]
            (es, ee), (os_, oe) = span(execute), span(outer)
            fail = ev.get("native_call_fail.out", [])
            plain = ev.get("native_call_plain.out", [])
            if (i + 1) % 7:
                self.assertEqual((len(fail), len(plain)), (0, 1),
                                 f"run {i}: {sorted(ev)}")
                continue
            failed += 1
            self.assertEqual((len(fail), len(plain)), (1, 0),
                             f"run {i}: {sorted(ev)}")
            fs, fe = span(fail[0])
            self.assertTrue(es <= os_ < oe <= fs < fe <= ee,
                            f"run {i}: Method::execute {es, ee}, outer "
                            f"{os_, oe}, fail {fs, fe}")
        self.assertEqual(failed, ran // 7)
        said = re.search(r"^(\d+) failed$", self.last_stdout, re.M)
        self.assertTrue(said and int(said.group(1)) == failed,
                        self.last_stdout)

    def test_raw_capture_converts_the_same(self):
        """The gaps are measured again from the raw capture's records: the
        converted file is the recorded one."""
        raw, again = self.path("r.raw"), self.path("again.etdp")
        _, out, _ = self.record_one_trap(raw=raw)
        converted = run([CLI, "convert", raw, "-o", again], timeout=300)
        self.assertEqual(converted.returncode, 0, converted.stderr)
        with open(out, "rb") as a, open(again, "rb") as b:
            self.assertEqual(a.read(), b.read())
