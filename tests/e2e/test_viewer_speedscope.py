"""Timelines in a real viewer: recordings of the example runtime (batched,
--precise with counters, three threads, a recording that dropped events),
converted to a Chrome trace from the raw capture and from the ETDump, and
ETDumps ExecuTorch's ETDumpGen wrote (tests/fixtures), loaded into speedscope in headless Chromium
as speedscope's own command line loads a file. Each imports without a
warning, with every run at top level and every operator as one frame that
holds its calls of every run (tests/viewer, viewer_env)."""
import os
import tempfile
import unittest

from etdump_e2e import CLI, EXAMPLE, ROOT, decode, record_starved, run
from speedscope_checks import SpeedscopeChecks
import viewer_env

# name: (record options, example options, expected exit status)
RECORDINGS = {
    "batched": ([], ["-n", "20"], 0),
    "precise": (["--precise"], ["-n", "20"], 0),
    "threads": ([], ["-n", "10", "--threads", "3"], 0),
    "drops": (["--precise", "--ring-size", "4K"], ["-n", "300"], 3),
}
# ETDumps ETDumpGen wrote: the stock runner's cnn, XNNPACK's delegate events
ETDUMPGEN = {
    "etdumpgen_cnn": "executorch-cnn-x3.etdp",
    "etdumpgen_xnn_mlp": "executorch-xnn_mlp-x3.etdp",
}


class SpeedscopeTest(SpeedscopeChecks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="etdump-viewer-")
        d = cls._tmp.name
        cls.dumps, cls.status, files = {}, {}, []
        for name, (rec, ex, _) in RECORDINGS.items():
            etdp, raw = f"{d}/{name}.etdp", f"{d}/{name}.raw"
            args = ["-o", etdp, "--raw", raw, *rec]
            if name == "drops":
                rc, err = record_starved(args, ex)
            else:
                proc = run([CLI, "record", *args, "--", EXAMPLE, *ex])
                rc, err = proc.returncode, proc.stderr
            js = f"{d}/{name}.json"
            conv = run([CLI, "convert", raw, "-o", js])
            want = RECORDINGS[name][2]
            cls.status[name] = ((rc, conv.returncode), (want, want),
                                err + conv.stderr)
            cls.dumps[name] = decode(etdp)
            files.append(js)
            # the same from the ETDump alone
            etdp_js = f"{d}/{name}.etdp.json"
            conv = run([CLI, "convert", etdp, "-o", etdp_js])
            # the ETDump knows of no drop
            cls.status[name + "_etdump"] = (conv.returncode, 0, conv.stderr)
            cls.dumps[name + "_etdump"] = cls.dumps[name]
            files.append(etdp_js)
        for name, fixture in ETDUMPGEN.items():
            etdp = os.path.join(ROOT, "tests", "fixtures", fixture)
            js = f"{d}/{name}.json"
            conv = run([CLI, "convert", etdp, "-o", js])
            cls.status[name] = (conv.returncode, 0, conv.stderr)
            cls.dumps[name] = decode(etdp)
            files.append(js)
        names = [n for r in RECORDINGS for n in (r, r + "_etdump")] + \
            list(ETDUMPGEN)
        cls.loaded = dict(zip(names, viewer_env.load_in_speedscope(files)))

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def check(self, name):
        got, want, err = self.status[name]
        self.assertEqual(got, want, err)
        self.assert_opens_right(self.loaded[name], self.dumps[name])

    def test_speedscope_batched(self):
        self.check("batched")

    def test_speedscope_precise_with_counters(self):
        self.check("precise")

    def test_speedscope_three_threads(self):
        self.check("threads")
        threads = self.loaded["threads"]["exported"]["profiles"]
        self.assertEqual(len(threads), 3)

    def test_speedscope_recording_with_drops(self):
        self.check("drops")

    def test_speedscope_from_etdumps(self):
        for name in RECORDINGS:
            with self.subTest(name):
                self.check(name + "_etdump")

    def test_speedscope_from_etdumpgen(self):
        for name in ETDUMPGEN:
            with self.subTest(name):
                self.check(name)
