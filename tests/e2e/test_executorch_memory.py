"""record --allocations on the real ExecuTorch: our runner with
--track_allocations names its two allocators to our EventTracer
(track_allocator) and reports what they hand out (track_allocation), and
prints its own totals at exit. The recording's summary, report --memory
and convert's timeline must show those totals; the ETDump holds no
allocation event (the Inspector cannot load one) unless
--allocations-in-etdump. Decoded with flatc.
"""
import json
import os
import re

import executorch_env as et
from etdump_e2e import BUILD, CLI, TempDirTest, decode, run
from test_executorch_tracer import runs_identity

RUNNER = os.path.join(BUILD, "executorch-runner")
ALLOCATORS = ["method_allocator", "temp_allocator"]


def tracked(stderr):
    """The runner's own totals: {allocator: (allocations, bytes)}."""
    return {m.group(1): (int(m.group(2)), int(m.group(3))) for m in
            re.finditer(r"tracked: (\w+) (\d+) allocations, (\d+) bytes",
                        stderr)}


class ExecuTorchMemoryTest(TempDirTest):
    def record(self, *extra, out="m.etdp", executions=3):
        proc = run([CLI, "record", "-o", self.path(out), "--no-counters",
                    *extra, "--", RUNNER, "--model_path", et.model("cnn"),
                    "--num_executions", str(executions),
                    "--track_allocations"], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        want = tracked(proc.stderr)
        self.assertEqual(sorted(want), ALLOCATORS)
        self.assertTrue(all(n and b for n, b in want.values()), want)
        return proc, want

    def test_summary_report_and_timeline_show_what_the_runtime_allocated(self):
        proc, want = self.record("--allocations", "--raw", self.path("m.raw"))
        for i, name in enumerate(ALLOCATORS):
            n, b = want[name]
            self.assertIn(f"memory: allocator {i + 1} {name}: {n} "
                          f"allocations, {b} bytes", proc.stderr)
        # the ETDump is the Inspector's: no allocation event
        dump = decode(self.path("m.etdp"))
        self.assertFalse([e for r in dump["run_data"] for e in r["events"]
                          if e.get("allocation_event")])
        self.assertEqual(run([CLI, "report", self.path("m.etdp")]).returncode,
                         0)
        # and holds the same events as a recording without allocations
        self.record("--precise", out="plain.etdp")
        self.assertEqual(runs_identity(dump),
                         runs_identity(decode(self.path("plain.etdp"))))

        rep = run([CLI, "report", "--memory", self.path("m.raw")])
        self.assertEqual(rep.returncode, 0, rep.stderr)
        rows = {line.split()[1]: line.split() for line in
                rep.stdout.split("\n\n")[0].splitlines()[2:]}
        for i, name in enumerate(ALLOCATORS):
            self.assertEqual(rows[name][0], str(i + 1))
            self.assertEqual((int(rows[name][2]), int(rows[name][3])),
                             want[name])

        conv = run([CLI, "convert", self.path("m.raw"), "-o",
                    self.path("m.json")])
        self.assertEqual(conv.returncode, 0, conv.stderr)
        with open(self.path("m.json")) as f:
            trace = json.load(f)["traceEvents"]
        for name in ALLOCATORS:
            counter = [e["args"]["bytes"] for e in trace
                       if e["ph"] == "C" and e["name"] == f"memory: {name}"]
            self.assertEqual(len(counter), want[name][0])
            self.assertEqual(counter, sorted(counter))
            self.assertEqual(counter[-1], want[name][1])

    def test_allocations_in_etdump_only_when_asked(self):
        proc, want = self.record("--allocations-in-etdump")
        dump = decode(self.path("m.etdp"))
        events = [e["allocation_event"] for r in dump["run_data"]
                  for e in r["events"] if e.get("allocation_event")]
        for i, name in enumerate(ALLOCATORS):
            mine = [e["allocation_size"] for e in events
                    if e["allocator_id"] == i + 1]
            self.assertEqual((len(mine), sum(mine)), want[name])
        self.assertEqual([a["name"] for a in dump["run_data"][0]["allocators"]],
                         ALLOCATORS)
        # as ExecuTorch's Inspector, report refuses it; report --memory reads it
        rep = run([CLI, "report", self.path("m.etdp")])
        self.assertEqual(rep.returncode, 1)
        self.assertIn("allocation event", rep.stderr)
        rep = run([CLI, "report", "--memory", self.path("m.etdp")])
        self.assertEqual(rep.returncode, 0, rep.stderr)
        self.assertIn(f"method_allocator {want['method_allocator'][0]} "
                      f"{want['method_allocator'][1]}",
                      re.sub(r" +", " ", rep.stdout))

    def test_without_the_flag_nothing_of_memory(self):
        proc, _ = self.record("--precise")
        self.assertNotIn("memory:", proc.stderr)
        rep = run([CLI, "report", "--memory", self.path("m.etdp")])
        self.assertEqual(rep.returncode, 0, rep.stderr)
        self.assertIn("no allocation in", rep.stdout)


if __name__ == "__main__":
    import unittest
    unittest.main()
