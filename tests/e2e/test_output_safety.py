"""record writes as root: what it writes must never go through a symbolic
link, replace a file that appeared while it ran (without -f), or remove what
it did not create.
"""
import os
import signal
import stat
import unittest

from etdump_e2e import (CLI, EXAMPLE, Recorder, TempDirTest,
                        start_waiting_example, run, decode)


class OutputSafetyTest(TempDirTest):
    def victim(self):
        path = self.path("victim")
        with open(path, "w") as f:
            f.write("root's file")
        return path

    def assert_untouched(self, victim):
        with open(victim) as f:
            self.assertEqual(f.read(), "root's file")

    def record_while(self, args, during):
        """record -p of the example held before its load; `during()` runs
        once record has attached, then the example goes."""
        example = start_waiting_example(["-n", "2"])
        try:
            rec = Recorder(args + ["-p", str(example.pid)])
            rec.wait_attached()
            during()
            example.send_signal(signal.SIGUSR1)
            example.wait(timeout=60)
            return rec.wait(), rec.stderr
        finally:
            if example.poll() is None:
                example.kill()
                example.wait()

    def test_symlink_planted_at_the_output_while_recording(self):
        victim = self.victim()
        out = self.path("out.etdp")
        for force in ([], ["-f"]):
            with self.subTest(force=force):
                rc, err = self.record_while(
                    ["-o", out] + force,
                    lambda: os.symlink(victim, out))
                self.assertEqual(rc, 1, err)
                self.assertIn(f"{out}: cannot write: is a symbolic link",
                              err)
                self.assert_untouched(victim)
                self.assertTrue(os.path.islink(out))
                # nothing lost: the recording is in the file it names
                kept = err.split("the output is in ")[1].split()[0]
                self.assertEqual(len(decode(kept)["run_data"]), 3)
                os.unlink(kept)
                os.unlink(out)

    def test_file_created_at_the_output_while_recording_is_kept(self):
        out = self.path("out.etdp")

        def create():
            with open(out, "w") as f:
                f.write("root's file")
        rc, err = self.record_while(["-o", out], create)
        self.assertEqual(rc, 1, err)
        self.assertIn("appeared while the work ran (use --force", err)
        self.assert_untouched(out)

    def test_symlink_at_the_output_is_refused_before_recording(self):
        victim = self.victim()
        for opt in ("-o", "--raw"):
            with self.subTest(opt=opt):
                link = self.path(f"link{opt}")
                os.symlink(victim, link)
                proc = run([CLI, "record", opt, link, "-f", "--",
                            EXAMPLE, "-n", "1"])
                self.assertEqual(proc.returncode, 1, proc.stderr)
                self.assertIn(f"{link}: is a symbolic link", proc.stderr)
                self.assert_untouched(victim)
                self.assertTrue(os.path.islink(link))

    def test_a_directory_as_output_is_refused_before_the_target_runs(self):
        folder = self.path("out")
        os.mkdir(folder)
        marker = self.path("ran")
        for opt in ("-o", "--raw"):
            with self.subTest(opt=opt):
                proc = run([CLI, "record", opt, folder, "-f", "--", "sh",
                            "-c", f"touch {marker}"])
                self.assertEqual(proc.returncode, 1, proc.stderr)
                self.assertEqual(proc.stderr.strip(),
                                 f"etdump-bpf: {folder}: Is a directory")
                self.assertFalse(os.path.exists(marker))
                self.assertEqual(os.listdir(folder), [])

    def test_any_name_the_file_system_takes_is_written(self):
        # 250 bytes: its temporary name is longer than a name may be
        for name in ("a" * 245 + ".etdp", "b" * 255):
            with self.subTest(length=len(name)):
                out = self.path(name)
                proc = run([CLI, "record", "-o", out, "--", EXAMPLE,
                            "-n", "2"])
                self.assertEqual(proc.returncode, 0, proc.stderr)
                # nothing else left beside it: no temporary file
                self.assertEqual(os.listdir(self.tmp), [name])
                # flatc's own output name would be too long
                short = self.path("short.etdp")
                os.rename(out, short)
                self.assertEqual(len(decode(short)["run_data"]), 3)
                os.unlink(short)

    def test_a_device_given_as_raw_output_is_never_removed(self):
        # a device node of our own, like /dev/full: writes fail ENOSPC
        dev = self.path("full")
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        proc = run([CLI, "record", "--raw", dev, "-f", "--", EXAMPLE,
                    "-n", "1"])
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(f"{dev}: cannot write", proc.stderr)
        self.assertTrue(stat.S_ISCHR(os.lstat(dev).st_mode))


if __name__ == "__main__":
    unittest.main()
