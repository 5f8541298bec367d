"""record -p on a runtime whose file was deleted or replaced on disk after
it started (a package upgrade, a deploy by rename): it is recorded through
the file the process maps (/proc/PID/exe, /proc/PID/map_files/), which the
uprobes attach to, and the summary says that the file on disk is not the
one running. The file put in its place carries no probes: what is recorded
can only come from the running one. Each ETDump decoded with flatc.
"""
import os
import shutil
import signal
import subprocess
import time

from etdump_e2e import (CLI, EXAMPLE, EXAMPLE_LIB, EXAMPLE_NOPROBES,
                        EXAMPLE_SHARED, TempDirTest, decode, run,
                        start_waiting_example)
from test_containers import RUNS, assert_example_runs

NOT_ON_DISK = "the file on disk is not the one running"


def wait_for_line(log, text, proc, timeout=30, count=1):
    """Until the recorder's stderr (a file: every line of it is kept)
    holds text (count times), or proc exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        with open(log) as f:
            if f.read().count(text) >= count:
                return
        time.sleep(0.05)
    with open(log) as f:
        raise AssertionError(f"recorder did not say {text!r}: {f.read()}")


class ReplacedFileTest(TempDirTest):
    def start(self, binary):
        proc = start_waiting_example(["-n", str(RUNS)], binary=binary)

        def stop():
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        self.addCleanup(stop)
        return proc

    def replace(self, path, by):
        """A deploy by rename: the new file takes the name, the old inode
        lives on in the process only."""
        shutil.copy(by, path + ".new")
        os.rename(path + ".new", path)

    def record(self, proc):
        out, log = self.path("out.etdp"), self.path("record.log")
        with open(log, "w") as f:
            rec = subprocess.Popen([CLI, "record", "-o", out, "-p",
                                    str(proc.pid)], stderr=f)
        try:
            wait_for_line(log, "attached", rec)
            proc.send_signal(signal.SIGUSR1)
            proc.wait(timeout=60)
            status = rec.wait(timeout=60)
        finally:
            if rec.poll() is None:
                rec.kill()
                rec.wait()
        with open(log) as f:
            err = f.read()
        self.assertEqual(status, 0, err)
        assert_example_runs(self, decode(out))
        return err

    def assert_said(self, err, shown, reached):
        # at the attach, and again in the summary
        self.assertIn(f"runs {shown}: {NOT_ON_DISK}", err)
        self.assertIn(f"recorded through {reached}", err)
        self.assertIn(f"{NOT_ON_DISK}: {shown} was recorded", err)

    def test_executable_replaced_by_rename(self):
        exe = self.path("runtime")
        shutil.copy(EXAMPLE, exe)
        proc = self.start(exe)
        self.replace(exe, EXAMPLE_NOPROBES)
        listed = run([CLI, "list", "-p", str(proc.pid)])
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertIn(f"/proc/{proc.pid}/exe\tetdump:flush", listed.stdout)
        err = self.record(proc)
        self.assert_said(err, exe + " (deleted)", f"/proc/{proc.pid}/exe")

    def test_executable_deleted(self):
        exe = self.path("runtime")
        shutil.copy(EXAMPLE, exe)
        proc = self.start(exe)
        os.unlink(exe)
        err = self.record(proc)
        self.assert_said(err, exe + " (deleted)", f"/proc/{proc.pid}/exe")

    def test_a_refusal_names_the_file_it_runs_and_the_path_tried(self):
        exe = self.path("runtime")
        shutil.copy(EXAMPLE_NOPROBES, exe)
        proc = self.start(exe)
        os.unlink(exe)
        empty = self.path("empty.rules")
        open(empty, "w").close()
        refused = run([CLI, "record", "-o", self.path("no.etdp"), "--rules",
                       empty, "-p", str(proc.pid)])
        self.assertEqual(refused.returncode, 1, refused.stderr)
        self.assertIn(f"etdump-bpf: {exe} (deleted) (PID {proc.pid}'s, "
                      f"reached as /proc/{proc.pid}/exe): no 'etdump' USDT "
                      "probes, and none of the ", refused.stderr)
        self.assertNotIn("18446744073709551615", refused.stderr)

    def test_library_replaced_by_rename(self):
        # the runtime as a library, found next to its executable ($ORIGIN)
        exe, lib = self.path("runtime"), self.path(
            os.path.basename(EXAMPLE_LIB))
        shutil.copy(EXAMPLE_SHARED, exe)
        shutil.copy(EXAMPLE_LIB, lib)
        proc = self.start(exe)
        # a file of the same name without probes
        self.replace(lib, EXAMPLE_NOPROBES)
        err = self.record(proc)
        self.assert_said(err, lib + " (deleted)",
                         f"/proc/{proc.pid}/map_files/")
        self.assertNotIn(f"runs {exe}", err)


if __name__ == "__main__":
    import unittest
    unittest.main()
