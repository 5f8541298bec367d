"""Every reader refuses what is not a regular file (a device could be read
without end, a FIFO would block for ever), names are checked before
anything is attached, and an error writing standard output is an error.
Each case ends with one line naming the file and a non-zero exit; the
subprocess timeout only turns a hang into a failure.
"""
import os
import unittest

from etdump_e2e import CLI, EXAMPLE, EXAMPLE_NOPROBES, TempDirTest, run

NOT_REGULAR = "not a regular file"


class InputBoundsTest(TempDirTest):
    def fifo(self):
        path = self.path("fifo")
        os.mkfifo(path)
        return path

    def assert_refused(self, argv, *needles, status=1):
        proc = run([CLI] + argv, timeout=30)
        self.assertEqual(proc.returncode, status, proc.stderr)
        for n in needles:
            self.assertIn(n, proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()),
                         1 if status == 1 else 2, proc.stderr)
        return proc

    def test_report_and_convert_refuse_devices_and_fifos(self):
        for path in ("/dev/zero", self.fifo()):
            with self.subTest(path=path):
                self.assert_refused(["report", path], path, NOT_REGULAR)
                self.assert_refused(["convert", path, "-o",
                                     self.path("x.etdp")], path,
                                    "not a regular file")
        self.assert_refused(["report", self.tmp], self.tmp,
                            "Is a directory")

    def test_record_refuses_rules_and_programs_that_are_not_files(self):
        out = self.path("out.etdp")
        for opt in ("--rules", "--program"):
            for path in ("/dev/zero", self.fifo() if opt == "--rules"
                         else "/dev/urandom"):
                with self.subTest(opt=opt, path=path):
                    self.assert_refused(["record", "-o", out, opt, path,
                                         "--", EXAMPLE_NOPROBES, "-n", "1"],
                                        path, NOT_REGULAR)
                    self.assertFalse(os.path.exists(out))

    def test_output_names_refused_before_attaching(self):
        out = self.path("same")
        cases = [
            (["-o", out, "--raw", os.path.join(self.tmp, ".", "same")],
             "given for both -o and --raw", 2),
            (["-o", ""], "an empty output file name", 1),
            (["-o", self.path("n" * 300)], "File name too long", 1),
            (["-o", out, "-e", "task-clock", "--no-counters"],
             "-e and --no-counters", 2),
        ]
        for args, needle, status in cases:
            with self.subTest(args=args[:2]):
                proc = self.assert_refused(
                    ["record"] + args + ["--", EXAMPLE, "-n", "1"], needle,
                    status=status)
                self.assertNotIn("attached", proc.stderr)
                self.assertEqual(os.listdir(self.tmp), [])

    def test_list_of_a_missing_file_says_so(self):
        missing = self.path("none")
        self.assert_refused(["list", missing],
                            f"{missing}: No such file or directory")

    def test_a_full_standard_output_is_an_error(self):
        with open("/dev/full", "w") as full:
            proc = run_to(full, [CLI, "list", EXAMPLE])
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("cannot write to standard output", proc.stderr)


def run_to(stdout, argv):
    import subprocess
    return subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=30)


if __name__ == "__main__":
    unittest.main()
