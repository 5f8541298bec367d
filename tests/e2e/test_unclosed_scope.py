"""A runtime that returns early and never ends one scope (an error path that
forgets end_profiling) loses that scope only: every run is kept, the one
that returned early with the events it did end, and the summary counts the
scope never closed.
"""
import unittest

from etdump_e2e import (CLI, EXAMPLE, EXECUTE_EVENTS, TempDirTest, decode,
                        read_timings, run, run_keys)

EXECUTIONS = 5
ABANDONED = 3
# the first instruction's events; Method::execute never ends in that run
ABANDONED_EVENTS = EXECUTE_EVENTS[:2]


class UnclosedScopeTest(TempDirTest):
    def record(self, mode):
        out, timings = self.path("out.etdp"), self.path("timings.tsv")
        proc = run([CLI, "record", "-o", out] + mode +
                   ["--", EXAMPLE, "-n", str(EXECUTIONS),
                    "--abandon-at", str(ABANDONED), "--timings", timings])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return decode(out), read_timings(timings), proc.stderr

    def check(self, mode):
        dump, timings, stderr = self.record(mode)
        runs = dump["run_data"]
        self.assertEqual([r["name"] for r in runs],
                         ["Default"] + ["Execute"] * EXECUTIONS, stderr)
        for i, r in enumerate(runs[1:], 1):
            want = ABANDONED_EVENTS if i == ABANDONED else EXECUTE_EVENTS
            self.assertEqual(run_keys(r), want, f"run {i}")
        # the runtime's own rows for the abandoned run: the same two
        rows = [t for t in timings if t["run"] == ABANDONED]
        self.assertEqual(len(rows), len(ABANDONED_EVENTS))
        self.assertIn("1 scope(s) never closed", stderr)
        self.assertNotIn("left out: still executing", stderr)

    def test_batched(self):
        self.check([])

    def test_per_scope(self):
        self.check(["--precise"])


if __name__ == "__main__":
    unittest.main()
