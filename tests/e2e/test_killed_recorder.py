"""A recorder killed with SIGKILL at any moment: at its target's gate,
while attaching, mid-recording, while following children, while writing
the ETDump. Each time the target finishes as it does untraced (exit status,
standard output), the output is absent or a whole ETDump (only whole runs),
a raw capture converts up to its last complete record, and the next record
works at once and removes the tracefs uprobe group the dead recorder left
(never a live recorder's); doctor lists such a group until then.

The moments come from a seeded RNG (ETDUMP_KILL_SEED replays one, printed
at the start): sleeps only choose when to kill, nothing asserts a time.
"""
import ctypes
import os
import random
import signal
import subprocess
import sys
import threading
import time

import executorch_env as et
from etdump_e2e import CLI, EXAMPLE, TempDirTest, decode, run, run_keys, \
    EXECUTE_EVENTS, DEFAULT_EVENTS

KILLS = 30
PR_SET_CHILD_SUBREAPER = 36
RUNNER_ARGS = ["--model_path", et.model("cnn"), "--num_executions", "200",
               "--print_output", "none"]
GROUP_PREFIX = "etdump_bpf_"


def targets():
    """name: command. The children one makes the tracefs uprobe group."""
    example = f"{EXAMPLE} -n 12 --sleep-ms 4"
    t = {
        "example": [EXAMPLE, "-n", "40", "--sleep-ms", "2"],
        "children": ["sh", "-c", f"{example}; {example}"],
    }
    if et.available()[0]:
        t["runner"] = [et.STOCK_RUNNER] + RUNNER_ARGS
    elif os.environ.get("ETDUMP_REQUIRE_EXECUTORCH") == "1":
        raise AssertionError("ExecuTorch: " + et.available()[1])
    else:
        print("test_killed_recorder: the stock runner's trials did not run: "
              + et.available()[1], file=sys.stderr)
    return t


def uprobe_groups():
    """{group: events} of ours in tracefs, read from a private mount."""
    proc = run(["unshare", "-m", "sh", "-c",
                'd=$(mktemp -d) && mount -t tracefs nodev "$d" && '
                'cat "$d/uprobe_events"; umount "$d"; rmdir "$d"'])
    assert proc.returncode == 0, proc.stderr
    groups = {}
    for line in proc.stdout.splitlines():
        name = line.split(None, 1)[0].split(":", 1)[1]
        if name.startswith(GROUP_PREFIX):
            group = name.split("/")[0]
            groups[group] = groups.get(group, 0) + 1
    return groups


def group_pid(group):
    return int(group[len(GROUP_PREFIX):].split("_")[0])


def child_of(ppid):
    """A process whose parent is ppid, or None."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == ppid:
            return int(name)
    return None


def exited(pid):
    """A zombie (its parent has not reaped it yet), or gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


