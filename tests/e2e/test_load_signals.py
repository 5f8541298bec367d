"""A recorder stopped and continued over and over from its start (SIGSTOP
and SIGCONT: Ctrl-Z and fg, a debugger, a job's stop) still records every
run: the verifier gives up on a load when a signal comes to the loader
(-EAGAIN), libbpf tries a program again only a few times at once, and
every load of the recorder is tried anew whole (user/lib/load_retry.h):
the capture programs, symbol mode's, and its copies per site where the
kernel has no BPF cookies.

Symbol mode's loads are aimed at, the way a stop at the wrong moment
meets them: each stop looks where it found the recorder
(/proc/PID/syscall: in bpf(BPF_PROG_LOAD), and which program), and one
that found it verifying one of symbol mode's programs is followed by
another as soon as it runs again, so that each of libbpf's tries of that
program is stopped too. At most HITS stops land in a load in all, fewer
than a load outlasts (LOAD_TRIES whole tries of libbpf's 5 a program):
each recording must survive them. With libbpf's tries alone symbol mode
lost the first recording of both tests in each of 10 runs (the target's
load, or the probe calibration's, whose durations then go uncorrected).
"""
import os
import platform
import random
import signal
import subprocess
import time

from etdump_e2e import (CLI, EXAMPLE, EXAMPLE_NOPROBES, ROOT, TempDirTest,
                        decode, end_stopped, run, run_keys)
from test_symbols import usdt_keys_symbol_mode_can_see

RULES = os.path.join(ROOT, "tests", "example", "example.rules")
EXECUTIONS = 5
# recordings stopped so, each seeded; with copies per site a link per
# probe, each taken out after a grace period of its own, takes seconds
ROUNDS = 3
ROUNDS_WITH_COPIES = 1
# stops that find the recorder loading, a recording: under 16 tries x 5
HITS = 64
# the perturbation only: nothing below is timed
PROBE_GAP_S = 0.002
# long enough to be back in the verifier, short of what a program takes
BURST_GAP_S = 0.0005
BPF_SYSCALL = {"x86_64": 321, "aarch64": 280}
BPF_PROG_LOAD = 5
# union bpf_attr for BPF_PROG_LOAD: prog_name[16] (uapi, fixed)
PROG_NAME_AT = 48
# bpf/symbols.bpf.c's programs that take the verifier longest (the
# kernel keeps 15 characters of a name)
AIMED = ("on_func_entry", "on_func_exit", "on_xnn_call")
# kernel_features.h: BPF cookies (and bpf_loop, which no kernel has
# without them): a copy of the programs per site, each loaded alone
NO_COOKIES = "bpf_cookie,bpf_loop"


def state(pid):
    """The process's state letter (T: stopped), None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def program_loading(pid):
    """The name of the program the stopped process was loading, or None."""
    try:
        with open(f"/proc/{pid}/syscall") as f:
            words = f.read().split()
        if len(words) < 3 or \
                words[0] != str(BPF_SYSCALL[platform.machine()]) or \
                int(words[1], 16) != BPF_PROG_LOAD:
            return None
        with open(f"/proc/{pid}/mem", "rb") as f:
            f.seek(int(words[2], 16) + PROG_NAME_AT)
            return f.read(16).split(b"\0")[0].decode(errors="replace")
    except OSError:
        return None


class LoadSignalsTest(TempDirTest):
    def perturbed(self, seed, env):
        """record of the probe-less example in symbol mode, stopped and
        continued from its launch to its exit: its exit status, stderr,
        ETDump path and the loads the stops found (name: stops)."""
        out = self.path(f"{seed}.etdp")
        # a session of its own, as test_loss_property's: a stopped job
        # in the suite's group could be sent SIGHUP
        rec = subprocess.Popen(
            [CLI, "record", "-o", out, "--rules", RULES, "--",
             EXAMPLE_NOPROBES, "-n", str(EXECUTIONS)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            start_new_session=True, env=env)
        rnd = random.Random(seed)
        found = {}
        try:
            while sum(found.values()) < HITS and rec.poll() is None:
                rec.send_signal(signal.SIGSTOP)
                while state(rec.pid) not in ("T", "Z", None):
                    pass
                name = program_loading(rec.pid)
                rec.send_signal(signal.SIGCONT)
                if name is not None:
                    found[name] = found.get(name, 0) + 1
                if name and name.startswith(AIMED):
                    while state(rec.pid) == "T":
                        pass
                    time.sleep(rnd.uniform(0, BURST_GAP_S))
                else:
                    time.sleep(rnd.uniform(0, PROBE_GAP_S))
            _, stderr = rec.communicate(timeout=120)
        finally:
            end_stopped(rec)
        return rec.returncode, stderr, out, found

    def assert_every_run(self, env, rounds):
        usdt_out = self.path("usdt.etdp")
        proc = run([CLI, "record", "-o", usdt_out, "--", EXAMPLE, "-n",
                    str(EXECUTIONS)])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        target = [usdt_keys_symbol_mode_can_see(r)
                  for r in decode(usdt_out)["run_data"]]
        self.assertEqual(len(target), 1 + EXECUTIONS, proc.stderr)
        for seed in range(rounds):
            status, stderr, out, found = self.perturbed(seed, env)
            what = f"seed {seed}, stops in loads {found}:\n{stderr}"
            self.assertEqual(status, 0, what)
            # a load given up on says "cannot load ...", and one of the
            # probe calibration's "cannot measure ..."
            self.assertNotIn("cannot", stderr, what)
            runs = decode(out)["run_data"]
            self.assertEqual([r["name"] for r in runs],
                             ["Default"] + ["Execute"] * EXECUTIONS, what)
            self.assertEqual([run_keys(r) for r in runs], target, what)

    def test_symbol_mode_survives_stops_in_its_loads(self):
        self.assert_every_run(dict(os.environ), ROUNDS)

    def test_copies_per_site_survive_stops_in_their_loads(self):
        self.assert_every_run(dict(os.environ,
                                   ETDUMP_KERNEL_LACKS=NO_COOKIES),
                              ROUNDS_WITH_COPIES)
