"""record --duty PCT[/PERIOD]: symbol mode's probes attached a share of
the time, taken out for the rest. Every run written is a whole execution,
the same events as a recording without --duty; the executions a detach or
an attach cut are left out and counted; the summary, the ETDump's note
and report say which share of the time was traced. Here on the example
runtime built without its probes (symbol mode through
tests/example/example.rules), attached with -p to a process that has run
a while, as to a service; tests/e2e/test_executorch_duty.py does the same
on ExecuTorch's stock runner."""
import os
import re
import subprocess
import time

from etdump_e2e import (CLI, EXAMPLE, EXAMPLE_NOPROBES, ROOT, TempDirTest,
                        decode, run, run_keys)

RULES = os.path.join(ROOT, "tests", "example", "example.rules")
DUTY_LINE = re.compile(
    r"--duty (\d+\.\d)/(\d+)ms: probes attached ([\d.]+) s of ([\d.]+) s "
    r"\(([\d.]+) % of the time\) in (\d+) window\(s\); (\d+) run\(s\) cut")


def duty_summary(testcase, stderr):
    m = DUTY_LINE.search(stderr)
    testcase.assertTrue(m, stderr)
    return {"pct": float(m.group(1)), "period_ms": int(m.group(2)),
            "windows": int(m.group(6)), "cut": int(m.group(7)),
            "share": float(m.group(5))}


def assert_whole_runs(testcase, dump, want, default=None):
    """Every Execute run holds exactly `want`'s events in its order."""
    executes = [r for r in dump["run_data"] if r["name"] == "Execute"]
    testcase.assertTrue(executes)
    for i, r in enumerate(executes):
        testcase.assertEqual(run_keys(r), want, f"Execute run {i}")
    others = [r["name"] for r in dump["run_data"] if r["name"] != "Execute"]
    testcase.assertEqual(others, default or [])
    return len(executes)


def windows_with_runs(dump, off_ms):
    """How many windows the Execute runs were written from: runs begun
    more than off_ms / 2 apart (the probes were out between) are of
    different windows."""
    starts = sorted(int(e["profile_event"]["start_time"])
                    for r in dump["run_data"] if r["name"] == "Execute"
                    for e in r["events"][:1])
    return 1 + sum(b - a > off_ms * 500000
                   for a, b in zip(starts, starts[1:])) if starts else 0


def assert_windows_write_runs(testcase, dump, summary):
    """Windows after the first write runs too: a removal of the probes
    longer than the window once left them no time before it."""
    pct, period = summary["pct"], summary["period_ms"]
    wrote = windows_with_runs(dump, period * (100 - pct) / 100)
    testcase.assertGreaterEqual(wrote, max(2, summary["windows"] // 2),
                                summary)


def notes(dump):
    """The probe-time notes the runs carry (a call that kept its measured
    time carries a note of its own, etdump-bpf-probe-time:kept, which
    says nothing of the duty)."""
    return {n for r in dump["run_data"] for e in r["events"]
            for pe in [e.get("profile_event")]
            if pe and pe.get("delegate_debug_metadata")
            for n in [bytes(pe["delegate_debug_metadata"]).decode()]
            if n.startswith("etdump-bpf-probe-time:1;")}


class RecordDutyTest(TempDirTest):
    def reference(self):
        """An Execute run of the same runtime recorded without --duty."""
        out = self.path("ref.etdp")
        proc = run([CLI, "record", "-o", out, "--rules", RULES, "--",
                    EXAMPLE_NOPROBES, "-n", "2"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return [run_keys(r) for r in decode(out)["run_data"]
                if r["name"] == "Execute"][0]

    def test_attached_to_a_running_service_writes_whole_runs(self):
        want = self.reference()
        target = subprocess.Popen([EXAMPLE_NOPROBES, "-n", "100000000"],
                                  stdout=subprocess.DEVNULL)
        try:
            # it has been running for a while when the recorder comes
            time.sleep(0.5)
            out = self.path("duty.etdp")
            proc = run([CLI, "record", "-o", out, "--rules", RULES,
                        "--duty", "25/200ms", "-d", "3", "-p",
                        str(target.pid)], timeout=60)
            self.assertIsNone(target.poll(), "the target died")
        finally:
            target.kill()
            target.wait()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        dump = decode(out)
        written = assert_whole_runs(self, dump, want)
        s = duty_summary(self, proc.stderr)
        self.assertEqual((s["pct"], s["period_ms"]), (25.0, 200))
        # several windows in 3 s: each detach cut the execution under way
        self.assertGreaterEqual(s["windows"], 2)
        self.assertGreaterEqual(s["cut"], 1)
        assert_windows_write_runs(self, dump, s)
        self.assertIn(f"{written} Execute)", proc.stderr)
        self.assertTrue(notes(dump))
        self.assertTrue(all(n.endswith(";duty=25.0/200ms")
                            for n in notes(dump)), notes(dump))
        rep = run([CLI, "report", out])
        self.assertEqual(rep.returncode, 0, rep.stderr)
        self.assertIn("recorded with --duty 25.0%/200ms", rep.stdout)
        # no run was said cut twice, nor as attached mid-run
        self.assertNotIn("never closed", proc.stderr)

    def test_runtime_with_etdump_probes_refused(self):
        proc = run([CLI, "record", "-o", self.path("x.etdp"), "--duty",
                    "10", "--", EXAMPLE, "-n", "1"])
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
        self.assertIn("--duty", proc.stderr)
        self.assertIn("--symbols", proc.stderr)
        self.assertFalse(os.path.exists(self.path("x.etdp")))

    def test_raw_capture_refused(self):
        proc = run([CLI, "record", "--duty", "10", "--raw",
                    self.path("x.raw"), "--", EXAMPLE_NOPROBES, "-n", "1"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--duty and --raw", proc.stderr)
        self.assertFalse(os.path.exists(self.path("x.raw")))

    def test_bad_duty_is_a_usage_error(self):
        for arg in ("0", "100", "x", "10/1ms", "10/", "/1s"):
            with self.subTest(arg=arg):
                proc = run([CLI, "record", "--duty", arg, "--",
                            EXAMPLE_NOPROBES, "-n", "1"])
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn(f"invalid --duty '{arg}'", proc.stderr)
