"""The stock ExecuTorch runner recorded in symbol mode with --program, its
raw capture (call-order ids) and its ETDump (the program's ids) converted
to a Chrome trace and loaded into
speedscope in headless Chromium: no import warning, every run at top level,
every operator one frame over all runs (speedscope_checks). Needs the real
ExecuTorch build (executorch_env) and the viewer (viewer_env)."""
import tempfile
import unittest

import executorch_env as et
from etdump_e2e import CLI, decode, run
from speedscope_checks import SpeedscopeChecks
import viewer_env

EXECUTIONS = 10


class ExecuTorchSpeedscopeTest(SpeedscopeChecks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="etdump-viewer-")
        d = cls._tmp.name
        etdp, raw = f"{d}/cnn.etdp", f"{d}/cnn.raw"
        proc = run([CLI, "record", "-o", etdp, "--raw", raw, "--program",
                    et.model("cnn"), "--", et.STOCK_RUNNER, "--model_path",
                    et.model("cnn"), "--num_executions", str(EXECUTIONS)],
                   timeout=120)
        cls.errors = {"record": (proc.returncode, proc.stderr)}
        # the raw capture holds symbol mode's own records: call-order ids;
        # --program named the ETDump's runs and kernels at record
        again = f"{d}/again.etdp"
        sources = {"call_order": (raw, again), "program": (etdp, etdp)}
        cls.dumps, files = {}, []
        for name, (src, dump) in sources.items():
            js = f"{d}/{name}.json"
            conv = run([CLI, "convert", src, "-o", js])
            cls.errors[name] = (conv.returncode, conv.stderr)
            if name == "call_order":
                conv = run([CLI, "convert", raw, "-o", again])
                cls.errors["again"] = (conv.returncode, conv.stderr)
            cls.dumps[name] = decode(dump)
            files.append(js)
        cls.loaded = dict(zip(sources, viewer_env.load_in_speedscope(files)))

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def check(self, name):
        for step, (rc, err) in self.errors.items():
            self.assertEqual(rc, 0, f"{step}: {err}")
        self.assertIn("symbol mode", self.errors["record"][1])
        self.assert_opens_right(self.loaded[name], self.dumps[name])

    def test_speedscope_stock_runner_raw_capture(self):
        self.check("call_order")

    def test_speedscope_stock_runner_etdump_with_program(self):
        self.check("program")


if __name__ == "__main__":
    unittest.main()
