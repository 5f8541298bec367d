"""A runtime loaded after the attach: a host with no probes of its own
(example-dlopen-host, as a Python service loading ExecuTorch through
ctypes) dlopen()s the runtime (libexample-main.so, installed 0644 as
libraries are, so that no command line arms it) when the test says so. The
recorder finds it in the maps and attaches it, with -- CMD and with -p;
unloaded and loaded again it keeps its probes (they belong to its inode);
two copies of it (two files) are each recorded, with per-scope probes and
batched, also taking turns on one thread (--alternate: each copy's buffer
there holds its runs while the other's run and flush), with -- CMD and -p,
the second loaded before the attach or after, the host stopped or killed; -p --wait-for-runtime waits
for a host that has not loaded it yet (--duration gives up); a host that is
a child of its script's shell (not its last command) is watched as the
command is, 32 live children at once (one beyond said once). Each ETDump decoded with
flatc, its events compared.
"""
import os
import shutil
import signal
import subprocess

from etdump_e2e import (BUILD, CLI, DEFAULT_EVENTS, EXECUTE_EVENTS,
                        TempDirTest, decode, run_keys)
from test_replaced_files import wait_for_line

HOST = os.path.join(BUILD, "example-dlopen-host")
MAIN_LIB = os.path.join(BUILD, "libexample-main.so")
RUNS = 3
# executions of each copy taking turns: the last are still in the copies'
# buffers when the host is done (a run is handed over 20 ms after the
# buffer's last flush), the first flushed while the other copy runs
TURNS = 10
LOADED = "after the attach: attached"


class Host:
    """The host, started by record (record_args: then -- and the host) or
    alone; its runtime's stdout read, its loads made one at a time;
    runtime_args: the runtime's (the example's, RUNS runs, by default);
    env: the environment of what it starts; parent: what starts the host
    (a script whose child it is), the host's words its arguments."""

    def __init__(self, log, libs, record_args=None, runtime_args=None,
                 env=None, parent=()):
        if runtime_args is None:
            runtime_args = ["--wait-signal", "-n", str(RUNS)]
        cmd = list(parent) + [HOST] + libs + ["--"] + runtime_args
        if record_args is not None:
            cmd = [CLI, "record"] + record_args + ["--"] + cmd
        self.log = log
        with open(log, "w") as f:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=f,
                                         text=True, env=env)

    def line(self, prefix):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"no {prefix!r} line: {self.said()}")
            if line.startswith(prefix):
                return line.split()

    def let_load(self):
        """The next library loaded (--alternate: its runtime starts when
        every library is)."""
        self.line("loading")
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()

    def load(self):
        """The next library: loaded, its runtime waiting; its PID."""
        self.let_load()
        return int(self.line("ready")[1])

    def start_turns(self, copies):
        """--alternate: each copy's runtime, waiting in turn, started."""
        for _ in range(copies):
            os.kill(int(self.line("ready")[1]), signal.SIGUSR1)

    def said(self):
        with open(self.log) as f:
            return f.read()

    def wait_said(self, text, count=1):
        wait_for_line(self.log, text, self.proc, count=count)

    def finish(self):
        self.proc.stdin.close()
        self.proc.stdout.read()
        status = self.proc.wait(timeout=60)
        self.proc.stdout.close()
        return status

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# a script whose host is a child of its shell, not its last command (sh
# forks for it, and the host execs): test_late_libraries.py's and
# test_executorch_late_symbols.py's
SCRIPT_PARENT = ("sh", "-c", '"$@"; echo done', "sh")


def a_child_loads_once(test, host, lib):
    """host, started by SCRIPT_PARENT under record, loads lib once: the
    recorder attaches it, its runtime runs, the script ends; the host's
    PID."""
    pid = host.load()
    test.assertNotEqual(pid, host.proc.pid)
    host.wait_said(f"PID {pid} loaded {lib} {LOADED}")
    os.kill(pid, signal.SIGUSR1)
    test.assertEqual(host.finish(), 0, host.said())
    return pid


