"""A plain `make` on a machine without the build's packages names what is
missing in one line and the command that installs it, instead of a
compiler error deep in the build (a missing tool is stood for by a name
that cannot exist).
"""
import os
import unittest

from etdump_e2e import ROOT, TempDirTest, run


class FirstContactTest(TempDirTest):
    def test_plain_make_names_what_is_missing(self):
        for goal in ([], ["all"]):
            with self.subTest(goal=goal):
                proc = run(["make", "-C", ROOT, "--no-print-directory",
                            "BPFTOOL=etdump-no-such-bpftool",
                            f"OUT={self.tmp}"] + goal)
                self.assertNotEqual(proc.returncode, 0)
                lines = proc.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, proc.stderr)
                self.assertIn("missing to build: etdump-no-such-bpftool",
                              lines[0])
                self.assertIn("make deps", lines[0])
                self.assertEqual(os.listdir(self.tmp), [])

    def test_a_wrong_executorch_prefix_is_one_line(self):
        prefix = os.path.join(self.tmp, "not-executorch")
        proc = run(["make", "-C", ROOT, "--no-print-directory",
                    f"EXECUTORCH_PREFIX={prefix}", f"OUT={self.tmp}/out"])
        self.assertNotEqual(proc.returncode, 0)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn(f"EXECUTORCH_PREFIX={prefix} is not an ExecuTorch "
                      "install", lines[0])
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out")))


if __name__ == "__main__":
    unittest.main()
