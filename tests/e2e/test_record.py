"""etdump-bpf record against the real example runtime, both ways (-- CMD and
-p PID), checked by decoding the ETDump with flatc as ExecuTorch does."""
import bisect
import os
import signal
import subprocess
import time

from etdump_e2e import (CLI, DEFAULT_EVENTS, EXAMPLE,
                        EXAMPLE_SHARED, EXECUTE_EVENTS, Recorder, TempDirTest, decode,
                        read_timings, run, run_keys, start_waiting_example)


# Batched stamps read from the CPU's counter are turned into CLOCK_MONOTONIC
# on the kernel's own line of the counter, the clock to the ns as a probe's
# or a clock_gettime stamp is; where the recorder cannot read that line
# (it says so), between two (counter, clock) anchors: each is as exact as
# the anchor's own reads (tens of ns; docs/design.md: batched stamps).
COUNTER_STAMP_BOUND_NS = 250
CLOCK_NS = dict(os.environ, ETDUMP_BATCH_CLOCK="ns")
# the clock sources whose clock is a line of the counter the runtime reads
COUNTER_CLOCKSOURCES = ("tsc", "arch_sys_counter")


def clocksource():
    with open("/sys/devices/system/clocksource/clocksource0/"
              "current_clocksource") as f:
        return f.read().strip()


def counter_stamp_slack_ns(test, stderr):
    """How far a batched counter stamp may lie from the runtime's clock
    reads, as the recorder's summary says it turned them: 0 on the
    kernel's line, which every kernel whose clock runs on that counter
    gives."""
    if "the clock to the ns" in stderr:
        return 0
    test.assertNotIn(clocksource(), COUNTER_CLOCKSOURCES,
                     f"the kernel's clock is a line of the counter, and "
                     f"the stamps were not turned on it: {stderr}")
    return COUNTER_STAMP_BOUND_NS


