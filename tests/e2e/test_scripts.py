"""record -- CMD where CMD is a script (#!), a shim (pyenv's python3 is a
bash script that execs the real program through a path it computes) or a
chain of execs (sh -c 'exec ...', env, nice): the program that runs the
model is followed and recorded; a script whose interpreter cannot run is
refused in one line naming both. Each ETDump decoded with flatc, its
events compared.
"""
import os
import shutil
import signal
import subprocess
import sys

from etdump_e2e import BUILD, CLI, EXAMPLE, TempDirTest, decode, run
from test_containers import RUNS, assert_example_runs
from test_replaced_files import wait_for_line

# the example runtime's main() in a library (tests/example/dlopen_host.c)
MAIN_LIB = os.path.join(BUILD, "libexample-main.so")
# a Python service that loads the runtime when it runs, through ctypes
PYTHON_HOST = """import ctypes, sys
runtime = ctypes.CDLL(sys.argv[1])
args = [b"example-runtime"] + [a.encode() for a in sys.argv[2:]]
argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)
sys.exit(runtime.example_main(len(args), argv))
"""

# pyenv's shims are this shape: the program named after the shim, found
# by a path computed at run time (no file the command line names)
SHIM = """#!/usr/bin/env bash
set -e
program="${0##*/}"
exec nice -n 1 env SHIMMED=1 "$REAL_BIN/$program" "$@"
"""


def record_released(test, command, env, said, flags=()):
    """record flags -- command, whose runtime prints "ready PID" and waits
    for SIGUSR1 until the recorder has said said(pid): its ETDump's path
    and its stderr, once it exited 0."""
    out, log = test.path("held.etdp"), test.path("held.log")
    with open(log, "w") as f:
        rec = subprocess.Popen([CLI, "record", "-o", out] + list(flags)
                               + ["--"] + command,
                               stdout=subprocess.PIPE, stderr=f,
                               text=True, env=dict(os.environ, **env))
    try:
        line = rec.stdout.readline()
        test.assertTrue(line.startswith("ready "), line)
        pid = int(line.split()[1])
        wait_for_line(log, said(pid), rec)
        os.kill(pid, signal.SIGUSR1)
        rec.stdout.read()
        status = rec.wait(timeout=60)
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()
        rec.stdout.close()
    with open(log) as f:
        err = f.read()
    test.assertEqual(status, 0, err)
    return out, err


def python_host_through_a_shim(test, lib):
    """record's command for a Python host (PYTHON_HOST) loading lib through
    ctypes, run as `python3 host.py lib` where python3 is a pyenv-style
    shim (SHIM), and the environment it needs: (command, env, shim)."""
    shims, real = test.path("shims"), test.path("real")
    os.mkdir(shims)
    os.mkdir(real)
    os.symlink(os.path.realpath(sys.executable),
               os.path.join(real, "python3"))
    shim = os.path.join(shims, "python3")
    with open(shim, "w") as f:
        f.write(SHIM)
    os.chmod(shim, 0o755)
    host = test.path("host.py")
    with open(host, "w") as f:
        f.write(PYTHON_HOST)
    env = {"REAL_BIN": real, "PATH": shims + ":" + os.environ["PATH"]}
    return ["python3", host, lib], env, shim


class ScriptTest(TempDirTest):
    def script(self, name, text):
        path = self.path(name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
        return path

    def record(self, command):
        out = self.path(f"out{len(os.listdir(self.tmp))}.etdp")
        proc = run([CLI, "record", "-o", out, "--"] + command, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        assert_example_runs(self, decode(out))
        return proc.stderr

    def test_a_script_that_execs_the_runtime(self):
        script = self.script("serve", f"#!/bin/sh\nexec {EXAMPLE} -n {RUNS}\n")
        err = self.record([script])
        self.assertIn(f"{script} is a script: PID ", err)
        self.assertIn(f"runs its interpreter {os.path.realpath('/bin/sh')}",
                      err)
        # named in the script: armed, recorded from its first instruction
        self.assertIn(f"({EXAMPLE}): attached 1 probe(s) before its exec",
                      err)

    def test_exec_chains(self):
        for command in (["sh", "-c", f"exec {EXAMPLE} -n {RUNS}"],
                        ["env", "A=1", "nice", "-n", "1", EXAMPLE, "-n",
                         str(RUNS)]):
            with self.subTest(command=command):
                self.record(command)

    def record_released(self, command, env, said):
        """record -- command, whose runtime waits (--wait-signal) until
        the recorder has said said(pid): the runs it writes, whole, and
        its stderr."""
        out, err = record_released(self, command + ["--wait-signal", "-n",
                                                    str(RUNS)], env, said)
        assert_example_runs(self, decode(out))
        return err

    def test_a_shim_through_env_and_nice(self):
        # the runtime waits for SIGUSR1 before its load, so that it is
        # recorded whole although attached only after its exec
        real = self.path("real")
        os.mkdir(real)
        os.symlink(EXAMPLE, os.path.join(real, "runtime"))
        shim = self.script("runtime", SHIM)
        self.record_released(["env", "A=1", shim], {"REAL_BIN": real},
                             lambda pid: f"following PID {pid} ({EXAMPLE})")

    def test_a_python_host_through_a_shim_loads_the_runtime(self):
        # record -- python3 host.py, python3 a pyenv-style shim: the host
        # loads the runtime through ctypes once running, and the recorder
        # attaches it then (tests/e2e/test_late_libraries.py)
        lib = self.path("libexecutorch.so")
        shutil.copy(MAIN_LIB, lib)
        os.chmod(lib, 0o644)
        command, env, shim = python_host_through_a_shim(self, lib)
        err = self.record_released(
            command, env,
            lambda pid: f"PID {pid} loaded {lib} after the attach")
        self.assertIn(f"{shim} is a script: PID ", err)

    def test_a_script_whose_interpreter_cannot_run(self):
        script = self.script("broken", "#!/nonexistent/interpreter -x\n")
        proc = run([CLI, "record", "-o", self.path("no.etdp"), "--", script])
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertEqual(
            proc.stderr.strip(),
            f"etdump-bpf: {script}: a script whose interpreter "
            "/nonexistent/interpreter cannot be run: No such file or "
            "directory")


if __name__ == "__main__":
    import unittest
    unittest.main()
