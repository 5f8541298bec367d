"""record --every N: the runtime keeps one run in N (batched mode) and
counts the others; the recorder writes N into the runtime's word before
the probes see a run, 0 when --every is not given, and 0 back when it
stops and the target lives on. The Default block (load_method) is the
first run the runtime counts, so it is always kept, then execution e
(numbered from 1, as the runtime counts them) when e % N == 0.

--mark-ids: each Execute event's instruction id carries its execution."""
import json
import os
import re
import signal

from etdump_e2e import (CLI, DEFAULT_EVENTS, EXAMPLE, EXAMPLE_SHARED,
                        Recorder, TempDirTest, decode, run, run_keys,
                        start_waiting_example)
from test_loss_attribution import MARK_IDS_SPAN, expected_execution


def executions_of(testcase, dump):
    """The execution each Execute run is, checked whole; Default checked."""
    runs = dump["run_data"]
    found = []
    for r in runs:
        keys = run_keys(r)
        if r["name"] == "Default":
            testcase.assertEqual(keys, DEFAULT_EVENTS)
            continue
        testcase.assertEqual(r["name"], "Execute")
        execution = keys[0][2] // MARK_IDS_SPAN
        testcase.assertEqual(keys, expected_execution(0, execution))
        found.append(execution)
    return found


class EveryTest(TempDirTest):
    def record_every(self, binary):
        out = self.path("every.etdp")
        proc = run([CLI, "record", "-o", out, "--every", "5", "--",
                    binary, "--mark-ids", "-n", "50"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("11 runs (1 Default + 10 Execute)", proc.stderr)
        self.assertIn("kept 1 run in 5: 11 runs written, 40 left out by "
                      "the runtime (the ETDump holds 21.6% of the runs)",
                      proc.stderr)
        self.assertIn("0 dropped", proc.stderr)
        dump = decode(out)
        self.assertEqual(dump["run_data"][0]["name"], "Default")
        self.assertEqual(executions_of(self, dump), list(range(5, 51, 5)))

    def test_a_command_keeps_default_then_every_fifth_execution(self):
        self.record_every(EXAMPLE)

    def test_a_runtime_library_is_written_as_the_loader_maps_it(self):
        self.record_every(EXAMPLE_SHARED)

    def share_said(self, out, raw):
        """What report and the timeline say of the runs kept, and whether
        convert makes the very ETDump record wrote."""
        report = run([CLI, "report", out])
        self.assertEqual(report.returncode, 0, report.stderr)
        timeline = self.path(os.path.basename(out) + ".json")
        conv = run([CLI, "convert", out, "-o", timeline])
        self.assertEqual(conv.returncode, 0, conv.stderr)
        with open(timeline) as f:
            trace = json.load(f)
        names = [e["args"]["name"] for e in trace["traceEvents"]
                 if e.get("name") == "process_name"]
        converted = self.path("converted.etdp")
        conv = run([CLI, "convert", raw, "-o", converted])
        self.assertEqual(conv.returncode, 0, conv.stderr)
        with open(out, "rb") as a, open(converted, "rb") as b:
            self.assertEqual(a.read(), b.read())
        os.unlink(converted)
        return (report.stdout, trace["otherData"].get("kept_one_run_in"),
                names)

    def test_report_timeline_and_convert_say_the_share(self):
        out, raw = self.path("every.etdp"), self.path("every.raw")
        proc = run([CLI, "record", "-o", out, "--raw", raw, "--every", "5",
                    "--", EXAMPLE, "--mark-ids", "-n", "20"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        report, kept, names = self.share_said(out, raw)
        self.assertIn("runs: 1 in 5 of the runtime's (record --every 5); "
                      "the others were left out", report)
        self.assertEqual(kept, 5)
        self.assertEqual(len(names), 1)
        self.assertIn("(1 run in 5: record --every 5)", names[0])
        # and nothing of it in a recording of every run
        out, raw = self.path("all.etdp"), self.path("all.raw")
        proc = run([CLI, "record", "-o", out, "--raw", raw, "--",
                    EXAMPLE, "--mark-ids", "-n", "4"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        report, kept, names = self.share_said(out, raw)
        self.assertNotIn("runs: 1 in", report)
        self.assertIsNone(kept)
        self.assertNotIn("record --every", names[0])

    def test_without_every_no_share_is_said(self):
        out = self.path("all.etdp")
        proc = run([CLI, "record", "-o", out, "--", EXAMPLE, "--mark-ids",
                    "-n", "7"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("left out by the runtime", proc.stderr)
        self.assertEqual(executions_of(self, decode(out)), list(range(1, 8)))

    def test_a_second_recorder_without_every_records_every_run(self):
        example = start_waiting_example(["--mark-ids", "-n", "1000000",
                                         "--sleep-ms", "1"])
        try:
            first, second = self.path("first.etdp"), self.path("second.etdp")
            # each stops after a duration: how many runs it sees is not
            # asserted, only which
            rec = Recorder(["-o", first, "-p", str(example.pid),
                            "--every", "5", "-d", "0.5"])
            rec.wait_attached()
            example.send_signal(signal.SIGUSR1)
            self.assertEqual(rec.wait(), 0, rec.stderr)
            self.assertIn("kept 1 run in 5", rec.stderr)
            kept = executions_of(self, decode(first))
            self.assertTrue(kept, rec.stderr)
            self.assertEqual([b - a for a, b in zip(kept, kept[1:])],
                             [5] * (len(kept) - 1))

            rec = Recorder(["-o", second, "-p", str(example.pid),
                            "-d", "0.5"])
            rec.wait_attached()
            self.assertEqual(rec.wait(), 0, rec.stderr)
            self.assertNotIn("left out by the runtime", rec.stderr)
            seen = executions_of(self, decode(second))
            self.assertGreater(len(seen), 1, rec.stderr)
            self.assertEqual(seen, list(range(seen[0], seen[0] + len(seen))))
        finally:
            example.kill()
            example.wait()

    def test_refused_combinations_take_one_line(self):
        for extra, named in ((["--precise"], "--precise"),
                             (["-e", "cycles"], "-e"),
                             (["--values"], "--values"),
                             (["--allocations"], "--allocations"),
                             (["--symbols"], "--symbols")):
            proc = run([CLI, "record", "--every", "5"] + extra +
                       ["--", EXAMPLE, "-n", "1"])
            self.assertEqual(proc.returncode, 2, extra)
            lines = proc.stderr.splitlines()
            self.assertEqual(len(lines), 1, proc.stderr)
            self.assertIn(f"not with {named},", lines[0])
            self.assertIn("(see 'etdump-bpf record --help')", lines[0])
        for bad in ("0", "-1", "x", "4294967296"):
            proc = run([CLI, "record", "--every", bad, "--", EXAMPLE])
            self.assertEqual(proc.returncode, 2, bad)
            self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
            self.assertRegex(proc.stderr, re.escape(f"invalid --every '{bad}'"))
