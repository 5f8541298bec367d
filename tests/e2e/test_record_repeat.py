"""record --repeat N: the command recorded N times, one process after the
other, each into its own numbered files (run.0001.etdp, run.0001.raw,
...), as diff BASE... -- NEW... wants them, or two commands in turns
(--alternate-with); every name checked before the
first recording, the usage errors of what cannot be repeated, and SIGINT
stopping the series with the recording at hand written whole."""
import os
import re
import signal

from etdump_e2e import (CLI, EXAMPLE, Recorder, TempDirTest, decode, run)


class RecordRepeatTest(TempDirTest):
    def test_three_processes_three_numbered_recordings(self):
        base = self.path("base.etdp")
        proc = run([CLI, "record", "--repeat", "3", "-o", base, "--raw",
                    self.path("base.raw"), "--", EXAMPLE, "-n", "7"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(sorted(os.listdir(self.tmp)),
                         ["base.0001.etdp", "base.0001.raw",
                          "base.0002.etdp", "base.0002.raw",
                          "base.0003.etdp", "base.0003.raw"])
        pids = re.findall(r"attached \d+ probe\(s\) to PID (\d+)",
                          proc.stderr)
        self.assertEqual(len(set(pids)), 3, proc.stderr)
        for i in (1, 2, 3):
            self.assertIn(f"recording {i} of 3", proc.stderr)
            dump = decode(self.path(f"base.000{i}.etdp"))
            self.assertEqual([r["name"] for r in dump["run_data"]],
                             ["Default"] + ["Execute"] * 7)
            converted = self.path(f"c{i}.etdp")
            conv = run([CLI, "convert", self.path(f"base.000{i}.raw"),
                        "-o", converted])
            self.assertEqual(conv.returncode, 0, conv.stderr)
        # the recordings are what diff compares across processes
        diff = run([CLI, "diff", self.path("base.0001.etdp"),
                    self.path("base.0002.etdp"), "--",
                    self.path("base.0003.etdp"), self.path("c1.etdp")])
        self.assertEqual(diff.returncode, 0, diff.stderr)
        self.assertNotIn("one recording a side", diff.stdout + diff.stderr)

    def test_two_commands_take_turns(self):
        base, new = self.path("base.etdp"), self.path("new.etdp")
        proc = run([CLI, "record", "--repeat", "2", "-o", base,
                    "--alternate-with", new, "--", EXAMPLE, "-n", "3", "--",
                    EXAMPLE, "-n", "5"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(sorted(os.listdir(self.tmp)),
                         ["base.0001.etdp", "base.0002.etdp",
                          "new.0001.etdp", "new.0002.etdp"])
        # old, new, old, new: each recording said before its process
        said = re.findall(r"recording (\d) of 4: \S+/(\w+\.\d+)\.etdp",
                          proc.stderr)
        self.assertEqual(said, [("1", "base.0001"), ("2", "new.0001"),
                                ("3", "base.0002"), ("4", "new.0002")],
                         proc.stderr)
        order = sorted(os.listdir(self.tmp),
                       key=lambda n: os.stat(self.path(n)).st_mtime_ns)
        self.assertEqual(order, ["base.0001.etdp", "new.0001.etdp",
                                 "base.0002.etdp", "new.0002.etdp"])
        for name, runs in (("base", 3), ("new", 5)):
            for i in (1, 2):
                dump = decode(self.path(f"{name}.000{i}.etdp"))
                self.assertEqual([r["name"] for r in dump["run_data"]],
                                 ["Default"] + ["Execute"] * runs)

    def test_alternate_without_a_second_command_is_a_usage_error(self):
        alt = ["--alternate-with", self.path("new.etdp")]
        for args, said in (
                (["--repeat", "2"] + alt + ["--", EXAMPLE], "-- CMD2"),
                (["--repeat", "2"] + alt + ["--", EXAMPLE, "--"], "-- CMD2"),
                (["--repeat", "2"] + alt + ["--", "--", EXAMPLE], "-- CMD2"),
                (alt + ["--", EXAMPLE, "--", EXAMPLE], "--repeat N"),
                (["--repeat", "2", "--raw", self.path("r.raw")] + alt +
                 ["--", EXAMPLE, "--", EXAMPLE], "--raw"),
                (["--repeat", "2", "-o", self.path("new.etdp")] + alt +
                 ["--", EXAMPLE, "--", EXAMPLE], "both -o and --alternate")):
            with self.subTest(args=args):
                proc = run([CLI, "record"] + args)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn(said, proc.stderr)
        self.assertEqual(os.listdir(self.tmp), [])

    def test_a_name_taken_in_the_second_series_is_refused_first(self):
        taken = self.path("new.0002.etdp")
        with open(taken, "w") as f:
            f.write("mine")
        proc = run([CLI, "record", "--repeat", "2", "-o",
                    self.path("base.etdp"), "--alternate-with",
                    self.path("new.etdp"), "--", EXAMPLE, "-n", "2", "--",
                    EXAMPLE, "-n", "2"])
        self.assertEqual(proc.returncode, 1)
        self.assertIn(taken, proc.stderr)
        self.assertEqual(os.listdir(self.tmp), ["new.0002.etdp"])

    def test_a_name_taken_is_refused_before_the_first_recording(self):
        taken = self.path("run.0002.etdp")
        with open(taken, "w") as f:
            f.write("mine")
        proc = run([CLI, "record", "--repeat", "3", "-o",
                    self.path("run.etdp"), "--", EXAMPLE, "-n", "2"])
        self.assertEqual(proc.returncode, 1)
        self.assertIn(taken, proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1,
                         proc.stderr)
        self.assertEqual(os.listdir(self.tmp), ["run.0002.etdp"])
        with open(taken) as f:
            self.assertEqual(f.read(), "mine")

    def test_what_cannot_be_repeated_is_a_usage_error(self):
        for args in (["-p", str(os.getpid())],
                     ["-o", "-", "--", EXAMPLE],
                     ["--rotate", "1M", "--", EXAMPLE],
                     ["--live", "--", EXAMPLE],
                     ["--values", "--debug-buffer", self.path("d.bin"), "--",
                      EXAMPLE]):
            with self.subTest(args=args):
                proc = run([CLI, "record", "--repeat", "2",
                            "-o", self.path("x.etdp")] + args)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn("--repeat", proc.stderr)
        self.assertEqual(os.listdir(self.tmp), [])
        proc = run([CLI, "record", "--repeat", "0", "--", EXAMPLE])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("invalid --repeat '0'", proc.stderr)

    def test_sigint_stops_the_series_with_the_recording_at_hand_whole(self):
        base = self.path("base.etdp")
        # the first recording's target stops inside its 3rd execution
        rec = Recorder(["--repeat", "3", "-o", base, "--", EXAMPLE,
                        "-n", "10", "--stall-at", "3"])
        rec.wait_attached()
        while rec.proc.stdout.readline() not in ("stalled\n", ""):
            pass
        rec.signal(signal.SIGINT)
        self.assertEqual(rec.wait(), 0, rec.stderr)
        self.assertIn("interrupted", rec.stderr)
        self.assertIn("stopped: 1 of 3 recordings made", rec.stderr)
        self.assertEqual(os.listdir(self.tmp), ["base.0001.etdp"])
        self.assertEqual([r["name"] for r in
                          decode(self.path("base.0001.etdp"))["run_data"]],
                         ["Default", "Execute", "Execute"])
