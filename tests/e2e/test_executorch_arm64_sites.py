"""Symbol mode's sites on ExecuTorch's stock runner cross-built for
aarch64 (arm64/bin/executor_runner), as `list` on this machine shows them
(user/symbol/arm64_exits.h): GCC's arm64 prologues are single-stepped, so
a function whose code allows it is probed on its first simulated
instruction and on each of its rets, nothing stepped, 2 traps a call
(permute_copy_out too: its switch's br goes where its jump table says,
inside it); a kernel, which ends at the next event once the gaps after
the returns are measured, takes 1 (docs/symbol-mode.md). Two keep the single-stepped entry and the uretprobe:
Method::execute ends in a tail call, and the allocator's x0, which its
entry reads, is overwritten before its first branch. cnn.pte's execution
(Method::execute and 10 kernel calls) has 1 single-stepped call where it
had 11, and 13 traps. Recording needs an arm64 kernel: not here.
"""
import unittest

import executorch_env as et
from etdump_e2e import CLI, run

STEPPED = {
    "executorch::runtime::Method::execute",
    "executorch::runtime::MemoryAllocator::allocate",
}
# what cnn.pte runs per execution (the x86-64 recording's table)
CNN_CALLS = ["executorch::runtime::Method::execute"] + [
    "torch::executor::native::" + k for k in (
        "convolution_out", "relu_out", "max_pool2d_with_indices_out",
        "convolution_out", "relu_out", "max_pool2d_with_indices_out",
        "view_copy_out", "permute_copy_out", "addmm_out", "softmax_out")]


class Arm64SitesTest(unittest.TestCase):
    # the ExecuTorch build holds arm64/ (as docs/arm64-android.md's blocks
    # need): tests/run.py loads this when executorch_env.available()
    def list_rows(self, *args):
        proc = run([CLI, "list", *args])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = [line.split("\t") for line in proc.stdout.splitlines()]
        return {r[2]: dict(zip(lines[0], r)) for r in lines[1:]}, \
            proc.stderr

    def test_functions_probed_without_single_stepping(self):
        rows, err = self.list_rows(et.ARM64_RUNNER)
        self.assertEqual(len(rows), 16, rows.keys())
        for function, row in rows.items():
            expect = (("single-stepped", "uretprobe", "3")
                      if function in STEPPED else
                      ("simulated", "next event", "1")
                      if function.startswith("torch::executor::native::")
                      else ("simulated", "simulated", "2"))
            self.assertEqual((row["ENTRY"], row["RETURN"], row["TRAPS"]),
                             expect, function)
        # Method::init and Program::load_method return three ways
        self.assertIn("16 site(s): entries 14 simulated, 2 single-stepped; "
                      "returns 2 uretprobe, 2 exit simulated "
                      "(19 exit probes); 12 kernel(s) end at the next event",
                      err)
        stepped = sum(rows[f]["ENTRY"] == "single-stepped"
                      for f in CNN_CALLS)
        traps = sum(int(rows[f]["TRAPS"]) for f in CNN_CALLS)
        self.assertEqual((stepped, traps), (1, 13))

    def test_stripped_by_its_debug_file_the_same(self):
        rows, _ = self.list_rows(et.ARM64_RUNNER)
        stripped = et.ARM64_RUNNER + "_stripped"
        srows, _ = self.list_rows("--debug-file", stripped + ".debug",
                                  stripped)
        strip = ("ENTRY", "RETURN", "TRAPS")
        self.assertEqual({f: tuple(r[k] for k in strip)
                          for f, r in rows.items()},
                         {f: tuple(r[k] for k in strip)
                          for f, r in srows.items()})


if __name__ == "__main__":
    unittest.main()
