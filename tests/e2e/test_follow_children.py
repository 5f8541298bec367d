"""record follows children (perf's and uftrace's default): a command that
starts the runtime through a shell, or starts several, has each runtime
recorded in its own runs; --no-inherit records the command alone, as
before; a child that execs no traced binary runs as it would untraced.

The runtimes wait for SIGUSR1 before their load (--wait-signal), sent once
the recorder says it follows them: a child attached after its exec loses
its events before the attach, as when attaching mid-run, and no test
depends on the machine's speed. A runtime the command line names is armed
before the command starts (ArmedChildrenTest): it is recorded from its
first instruction, however briefly it runs."""
import os
import re
import select
import signal
import subprocess
import time

from etdump_e2e import (CLI, EXAMPLE, EXAMPLE_NOPROBES, EXECUTE_EVENTS,
                        DEFAULT_EVENTS, Recorder, TempDirTest, decode, run,
                        run_keys, start_waiting_example)

def process_state(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def wait_exited(pid):
    """Until pid has exited: a zombie, or reaped (its parent may reap it
    before the pidfd is opened). The pidfd is readable once it has exited:
    a wait without a CPU spinning on /proc, which the processes waited for
    need (the shell and the recorder each pinned to one CPU)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        select.select([fd], [], [])
    finally:
        os.close(fd)


def wait_sigusr1_blocked(pid):
    """Until the example runtime (--wait-signal) blocks SIGUSR1, as it does
    before it waits for it: a child recorded from its exec is named before
    it gets there, and an earlier SIGUSR1 would kill it. False if it is
    gone."""
    bit = 1 << (signal.SIGUSR1 - 1)
    while True:
        try:
            with open(f"/proc/{pid}/status") as f:
                status = f.read()
            with open(f"/proc/{pid}/wchan") as f:
                wchan = f.read()
        except (FileNotFoundError, ProcessLookupError):
            return False
        blocked = re.search(r"^SigBlk:\s*([0-9a-f]+)", status, re.M)
        # sigwait() unblocks it while it waits
        if (blocked and int(blocked.group(1), 16) & bit) or \
                "sigtimedwait" in wchan:
            return True
        time.sleep(0.01)


FOLLOWING = re.compile(r"following PID (\d+) \((.*)\): attached (\d+) probe")


def kill_if_running(proc):
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def next_following(test, rec):
    """The recorder's next line naming a child it follows (kept in
    rec.stderr_lines, as every line read before it): its match."""
    while True:
        line = rec.proc.stderr.readline()
        test.assertTrue(line, "".join(rec.stderr_lines))
        rec.stderr_lines.append(line)
        m = FOLLOWING.search(line)
        if m:
            return m


def record_held(test, args, script):
    """record ARGS -- sh -c SCRIPT, the recorder stopped (SIGSTOP) from
    before SCRIPT starts to after it ends: whatever the recorder does
    when it hears of a child (an attach, an anchor) comes after the
    child is gone, as on a machine too busy to run the recorder in time.
    Its exit status, and the Recorder."""
    fifo = test.path(f"go{len(os.listdir(test.tmp))}")
    done = fifo + ".done"
    os.mkfifo(fifo)
    rec = Recorder(list(args) + ["--", "sh", "-c", f"read x < {fifo}; "
                                 f"{script}; : > {done}"])
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
    return status, rec


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
                m = next_following(self, rec)
                self.assertEqual(m.group(2), EXAMPLE)
                self.assertGreater(int(m.group(3)), 0)
                pids.append(int(m.group(1)))
            if before_go:
                before_go(rec)
            for pid in pids:
                wait_sigusr1_blocked(pid)
                os.kill(pid, signal.SIGUSR1)
            status = rec.wait()
        finally:
            kill_if_running(rec.proc)
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
            wait_exited(shell)
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
        """A runtime the command line does not name (its name is made at
        run time: it is attached to after its exec) that ends before the
        recorder could attach to it (held here: the recorder is stopped
        from before its exec to after its exit) is named as missed, not
        taken for a command without probes."""
        out = self.path("gone.etdp")
        status, rec = record_held(self, ["-o", out],
                                  f"r={EXAMPLE}; \"$r\" -n 1 > /dev/null")
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


def probe_addresses(binary):
    """The etdump probes' (site, semaphore) virtual addresses in binary."""
    notes = run(["readelf", "-n", binary]).stdout
    return [(int(loc, 16), int(sema, 16)) for loc, sema in re.findall(
        r"Provider: etdump\s+Name: \S+\s+Location: (0x[0-9a-f]+), "
        r"Base: 0x[0-9a-f]+, Semaphore: (0x[0-9a-f]+)", notes)]