class RecordedRunsMixin:
    """Assertions on a decoded ETDump of the example runtime."""
    # the runtime's environment (the batched stamps' clock)
    ENV = None
    # how far a stamp may lie from the runtime's own clock reads around it:
    # set by the recording's mode
    slack_ns = 0

    def stamped_by(self, mode, stderr):
        batched_counter = not ({"--precise", "-e", "--values"} & set(mode)) \
            and self.ENV is None
        self.slack_ns = counter_stamp_slack_ns(self, stderr) \
            if batched_counter else 0

    def record_command(self, binary, executions, mode):
        """record -- the runtime: every run, checked against the runtime's
        own timings; record's stderr."""
        out, timings = self.path("out.etdp"), self.path("timings.tsv")
        proc = run([CLI, "record", "-o", out] + mode +
                   ["--", binary, "-n", str(executions), "--timings",
                    timings], env=self.ENV)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("target exited", proc.stderr)
        self.assertIn(f"{executions + 1} runs (1 Default + {executions} "
                      f"Execute)", proc.stderr)
        self.assertIn("0 dropped", proc.stderr)
        dump = decode(out)
        self.assert_example_dump(dump, executions)
        self.stamped_by(mode, proc.stderr)
        self.assert_matches_timings(dump, timings)
        return proc.stderr

    def record_pid(self, binary, executions, mode):
        """record -p of the runtime held before its load, then let go: its
        ETDump checked against the runtime's own timings; record's stderr."""
        out, timings = self.path("out.etdp"), self.path("timings.tsv")
        example = start_waiting_example(
            ["-n", str(executions), "--timings", timings], binary, self.ENV)
        try:
            rec = Recorder(["-o", out, "-p", str(example.pid)] + mode)
            rec.wait_attached()
            example.send_signal(signal.SIGUSR1)
            self.assertEqual(example.wait(timeout=60), 0)
            self.assertEqual(rec.wait(), 0, rec.stderr)
        finally:
            example.kill()
            example.wait()
        self.assertIn("target exited", rec.stderr)
        dump = decode(out)
        self.assert_example_dump(dump, executions)
        self.stamped_by(mode, rec.stderr)
        self.assert_matches_timings(dump, timings)
        return rec.stderr

    def assert_example_dump(self, dump, executions, threads=1):
        runs = dump["run_data"]
        self.assertEqual([r["name"] for r in runs],
                         ["Default"] + ["Execute"] * (executions * threads))
        self.assertEqual(run_keys(runs[0]), DEFAULT_EVENTS)
        for i, r in enumerate(runs[1:]):
            self.assertEqual(run_keys(r), EXECUTE_EVENTS, f"Execute run {i}")
            self.assert_nesting(r)
        self.assert_default_nesting(runs[0])

    def span(self, run_data, name, chain, instr):
        for ev in run_data["events"]:
            pe = ev["profile_event"]
            key_name = pe.get("name") or pe.get("delegate_debug_id_str") or \
                str(pe["delegate_debug_id_int"])
            if (key_name, pe["chain_index"], pe["instruction_id"]) == \
                    (name, chain, instr):
                return int(pe["start_time"]), int(pe["end_time"])
        raise AssertionError(f"no event {name} ({chain},{instr})")

    def assert_within(self, inner, outer, what, slack=0):
        self.assertLessEqual(outer[0] - slack, inner[0], what)
        self.assertLessEqual(inner[1], outer[1] + slack, what)
        self.assertLessEqual(inner[0], inner[1], what)

    def assert_default_nesting(self, run_data):
        self.assert_within(self.span(run_data, "Method::init", -1, 0),
                           self.span(run_data, "Program::load_method", -1, 0),
                           "Method::init inside Program::load_method")

    def assert_nesting(self, run_data):
        execute = self.span(run_data, "Method::execute", -1, 0)
        previous_end = execute[0]
        for name, chain, instr in EXECUTE_EVENTS[:-1]:
            if name in ("OPERATOR_CALL", "DELEGATE_CALL"):
                call = self.span(run_data, name, chain, instr)
                self.assert_within(call, execute, f"{name} {instr} in execute")
                # instructions run one after the other
                self.assertLessEqual(previous_end, call[0], f"order at {instr}")
                previous_end = call[1]
        for name, chain, instr in EXECUTE_EVENTS:
            if name.startswith("native_call_"):
                self.assert_within(self.span(run_data, name, chain, instr),
                                   self.span(run_data, "OPERATOR_CALL", chain,
                                             instr), name)
            if name.startswith("delegate:"):
                self.assert_within(
                    self.span(run_data, name[len("delegate:"):], chain, instr),
                    self.span(run_data, "DELEGATE_CALL", chain, instr), name)

    def assert_matches_timings(self, dump, timings_path):
        """Probe times against the runtime's own clock reads, event by event."""
        rows = read_timings(timings_path)
        by_run = {}
        for row in rows:
            by_run.setdefault((row["tid"], row["run"]), []).append(row)
        runs = dump["run_data"]
        self.assertEqual(len(runs), len(by_run))
        # a run of the dump is the runtime's run whose outermost scope holds
        # its outermost event and whose every clock read fits its events
        # (threads interleave, so order alone won't do; and the tightest
        # hold won't either: a thread preempted between its clock read and
        # its probe holds its own run loosely, and another thread's run
        # may hold it more tightly); tried from the tightest
        remaining = list(by_run.values())
        checked = 0
        for run_data in runs:
            outer = max(run_data["events"],
                        key=lambda e: int(e["profile_event"]["end_time"]) -
                        int(e["profile_event"]["start_time"]))["profile_event"]
            start, end = int(outer["start_time"]), int(outer["end_time"])

            def slack(rs):
                held = [(start - r["start_ns"]) + (r["end_ns"] - end)
                        for r in rs if r["name"] == outer["name"] and
                        r["start_ns"] - self.slack_ns <= start and
                        end <= r["end_ns"] + self.slack_ns]
                return min(held) if held else None

            held = sorted((slack(rs), i) for i, rs in enumerate(remaining)
                          if slack(rs) is not None)
            self.assertTrue(held, f"no runtime run holds {outer}")
            misfits = []
            for _, i in held:
                try:
                    checked += self.check_run_timings(run_data, remaining[i])
                except AssertionError as e:
                    misfits.append(e)
                    continue
                remaining.pop(i)
                break
            else:
                raise misfits[0]
        self.assertTrue(checked)

    def check_run_timings(self, run_data, rt_rows):
        """Each probe of run_data inside the runtime's clock reads of its
        site, and no other read between; how many were checked."""
        # the runtime's clock reads of this run, in program order
        reads = sorted(t for r in rt_rows for t in (r["start_ns"], r["end_ns"]))
        checked = 0
        for row in rt_rows:
            key = (row["name"], row["chain"], row["instr"])
            probe = self.span(run_data, *key)
            runtime = (row["start_ns"], row["end_ns"])
            if row["name"] in ("linear #0", "relu #1", "linear #2"):
                # the delegate passed its own times through the probe
                self.assertEqual(probe, runtime, key)
                continue
            self.assert_within(probe, runtime, f"{key} probe inside runtime",
                               self.slack_ns)
            # no clock read of the runtime's comes between a site's own
            # read and its probe: each probe time lies before the next read
            # and after the one before, whatever the load
            after = bisect.bisect_right(reads, runtime[0])
            before = bisect.bisect_left(reads, runtime[1]) - 1
            if after < len(reads):
                self.assertLessEqual(probe[0], reads[after] + self.slack_ns,
                                     f"{key} begins after the next read")
            if before >= 0:
                self.assertLessEqual(reads[before] - self.slack_ns, probe[1],
                                     f"{key} ends before the last read")
            checked += 1
        return checked


