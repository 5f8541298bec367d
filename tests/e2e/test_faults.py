"""Faults while recording, with real processes and real BPF: the target
killed mid-execution, exiting, exec'ing; the recorder interrupted; the ring
buffer overflowing; a second process of the same binary; an output that
cannot be written; missing privileges. In each case the exit status says what
happened, a file that could be written is a valid ETDump (flatc) of whole
runs (but for per-scope drops: docs/recording.md, exit status 3), a drop count is exact,
and nothing hangs."""
import os
import re
import signal
import stat
import struct
import subprocess
import time

from etdump_e2e import (CLI, DEFAULT_EVENTS, EXAMPLE, EXECUTE_EVENTS,
                        Recorder, TempDirTest, decode, record_starved, run,
                        run_keys, start_waiting_example)
from test_record import RecordedRunsMixin

MODES = {"batched": [], "per-scope": ["--precise", "--no-counters"]}
# Generous: the recorder polls the target's pidfd every 50 ms, and leaves
# detaching the probes to a background process.
EXIT_NOTICED_S = 2.0
# Probe hits of the example in per-scope mode (tests/example/README.md):
# Default: block, 2 begins, 2 ends; each Execute: block, 12 begins, 12 ends,
# 12 instruction, delegate begin, end and 3 logs.
PER_SCOPE_DEFAULT_HITS = 5
PER_SCOPE_EXECUTE_HITS = 42
REC_F_PULLED = 0x4  # ETDUMP_REC_F_PULLED
REC_BATCH = 12  # schema/etdump_record.h
# not the target's events: a thread's name (the probes'), the recorder's
# own word that a thread's last records were lost
REC_THREAD_NAME = 20
REC_LOST_TAIL = 34


