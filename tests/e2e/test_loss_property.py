"""Never an event in the wrong run, as a property: threads (1 to 16) each
executing runs of their own (tests/loss/own_runs.c: every event carries
its thread as chain and its run as instruction id, and the program logs
when each run began and ended by its own clock), recorded batched and
per scope through rings from 4 KiB up, the recorder stopped and continued
at random (SIGSTOP/SIGCONT) while the target runs. Whatever the ring
loses, every run written is one run of one thread, whole, in order,
inside the program's own window for it, and written once.

The short form runs the fixed seeds below and SHORT_SEEDS seeds drawn
from 1000 on, TOGETHER recordings at a time (each a busy CPU for the
others: one more way the recorder is slowed); ETDUMP_LOSS_SEEDS=N draws N
instead (the long form: thousands).
"""
import os
import random
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from etdump_e2e import BUILD, CLI, TempDirTest, decode, end_stopped
from test_record import counter_stamp_slack_ns

OWN_RUNS = os.path.join(BUILD, "loss-own-runs")
NAMES = ["op_a", "op_b", "op_c", "op_d", "Method::execute"]
# Batched stamps are turned into CLOCK_MONOTONIC on the kernel's own line
# of the counter, to the ns as a per-scope stamp, the kernel's own; where
# the recorder cannot read it, between two anchors (test_record.py)
RINGS = ["4K", "8K", "16K", "64K"]

# (seed, threads, runs a thread, ring, mode, side by side, slowed[, idle
# ms after every other run]): the case first (8 threads, 300 runs,
# --precise --ring-size 4K)
FIXED = [
    (1, 8, 300, "4K", "--precise", False, False),
    (2, 8, 300, "4K", "--precise", True, False),
    (3, 16, 200, "4K", "batched", False, True),
    (4, 16, 200, "4K", "batched", True, True),
    (5, 1, 300, "4K", "--precise", True, True),
    (6, 12, 100, "8K", "--precise", False, True),
    # long enough that flushes at a run's end (20 ms after the last) come
    # between full ones: a buffer lost that began mid-run and ended there
    (13, 16, 3000, "4K", "batched", True, True),
    (14, 8, 5000, "4K", "batched", True, True),
    # threads idle with runs in their buffers: read from the process, then
    # flushed (or lost) later
    (15, 4, 16, "4K", "batched", True, True, 70),
]
DRAWN_FIXED = [7, 8, 9, 10, 11, 12]
SHORT_SEEDS = 300
TOGETHER = 3


def drawn(seed):
    rnd = random.Random(seed)
    return (seed, rnd.randint(1, 16), rnd.choice([20, 100, 300]),
            rnd.choice(RINGS), rnd.choice(["batched", "--precise"]),
            rnd.random() < 0.5, rnd.random() < 0.7)


def read_log(path):
    runs = {}
    with open(path) as f:
        for line in f:
            thread, run, _, begin, end = map(int, line.split())
            runs[(thread, run)] = (begin, end)
    return runs


class LossPropertyTest(TempDirTest):
    def record(self, seed, threads, runs, ring, mode, flat, slowed, idle=0):
        out, log = self.path(f"{seed}.etdp"), self.path(f"{seed}.log")
        args = [CLI, "record", "-o", out, "--ring-size", ring]
        if mode != "batched":
            args.append(mode)
        args += ["--", OWN_RUNS, "-t", str(threads), "-n", str(runs),
                 "-o", log] + (["-f"] if flat else []) + \
            (["-s", str(idle)] if idle else [])
        # a session of its own: stopped while the suite's process group
        # lost its parent (a run in the background), a recorder in that
        # group would be sent SIGHUP by the kernel, as a stopped job is
        rec = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
        rnd = random.Random(seed)
        try:
            # the perturbation only: nothing below is timed
            while slowed and rec.poll() is None:
                time.sleep(rnd.uniform(0, 0.02))
                rec.send_signal(signal.SIGSTOP)
                time.sleep(rnd.uniform(0, 0.03))
                rec.send_signal(signal.SIGCONT)
            _, stderr = rec.communicate(timeout=120)
        finally:
            end_stopped(rec)
        return rec.returncode, stderr, out, log

    def assert_own_runs(self, case, recorded=None):
        """recorded: what self.record(*case) returned, if it ran already."""
        threads, runs, mode = case[1], case[2], case[4]
        status, stderr, out, log = recorded or self.record(*case)
        what = f"case {case}\n{stderr}"
        self.assertTrue(os.path.exists(log), f"the program wrote no log "
                        f"(record exited {status}): {what}")
        logged = read_log(log)
        self.assertEqual(len(logged), threads * runs)
        if status == 1:
            # the ring lost some of every run (a recorder stopped through
            # a short target): nothing is written, and it says why
            self.assertIn("no complete run recorded, no ETDump written: "
                          "the ring buffer was full", stderr)
            self.assertFalse(os.path.exists(out), what)
            return
        # 3: written with drops; 0: the ring kept up
        self.assertIn(status, (0, 3), what)
        slack = counter_stamp_slack_ns(self, stderr) \
            if mode == "batched" else 0
        seen = set()
        for i, r in enumerate(decode(out)["run_data"]):
            pes = [e["profile_event"] for e in r["events"]]
            self.assertEqual([p.get("name") for p in pes], NAMES,
                             f"run {i} is not a whole run: {what}")
            own = (pes[0]["chain_index"], pes[0]["instruction_id"])
            self.assertIn(own, logged, f"run {i}: {what}")
            begin, end = logged[own]
            for n, p in enumerate(pes):
                self.assertEqual((p["chain_index"], p["instruction_id"]),
                                 own, f"run {i} event {n}: another run's "
                                 f"event: {what}")
                start, stop = int(p["start_time"]), int(p["end_time"])
                self.assertTrue(begin - slack <= start <= stop <=
                                end + slack,
                                f"run {i} event {n}: times ({start}, "
                                f"{stop}) not inside the program's window "
                                f"({begin}, {end}): {what}")
            self.assertNotIn(own, seen, f"run {i} written twice: {what}")
            seen.add(own)
        os.unlink(out)

    def test_fixed_cases(self):
        for case in FIXED + [drawn(s) for s in DRAWN_FIXED]:
            with self.subTest(case=case):
                self.assert_own_runs(case)

    def test_drawn_seeds(self):
        """SHORT_SEEDS seeds (ETDUMP_LOSS_SEEDS=N: N), TOGETHER at once,
        each checked as its recording ends, in the seeds' order."""
        n = int(os.environ.get("ETDUMP_LOSS_SEEDS", str(SHORT_SEEDS)))
        cases = [drawn(seed) for seed in range(1000, 1000 + n)]
        with ThreadPoolExecutor(TOGETHER) as pool:
            for case, recorded in zip(cases, pool.map(
                    lambda case: self.record(*case), cases)):
                with self.subTest(seed=case[0]):
                    self.assert_own_runs(case, recorded)