class SharedLibraryRuntimeTest(RecordedRunsMixin, TempDirTest):
    """A runtime built as a library: the executable carries no probe, its
    library every one, found through DT_NEEDED for a command and through
    the process's maps for -p; both modes."""

    def test_command_batched(self):
        stderr = self.record_command(EXAMPLE_SHARED, 5, [])
        self.assertIn("and its libraries", stderr)
        self.assertIn("mode: batched", stderr)

    def test_command_per_scope(self):
        stderr = self.record_command(EXAMPLE_SHARED, 5, ["--precise"])
        self.assertIn("and its libraries", stderr)
        self.assertIn("mode: per-scope", stderr)

    def test_pid(self):
        stderr = self.record_pid(EXAMPLE_SHARED, 4, [])
        self.assertIn("and its libraries", stderr)


class RecordCommandTest(RecordedRunsMixin, TempDirTest):
    """Batched mode: the example runtime carries the flush probe; its
    stamps are the CPU's counter (this kind of machine has an invariant TSC
    the kernel keeps its clock on), turned into CLOCK_MONOTONIC."""
    MODE = []

    def test_record_command_writes_default_and_every_execute_run(self):
        stderr = self.record_command(EXAMPLE, 20, self.MODE)
        if self.ENV is None and not self.MODE:
            self.assertIn("batched stamps: the CPU's counter", stderr)

    def test_record_pid_attaches_to_a_running_process(self):
        self.record_pid(EXAMPLE, 10, self.MODE)

    def test_threads_become_their_own_runs(self):
        out, timings = self.path("out.etdp"), self.path("timings.tsv")
        proc = run([CLI, "record", "-o", out] + self.MODE +
                   ["--", EXAMPLE, "-n", "4", "--threads", "3", "--timings",
                    timings], env=self.ENV)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        dump = decode(out)
        # an exact event list per run means no run took another's events
        self.assert_example_dump(dump, 4, threads=3)
        self.stamped_by(self.MODE, proc.stderr)
        self.assert_matches_timings(dump, timings)


class RecordCommandClockTest(RecordCommandTest):
    """Batched mode stamped with clock_gettime: the runtime's own clock,
    to the ns."""
    ENV = CLOCK_NS


class RecordCommandPreciseTest(RecordCommandTest):
    """The same with per-scope probes, stamped in the kernel."""
    MODE = ["--precise"]


class BatchedEquivalenceTest(TempDirTest):
    def test_batched_and_per_scope_give_the_same_events(self):
        dumps = []
        for mode in ([], ["--precise", "--no-counters"]):
            out = self.path(f"out{len(dumps)}.etdp")
            proc = run([CLI, "record", "-o", out] + mode +
                       ["--", EXAMPLE, "-n", "5", "--threads", "2"])
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertIn("mode: batched" if not mode else
                          "mode: per-scope probes", proc.stderr)
            dumps.append(decode(out))

        def without_times(dump):
            """Runs by thread (their notes name it), each thread's in
            order: how two threads' runs interleave is their timing's."""
            runs = [(r["name"], [{k: v for k, v in e["profile_event"].items()
                                  if k not in ("start_time", "end_time")}
                                 for e in r["events"]])
                    for r in dump["run_data"]]
            return sorted(runs, key=lambda r: bytes(
                r[1][-1].get("delegate_debug_metadata") or []))

        batched, precise = map(without_times, dumps)
        self.assertEqual(len(batched), 11)
        for i, (b, p) in enumerate(zip(batched, precise)):
            self.assertEqual(b, p, f"run {i}")


