"""Loss under pressure, as a property: many threads of the example runtime
(--mark-ids: each event's chain is its thread, its instruction id its
execution), coming and going (--respawn: a thread done hands its slot to a
new one, whose first block lands in a full ring), recorded per scope
through a ring of one page, several times.
Whatever the ring loses, every run written holds exactly the events of one
execution of one thread, in ETDumpGen's order, no execution is written
twice, and every event the target produced that is not in the file is
accounted for: its records were lost (the drop count, in probe hits: an
event lost has at least one), or they arrived and the summary counts it
among those left out."""
import re

from etdump_e2e import (CLI, DEFAULT_EVENTS, EXAMPLE, EXECUTE_EVENTS,
                        TempDirTest, decode, run, run_keys)

MARK_IDS_SPAN = 16  # tests/example/method.h
OUTSIDE_INSTRUCTION = MARK_IDS_SPAN - 1


def expected_execution(thread, execution):
    """The Execute run of one execution of one thread, with --mark-ids."""
    base = execution * MARK_IDS_SPAN
    return [(name, thread, base + (OUTSIDE_INSTRUCTION if chain == -1
                                   else instr))
            for name, chain, instr in EXECUTE_EVENTS]


def summary_number(stderr, pattern):
    m = re.search(pattern, stderr)
    return int(m.group(1)) if m else 0


class LossAttributionTest(TempDirTest):
    # (threads at once, executions a thread, threads a slot): 180 to 320
    # threads in all, far more records than one page of ring holds; a
    # thread of one execution whose block is lost opens no later run
    TRIALS = [(16, 1, 20), (8, 1, 30), (12, 2, 15), (16, 1, 20),
              (8, 1, 30), (12, 2, 15), (16, 1, 20), (16, 1, 20)]

    def record_overflowing(self, trial, threads, executions, respawn):
        out = self.path(f"loss-{trial}.etdp")
        proc = run([CLI, "record", "-o", out, "--precise", "--no-counters",
                    "--ring-size", "4K", "--", EXAMPLE, "--mark-ids",
                    "-n", str(executions), "--threads", str(threads),
                    "--respawn", str(respawn)],
                   timeout=120)
        # 3: written, with drops; the ring of one page always overflows
        self.assertEqual(proc.returncode, 3, proc.stderr)
        return out, proc.stderr

    def assert_runs_own_events(self, runs, threads, executions, stderr):
        """Every run is one execution of one thread, whole and in order;
        returns the events written."""
        seen = set()
        written = 0
        for r in runs:
            keys = run_keys(r)
            written += len(keys)
            if r["name"] == "Default":
                self.assertEqual(keys, DEFAULT_EVENTS, stderr)
                continue
            self.assertEqual(r["name"], "Execute")
            self.assertTrue(keys, stderr)
            thread = keys[0][1]
            execution = keys[0][2] // MARK_IDS_SPAN
            self.assertIn(thread, range(threads), keys)
            self.assertIn(execution, range(1, executions + 1), keys)
            self.assertEqual(keys, expected_execution(thread, execution),
                             f"a run holds events not its own\n{stderr}")
            self.assertNotIn((thread, execution), seen,
                             "an execution written twice")
            seen.add((thread, execution))
        return written

    def test_every_run_holds_its_own_events_and_every_loss_is_counted(self):
        for trial, (threads, executions, respawn) in \
                enumerate(self.TRIALS):
            with self.subTest(trial=trial, threads=threads):
                out, stderr = self.record_overflowing(trial, threads,
                                                      executions, respawn)
                runs = decode(out)["run_data"]
                written = self.assert_runs_own_events(
                    runs, threads * respawn, executions, stderr)
                self.assertEqual(summary_number(
                    stderr, r"runs?[^,]*, (\d+) events,"), written)
                dropped = summary_number(stderr, r"events, (\d+) dropped")
                self.assertGreater(dropped, 0, stderr)
                left_out = summary_number(
                    stderr, r"in all, (\d+) event\(s\) that arrived were "
                    r"not written")
                produced = len(DEFAULT_EVENTS) + \
                    len(EXECUTE_EVENTS) * executions * threads * respawn
                # nothing counted twice, nothing made up ...
                self.assertLessEqual(written + left_out, produced, stderr)
                # ... and each event missing arrived and was counted, or
                # lost at least one of its records
                self.assertLessEqual(produced, written + left_out + dropped,
                                     stderr)