class Trial:
    """One record with its stderr lines gathered as they come."""

    def __init__(self, args):
        self.proc = subprocess.Popen([CLI, "record"] + args,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.stdout = None
        self.err_thread = threading.Thread(target=self._stderr)
        self.out_thread = threading.Thread(target=self._stdout)
        self.err_thread.start()
        self.out_thread.start()

    def _stderr(self):
        for line in self.proc.stderr:
            self.lines.append(line)

    def _stdout(self):
        self.stdout = self.proc.stdout.read()

    def wait_line(self, words, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            if any(w in ln for ln in list(self.lines) for w in words):
                return True
            time.sleep(0.002)
        return False

    def wait_target(self, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            pid = child_of(self.proc.pid)
            if pid:
                return pid
            time.sleep(0.001)
        return None

    def finish(self):
        self.proc.wait(timeout=60)
        self.out_thread.join(timeout=60)
        self.err_thread.join(timeout=60)
        return "".join(self.lines)


class KilledRecorderTest(TempDirTest):
    @classmethod
    def setUpClass(cls):
        # the dead recorder's target is ours to reap: its exit status
        libc = ctypes.CDLL(None, use_errno=True)
        assert libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        cls.libc = libc

    @classmethod
    def tearDownClass(cls):
        cls.libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
        reap_orphans()

    def untraced(self, cmd):
        proc = run(cmd)
        return proc.returncode, proc.stdout

    def whole_runs(self, path, expected, what):
        """path holds only runs equal to one recorded whole."""
        dump = decode(path)
        for r in dump["run_data"]:
            self.assertIn(run_keys(r), expected, f"{what}: a partial run")
        return len(dump["run_data"])

    def reference_runs(self, cmd):
        out = self.path("reference.etdp")
        proc = run([CLI, "record", "-o", out, "--"] + cmd, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        runs = [run_keys(r) for r in decode(out)["run_data"]]
        os.unlink(out)
        return runs

    def test_killed_at_random_moments(self):
        seed = int(os.environ.get("ETDUMP_KILL_SEED",
                                  random.randrange(1 << 32)))
        print(f"test_killed_recorder: seed {seed} "
              f"(ETDUMP_KILL_SEED={seed} replays it)", file=sys.stderr)
        rng = random.Random(seed)
        cmds = targets()
        base = {name: self.untraced(cmd) for name, cmd in cmds.items()}
        example_runs = [list(EXECUTE_EVENTS), DEFAULT_EVENTS]
        whole = {"example": example_runs, "children": example_runs}
        if "runner" in cmds:
            whole["runner"] = self.reference_runs(cmds["runner"])
        self.seen = {}
        phases = ["gate", "attach", "recording", "writing"]
        names = sorted(cmds)
        for i in range(KILLS):
            name = names[i % len(names)]
            phase = phases[(i // len(names)) % len(phases)]
            if name == "children" and phase == "recording":
                phase = "children"
            what = f"kill {i} ({name}, {phase}, seed {seed})"
            self.one_kill(rng, cmds[name], base[name], whole[name], phase,
                          raw=i % 2 == 1 and name != "runner", what=what)
        print("test_killed_recorder: " + ", ".join(
            f"{k} {v}" for k, v in sorted(self.seen.items())),
            file=sys.stderr)

    def count(self, what):
        self.seen[what] = self.seen.get(what, 0) + 1

    def one_kill(self, rng, cmd, base, whole, phase, raw, what):
        out, rawf = self.path("k.etdp"), self.path("k.raw")
        args = ["-o", out] + (["--raw", rawf] if raw else [])
        t = Trial(args + ["--"] + cmd)
        target = t.wait_target()
        if target is None:
            self.fail(f"{what}: no target started\n" + t.finish())
        if phase == "attach":
            time.sleep(rng.uniform(0, 0.4))
        elif phase in ("recording", "children"):
            t.wait_line(["following PID"] if phase == "children"
                        else ["attached", "following PID"])
            time.sleep(rng.uniform(0, 0.1))
        elif phase == "writing":
            while not exited(target) and t.proc.poll() is None:
                time.sleep(0.001)
            time.sleep(rng.uniform(0, 0.01))
        if t.proc.poll() is None:
            os.kill(t.proc.pid, signal.SIGKILL)
        stderr = t.finish()
        killed = t.proc.returncode == -signal.SIGKILL
        self.count(f"{phase}: {'killed' if killed else 'finished first'}")
        if killed:
            try:
                _, status = os.waitpid(target, 0)
                code = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                code = base[0]  # reaped by the recorder before it died
        else:
            self.assertEqual(t.proc.returncode, 0, f"{what}: {stderr}")
            code = base[0]
        self.assertEqual(code, base[0], f"{what}: target exit\n{stderr}")
        self.assertEqual(t.stdout, base[1], f"{what}: target output")

        if os.path.exists(out):
            self.count("whole ETDump" + ("" if killed else " (finished)"))
            self.whole_runs(out, whole, what)
        leftovers = [f for f in os.listdir(self.tmp)
                     if f not in ("k.etdp", "k.raw")]
        self.assertEqual(leftovers, [], f"{what}: files left")
        if raw and os.path.exists(rawf):
            self.count("raw captures")
            self.check_raw(rawf, whole, what)

        # its helpers (a background closer) gone too: what stays is left
        wait_orphans()
        groups = uprobe_groups()
        dead = [g for g in groups if group_pid(g) == t.proc.pid]
        if dead:
            self.count("groups left")
            doctor = run([CLI, "doctor"])
            # any recorder's start on this machine may have removed it since
            still = uprobe_groups()
            for g in dead:
                if g in still:
                    self.assertIn(f"tracefs group {g}:", doctor.stdout,
                                  what)
        self.next_record_works(dead, what)
        for f in (out, rawf):
            if os.path.exists(f):
                os.unlink(f)
        reap_orphans()

    def check_raw(self, rawf, whole, what):
        conv = self.path("c.etdp")
        proc = run([CLI, "convert", rawf, "-o", conv])
        if proc.returncode != 0:
            # killed before its header was whole: nothing to convert; a
            # kill between its creation and its first write leaves it
            # empty, which convert calls no capture (tests/unit/test_raw.c)
            empty = os.path.getsize(rawf) == 0
            self.assertIn("not a raw capture" if empty else
                          "inside its header", proc.stderr, what)
            self.assertFalse(os.path.exists(conv), what)
            return
        if os.path.exists(conv):
            self.whole_runs(conv, whole, what + " (raw)")
            os.unlink(conv)

    def next_record_works(self, dead, what):
        nxt = self.path("next.etdp")
        before = uprobe_groups() if dead else {}
        # -v: what it removed is said at debug level, not to every user
        proc = run([CLI, "record", "-v", "-o", nxt, "--", EXAMPLE, "-n",
                    "2"])
        self.assertEqual(proc.returncode, 0, f"{what}: next record\n"
                         + proc.stderr)
        self.assertEqual(len(decode(nxt)["run_data"]), 3, what)
        os.unlink(nxt)
        # its background closer removes what the kernel still held at start
        groups = groups_gone(dead) if dead else {}
        for g in dead:
            self.assertNotIn(g, groups, f"{what}: left in the kernel\n"
                             + proc.stderr)
            if g in before:
                self.assertIn(f"uprobe event(s) of a killed recorder "
                              f"(PID {group_pid(g)}", proc.stderr, what)

    def test_live_recorders_group_is_kept(self):
        example = f"{EXAMPLE} -n 30 --sleep-ms 10"
        live = Trial(["-o", self.path("live.etdp"), "--", "sh", "-c",
                      f"{example}; {example}"])
        self.assertTrue(live.wait_line(["following PID"]),
                        "".join(live.lines))
        mine = [g for g in uprobe_groups() if group_pid(g) == live.proc.pid]
        self.assertTrue(mine, "the live recorder made no tracefs group")
        proc = run([CLI, "record", "-o", self.path("other.etdp"), "--",
                    EXAMPLE, "-n", "2"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        # others' dead groups on this machine may be named: never this one
        for g in mine:
            self.assertNotIn(f"group {g})", proc.stderr)
        groups = uprobe_groups()
        for g in mine:
            self.assertIn(g, groups)
        stderr = live.finish()
        self.assertEqual(live.proc.returncode, 0, stderr)
        self.assertEqual(len(decode(self.path("live.etdp"))["run_data"]),
                         62)
        # removed by its background closer, once its uprobes are let go
        self.assertFalse(set(mine) & set(groups_gone(mine)))


def groups_gone(groups, timeout=30):
    """The groups in tracefs once those given are gone, or at the timeout:
    the kernel lets a dead process's uprobes go one by one, in seconds on a
    loaded machine, and only then can they be removed."""
    deadline = time.monotonic() + timeout
    while True:
        now = uprobe_groups()
        if not set(groups) & set(now) or time.monotonic() > deadline:
            return now
        time.sleep(0.05)


def wait_orphans(timeout=60):
    """Every process handed to us as subreaper, waited for."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.01)
    raise AssertionError("a recorder's helper did not exit")


def reap_orphans():
    """Zombies handed to us as subreaper (a dead recorder's helpers)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
