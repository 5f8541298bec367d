"""record -- CMD where CMD is a script (#!), a shim (pyenv's python3 is a
bash script that execs the real program through a path it computes) or a
chain of execs (sh -c 'exec ...', env, nice): the program that runs the
model is followed and recorded; a script whose interpreter cannot run is
refused in one line naming both. Each ETDump decoded with flatc, its
events compared.
"""
import os
import signal
import subprocess
import time

from etdump_e2e import CLI, EXAMPLE, TempDirTest, decode, run
from test_containers import RUNS, assert_example_runs

# pyenv's shims are this shape: the program named after the shim, found
# by a path computed at run time (no file the command line names)
SHIM = """#!/usr/bin/env bash
set -e
program="${0##*/}"
exec nice -n 1 env SHIMMED=1 "$REAL_BIN/$program" "$@"
"""


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

    def test_a_shim_through_env_and_nice(self):
        # the runtime waits for SIGUSR1 before its load, so that it is
        # recorded whole although attached only after its exec
        real = self.path("real")
        os.mkdir(real)
        os.symlink(EXAMPLE, os.path.join(real, "runtime"))
        shim = self.script("runtime", SHIM)
        out, log = self.path("out.etdp"), self.path("record.log")
        with open(log, "w") as f:
            rec = subprocess.Popen(
                [CLI, "record", "-o", out, "--", "env", "A=1", shim,
                 "--wait-signal", "-n", str(RUNS)],
                stdout=subprocess.PIPE, stderr=f, text=True,
                env=dict(os.environ, REAL_BIN=real))
        try:
            line = rec.stdout.readline()
            self.assertTrue(line.startswith("ready "), line)
            pid = int(line.split()[1])
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                with open(log) as f:
                    if f"following PID {pid} " in f.read():
                        break
                time.sleep(0.05)
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
        self.assertEqual(status, 0, err)
        self.assertIn(f"following PID {pid} ({EXAMPLE})", err)
        assert_example_runs(self, decode(out))

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
