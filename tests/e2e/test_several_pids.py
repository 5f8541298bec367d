"""record -p PID,PID...: several running processes into one ETDump, each
thread's runs its own, recording until the last one exits."""
import signal

from etdump_e2e import CLI, EXAMPLE_NOPROBES, Recorder, TempDirTest, \
    decode, run, start_waiting_example


class SeveralPidsTest(TempDirTest):
    def record_both(self, extra=()):
        a = start_waiting_example(["-n", "3"])
        b = start_waiting_example(["-n", "5", "--threads", "2"])
        out = self.path(f"both{len(extra)}.etdp")
        try:
            rec = Recorder(["-o", out, "-p", f"{a.pid},{b.pid}"] +
                           list(extra))
            rec.wait_attached()
            # the second process's line follows the first's
            line = rec.proc.stderr.readline()
            rec.stderr_lines.append(line)
            self.assertIn(f"to PID {b.pid} ", line)
            for p in (a, b):
                p.send_signal(signal.SIGUSR1)
            for p in (a, b):
                self.assertEqual(p.wait(timeout=60), 0)
            self.assertEqual(rec.wait(), 0, rec.stderr)
        finally:
            for p in (a, b):
                if p.poll() is None:
                    p.kill()
                    p.wait()
        return rec, decode(out)

    def test_two_processes_each_in_its_own_runs(self):
        for extra in ([], ["--precise"]):
            with self.subTest(extra=extra):
                rec, dump = self.record_both(extra)
                names = [r["name"] for r in dump["run_data"]]
                # 3 executions of one, 2 threads x 5 of the other
                self.assertEqual(names.count("Default"), 2)
                self.assertEqual(names.count("Execute"), 3 + 2 * 5)
                for r in dump["run_data"]:
                    if r["name"] == "Execute":
                        kernels = [e for e in r["events"]
                                   if e["profile_event"].get("name", "")
                                   .startswith("native_call_")]
                        self.assertEqual(len(kernels), 5)
                self.assertIn("target exited; wrote ", rec.stderr)

    def test_refusals(self):
        a = start_waiting_example(["-n", "1"])
        try:
            proc = run([CLI, "record", "-o", self.path("x.etdp"), "-p",
                        f"{a.pid},{a.pid}"])
            self.assertEqual(proc.returncode, 2)
            self.assertIn(f"PID {a.pid} given twice", proc.stderr)
            other = start_waiting_example(["-n", "1"],
                                          binary=EXAMPLE_NOPROBES)
            try:
                proc = run([CLI, "record", "-o", self.path("x.etdp"), "-p",
                            f"{a.pid},{other.pid}"])
            finally:
                other.kill()
                other.wait()
            self.assertEqual(proc.returncode, 1)
            self.assertIn("symbol mode records one process", proc.stderr)
            self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
        finally:
            a.kill()
            a.wait()
