"""A traced runtime that forks must not be harmed: a fork() child and a
vfork() child run the same probe sites while a recording is attached to
the parent (batched and per-scope). On x86-64 from kernel 6.18 a uprobe on
the 5-byte nop of schema/etdump_usdt.h becomes a call into a trampoline
mapped in the traced process only; the fork child inherited the call and
died of SIGSEGV at its first site, and its semaphores said a tracer was
listening for ever. The parent's runs are all recorded, and only them.
"""
import os
import signal
import subprocess
import unittest

from etdump_e2e import BUILD, Recorder, TempDirTest, decode

FORKER = os.path.join(BUILD, "example-forker")
N = 5
# forker.c's --long-name
LONG_NAME = "a_scope_name_longer_than_the_sixty_three_bytes_a_probe_" \
    "copies_of_it"


class ForkTest(TempDirTest):
    def record_forker(self, flags, *args):
        proc = subprocess.Popen([FORKER, "-n", str(N), *args],
                                stdout=subprocess.PIPE, text=True)
        try:
            self.assertTrue(proc.stdout.readline().startswith("ready "))
            out = self.path(f"fork{len(os.listdir(self.tmp))}.etdp")
            rec = Recorder(["-o", out, "-p", str(proc.pid)] + flags)
            rec.wait_attached()
            proc.send_signal(signal.SIGUSR1)
            stdout, _ = proc.communicate(timeout=60)
            self.assertEqual(rec.wait(), 0, rec.stderr)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.stderr = rec.stderr
        return proc.returncode, stdout, decode(out)

    def test_children_survive_and_forget_the_tracer(self):
        for flags in ([], ["--precise"]):
            with self.subTest(flags=flags):
                rc, out, dump = self.record_forker(flags)
                self.assertEqual(rc, 0)
                self.assertEqual(out.splitlines(), ["fork child: exit 0",
                                                    "vfork child: exit 0"])
                # the parent's executions before and after; a vfork child
                # is the parent's own pid's memory but another process
                self.assertEqual(len(dump["run_data"]), 2 * N)

    def test_names_cut_at_the_probe_bound_are_counted(self):
        for flags in ([], ["--precise"]):
            with self.subTest(flags=flags):
                _, _, dump = self.record_forker(flags, "--long-name")
                names = {e["profile_event"]["name"]
                         for r in dump["run_data"] for e in r["events"]}
                self.assertEqual(names, {LONG_NAME[:63]})
                self.assertRegex(self.stderr, r"\d+ name\(s\) or metadata "
                                 r"cut to the probes' bound \(63 and 64")


if __name__ == "__main__":
    unittest.main()
