"""record --duty on ExecuTorch's stock runner (bin/executor_runner, no
event tracer): cnn.pte's executions recorded in windows, each run written
holds the 21 events of a whole execution as a recording without --duty
does, fewer runs than executions, the cut ones counted, the share of the
time said (tests/e2e/test_record_duty.py: the example runtime, -p)."""
import executorch_env as et
from etdump_e2e import CLI, TempDirTest, decode, run, run_keys
from test_record_duty import (assert_whole_runs, assert_windows_write_runs,
                              duty_summary, notes)

EXECUTIONS = 150000


class ExecuTorchDutyTest(TempDirTest):
    def record(self, name, n, *extra):
        out = self.path(name)
        proc = run([CLI, "record", "-o", out, "--program", et.model("cnn"),
                    *extra, "--", et.STOCK_RUNNER, "--model_path",
                    et.model("cnn"), "--num_executions", str(n),
                    "--print_output", "none"], timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc, decode(out)

    def test_cnn_whole_executions_in_windows(self):
        _, ref = self.record("ref.etdp", 2)
        want = run_keys([r for r in ref["run_data"]
                         if r["name"] == "Execute"][0])
        self.assertEqual(len(want), 21)
        proc, dump = self.record("duty.etdp", EXECUTIONS, "--duty",
                                 "20/250ms")
        written = assert_whole_runs(self, dump, want, ["Default"])
        self.assertLess(written, EXECUTIONS)
        s = duty_summary(self, proc.stderr)
        self.assertGreaterEqual(s["windows"], 2)
        self.assertGreaterEqual(s["cut"], 1)
        assert_windows_write_runs(self, dump, s)
        # one trap a kernel in the windows after the gaps were measured
        self.assertIn("12 traps per 'Execute' run", proc.stderr)
        # a single thread: no kernel outside Method::execute
        self.assertNotIn("in no probed call", proc.stderr)
        self.assertTrue(notes(dump))
        self.assertTrue(all(n.endswith(";duty=20.0/250ms")
                            for n in notes(dump)), notes(dump))
        self.assertNotIn("never closed", proc.stderr)
        self.assertNotIn("before the first run of their thread",
                         proc.stderr)
