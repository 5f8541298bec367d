"""A recording that holds no complete run writes no ETDump (the Inspector
cannot load one without runs): exit status 1 and one line with the likely
reason, the raw capture kept.
"""
import os
import signal
import unittest

from etdump_e2e import Recorder, TempDirTest, start_waiting_example


class NoRunsTest(TempDirTest):
    def test_stopped_before_the_target_ran_anything(self):
        example = start_waiting_example(["-n", "1"])
        try:
            out, raw = self.path("out.etdp"), self.path("out.raw")
            rec = Recorder(["-o", out, "--raw", raw, "-p", str(example.pid)])
            rec.wait_attached()
            rec.signal(signal.SIGINT)
            self.assertEqual(rec.wait(), 1, rec.stderr)
        finally:
            example.kill()
            example.wait()
        self.assertIn("no complete run recorded, no ETDump written: "
                      "no probe fired: the target ran nothing traced while "
                      "attached", rec.stderr)
        self.assertFalse(os.path.exists(out))
        self.assertTrue(os.path.exists(raw))


if __name__ == "__main__":
    unittest.main()
