"""record follows children (perf's and uftrace's default): a command that
starts the runtime through a shell, or starts several, has each runtime
recorded in its own runs; --no-inherit records the command alone, as
before; a child that execs no traced binary runs as it would untraced.

The runtimes wait for SIGUSR1 before their load (--wait-signal), sent once
the recorder says it follows them: a child's events before its attach are
lost, as when attaching mid-run, and no test depends on the machine's
speed."""
import os
import re
import signal
import subprocess
import time

from etdump_e2e import (CLI, EXAMPLE, EXAMPLE_NOPROBES, EXECUTE_EVENTS,
                        DEFAULT_EVENTS, Recorder, TempDirTest, decode, run,
                        run_keys)

def process_state(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def wait_for_handler(pid, sig, timeout=30):
    """Until pid catches sig: the recorder may attach to a child before
    the child has set its handler, and the signal would kill it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/status") as f:
                caught = next(int(line.split()[1], 16) for line in f
                              if line.startswith("SigCgt:"))
        except (FileNotFoundError, StopIteration):
            return
        if caught >> (sig - 1) & 1:
            return
        time.sleep(0.01)


FOLLOWING = re.compile(r"following PID (\d+) \((.*)\): attached (\d+) probe")


class FollowChildrenTest(TempDirTest):
    def record_shell(self, script, nchildren, extra=(), before_go=None):
        """record -- sh -c SCRIPT; each of the nchildren runtimes it starts
        is let go once followed. The recorder's exit status, stderr, the
        pids followed."""
        out = self.path(f"sh{len(os.listdir(self.tmp))}.etdp")
        rec = Recorder(["-o", out] + list(extra) + ["--", "sh", "-c", script])
        pids = []
        try:
            while len(pids) < nchildren:
                line = rec.proc.stderr.readline()
                self.assertTrue(line, "".join(rec.stderr_lines))
                rec.stderr_lines.append(line)
                m = FOLLOWING.search(line)
                if m:
                    self.assertEqual(m.group(2), EXAMPLE)
                    self.assertGreater(int(m.group(3)), 0)
                    pids.append(int(m.group(1)))
            if before_go:
                before_go(rec)
            for pid in pids:
                wait_for_handler(pid, signal.SIGUSR1)
                os.kill(pid, signal.SIGUSR1)
            status = rec.wait()
        finally:
            if rec.proc.poll() is None:
                rec.proc.kill()
                rec.proc.wait()
        self.out = out
        return status, rec.stderr, pids

    def assert_whole_runs(self, runs):
        for r in runs:
            want = EXECUTE_EVENTS if r["name"] == "Execute" else \
                DEFAULT_EVENTS
            self.assertEqual(run_keys(r), want, r["name"])

    def test_runtime_started_by_a_shell_is_recorded(self):
        for extra in ([], ["--precise"]):
            with self.subTest(extra=extra):
                status, err, pids = self.record_shell(
                    f"{EXAMPLE} --wait-signal -n 3 > /dev/null", 1, extra)
                self.assertEqual(status, 0, err)
                self.assertIn("(/usr/bin/dash): no 'etdump' USDT probes: "
                              "recording the processes it starts", err)
                self.assertIn(f"followed 1 process(es), each in its own "
                              f"runs: PID {pids[0]} ({EXAMPLE})", err)
                runs = decode(self.out)["run_data"]
                self.assertEqual([r["name"] for r in runs],
                                 ["Default"] + ["Execute"] * 3)
                self.assert_whole_runs(runs)

    def test_two_runtimes_each_in_their_own_runs(self):
        script = (f"{EXAMPLE} --wait-signal -n 2 > /dev/null & "
                  f"{EXAMPLE} --wait-signal -n 3 --threads 2 > /dev/null & "
                  "wait")
        status, err, pids = self.record_shell(script, 2)
        self.assertEqual(status, 0, err)
        self.assertEqual(len(set(pids)), 2)
        for pid in pids:
            self.assertRegex(err, rf"followed 2 process\(es\).*PID {pid} ")
        runs = decode(self.out)["run_data"]
        names = [r["name"] for r in runs]
        self.assertEqual(names.count("Default"), 2)
        self.assertEqual(names.count("Execute"), 2 + 3 * 2)
        self.assert_whole_runs(runs)

    def test_recording_waits_for_a_child_the_command_left_running(self):
        """The shell exits at once; its child, recorded, runs after it:
        record stops when the child exits, with its runs."""
        def shell_gone(rec):
            shell = int(re.search(r"PID (\d+) \(/usr/bin/dash\)",
                                  "".join(rec.stderr_lines)).group(1))
            # the recorder reaps it; until then it is a zombie
            while os.path.exists(f"/proc/{shell}/stat"):
                with open(f"/proc/{shell}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                        break
        status, err, _ = self.record_shell(
            f"{EXAMPLE} --wait-signal -n 2 > /dev/null &", 1,
            before_go=shell_gone)
        self.assertEqual(status, 0, err)
        self.assertIn("target exited; wrote ", err)
        runs = decode(self.out)["run_data"]
        self.assertEqual([r["name"] for r in runs],
                         ["Default", "Execute", "Execute"])

    def test_no_inherit_keeps_the_refusal(self):
        out = self.path("no.etdp")
        proc = run([CLI, "record", "-o", out, "--no-inherit", "--", "sh",
                    "-c", f"echo ran; {EXAMPLE} -n 1"])
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("no 'etdump' USDT probes", proc.stderr)
        self.assertEqual(proc.stdout, "")
        self.assertFalse(os.path.exists(out))

    def test_a_runtime_gone_before_its_attach_is_named(self):
        """A runtime that ends before the recorder could attach to it (held
        here: the recorder is stopped from before its exec to after its
        exit) is named as missed, not taken for a command without probes."""
        fifo, done = self.path("go"), self.path("done")
        os.mkfifo(fifo)
        out = self.path("gone.etdp")
        rec = Recorder(["-o", out, "--", "sh", "-c",
                        f"read x < {fifo}; {EXAMPLE} -n 1 > /dev/null; "
                        f": > {done}"])
        try:
            # opened once the shell reads it: the command has left the gate
            with open(fifo, "w") as go:
                os.kill(rec.proc.pid, signal.SIGSTOP)
                while process_state(rec.proc.pid) != "T":
                    time.sleep(0.01)
                go.write("go\n")
            while not os.path.exists(done):
                time.sleep(0.01)
            os.kill(rec.proc.pid, signal.SIGCONT)
            status = rec.wait()
        finally:
            if rec.proc.poll() is None:
                os.kill(rec.proc.pid, signal.SIGCONT)
                rec.proc.kill()
                rec.proc.wait()
        self.assertEqual(status, 1, rec.stderr)
        lines = rec.stderr.splitlines()
        self.assertEqual(len(lines), 1, rec.stderr)
        self.assertIn("no 'etdump' USDT probes, and the 1 process(es) with "
                      "them it started exited before they could be attached",
                      lines[0])
        self.assertFalse(os.path.exists(out))

    def test_child_without_traced_binary_is_untouched(self):
        """Output and exit statuses as without the recorder: a subshell (a
        fork, no exec), a binary without probes, a failing command."""
        script = (f"echo start; (echo sub; exit 4); echo sub=$?; "
                  f"{EXAMPLE_NOPROBES} -n 2 | tail -n 1; "
                  "sh -c 'exit 5'; echo child=$?")
        alone = run(["sh", "-c", script])
        proc = run([CLI, "record", "-o", self.path("u.etdp"), "--", "sh",
                    "-c", script])
        self.assertEqual(proc.stdout, alone.stdout)
        self.assertIn("sub=4\n", proc.stdout)
        self.assertIn("executions: 2\nchild=5\n", proc.stdout)
        # nothing traced ran: no ETDump, and one line says why
        self.assertEqual(proc.returncode, 1, proc.stderr)
        lines = proc.stderr.splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("/usr/bin/dash: no 'etdump' USDT probes, nor in a "
                      "process it started", lines[0])
        self.assertFalse(os.path.exists(self.path("u.etdp")))
