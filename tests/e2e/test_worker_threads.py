"""Events a pool worker fires (it never opens a block of its own, as a
backend's thread pool would not) reach the ETDump: each goes into the run
open in the process when it ended, in the place its end gives it among
that run's own events (ETDumpGen writes each event as it ends, whichever
thread ends it), and the summary says how many were placed so.
"""
import json
import unittest

from etdump_e2e import (CLI, EXAMPLE, EXECUTE_EVENTS, TempDirTest, decode,
                        read_timings, run, run_keys)

EXECUTIONS = 5
POOL_EVENT = ("pool_job", 0, 4)
# the delegate's relu node runs on the worker after its linear #0 is logged
# and before its relu #1 is
AFTER = EXECUTE_EVENTS.index(("delegate:linear #0", 0, 4)) + 1
WITH_POOL = EXECUTE_EVENTS[:AFTER] + [POOL_EVENT] + EXECUTE_EVENTS[AFTER:]


class WorkerThreadsTest(TempDirTest):
    def check(self, mode):
        out, timings = self.path("out.etdp"), self.path("timings.tsv")
        proc = run([CLI, "record", "-o", out] + mode +
                   ["--", EXAMPLE, "-n", str(EXECUTIONS), "--pool",
                    "--timings", timings])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(f"{EXECUTIONS} event(s) of 1 thread(s) that opened no "
                      "run of their own", proc.stderr)
        self.assertNotIn("attached mid-run", proc.stderr)
        runs = decode(out)["run_data"][1:]
        self.assertEqual(len(runs), EXECUTIONS)
        rows = {t["run"]: t for t in read_timings(timings)
                if t["name"] == "pool_job"}
        for k, r in enumerate(runs, 1):
            self.assertEqual(run_keys(r), WITH_POOL)
            ends = [int(e["profile_event"]["end_time"]) for e in r["events"]]
            self.assertLessEqual(ends[AFTER - 1], ends[AFTER])
            self.assertLessEqual(ends[AFTER], ends[AFTER + 1])
            pe = r["events"][AFTER]["profile_event"]
            # the probe fired inside the worker's own clock reads, in the
            # execution whose run holds it
            self.assertLessEqual(rows[k]["start_ns"], int(pe["start_time"]))
            self.assertLessEqual(int(pe["end_time"]), rows[k]["end_ns"])

    def test_timeline_draws_the_worker_on_its_own_thread(self):
        raw, trace = self.path("out.raw"), self.path("out.json")
        proc = run([CLI, "record", "--raw", raw, "-o", self.path("o.etdp"),
                    "--", EXAMPLE, "-n", str(EXECUTIONS), "--pool"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc = run([CLI, "convert", raw, "-o", trace])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        jobs = {e["tid"] for e in events if e.get("name") == "pool_job"}
        runs = {e["tid"] for e in events
                if e.get("name", "").startswith("Method::execute")}
        self.assertEqual(len(jobs), 1, events)
        self.assertEqual(len(runs), 1)
        self.assertNotEqual(jobs, runs)
        named = {e["tid"] for e in events
                 if e.get("ph") == "M" and e["name"] == "thread_name"}
        self.assertLessEqual(jobs | runs, named)
        self.assertEqual(sum(e.get("name") == "pool_job" and e["ph"] == "B"
                             for e in events), EXECUTIONS)

    def test_batched(self):
        self.check([])

    def test_per_scope(self):
        self.check(["--precise"])


if __name__ == "__main__":
    unittest.main()
