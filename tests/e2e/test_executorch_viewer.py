"""The stock ExecuTorch runner recorded in symbol mode (with --program, and
without: call-order ids), converted to a Chrome trace and loaded into
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
RECORDINGS = {
    "program": ["--program", et.model("cnn")],
    "call_order": [],
}


class ExecuTorchSpeedscopeTest(SpeedscopeChecks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="etdump-viewer-")
        d = cls._tmp.name
        cls.dumps, cls.errors, files = {}, {}, []
        for name, extra in RECORDINGS.items():
            etdp, raw, js = (f"{d}/{name}.etdp", f"{d}/{name}.raw",
                             f"{d}/{name}.json")
            proc = run([CLI, "record", "-o", etdp, "--raw", raw, *extra,
                        "--", et.STOCK_RUNNER, "--model_path",
                        et.model("cnn"), "--num_executions",
                        str(EXECUTIONS)], timeout=120)
            # --program names the ETDump's runs and kernels at record; the
            # raw capture holds symbol mode's own records (call-order ids)
            again = f"{d}/{name}.again.etdp"
            conv = run([CLI, "convert", raw, "-o", js])
            conv_etdp = run([CLI, "convert", raw, "-o", again])
            cls.errors[name] = (proc.returncode,
                                conv.returncode + conv_etdp.returncode,
                                proc.stderr + conv.stderr)
            cls.dumps[name] = decode(again)
            files.append(js)
        cls.loaded = dict(zip(RECORDINGS,
                              viewer_env.load_in_speedscope(files)))

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def check(self, name):
        rec, conv, err = self.errors[name]
        self.assertEqual((rec, conv), (0, 0), err)
        self.assertIn("symbol mode", err)
        self.assert_opens_right(self.loaded[name], self.dumps[name])

    def test_speedscope_stock_runner_symbol_mode(self):
        self.check("program")

    def test_speedscope_stock_runner_call_order_ids(self):
        self.check("call_order")


if __name__ == "__main__":
    unittest.main()
