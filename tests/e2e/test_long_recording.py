"""Long recordings against the real example runtime: --rotate writes a
series of complete ETDumps (each decodes on its own, together they hold
every run once), --keep-slower-than keeps the slow runs whole, and
--flight-recorder writes the last N runs on SIGUSR1 and at the end.
"""
import glob
import os
import signal
import time
import unittest

from etdump_e2e import (BENCH_LOOP, CLI, DEFAULT_EVENTS, EXAMPLE,
                        EXECUTE_EVENTS, Recorder, TempDirTest, decode, run,
                        run_keys, start_waiting_example)


def runs_of(path):
    return decode(path)["run_data"]


def delegate_call_ns(run_data):
    for ev in run_data["events"]:
        pe = ev["profile_event"]
        if pe.get("name") == "DELEGATE_CALL":
            return int(pe["end_time"]) - int(pe["start_time"])
    raise AssertionError("no DELEGATE_CALL in the run")


def span_ns(run_data):
    starts = [int(e["profile_event"]["start_time"]) for e in run_data["events"]]
    ends = [int(e["profile_event"]["end_time"]) for e in run_data["events"]]
    return max(ends) - min(starts)


class LongRecordingTest(TempDirTest):
    def record(self, args, example_args, status=0):
        proc = run([CLI, "record"] + args + ["--", EXAMPLE] + example_args,
                   timeout=120)
        self.assertEqual(proc.returncode, status, proc.stderr)
        return proc

    def assert_whole(self, run_data):
        """A run as the example writes it, every event there."""
        expected = (EXECUTE_EVENTS if run_data["name"] == "Execute" else
                    DEFAULT_EVENTS)
        self.assertEqual(run_keys(run_data), expected)

    def series(self, base="run"):
        return sorted(glob.glob(self.path(base + ".*.etdp")))

    def test_a_run_longer_than_the_recorder_holds_is_written_whole(self):
        # two threads of 50,000 events, one run each: past 4,096 events
        # an open run's events go into the file as they come, written by
        # the recorder's second thread
        out, raw = self.path("long.etdp"), self.path("long.raw")
        proc = run([CLI, "record", "-o", out, "--raw", raw, "--ring-size",
                    "64M", "--", BENCH_LOOP, "-n", "100000", "--rate",
                    "1000000", "--threads", "2"], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("100000 events, 0 dropped", proc.stderr)
        got = decode(out)
        self.assertEqual(len(got["run_data"]), 2)
        for run_data in got["run_data"]:
            self.assertEqual(len(run_data["events"]), 50000)
            starts = [int(e["profile_event"]["start_time"])
                      for e in run_data["events"]]
            # the parts written ahead first, in the order they ended
            self.assertEqual(starts, sorted(starts))
        # the raw capture converted holds each run whole to its end: the
        # same ETDump, as flatc reads both
        conv = self.path("conv.etdp")
        proc = run([CLI, "convert", raw, "-o", conv])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(decode(conv), got)

    def test_rotate_by_size_splits_every_run_once_into_whole_files(self):
        out = self.path("run.etdp")
        proc = self.record(["-o", out, "--rotate", "32K"], ["-n", "300"])
        files = self.series()
        self.assertGreater(len(files), 1, proc.stderr)
        self.assertEqual([os.path.basename(f) for f in files],
                         [f"run.{i:04d}.etdp" for i in range(1, len(files) + 1)])
        self.assertFalse(os.path.exists(out))
        names = []
        for f in files:
            runs = runs_of(f)
            self.assertTrue(runs, f)
            for r in runs:
                self.assert_whole(r)
            names += [r["name"] for r in runs]
        self.assertEqual(names, ["Default"] + ["Execute"] * 300)
        self.assertIn(f"wrote {len(files)} file(s) {files[0]} to {files[-1]}: "
                      f"301 runs, 4802 events, 0 dropped", proc.stderr)

    def test_past_what_one_etdump_holds_a_series_goes_on(self):
        """Without --rotate, a recording past what one ETDump holds (2 GiB;
        2 MiB here, the tests' setting) is never lost: it goes on as a
        series, each file finished at a run's end, said in one line; the
        raw capture converted gives the same files."""
        out, raw = self.path("run.etdp"), self.path("run.raw")
        env = dict(os.environ, ETDUMP_STREAM_PART_BYTES="2M")
        proc = run([CLI, "record", "-o", out, "--raw", raw, "--", EXAMPLE,
                    "-n", "3000", "--threads", "2"], timeout=120, env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        files = self.series()
        self.assertGreater(len(files), 2, proc.stderr)
        self.assertEqual([os.path.basename(f) for f in files],
                         [f"run.{i:04d}.etdp" for i in range(1, len(files) + 1)])
        self.assertFalse(os.path.exists(out))
        self.assertIn("it goes on as a series, " + files[0], proc.stderr)
        self.assertIn(f"wrote {len(files)} file(s) {files[0]} to {files[-1]} "
                      f"and {raw}: 6001 runs", proc.stderr)
        names = []
        for f in files:
            runs = runs_of(f)
            for r in runs:
                self.assert_whole(r)
            names += [r["name"] for r in runs]
        self.assertEqual(sorted(names), ["Default"] + ["Execute"] * 6000)
        proc = run([CLI, "convert", raw, "-o", self.path("conv.etdp")],
                   timeout=120, env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        converted = self.series("conv")
        self.assertEqual(len(converted), len(files), proc.stderr)
        for a, b in zip(files, converted):
            with open(a, "rb") as fa, open(b, "rb") as fb:
                self.assertTrue(fa.read() == fb.read(), f"{b} is not {a}")

    def test_rotate_by_duration(self):
        out = self.path("run.etdp")
        # 200 executions 10 ms apart: two seconds, twenty intervals
        proc = self.record(["-o", out, "--rotate", "100ms"],
                           ["-n", "200", "--sleep-ms", "10"])
        files = self.series()
        self.assertGreater(len(files), 1, proc.stderr)
        total = sum(len(runs_of(f)) for f in files)
        self.assertEqual(total, 201)

    def refused_at(self, name, executions):
        """record --rotate meets a file of ours at `name`: exit status 1,
        the file named, its content untouched."""
        mine = self.path(name)
        with open(mine, "w") as f:
            f.write("mine")
        proc = self.record(["-o", self.path("run.etdp"), "--rotate", "32K"],
                           ["-n", str(executions)], status=1)
        self.assertIn(name, proc.stderr)
        with open(mine) as f:
            self.assertEqual(f.read(), "mine")
        return mine

    def test_rotate_never_replaces_a_file_of_the_series_without_force(self):
        out = self.path("run.etdp")
        first = self.refused_at("run.0001.etdp", 5)
        os.unlink(first)
        # a later file of the series, met while recording
        later = self.refused_at("run.0002.etdp", 300)
        self.assertTrue(runs_of(first))
        # with -f it is replaced
        self.record(["-f", "-o", out, "--rotate", "32K"], ["-n", "300"])
        self.assertTrue(runs_of(later))

    def test_keep_slower_than_keeps_every_slow_run_whole(self):
        out = self.path("slow.etdp")
        # executions 25, 50, 75, 100 spend 20 ms more in their DelegateCall
        proc = self.record(["-o", out, "--keep-slower-than", "10ms"],
                           ["-n", "100", "--slow-every", "25"])
        runs = runs_of(out)
        for r in runs:
            self.assert_whole(r)
            self.assertGreaterEqual(span_ns(r), 10_000_000)
        slow = [r for r in runs if delegate_call_ns(r) >= 20_000_000]
        self.assertEqual(len(slow), 4)
        self.assertIn(f"101 run(s) seen, {len(runs)} kept: slower than "
                      f"10.000 ms", proc.stderr)
        self.assertIn(f"wrote {out}: {len(runs)} runs", proc.stderr)

    def test_keep_slower_than_a_percentile(self):
        out = self.path("slow.etdp")
        # executions 100, 200, 300, 400: 20 ms more, each after the first
        # 100 runs that set the percentile
        proc = self.record(["-o", out, "--keep-slower-than", "p99"],
                           ["-n", "400", "--slow-every", "100"])
        runs = runs_of(out)
        for r in runs:
            self.assert_whole(r)
        slow = [r for r in runs if delegate_call_ns(r) >= 20_000_000]
        self.assertEqual(len(slow), 4)
        # slower than 99 runs in 100 of those seen before: a few at most
        self.assertLess(len(runs), 40)
        self.assertIn(f"401 run(s) seen, {len(runs)} kept: slower than p99",
                      proc.stderr)

    def test_keep_slower_than_with_no_slow_run_writes_nothing(self):
        out = self.path("slow.etdp")
        proc = self.record(["-o", out, "--keep-slower-than", "1h"],
                           ["-n", "5"])
        self.assertIn("6 run(s) seen, 0 kept", proc.stderr)
        self.assertIn("no ETDump written", proc.stderr)
        self.assertFalse(os.path.exists(out))

    def test_flight_recorder_writes_the_last_runs_at_exit(self):
        out, raw = self.path("fr.etdp"), self.path("all.raw")
        proc = self.record(["-o", out, "--raw", raw,
                            "--flight-recorder", "5"], ["-n", "50"])
        self.assertIn("51 run(s) seen", proc.stderr)
        kept = runs_of(self.path("fr.0001.etdp"))
        # the capture holds everything: its last five runs are these
        full = self.path("all.etdp")
        conv = run([CLI, "convert", raw, "-o", full])
        self.assertEqual(conv.returncode, 0, conv.stderr)
        self.assertEqual(kept, runs_of(full)[-5:])

    def test_flight_recorder_writes_on_sigusr1(self):
        out = self.path("fr.etdp")
        example = start_waiting_example(["-n", "100000", "--sleep-ms", "2"])
        rec = None
        try:
            rec = Recorder(["-o", out, "--flight-recorder", "3", "-p",
                            str(example.pid)])
            rec.wait_attached()
            example.send_signal(signal.SIGUSR1)
            first = self.path("fr.0001.etdp")
            # asked until a run had completed to be written
            deadline = time.monotonic() + 60
            while not os.path.exists(first) and time.monotonic() < deadline:
                rec.signal(signal.SIGUSR1)
                time.sleep(0.2)
            rec.signal(signal.SIGINT)
            self.assertEqual(rec.wait(), 0, rec.stderr)
        finally:
            example.kill()
            example.wait()
            if rec and rec.proc.poll() is None:
                rec.proc.kill()
                rec.proc.wait()
        files = self.series("fr")
        self.assertIn(first, files)
        for f in files:
            runs = runs_of(f)
            self.assertTrue(1 <= len(runs) <= 3, f)
            for r in runs:
                self.assert_whole(r)

    def test_bad_values_are_usage_errors(self):
        for args in (["--rotate", "0"], ["--rotate", "10x"],
                     ["--keep-slower-than", "fast"],
                     ["--keep-slower-than", "p100"],
                     ["--keep-slower-than", "p0"],
                     ["--flight-recorder", "0"],
                     ["--flight-recorder", "3", "--rotate", "1M"]):
            proc = run([CLI, "record", "-o", self.path("x.etdp")] + args +
                       ["--", EXAMPLE])
            self.assertEqual(proc.returncode, 2, (args, proc.stderr))
        proc = run([CLI, "record", "--raw", self.path("x.raw"),
                    "--rotate", "1M", "--", EXAMPLE])
        self.assertEqual(proc.returncode, 2, proc.stderr)

    def test_rotate_with_raw_is_refused_in_one_line(self):
        raw = self.path("x.raw")
        for rotate in ("1M", "10s"):
            proc = run([CLI, "record", "-o", self.path("x.etdp"), "--raw",
                        raw, "--rotate", rotate, "--", EXAMPLE])
            self.assertEqual(proc.returncode, 2, proc.stderr)
            # the reason on one line, then where the help is (record's form)
            lines = proc.stderr.strip().splitlines()
            self.assertEqual(len(lines), 2, proc.stderr)
            self.assertIn("--rotate and --raw", lines[0])
            self.assertIn("--help", lines[1])
            self.assertFalse(os.path.exists(raw))
            self.assertEqual(self.series("x"), [])


if __name__ == "__main__":
    unittest.main()