def raw_totals(path):
    """(received, drops, read_then_lost) from a raw capture, in the units
    the kernel counts drops in: a per-scope record of an event is one (a
    thread's name is no event, and is never counted lost), a batched buffer
    the nevents ETDump events it carries, once however many times it came
    (read from the process, then flushed); the drops are those of its end
    chunk; read_then_lost the events of buffers read from the process whose
    flush the ring then lost (the kernel counted them lost too)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"ETDPRAW\n", path
    at, received, drops = 8, 0, None
    buffers, last, read_lost = {}, {}, 0
    while at + 16 <= len(data):
        typ, length = struct.unpack_from("<II", data, at)
        payload, end = at + 16, at + 16 + length
        if typ == 2:  # data chunk: struct raw_data, then framed records
            p = payload + 16
            while p < end:
                rec_len, = struct.unpack_from("<I", data, p)
                rec = p + 8
                if data[rec] == REC_BATCH:
                    flags, = struct.unpack_from("<H", data, rec + 6)
                    nevents, = struct.unpack_from("<I", data, rec + 28)
                    seq, tid = struct.unpack_from("<QI", data, rec + 48)
                    pulled = bool(flags & REC_F_PULLED)
                    was = last.get(tid)
                    if was and was[0] < seq and was[1]:
                        read_lost += buffers[(tid, was[0])]
                    key = (tid, seq)
                    buffers[key] = max(buffers.get(key, 0), nevents)
                    last[tid] = (seq, pulled and (was is None or
                                                  was[0] != seq or was[1]))
                elif data[rec] not in (REC_THREAD_NAME, REC_LOST_TAIL):
                    received += 1
                p = rec + (rec_len + 7) // 8 * 8
        elif typ == 3:  # end chunk: records, drops, end clock
            drops = struct.unpack_from("<Q", data, payload + 8)[0]
        at = end
    assert drops is not None, f"{path}: no end chunk"
    return received + sum(buffers.values()), drops, read_lost


def summary_drops(stderr):
    m = re.search(r"events, (\d+) dropped", stderr)
    assert m, stderr
    return int(m.group(1))


def target_pid(stderr_lines):
    m = re.search(r"to PID (\d+) ", "".join(stderr_lines))
    assert m, stderr_lines
    return int(m.group(1))


def process_gone(pid):
    """Reaped, not a zombie left behind."""
    return not os.path.exists(f"/proc/{pid}")


class FaultTest(RecordedRunsMixin, TempDirTest):
    def assert_whole(self, out, executions, defaults=1):
        """Default run(s) then exactly `executions` whole Execute runs."""
        runs = decode(out)["run_data"]
        names = [r["name"] for r in runs]
        self.assertEqual(names.count("Default"), defaults, names)
        self.assertEqual(names.count("Execute"), executions, names)
        for r in runs:
            self.assertEqual(run_keys(r), DEFAULT_EVENTS
                             if r["name"] == "Default" else EXECUTE_EVENTS)
        return runs

    def record_stalled(self, mode, out):
        """record -o out -- example, stopped inside its 4th execution: the
        recorder, its stderr lines so far, and its target's PID."""
        rec = subprocess.Popen(
            [CLI, "record", "-o", out, *MODES[mode], "--",
             EXAMPLE, "-n", "10", "--stall-at", "4"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = []
        while not any("attached" in x for x in lines):
            line = rec.stderr.readline()
            self.assertTrue(line, "".join(lines))
            lines.append(line)
        stdout = []
        while "stalled\n" not in stdout:
            line = rec.stdout.readline()
            self.assertTrue(line, "".join(lines))
            stdout.append(line)
        return rec, lines, target_pid(lines)

    def wait_exit(self, rec, lines):
        """Seconds until the recorder exits, and its whole stderr."""
        t0 = time.monotonic()
        # what is left is short: it waits in the pipe
        rec.wait(timeout=60)
        return time.monotonic() - t0, "".join(lines) + rec.stderr.read()


class TargetFaultTest(FaultTest):
    def test_target_killed_mid_execution_leaves_out_its_run(self):
        for mode in MODES:
            with self.subTest(mode=mode):
                out = self.path(f"{mode}.etdp")
                rec, lines, pid = self.record_stalled(mode, out)
                os.kill(pid, signal.SIGKILL)
                elapsed, err = self.wait_exit(rec, lines)
                self.assertLess(elapsed, EXIT_NOTICED_S, err)
                self.assertEqual(rec.returncode, 0, err)
                self.assertIn("target exited", err)
                self.assertIn("target killed by signal 9", err)
                # executions 1-3 are whole; the 4th was open when it died
                self.assert_whole(out, 3)
                if mode == "per-scope":
                    # its events reached us: left out, and said so
                    self.assertIn("1 run(s) left out", err)

    def test_record_returns_promptly_when_an_attached_target_exits(self):
        out = self.path("out.etdp")
        example = start_waiting_example(["-n", "3"])
        try:
            rec = Recorder(["-o", out, "-p", str(example.pid)])
            rec.wait_attached()
            example.send_signal(signal.SIGUSR1)
            self.assertEqual(example.wait(timeout=60), 0)
            elapsed, err = self.wait_exit(rec.proc, rec.stderr_lines)
        finally:
            example.kill()
            example.wait()
        self.assertLess(elapsed, EXIT_NOTICED_S,
                        "the recorder did not notice the exit")
        self.assertEqual(rec.proc.returncode, 0, err)
        self.assertIn("target exited", err)
        self.assert_whole(out, 3)

    def test_target_failing_is_reported_and_its_runs_written(self):
        out = self.path("out.etdp")
        # the example runs, then cannot write its timings: exit status 1
        proc = run([CLI, "record", "-o", out, "--", EXAMPLE, "-n", "3",
                    "--timings", self.path("no/such/dir/t.tsv")])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("target exited with status 1", proc.stderr)
        self.assert_whole(out, 3)

    def test_exec_of_the_same_binary_keeps_being_recorded(self):
        # uprobes belong to the executable file: the new image of the same
        # file is traced too, until the process exits
        for mode in MODES:
            with self.subTest(mode=mode):
                out = self.path(f"{mode}.etdp")
                proc = run([CLI, "record", "-o", out, *MODES[mode], "--",
                            EXAMPLE, "-n", "5", "--exec",
                            f"exec {EXAMPLE} -n 3"])
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertIn("target exited", proc.stderr)
                runs = self.assert_whole(out, 8, defaults=2)
                self.assertEqual([r["name"] for r in runs],
                                 ["Default"] + ["Execute"] * 5 +
                                 ["Default"] + ["Execute"] * 3)

    def test_exec_of_another_program_records_until_the_process_exits(self):
        out, marker = self.path("out.etdp"), self.path("marker")
        proc = run([CLI, "record", "-o", out, "--", EXAMPLE, "-n", "5",
                    "--exec", f"sleep 0.3; echo done > {marker}"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("target exited", proc.stderr)
        # the exec'd program ran to its end before the recorder stopped
        with open(marker) as f:
            self.assertEqual(f.read(), "done\n")
        self.assert_whole(out, 5)


class RecorderSignalTest(FaultTest):
    """SIGINT/SIGTERM of a spawned command between executions is in
    test_record.py; these stop the recorder mid-execution or while
    attached to a process it did not start."""

    def test_sigterm_mid_execution_stops_the_command_and_drops_its_run(self):
        out = self.path("out.etdp")
        rec, lines, pid = self.record_stalled("per-scope", out)
        rec.send_signal(signal.SIGTERM)
        _, err = self.wait_exit(rec, lines)
        self.assertEqual(rec.returncode, 0, err)
        self.assertIn("interrupted", err)
        # the command we started is stopped as perf record does, and reaped
        self.assertIn("target killed by signal 15", err)
        self.assertTrue(process_gone(pid))
        self.assertIn("1 run(s) left out", err)
        self.assert_whole(out, 3)

    def test_sigint_detaches_from_a_process_it_did_not_start(self):
        out = self.path("out.etdp")
        example = subprocess.Popen([EXAMPLE, "--wait-signal", "-n", "200",
                                    "--sleep-ms", "5"],
                                   stdout=subprocess.PIPE, text=True)
        try:
            self.assertTrue(example.stdout.readline().startswith("ready"))
            rec = Recorder(["-o", out, "-p", str(example.pid)])
            rec.wait_attached()
            example.send_signal(signal.SIGUSR1)
            time.sleep(0.3)
            rec.signal(signal.SIGINT)
            self.assertEqual(rec.wait(), 0, rec.stderr)
            # the target is left alone and finishes its work
            stdout, _ = example.communicate(timeout=60)
            self.assertEqual(example.returncode, 0)
            self.assertIn("executions: 200", stdout)
        finally:
            example.kill()
            example.wait()
        self.assertIn("interrupted", rec.stderr)
        runs = decode(out)["run_data"]
        self.assertGreaterEqual(len(runs), 2)
        self.assert_whole(out, len(runs) - 1)


class RingOverflowTest(FaultTest):
    """A ring of one page and two threads executing flat out."""

    def probe_records(self, mode, n):
        """Records the example sends for -n n, from a recording that lost
        none."""
        raw = self.path(f"calibrate-{mode}-{n}.raw")
        proc = run([CLI, "record", "--raw", raw, *MODES[mode], "--",
                    EXAMPLE, "-n", str(n)])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        received, drops, _ = raw_totals(raw)
        self.assertEqual(drops, 0)
        return received

    def overflow(self, mode, n, threads):
        out, raw = self.path(f"{mode}.etdp"), self.path(f"{mode}.raw")
        # the example is deterministic: what one and two executions send
        # tells what n executions on each thread send
        one, two = self.probe_records(mode, 1), self.probe_records(mode, 2)
        per_execution, default = two - one, 2 * one - two
        args = ["-o", out, "--raw", raw, "--ring-size", "4096",
                *MODES[mode]]
        if mode == "batched":
            # a few 16 KiB flushes fill the smallest ring batched mode
            # takes (32 KiB) only while nothing reads it: stop the recorder
            code, stderr = record_starved(
                args, ["-n", str(n), "--threads", str(threads)])
        else:
            proc = run([CLI, "record", *args, "--", EXAMPLE, "-n", str(n),
                        "--threads", str(threads)], timeout=300)
            code, stderr = proc.returncode, proc.stderr
        self.assertEqual(code, 3, stderr)
        self.last_stderr = stderr
        dropped = summary_drops(stderr)
        self.assertGreater(dropped, 0)
        self.assertIn(f"{dropped} event(s) lost: the ring buffer was full; "
                      "try a larger --ring-size", stderr)
        received, raw_drops, read_then_lost = raw_totals(raw)
        # the kernel counts a lost flush whole; the summary not what of it
        # was read from the process before
        self.assertEqual(raw_drops - read_then_lost, dropped)
        # exact: every record the target sent arrived or was counted
        self.assertEqual(received + dropped,
                         default + per_execution * n * threads)
        return per_execution, default, decode(out)["run_data"]

    def test_per_scope_drop_count_is_exact(self):
        per_execution, default, runs = self.overflow("per-scope", 2000, 2)
        # what the README's probe sequence says the example fires
        self.assertEqual((per_execution, default),
                         (PER_SCOPE_EXECUTE_HITS, PER_SCOPE_DEFAULT_HITS))
        # The kernel flags a thread's next record after a loss: the run
        # that lost some, or took a lost block's events, is left out, and
        # every run written is whole.
        self.assertIn("run(s) left out: the ring buffer lost some of their "
                      "events", self.last_stderr)
        self.assertEqual(run_keys(runs[0]), DEFAULT_EVENTS)
        for r in runs[1:]:
            self.assertEqual(run_keys(r), EXECUTE_EVENTS)

    def test_losses_are_named_as_the_rings(self):
        """A recorder held up while the target runs whole under it: every
        run it leaves out is said lost to the full ring, none as still
        executing, attached mid-run, never closed or empty."""
        code, stderr = record_starved(
            ["-o", self.path("held.etdp"), "--precise", "--ring-size",
             "4096"], ["-n", "300", "--threads", "2"])
        self.assertEqual(code, 3, stderr)
        dropped = summary_drops(stderr)
        self.assertGreater(dropped, 0)
        self.assertIn("run(s) left out: the ring buffer lost some of their "
                      "events", stderr)
        for wrong in ("still executing", "attached mid-run",
                      "never closed", "no event at all"):
            self.assertNotIn(wrong, stderr)

    def test_batched_drop_count_is_exact_and_runs_whole(self):
        _, _, runs = self.overflow("batched", 2000, 2)
        # a flush is kept or lost whole: every run written is whole
        self.assertEqual(run_keys(runs[0]), DEFAULT_EVENTS)
        for r in runs[1:]:
            self.assertEqual(run_keys(r), EXECUTE_EVENTS)


class OtherProcessTest(FaultTest):
    def test_only_the_traced_pid_is_captured(self):
        """Two processes of the same binary; only one PID is traced: the
        tgid filter in the kernel keeps the other's events out."""
        for mode in MODES:
            with self.subTest(mode=mode):
                out = self.path(f"{mode}.etdp")
                timings = self.path(f"{mode}-traced.tsv")
                traced = start_waiting_example(["-n", "7", "--timings",
                                                timings])
                other = start_waiting_example(["-n", "12", "--threads", "2"])
                try:
                    rec = Recorder(["-o", out, *MODES[mode], "-p",
                                    str(traced.pid)])
                    rec.wait_attached()
                    other.send_signal(signal.SIGUSR1)
                    traced.send_signal(signal.SIGUSR1)
                    self.assertEqual(other.wait(timeout=60), 0)
                    self.assertEqual(traced.wait(timeout=60), 0)
                    self.assertEqual(rec.wait(), 0, rec.stderr)
                finally:
                    for p in (traced, other):
                        p.kill()
                        p.wait()
                dump = decode(out)
                # 7 runs, not 7 + 24; each is the traced process's own
                self.assert_example_dump(dump, 7)
                self.stamped_by(MODES[mode], rec.stderr)
                self.assert_matches_timings(dump, timings)


class OutputFaultTest(FaultTest):
    def assert_refused_before_starting(self, out, *needles):
        """One line naming the file and the reason; the command never ran."""
        marker = self.path("ran")
        proc = run([CLI, "record", "-o", out, "--", "/bin/sh", "-c",
                    f"touch {marker}"])
        self.assertEqual(proc.returncode, 1, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        for n in (out,) + needles:
            self.assertIn(n, lines[0])
        self.assertFalse(os.path.exists(marker))

    def test_read_only_directory_is_refused_before_recording(self):
        ro = self.path("ro")
        os.mkdir(ro)
        # root ignores permission bits: a read-only mount it cannot
        self.assertEqual(run(["mount", "--bind", "-o", "ro", ro, ro])
                         .returncode, 0)
        try:
            self.assert_refused_before_starting(os.path.join(ro, "o.etdp"),
                                                "Read-only file system")
        finally:
            run(["umount", ro])

    def test_proc_is_refused_before_recording(self):
        # writable to root by its mode, yet no file can be made there
        self.assert_refused_before_starting("/proc/o.etdp",
                                            "No such file or directory")

    def test_missing_directory_is_refused_before_recording(self):
        self.assert_refused_before_starting(self.path("none/o.etdp"),
                                            "No such file or directory")

    def test_dev_full_fails_cleanly_and_the_raw_capture_keeps_the_runs(self):
        raw = self.path("keep.raw")
        proc = run([CLI, "record", "-f", "-o", "/dev/full", "--raw", raw,
                    "--", EXAMPLE, "-n", "3"])
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("/dev/full: cannot write: No space left on device",
                      proc.stderr)
        # written into, never replaced: still the device
        self.assertTrue(stat.S_ISCHR(os.stat("/dev/full").st_mode))
        # nothing lost: the raw capture converts into the whole recording
        out = self.path("out.etdp")
        proc = run([CLI, "convert", raw, "-o", out])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_whole(out, 3)

    def test_full_filesystem_keeps_the_old_file(self):
        fs = self.path("fs")
        os.mkdir(fs)
        self.assertEqual(run(["mount", "-t", "tmpfs", "-o", "size=64k",
                              "tmpfs", fs]).returncode, 0)
        try:
            out = os.path.join(fs, "out.etdp")
            with open(out, "w") as f:
                f.write("keep me")
            fd = os.open(os.path.join(fs, "filler"), os.O_WRONLY | os.O_CREAT)
            try:
                while os.write(fd, b"\0" * 4096):
                    pass
            except OSError:
                pass
            finally:
                os.close(fd)
            proc = run([CLI, "record", "-f", "-o", out, "--", EXAMPLE,
                        "-n", "3"])
            self.assertEqual(proc.returncode, 1, proc.stderr)
            self.assertIn(f"{out}: cannot write: No space left on device",
                          proc.stderr)
            with open(out) as f:
                self.assertEqual(f.read(), "keep me")
            self.assertEqual(sorted(os.listdir(fs)), ["filler", "out.etdp"])
        finally:
            run(["umount", fs])


class PrivilegeTest(TempDirTest):
    def record_as_nobody(self, caps):
        out = self.path("out.etdp")
        os.chmod(self.tmp, 0o777)
        setpriv = ["setpriv", "--reuid=65534", "--regid=65534",
                   "--clear-groups"]
        if caps:
            setpriv += [f"--inh-caps={caps}", f"--ambient-caps={caps}"]
        proc = run(setpriv + ["--", CLI, "record", "-o", out, "--", EXAMPLE,
                              "-n", "1"])
        self.assertEqual(proc.returncode, 1, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertFalse(os.path.exists(out))
        return lines[0]

    def test_cap_bpf_and_perfmon_without_sys_admin(self):
        line = self.record_as_nobody("+bpf,+perfmon")
        for cap in ("CAP_SYS_ADMIN", "CAP_BPF", "CAP_PERFMON"):
            self.assertIn(cap, line)
        self.assertIn("not enough", line)

    def test_no_capabilities(self):
        line = self.record_as_nobody(None)
        self.assertIn("needs CAP_SYS_ADMIN", line)
        self.assertNotIn("CAP_BPF", line)
