"""record --sched: when each of the target's threads was switched out and on
which CPU it ran, as lanes in the timeline convert makes of the raw capture,
so that an operator that left the CPU shows it. The example runtime's
yield.out sleeps (--counter-ops): its thread blocks inside it, every time."""
import json
import os

from etdump_e2e import CLI, EXAMPLE, TempDirTest, decode, run
from test_convert import slices_of

LANE_TID = 1 << 30


class SchedTest(TempDirTest):
    def record(self, *extra):
        etdp, raw, js = (self.path("A.etdp"), self.path("R.raw"),
                         self.path("T.json"))
        proc = run([CLI, "record", "--sched", "-o", etdp, "--raw", raw,
                    *extra, "--", EXAMPLE, "-n", "5", "--counter-ops",
                    "--threads", "2", "--sleep-ms", "20"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        conv = run([CLI, "convert", raw, "-o", js])
        self.assertEqual(conv.returncode, 0, conv.stderr)
        with open(js) as f:
            return proc.stderr, decode(etdp), json.load(f)

    def test_lanes_show_where_each_thread_ran_and_left_the_cpu(self):
        stderr, dump, trace = self.record()
        # the switches are the timeline's: the ETDump has all its runs
        self.assertEqual(len(dump["run_data"]), 11, stderr)
        events = trace["traceEvents"]
        self.assertEqual(trace["otherData"]["sched_lane_tid"],
                         f"tid + {LANE_TID}")
        slices = slices_of(events)
        lanes = [s for s in slices if s["cat"] == "sched"]
        ops = [s for s in slices if s["cat"] != "sched"]
        threads = {s["tid"] for s in ops}
        # a lane for each of the target's threads, and for no other
        self.assertEqual({s["tid"] - LANE_TID for s in lanes}, threads)
        names = {e["tid"]: e["args"]["name"] for e in events
                 if e["ph"] == "M" and e["name"] == "thread_name"}
        order = {e["tid"]: e["args"]["sort_index"] for e in events
                 if e["ph"] == "M" and e["name"] == "thread_sort_index"}
        for tid in threads:
            self.assertEqual(names[tid + LANE_TID], names[tid] + " sched")
            # Perfetto lists each lane right below its thread
            self.assertEqual(order[tid + LANE_TID], order[tid] + 1)
        ncpus = os.cpu_count()
        for s in lanes:
            self.assertTrue(s["name"] in ("preempted", "blocked") or
                            (s["name"].startswith("CPU ") and
                             0 <= int(s["name"][4:]) < ncpus), s)
        # a lane's spans follow one another, none inside another
        depth = {}
        for e in events:
            if e.get("cat") == "sched":
                depth[e["tid"]] = depth.get(e["tid"], 0) + \
                    (1 if e["ph"] == "B" else -1)
                self.assertIn(depth[e["tid"]], (0, 1))
        # every sleep inside yield.out shows as its thread blocked in it
        yields = [s for s in ops if s["name"] == "native_call_yield.out"]
        self.assertEqual(len(yields), 10)
        for y in yields:
            blocked = [s for s in lanes
                       if s["tid"] == y["tid"] + LANE_TID and
                       s["name"] == "blocked" and
                       y["ts"] <= s["ts"] <= y["ts"] + y["dur"]]
            self.assertTrue(blocked, y)

    def test_sched_needs_a_raw_capture(self):
        proc = run([CLI, "record", "--sched", "-o", self.path("A.etdp"),
                    "--", EXAMPLE, "-n", "1"])
        self.assertEqual(proc.returncode, 2)
        lines = proc.stderr.strip().splitlines()
        self.assertIn("--sched needs --raw", lines[0])
        self.assertEqual(len(lines), 2, proc.stderr)
        self.assertFalse(os.path.exists(self.path("A.etdp")))