def load_base(pid, binary):
    """Where a process mapped binary (a PIE: its first segment at 0)."""
    real = os.path.realpath(binary)
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 6 and fields[5] == real and \
                    int(fields[2], 16) == 0:
                return int(fields[0].split("-")[0], 16)
    raise AssertionError(f"{binary} is not mapped in {pid}")


def probe_state(pid, binary=EXAMPLE):
    """The process's etdump semaphores (each once), and whether any of its
    probe sites holds a breakpoint (x86-64's int3)."""
    base = load_base(pid, binary)
    semas, breakpoint = {}, False
    with open(f"/proc/{pid}/mem", "rb") as mem:
        for site, sema in probe_addresses(binary):
            mem.seek(base + sema)
            semas[sema] = int.from_bytes(mem.read(2), "little")
            mem.seek(base + site)
            breakpoint = breakpoint or mem.read(1) == b"\xcc"
    return semas, breakpoint


class ArmedChildrenTest(TempDirTest):
    """A runtime the command line names is armed before the command starts:
    recorded from its first instruction, however briefly it runs, and
    nothing outside the command's tree is touched."""

    def record(self, extra, script):
        out = self.path(f"r{len(os.listdir(self.tmp))}.etdp")
        proc = run([CLI, "record", "-o", out] + extra +
                   ["--", "sh", "-c", script], timeout=600)
        return proc, out

    def test_short_runtime_through_a_shell_has_every_run(self):
        """Each event as when the runtime itself is recorded (its arguments
        read by the specs set for the armed sites, as libbpf's are)."""
        for extra in ([], ["--precise"]):
            with self.subTest(extra=extra):
                proc, out = self.record(extra, f"true; {EXAMPLE} -n 3")
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertIn("executions: 3\n", proc.stdout)
                self.assertRegex(proc.stderr, rf"following PID \d+ "
                                 rf"\({re.escape(EXAMPLE)}\): attached "
                                 rf"\d+ probe\(s\) before its exec")
                runs = decode(out)["run_data"]
                self.assertEqual([r["name"] for r in runs],
                                 ["Default"] + ["Execute"] * 3)
                direct = self.path("direct.etdp")
                alone = run([CLI, "record", "-f", "-o", direct] + extra +
                            ["--", EXAMPLE, "-n", "3"])
                self.assertEqual(alone.returncode, 0, alone.stderr)
                self.assertEqual([run_keys(r) for r in runs],
                                 [run_keys(r) for r in
                                  decode(direct)["run_data"]])

    def test_long_child_loses_no_run(self):
        """The load run (the runtime's first) and every execution."""
        n = 5000
        proc, out = self.record(["--precise", "--ring-size", "256M"],
                                f"{EXAMPLE} -n {n} > /dev/null")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(f"{n + 1} runs (1 Default + {n} Execute), ",
                      proc.stderr)
        self.assertIn(" 0 dropped", proc.stderr)
        runs = decode(out)["run_data"]
        self.assertEqual(len(runs), n + 1)
        self.assertEqual(runs[0]["name"], "Default")

    def test_process_outside_the_tree_is_untouched(self):
        """The same binary, started before the recording and running during
        it: no breakpoint, its semaphores stay 0, none of its runs are
        recorded; the child in the tree has them."""
        for extra in ([], ["--precise"]):
            with self.subTest(extra=extra):
                self.outside_untouched(extra)

    def outside_untouched(self, extra):
        outside = start_waiting_example(["-n", "5"])
        out = self.path(f"o{len(os.listdir(self.tmp))}.etdp")
        rec = Recorder(["-o", out] + extra +
                       ["--", "sh", "-c",
                        f"{EXAMPLE} --wait-signal -n 3 > /dev/null"])
        try:
            inside = int(next_following(self, rec).group(1))
            self.assertTrue(wait_sigusr1_blocked(inside))
            semas, breakpoint = probe_state(inside)
            self.assertTrue(any(semas.values()), semas)
            if os.uname().machine == "x86_64":
                self.assertTrue(breakpoint)
            semas, breakpoint = probe_state(outside.pid)
            self.assertEqual(set(semas.values()), {0}, semas)
            self.assertFalse(breakpoint)
            # it runs while the recording goes on, untraced
            outside.send_signal(signal.SIGUSR1)
            stdout, _ = outside.communicate(timeout=60)
            self.assertEqual(outside.returncode, 0)
            self.assertIn("executions: 5\n", stdout)
            os.kill(inside, signal.SIGUSR1)
            status = rec.wait()
        finally:
            kill_if_running(outside)
            kill_if_running(rec.proc)
        self.assertEqual(status, 0, rec.stderr)
        runs = decode(out)["run_data"]
        self.assertEqual([r["name"] for r in runs],
                         ["Default"] + ["Execute"] * 3)

    def test_script_words_are_armed_and_non_elf_words_left(self):
        """A script the command names is not armed itself, nor is a data
        file; the runtime the script execs, named in the script's text
        only, is read from it and armed: recorded from before its exec."""
        script = self.path("start.sh")
        with open(script, "w") as f:
            f.write(f"#!/bin/sh\nexec {EXAMPLE} --wait-signal -n 2\n")
        os.chmod(script, 0o755)
        data = self.path("notes.txt")
        with open(data, "w") as f:
            f.write("not a program\n")
        os.chmod(data, 0o755)
        out = self.path("script.etdp")
        rec = Recorder(["-o", out, "--", "sh", "-c",
                        f"cat {data} > /dev/null; {script} > /dev/null"])
        try:
            pid = int(next_following(self, rec).group(1))
            self.assertIn(f"({EXAMPLE}): attached 1 probe(s) before its "
                          "exec", rec.stderr_lines[-1])
            self.assertTrue(wait_sigusr1_blocked(pid))
            os.kill(pid, signal.SIGUSR1)
            status = rec.wait()
        finally:
            kill_if_running(rec.proc)
        self.assertEqual(status, 0, rec.stderr)
        runs = decode(out)["run_data"]
        self.assertEqual([r["name"] for r in runs],
                         ["Default", "Execute", "Execute"])

    def test_follow_binary_arms_a_runtime_named_at_run_time(self):
        """A runtime the command line does not name, ended before an attach
        after its exec could be (see the test above), is recorded whole
        when --follow-binary names it."""
        proc, out = self.record(["--follow-binary", EXAMPLE],
                                f"r={EXAMPLE}; \"$r\" -n 2")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("before its exec", proc.stderr)
        runs = decode(out)["run_data"]
        self.assertEqual([r["name"] for r in runs],
                         ["Default", "Execute", "Execute"])

    def test_a_process_that_ran_before_takes_nothing_away(self):
        """A process of the tree that exits before the runtime runs (a
        command, or a first runtime) leaves the runtime recorded whole: an
        inherited event's end takes no program away from the others."""
        for script, names in (
                (f"/bin/true; {EXAMPLE} -n 2 > /dev/null",
                 ["Default"] + ["Execute"] * 2),
                (f"{EXAMPLE} -n 2 > /dev/null; {EXAMPLE} -n 3 > /dev/null",
                 ["Default"] + ["Execute"] * 2 + ["Default"] +
                 ["Execute"] * 3)):
            with self.subTest(script=script):
                proc, out = self.record([], script)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                runs = decode(out)["run_data"]
                self.assertEqual(sorted(r["name"] for r in runs),
                                 sorted(names))
                for r in runs:
                    self.assertEqual(run_keys(r), EXECUTE_EVENTS
                                     if r["name"] == "Execute"
                                     else DEFAULT_EVENTS)

    def test_a_thread_that_exits_takes_no_probe_away(self):
        """A runtime's worker thread that exits while its main thread runs
        on, before record has heard of the runtime (held here, as on a
        busy machine): the two threads on one CPU, so that the kernel
        swaps their perf contexts at each switch between them and the
        worker exits holding the main thread's inherited events
        (armed_binaries.h). The main thread's runs after it, and its last
        buffer, are recorded all the same: before, 5 recordings in 5 lost
        them (the uprobes left its process)."""
        cpu = min(os.sched_getaffinity(0))
        n, runtimes = 20, 3
        script = "; ".join([f"taskset -c {cpu} {EXAMPLE} -n {n} "
                            "--threads 2 > /dev/null"] * runtimes)
        for extra in ([], ["--precise"]):
            with self.subTest(extra=extra):
                out = self.path(f"t{len(os.listdir(self.tmp))}.etdp")
                status, rec = record_held(self, ["-o", out] + extra,
                                          script)
                self.assertEqual(status, 0, rec.stderr)
                runs = decode(out)["run_data"]
                self.assertEqual(sorted(r["name"] for r in runs),
                                 ["Default"] * runtimes +
                                 ["Execute"] * (2 * n * runtimes),
                                 rec.stderr)
                for r in runs:
                    self.assertEqual(run_keys(r), EXECUTE_EVENTS
                                     if r["name"] == "Execute"
                                     else DEFAULT_EVENTS)

    def record_after_its_shell(self, script):
        """record -- taskset -c C sh -c SCRIPT (SCRIPT's {fifo} filled in):
        its shell starts the runtime and waits on the fifo, on one CPU (the
        recorder on another where there is one), so that the kernel may
        swap the two processes' perf contexts (armed_binaries.h); the shell
        then exits, and the runtime runs. Its runs."""
        cpus = sorted(os.sched_getaffinity(0))
        fifo = self.path(f"go{len(os.listdir(self.tmp))}")
        os.mkfifo(fifo)
        out = fifo + ".etdp"
        rec = Recorder(["-o", out, "--follow-binary", EXAMPLE, "--",
                        "taskset", "-c", str(cpus[0]), "sh", "-c",
                        script.format(fifo=fifo)],
                       wrapper=("taskset", "-c", str(cpus[-1])))
        try:
            pid = int(next_following(self, rec).group(1))
            self.assertTrue(wait_sigusr1_blocked(pid))
            with open(f"/proc/{pid}/status") as f:
                shell = int(re.search(r"^PPid:\s*(\d+)", f.read(),
                                      re.M).group(1))
            with open(fifo, "w") as go:
                go.write("go\n")
            wait_exited(shell)
            os.kill(pid, signal.SIGUSR1)
            status = rec.wait()
        finally:
            kill_if_running(rec.proc)
        self.assertEqual(status, 0, rec.stderr)
        return [r["name"] for r in decode(out)["run_data"]]

    def test_a_runtime_outliving_its_shell_keeps_its_probes(self):
        """The command's own child, and a grandchild (its shell a child of
        the command's): 5 times each, as the contexts are not swapped at
        every switch (7 in 8 on a 2-CPU machine, with the runtimes' own
        events left out)."""
        for script in (
                f"{EXAMPLE} --wait-signal -n 2 > /dev/null & "
                "read x < {fifo}",
                f"sh -c '{EXAMPLE} --wait-signal -n 2 > /dev/null & "
                "read x < {fifo}'; true"):
            for trial in range(5):
                with self.subTest(script=script, trial=trial):
                    self.assertEqual(self.record_after_its_shell(script),
                                     ["Default", "Execute", "Execute"])

    def test_follow_binary_refuses_what_it_cannot_arm(self):
        link = self.path("link")
        os.symlink(EXAMPLE, link)
        data = self.path("data")
        with open(data, "w") as f:
            f.write("text\n")
        for path, why in ((link, "a symbolic link"),
                          (data, "not an ELF file"),
                          (EXAMPLE_NOPROBES, "no 'etdump' USDT probes"),
                          (self.path("missing"), "No such file")):
            with self.subTest(path=path):
                out = self.path("refused.etdp")
                proc = run([CLI, "record", "-o", out, "--follow-binary",
                            path, "--", "sh", "-c", "echo ran"])
                self.assertEqual(proc.returncode, 1, proc.stderr)
                self.assertEqual(proc.stdout, "")
                lines = proc.stderr.splitlines()
                self.assertEqual(len(lines), 1, proc.stderr)
                self.assertIn(f"--follow-binary {path}", lines[0])
                self.assertIn(why, lines[0])
                self.assertFalse(os.path.exists(out))
        proc = run([CLI, "record", "--no-inherit", "--follow-binary",
                    EXAMPLE, "--", "true"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
