"""record --allocations in symbol mode: the stock executor_runner's
allocators report nothing, so the recorder probes what the rules name
(schema/executorch.rules: `allocate` MemoryAllocator::allocate) and takes
the size asked at its return, when it handed memory out, each allocator
object numbered. Checked against what our runner (tests/executorch/
runner.cpp, same runtime, same program) reports through track_allocation
with --track_allocations: the temporary allocator's allocations are the
same, in order; the method allocator's seen are among its own, in order
(the calls gcc inlined are not seen, and record says so). Without
--allocations no allocate function is probed. Decoded with flatc.
"""
import os

import executorch_env as et
from etdump_e2e import BUILD, CLI, TempDirTest, decode, run

RUNNER = os.path.join(BUILD, "executorch-runner")


def allocations(path):
    """{allocator name: [sizes, in order]} of an ETDump's allocation events."""
    out = {}
    for r in decode(path)["run_data"]:
        names = [a["name"] for a in r.get("allocators") or []]
        for e in r["events"]:
            a = e.get("allocation_event")
            if a:
                out.setdefault(names[a["allocator_id"] - 1], []).append(
                    a["allocation_size"])
    return out


def in_order_among(seen, all_):
    it = iter(all_)
    return all(x in it for x in seen)


class ExecuTorchSymbolMemoryTest(TempDirTest):
    def record(self, binary, *extra, out="m.etdp", args=()):
        proc = run([CLI, "record", "-o", self.path(out), *extra, "--",
                    binary, "--model_path", et.model("cnn"),
                    "--num_executions", "2", *args], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc

    def test_allocations_are_those_the_runtime_tracks(self):
        self.record(RUNNER, "--allocations-in-etdump", out="tracked.etdp",
                    args=["--track_allocations"])
        tracked = allocations(self.path("tracked.etdp"))
        self.assertEqual(sorted(tracked),
                         ["method_allocator", "temp_allocator"])
        proc = self.record(et.STOCK_RUNNER, "--allocations-in-etdump")
        self.assertIn("symbol mode", proc.stderr)
        self.assertIn("--allocations: 1 allocate function(s) probed",
                      proc.stderr)
        self.assertIn("is not seen", proc.stderr)
        seen = allocations(self.path("m.etdp"))
        self.assertEqual(sorted(seen),
                         ["MemoryAllocator 1", "MemoryAllocator 2"])
        # the method's allocator serves first (the method's 1360 bytes)
        method, temp = seen["MemoryAllocator 1"], seen["MemoryAllocator 2"]
        self.assertEqual(temp, tracked["temp_allocator"])
        self.assertTrue(in_order_among(method, tracked["method_allocator"]))
        self.assertEqual(method[0], tracked["method_allocator"][0])
        self.assertGreater(len(method), len(tracked["method_allocator"]) / 2)
        for name, sizes in seen.items():
            self.assertIn(f"memory: allocator {name[-1]} {name}: "
                          f"{len(sizes)} allocations, {sum(sizes)} bytes",
                          proc.stderr)

    def test_report_memory_from_the_raw_capture(self):
        self.record(et.STOCK_RUNNER, "--allocations", "--raw",
                    self.path("m.raw"))
        # the ETDump the Inspector loads holds none
        self.assertFalse([e for r in decode(self.path("m.etdp"))["run_data"]
                          for e in r["events"] if e.get("allocation_event")])
        proc = run([CLI, "report", "--memory", self.path("m.raw")])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = [line.split() for line in proc.stdout.splitlines()]
        per_allocator = [r for r in rows if r[1:3] in
                         (["MemoryAllocator", "1"], ["MemoryAllocator", "2"])]
        self.assertGreaterEqual(len(per_allocator), 2, proc.stdout)

    def test_without_allocations_no_allocate_probe(self):
        plain = self.record(et.STOCK_RUNNER, out="p.etdp")
        asked = self.record(et.STOCK_RUNNER, "--allocations", out="a.etdp")
        count = [int(p.stderr.split("attached ")[1].split()[0])
                 for p in (plain, asked)]
        # an entry uprobe and a uretprobe for MemoryAllocator::allocate
        self.assertEqual(count[1], count[0] + 2)
        self.assertNotIn("allocate function", plain.stderr)
        self.assertNotIn("memory:", plain.stderr)


if __name__ == "__main__":
    import unittest
    unittest.main()