def load_once_waited_for(host, lib, rec, log):
    """The recorder rec (its stderr in log) says it waits for host's
    runtime; then host loads lib, the recorder attaches it, and the
    runtime runs."""
    wait_for_line(log, f"PID {host.proc.pid} ({HOST}) carries no runtime "
                  "yet: waiting for one it loads", rec)
    host.proc.stdin.write("\n")
    host.proc.stdin.flush()
    pid = int(host.line("ready")[1])
    wait_for_line(log, f"PID {pid} loaded {lib} {LOADED}", rec)
    os.kill(pid, signal.SIGUSR1)


def installed_copy(test, source, name):
    """A copy of the library source in test's folder, 0644 as libraries
    are installed (so that no command line arms it)."""
    path = test.path(name)
    shutil.copy(source, path)
    os.chmod(path, 0o644)
    return path


class LateLibraryTest(TempDirTest):
    def lib(self, name):
        return installed_copy(self, MAIN_LIB, name)

    def assert_runs(self, out, copies):
        runs = decode(out)["run_data"]
        self.assertEqual([r["name"] for r in runs],
                         (["Default"] + ["Execute"] * RUNS) * copies)
        for i, r in enumerate(runs):
            self.assertEqual(run_keys(r), DEFAULT_EVENTS if i % (RUNS + 1) == 0
                             else EXECUTE_EVENTS, f"run {i}")

    def assert_turns(self, out, copies, threads=1):
        """Each copy's runs written whole, copies taking turns (--alternate,
        TURNS executions a thread): on one thread, in the order they ran."""
        runs = decode(out)["run_data"]
        names = [r["name"] for r in runs]
        if threads == 1:
            self.assertEqual(names, ["Default", "Execute"] * copies +
                             ["Execute"] * (copies * (TURNS - 1)))
        else:
            self.assertEqual(sorted(names), sorted(
                (["Default"] + ["Execute"] * TURNS * threads) * copies))
        for i, r in enumerate(runs):
            self.assertEqual(run_keys(r), DEFAULT_EVENTS
                             if r["name"] == "Default" else EXECUTE_EVENTS,
                             f"run {i}")

    def turns_host(self, log, libs, threads=1, record_args=None):
        host = Host(log, ["--alternate"] + libs, record_args,
                    ["--wait-signal", "-n", str(TURNS), "--threads",
                     str(threads)])
        self.addCleanup(host.kill)
        return host

    def record(self, libs, flags=(), loaded_each=()):
        """record -- the host loading libs in turn; loaded_each[i]: the
        i-th load is a library the recorder attaches then."""
        out = self.path(f"out{len(os.listdir(self.tmp))}.etdp")
        host = Host(self.path("record.log"), libs,
                    ["-o", out] + list(flags))
        self.addCleanup(host.kill)
        loaded = 0
        for i in range(len([lib for lib in libs if lib != "--keep"])):
            pid = host.load()
            if loaded_each[i]:
                loaded += 1
                host.wait_said(LOADED, loaded)
            os.kill(pid, signal.SIGUSR1)
        self.assertEqual(host.finish(), 0, host.said())
        return out, host.said()

    def record_p(self, pid, *flags):
        """record -p pid in the background: it and its stderr's file."""
        log = self.path("record.log")
        with open(log, "w") as f:
            rec = subprocess.Popen([CLI, "record", "-o", self.path("p.etdp")]
                                   + list(flags) + ["-p", str(pid)], stderr=f)
        self.addCleanup(lambda: rec.poll() is None and rec.kill())
        return rec, log

    def finish_p(self, host, rec, log, copies):
        """The host done, then the recorder: each copy's runs written."""
        self.assertEqual(host.finish(), 0, host.said())
        status = rec.wait(timeout=60)
        with open(log) as f:
            self.assertEqual(status, 0, f.read())
        self.assert_runs(self.path("p.etdp"), copies)

    def test_loaded_after_the_attach_and_again_after_dlclose(self):
        lib = self.lib("libruntime.so")
        for flags in ([], ["--precise"]):
            with self.subTest(flags=flags):
                out, err = self.record([lib, lib], flags, (True, False))
                # once: the same inode loaded again keeps its probes
                self.assertEqual(err.count(LOADED), 1, err)
                self.assertIn(f"loaded {lib} {LOADED}", err)
                self.assert_runs(out, 2)

    def test_two_copies_each_recorded(self):
        one, two = self.lib("libone.so"), self.lib("libtwo.so")
        out, err = self.record(["--keep", one, two], ["--precise"],
                               (True, True))
        self.assertIn(f"loaded {one} {LOADED}", err)
        self.assertIn(f"loaded {two} {LOADED}", err)
        self.assert_runs(out, 2)

    def test_batched_two_copies_each_recorded(self):
        one, two = self.lib("libone.so"), self.lib("libtwo.so")
        out, err = self.record(["--keep", one, two], [], (True, True))
        self.assertIn(f"loaded {two} {LOADED}", err)
        self.assert_runs(out, 2)

    def test_batched_two_copies_taking_turns(self):
        """-- CMD, both loaded after the attach; on the main thread alone,
        and with a thread more in each copy (each its own)."""
        one, two = self.lib("libone.so"), self.lib("libtwo.so")
        for threads in (1, 2):
            with self.subTest(threads=threads):
                out = self.path(f"turns{threads}.etdp")
                host = self.turns_host(self.path("record.log"), [one, two],
                                       threads, ["-o", out])
                for lib in (one, two):
                    host.let_load()
                    host.wait_said(f"loaded {lib} {LOADED}")
                host.start_turns(2)
                host.line("done")
                self.assertEqual(host.finish(), 0, host.said())
                self.assert_turns(out, 2, threads)

    def turns_p(self, before_attach):
        """record -p on a host of two copies taking turns, the first
        `before_attach` loaded before the attach, the other after; the
        copies done, the host and the recorder still running."""
        libs = [self.lib("libone.so"), self.lib("libtwo.so")]
        host = self.turns_host(self.path("host.log"), libs)
        for _ in libs[:before_attach]:
            host.let_load()
        rec, log = self.record_p(host.proc.pid)
        wait_for_line(log, "attached", rec)
        for lib in libs[before_attach:]:
            host.let_load()
            wait_for_line(log, f"PID {host.proc.pid} loaded {lib} {LOADED}",
                          rec)
        host.start_turns(2)
        host.line("done")
        return host, rec, log

    def assert_turns_p(self, rec, log):
        """The recorder done: each copy's runs written."""
        status = rec.wait(timeout=60)
        with open(log) as f:
            self.assertEqual(status, 0, f.read())
        self.assert_turns(self.path("p.etdp"), 2)

    def test_p_batched_two_copies_mapped_at_the_attach(self):
        """Stopped while the host lives on: each copy's last runs, still
        in its buffer on the main thread, are read from the process."""
        host, rec, log = self.turns_p(2)
        rec.send_signal(signal.SIGINT)
        self.assert_turns_p(rec, log)
        self.assertEqual(host.finish(), 0, host.said())

    def test_p_batched_two_copies_killed(self):
        """The host killed once done: each copy's last runs, still in its
        buffer on the main thread, are read as the thread exits."""
        host, rec, log = self.turns_p(2)
        host.kill()
        self.assert_turns_p(rec, log)

    def test_p_batched_second_copy_loaded_after_the_attach(self):
        host, rec, log = self.turns_p(1)
        self.assertEqual(host.finish(), 0, host.said())
        self.assert_turns_p(rec, log)

    def test_a_child_of_a_script_loads_it(self):
        # record -- sh -c 'host ...; echo done': the host, a child the
        # recorder follows, loads the runtime later; batched and per-scope
        lib = self.lib("libruntime.so")
        for flags in ([], ["--precise"]):
            with self.subTest(flags=flags):
                out = self.path(f"child{len(flags)}.etdp")
                host = Host(self.path(f"child{len(flags)}.log"), [lib],
                            ["-o", out] + flags, parent=SCRIPT_PARENT)
                self.addCleanup(host.kill)
                pid = a_child_loads_once(self, host, lib)
                self.assertIn(f"followed 1 process(es), each in its own "
                              f"runs: PID {pid} ({HOST})", host.said())
                self.assert_runs(out, 1)

    def test_children_watched_at_once_are_bounded(self):
        # 33 children alive (sleeps the script ends) when the host execs:
        # 32 are watched, the next is said once, the host is not watched,
        # so the runtime it loads is not recorded. The script runs the
        # host once each sleep has exec'd (its comm says so), with
        # builtins only: no other exec comes between
        lib = self.lib("libruntime.so")
        script = ('i=0; while [ $i -lt 33 ]; do i=$((i + 1)); '
                  'sleep 1000 </dev/null >/dev/null & pids="$pids $!"; '
                  'done; for p in $pids; do c=; while [ "$c" != sleep ]; '
                  'do read c </proc/$p/comm; done; done; "$@"; kill $pids')
        host = Host(self.path("bounded.log"), [lib],
                    ["-o", self.path("bounded.etdp")],
                    parent=("sh", "-c", script, "sh"))
        self.addCleanup(host.kill)
        full = ("the libraries it loads later are not looked for (32 "
                "followed processes are watched at once)")
        pid = host.load()
        # the sleeps live until the host is done: each exec is looked at
        host.wait_said(full)
        os.kill(pid, signal.SIGUSR1)
        self.assertEqual(host.finish(), 1, host.said())
        said = host.said()
        self.assertEqual(said.count(full), 1, said)
        self.assertNotIn(LOADED, said)

    def test_p_records_a_runtime_loaded_after_the_attach(self):
        one, two = self.lib("libone.so"), self.lib("libtwo.so")
        host = Host(self.path("host.log"), [one, two])
        self.addCleanup(host.kill)
        pid = host.load()
        rec, log = self.record_p(pid)
        wait_for_line(log, "attached", rec)
        os.kill(pid, signal.SIGUSR1)
        pid = host.load()
        wait_for_line(log, f"PID {pid} loaded {two} {LOADED}", rec)
        os.kill(pid, signal.SIGUSR1)
        self.finish_p(host, rec, log, 2)

    def test_p_waits_for_a_runtime_not_loaded_yet(self):
        lib = self.lib("libruntime.so")
        host = Host(self.path("host.log"), [lib])
        self.addCleanup(host.kill)
        host.line("loading")
        rec, log = self.record_p(host.proc.pid, "--wait-for-runtime")
        load_once_waited_for(host, lib, rec, log)
        self.finish_p(host, rec, log, 1)

    def test_p_gives_up_waiting_after_its_duration(self):
        host = Host(self.path("host.log"), [self.lib("libruntime.so")])
        self.addCleanup(host.kill)
        host.line("loading")
        out = self.path("none.etdp")
        proc = subprocess.run([CLI, "record", "-o", out, "--wait-for-runtime",
                               "--duration", "0.5", "-p", str(host.proc.pid)],
                              stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(f"PID {host.proc.pid} ({HOST}): no runtime with etdump "
                      "probes, nor a library whose functions symbol mode's "
                      "rules name, was loaded within --duration", proc.stderr)
        self.assertFalse(os.path.exists(out))

    def test_p_without_a_runtime_is_refused_unless_asked_to_wait(self):
        host = Host(self.path("host.log"), [self.lib("libruntime.so")])
        self.addCleanup(host.kill)
        host.line("loading")
        proc = subprocess.run([CLI, "record", "-o", self.path("no.etdp"),
                               "-p", str(host.proc.pid)],
                              stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("no 'etdump' USDT probes", proc.stderr)


if __name__ == "__main__":
    import unittest
    unittest.main()
