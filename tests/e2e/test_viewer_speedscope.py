"""Timelines in a real viewer: recordings of the example runtime (batched,
--precise with counters, three threads, a recording that dropped events),
converted to a Chrome trace and loaded into speedscope in headless Chromium
as speedscope's own command line loads a file. Each imports without a
warning, with every run at top level and every operator as one frame that
holds its calls of every run (tests/viewer, viewer_env)."""
import tempfile
import unittest

from etdump_e2e import CLI, EXAMPLE, decode, record_starved, run
from speedscope_checks import SpeedscopeChecks
import viewer_env

# name: (record options, example options, expected exit status)
RECORDINGS = {
    "batched": ([], ["-n", "20"], 0),
    "precise": (["--precise"], ["-n", "20"], 0),
    "threads": ([], ["-n", "10", "--threads", "3"], 0),
    "drops": (["--precise", "--ring-size", "4K"], ["-n", "300"], 3),
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
            cls.status[name] = (rc, conv.returncode, err + conv.stderr)
            cls.dumps[name] = decode(etdp)
            files.append(js)
        cls.loaded = dict(zip(RECORDINGS,
                              viewer_env.load_in_speedscope(files)))

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def check(self, name):
        want = RECORDINGS[name][2]
        rec, conv, err = self.status[name]
        self.assertEqual((rec, conv), (want, want), err)
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