class RecordStopTest(RecordedRunsMixin, TempDirTest):
    """Every way of stopping still writes a valid file of whole runs."""

    LONG = [EXAMPLE, "-n", "1000000", "--sleep-ms", "2"]

    def assert_whole_runs(self, out):
        runs = decode(out)["run_data"]
        self.assertGreaterEqual(len(runs), 2)
        self.assertEqual(run_keys(runs[0]), DEFAULT_EVENTS)
        for r in runs[1:]:
            self.assertEqual(run_keys(r), EXECUTE_EVENTS)

    def test_duration_stops_and_ends_the_command(self):
        out = self.path("out.etdp")
        t0 = time.monotonic()
        proc = run([CLI, "record", "-o", out, "--duration", "1", "--"]
                   + self.LONG)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertLess(time.monotonic() - t0, 30)
        self.assertIn("duration reached", proc.stderr)
        self.assert_whole_runs(out)

    def stop_with(self, sig):
        out = self.path("out.etdp")
        rec = Recorder(["-o", out, "--"] + self.LONG)
        rec.wait_attached()
        time.sleep(0.5)
        rec.signal(sig)
        self.assertEqual(rec.wait(), 0, rec.stderr)
        self.assertIn("interrupted", rec.stderr)
        self.assert_whole_runs(out)

    def test_sigint_writes_a_valid_file(self):
        self.stop_with(signal.SIGINT)

    def test_sigterm_writes_a_valid_file(self):
        self.stop_with(signal.SIGTERM)


class RecordErrorTest(TempDirTest):
    """Each refusal is one clear line and a non-zero exit, and writes nothing."""

    def assert_one_line_error(self, proc, *needles):
        self.assertNotEqual(proc.returncode, 0)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertTrue(lines[0].startswith("etdump-bpf: "), lines[0])
        for n in needles:
            self.assertIn(n, lines[0])

    def test_binary_without_probes(self):
        out = self.path("out.etdp")
        proc = run([CLI, "record", "-o", out, "--", "/bin/true"])
        self.assert_one_line_error(proc, "/bin/true", "no 'etdump' USDT probes")
        self.assertFalse(os.path.exists(out))

    def test_process_without_probes(self):
        out = self.path("out.etdp")
        sleeper = subprocess.Popen(["sleep", "30"])
        try:
            proc = run([CLI, "record", "-o", out, "-p", str(sleeper.pid)])
        finally:
            sleeper.kill()
            sleeper.wait()
        self.assert_one_line_error(proc, "no 'etdump' USDT probes")

    def test_pid_that_does_not_exist(self):
        with open("/proc/sys/kernel/pid_max") as f:
            pid = int(f.read()) - 1
        while os.path.exists(f"/proc/{pid}"):
            pid -= 1
        proc = run([CLI, "record", "-o", self.path("out.etdp"), "-p", str(pid)])
        self.assert_one_line_error(proc, f"no process with PID {pid}")

    def test_without_cap_sys_admin(self):
        proc = run(["setpriv", "--bounding-set=-sys_admin",
                    "--inh-caps=-sys_admin", CLI, "record", "-o",
                    self.path("out.etdp"), "--", EXAMPLE, "-n", "1"])
        self.assert_one_line_error(proc, "CAP_SYS_ADMIN")
        self.assertFalse(os.path.exists(self.path("out.etdp")))

    def test_existing_output_needs_force(self):
        out = self.path("out.etdp")
        with open(out, "w") as f:
            f.write("keep me")
        proc = run([CLI, "record", "-o", out, "--", EXAMPLE, "-n", "1"])
        self.assert_one_line_error(proc, out, "--force")
        with open(out) as f:
            self.assertEqual(f.read(), "keep me")
        proc = run([CLI, "record", "-f", "-o", out, "--", EXAMPLE, "-n", "1"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(len(decode(out)["run_data"]), 2)

    def test_bad_numbers_are_usage_errors(self):
        for args in (["-p", "12x"], ["-p", "-3"], ["--duration", "abc"],
                     ["--ring-size", "3000"]):
            proc = run([CLI, "record", "-o", self.path("o.etdp")] + args +
                       ["--", EXAMPLE])
            self.assertEqual(proc.returncode, 2, (args, proc.stderr))
            self.assertIn("invalid", proc.stderr)


class BatchedBuffersTest(TempDirTest):
    """What a thread holds in its batched buffer reaches the ETDump though
    the thread never flushes again: read from the process while it idles
    and when the recording stops."""

    def test_an_idle_threads_runs_are_written_when_recording_stops(self):
        out = self.path("out.etdp")
        # executions 1-5 end within the bound of the first one's flush,
        # the 6th stalls and the runtime waits to be killed: no flush
        proc = run([CLI, "record", "-o", out, "-d", "1", "--", EXAMPLE,
                    "-n", "10", "--stall-at", "6"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("duration reached", proc.stderr)
        dump = decode(out)
        runs = dump["run_data"]
        self.assertEqual([r["name"] for r in runs],
                         ["Default"] + ["Execute"] * 5, proc.stderr)
        self.assertEqual(run_keys(runs[0]), DEFAULT_EVENTS)
        for r in runs[1:]:
            self.assertEqual(run_keys(r), EXECUTE_EVENTS)
        self.assertIn("1 run(s) left out: still executing", proc.stderr)
