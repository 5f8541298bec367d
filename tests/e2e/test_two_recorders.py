"""Two recorders on one process. The runtime batches while anything holds
its `flush` probe, so a per-scope recorder beside a batched one would get
nothing, and a batched one arriving would take a per-scope one's events:
the second refuses with one line saying why and which recorder (PID)
holds the process, also when both are launched at the same instant. Two of one mode share the process and each gets every
event; symbol mode's probes on functions share it with any mode.
"""
import os
import signal
import unittest

from etdump_e2e import (DEFAULT_EVENTS, EXAMPLE, EXAMPLE_NOPROBES,
                        EXECUTE_EVENTS, ROOT, Recorder, TempDirTest, decode,
                        run_keys, start_waiting_example)

EXECUTIONS = 3
# recorders launched together, many times: their timing differs each time
PAIRS = 20
RULES = os.path.join(ROOT, "tests", "example", "example.rules")


def stop_all(examples, recs):
    """Whatever a failed test left running."""
    for p in examples:
        p.kill()
        p.wait()
    for r in recs:
        if r.proc.poll() is None:
            r.proc.kill()
            r.proc.wait()


class TwoRecordersTest(TempDirTest):
    pairs = 0

    def second_after_first(self, first, second, binary=EXAMPLE):
        """Exit status and stderr of each, the first's ETDump, the second's
        path; the example runs only once both have attached (or the second
        gave up). The first recorder's PID in self.first_pid."""
        example = start_waiting_example(["-n", str(EXECUTIONS)],
                                        binary=binary)
        recs = []
        try:
            outs = [self.path("first.etdp"), self.path("second.etdp")]
            for args, out in zip((first, second), outs):
                rec = Recorder(["-o", out] + args + ["-p", str(example.pid)])
                recs.append(rec)
                if rec is recs[0]:
                    rec.wait_attached()
                    self.first_pid = rec.proc.pid
            second_rec = recs[1]
            try:
                second_rec.wait_attached()
                second_attached = True
            except AssertionError:
                second_attached = False
            example.send_signal(signal.SIGUSR1)
            self.assertEqual(example.wait(timeout=60), 0)
            status = [r.wait() for r in recs]
            return status, [r.stderr for r in recs], outs, second_attached
        finally:
            stop_all([example], recs)

    def assert_whole(self, path, stderr):
        runs = decode(path)["run_data"]
        self.assertEqual([r["name"] for r in runs],
                         ["Default"] + ["Execute"] * EXECUTIONS, stderr)
        self.assertEqual(run_keys(runs[0]), DEFAULT_EVENTS)
        for r in runs[1:]:
            self.assertEqual(run_keys(r), EXECUTE_EVENTS)

    def test_per_scope_beside_batched_refuses(self):
        status, err, outs, attached = self.second_after_first([],
                                                              ["--precise"])
        self.assertFalse(attached, err[1])
        self.assertEqual(status[1], 1, err[1])
        self.assertIn("already recorded in batched mode by 'etdump-bpf "
                      f"record' PID {self.first_pid}", err[1])
        self.assertEqual(len(err[1].strip().splitlines()), 2, err[1])
        self.assertEqual(status[0], 0, err[0])
        self.assert_whole(outs[0], err[0])

    def test_batched_beside_per_scope_refuses(self):
        status, err, outs, attached = self.second_after_first(["--precise"],
                                                              [])
        self.assertFalse(attached, err[1])
        self.assertEqual(status[1], 1, err[1])
        self.assertIn("already traced with per-scope probes by "
                      f"'etdump-bpf record' PID {self.first_pid}", err[1])
        self.assertIn("--precise", err[1])
        self.assertEqual(status[0], 0, err[0])
        self.assert_whole(outs[0], err[0])

    def test_values_beside_batched_refuses(self):
        """--values takes per-scope probes: refused as --precise is."""
        status, err, outs, attached = self.second_after_first([],
                                                              ["--values"])
        self.assertFalse(attached, err[1])
        self.assertEqual(status[1], 1, err[1])
        self.assertIn(f"'etdump-bpf record' PID {self.first_pid}", err[1])
        self.assertEqual(status[0], 0, err[0])
        self.assert_whole(outs[0], err[0])
        self.assertFalse(os.path.exists(outs[1]))

    def test_symbol_mode_beside_batched_both_get_every_run(self):
        """Probes on the runtime's functions share it with its own."""
        status, err, outs, attached = self.second_after_first(
            [], ["--rules", RULES])
        self.assertTrue(attached, err[1])
        self.assertEqual(status, [0, 0], err)
        self.assert_whole(outs[0], err[0])
        self.assert_symbol_runs(outs[1], err[1])

    def test_two_symbol_mode_both_get_every_run(self):
        status, err, outs, attached = self.second_after_first(
            ["--rules", RULES], ["--rules", RULES], binary=EXAMPLE_NOPROBES)
        self.assertTrue(attached, err[1])
        self.assertEqual(status, [0, 0], err)
        first = self.assert_symbol_runs(outs[0], err[0])
        self.assertEqual(self.assert_symbol_runs(outs[1], err[1]), first)

    def assert_symbol_runs(self, path, stderr):
        """Every execution a run of the same events: their keys."""
        runs = decode(path)["run_data"]
        self.assertEqual([r["name"] for r in runs],
                         ["Default"] + ["Execute"] * EXECUTIONS, stderr)
        keys = [run_keys(r) for r in runs]
        self.assertTrue(keys[1])
        self.assertTrue(all(k == keys[1] for k in keys[1:]), stderr)
        return keys

    def test_two_batched_both_get_every_event(self):
        status, err, outs, attached = self.second_after_first([], [])
        self.assertTrue(attached, err[1])
        self.assertEqual(status, [0, 0], err)
        for out, e in zip(outs, err):
            self.assert_whole(out, e)

    def test_two_per_scope_both_get_every_event(self):
        status, err, outs, attached = self.second_after_first(
            ["--precise"], ["--precise"])
        self.assertTrue(attached, err[1])
        self.assertEqual(status, [0, 0], err)
        for out, e in zip(outs, err):
            self.assert_whole(out, e)

    def launch_together(self, modes):
        """Both recorders started back to back on a waiting example, then
        the example runs. Per recorder: (exit status, stderr, output, PID)."""
        example = start_waiting_example(["-n", str(EXECUTIONS)])
        recs = []
        try:
            outs = [self.path(f"{self.pairs}-{i}.etdp") for i in range(2)]
            self.pairs += 1
            recs = [Recorder(["-o", out] + mode + ["-p", str(example.pid)])
                    for out, mode in zip(outs, modes)]
            for r in recs:
                try:
                    r.wait_attached()
                except AssertionError:
                    pass  # refused: its stderr is read at its exit
            example.send_signal(signal.SIGUSR1)
            self.assertEqual(example.wait(timeout=60), 0)
            return [(r.wait(), r.stderr, out, r.proc.pid)
                    for r, out in zip(recs, outs)]
        finally:
            stop_all([example], recs)

    def test_batched_and_per_scope_started_together(self):
        """Whatever the timing, one records every event and the other, the
        later to its check, is refused in one line naming the first: never
        both attached with one of them seeing nothing."""
        for n in range(PAIRS):
            # either launched first, in turn
            modes = [[], ["--precise"]][::1 if n % 2 else -1]
            got = self.launch_together(modes)
            status = [g[0] for g in got]
            self.assertEqual(sorted(status), [0, 1],
                             f"pair {n}: {[g[1] for g in got]}")
            kept, lost = (got[0], got[1]) if status[0] == 0 else \
                (got[1], got[0])
            self.assert_whole(kept[2], kept[1])
            errors = [line for line in lost[1].splitlines()
                      if not line.startswith("etdump-bpf: mode:")]
            self.assertEqual(len(errors), 1, lost[1])
            self.assertIn(f"by 'etdump-bpf record' PID {kept[3]}",
                          errors[0])

    def test_two_batched_started_together_both_get_every_event(self):
        for n in range(PAIRS // 4):
            for status, stderr, out, _ in self.launch_together([[], []]):
                self.assertEqual(status, 0, f"pair {n}: {stderr}")
                self.assert_whole(out, stderr)

    def test_a_later_pid_of_several_is_checked_too(self):
        """-p A,B: B already held per-scope by another recorder; a batched
        recorder of both refuses, naming B, and the first keeps its runs."""
        free = start_waiting_example(["-n", str(EXECUTIONS)])
        held = start_waiting_example(["-n", str(EXECUTIONS)])
        recs = []
        try:
            out = self.path("first.etdp")
            first = Recorder(["-o", out, "--precise", "-p", str(held.pid)])
            recs.append(first)
            first.wait_attached()
            second = Recorder(["-o", self.path("second.etdp"), "-p",
                               "%d,%d" % (free.pid, held.pid)])
            recs.append(second)
            self.assertEqual(second.wait(), 1, second.stderr)
            self.assertIn("process %d is already traced with per-scope "
                          "probes" % held.pid, second.stderr)
            for p in (free, held):
                p.send_signal(signal.SIGUSR1)
                self.assertEqual(p.wait(timeout=60), 0)
            self.assertEqual(first.wait(), 0, first.stderr)
            self.assert_whole(out, first.stderr)
        finally:
            stop_all((free, held), recs)


if __name__ == "__main__":
    unittest.main()
