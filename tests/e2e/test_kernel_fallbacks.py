"""What record does on a kernel without a BPF feature it uses, run on this
one: ETDUMP_KERNEL_LACKS (user/capture/kernel_features.h) makes a feature
the kernel has count as missing. Each fallback must record exactly the
events the feature records (the same runs, names, ids and order) and say
itself in one line of the summary; without the variable no such line."""
import os
import signal

from etdump_e2e import (CLI, EXAMPLE, EXAMPLE_SHARED, Recorder, TempDirTest,
                        decode, run, run_keys, start_waiting_example)

ALL = "task_storage,current_task_btf,bpf_loop,bpf_cookie"
NOTES = {
    "task_storage": "task storage needs Linux 5.11",
    "current_task_btf": "bpf_get_current_task_btf needs Linux 5.11",
    "bpf_loop": "bpf_loop needs Linux 5.17",
    "bpf_cookie": "BPF cookies need Linux 5.15",
}
COUNTERS = ["-e", "task-clock,page-faults,context-switches"]


def lacking(names):
    return dict(os.environ, ETDUMP_KERNEL_LACKS=names)


def counters_of(ev):
    """The counters record put in a non-delegate event's metadata."""
    meta = bytes(ev["profile_event"].get("delegate_debug_metadata") or [])
    if not meta.startswith(b"etdump-bpf-counters:"):
        return None
    fields = meta.decode().split(";")[1:]
    return dict(f.split("=", 1) for f in fields)


class KernelFallbackTest(TempDirTest):
    def record(self, mode, cmd, env=None, name="out.etdp"):
        out = self.path(name)
        proc = run([CLI, "record", "-f", "-o", out] + mode + ["--"] + cmd,
                   env=env, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stderr, decode(out)

    def assert_same_events(self, mode, cmd, lacks):
        """Recorded with and without the features: the very same events;
        the forced recording's stderr and ETDump."""
        _, plain = self.record(mode, cmd, name="plain.etdp")
        err, forced = self.record(mode, cmd, env=lacking(lacks),
                                  name="forced.etdp")
        self.assertEqual([run_keys(r) for r in forced["run_data"]],
                         [run_keys(r) for r in plain["run_data"]], err)
        self.assertTrue(plain["run_data"])
        return err, forced

    def assert_noted(self, err, feature):
        lines = [l for l in err.splitlines() if NOTES[feature] in l]
        self.assertEqual(len(lines), 1, err)

    def test_task_clock_without_task_storage(self):
        err, dump = self.assert_same_events(
            COUNTERS, [EXAMPLE, "-n", "3"], "task_storage")
        self.assert_noted(err, "task_storage")
        self.assertIn("hash map keyed by thread", err)
        # a scope's CPU time is within its wall time, as with task storage
        timed = 0
        for r in dump["run_data"]:
            for ev in r["events"]:
                c = counters_of(ev)
                if not c or c.get("task-clock", "?") == "?":
                    continue
                pe = ev["profile_event"]
                wall = int(pe["end_time"]) - int(pe["start_time"])
                self.assertLessEqual(int(c["task-clock"]), wall + 1000, c)
                timed += 1
        self.assertGreater(timed, 10)

    def test_counts_without_current_task_btf(self):
        err, dump = self.assert_same_events(
            COUNTERS, [EXAMPLE, "-n", "3", "--counter-ops"],
            "current_task_btf")
        self.assert_noted(err, "current_task_btf")
        faults = [int(c["page-faults"]) for r in dump["run_data"]
                  for c in map(counters_of, r["events"])
                  if c and c.get("page-faults", "?") != "?"]
        self.assertTrue(faults)
        self.assertGreater(max(faults), 0)

    def test_sched_lanes_without_task_storage(self):
        raw = self.path("s.raw")
        err, _ = self.assert_same_events(
            ["--precise", "--sched", "--raw", raw, "-f"],
            [EXAMPLE, "-n", "2"], "task_storage")
        self.assert_noted(err, "task_storage")

    def test_values_without_bpf_loop_are_noted(self):
        err, _ = self.assert_same_events(["--values"], [EXAMPLE, "-n", "2"],
                                         "bpf_loop")
        self.assert_noted(err, "bpf_loop")

    def test_a_command_without_cookies_is_attached_at_its_exec(self):
        for cmd, mode in (([EXAMPLE, "-n", "3"], []),
                          ([EXAMPLE, "-n", "5"], ["--every", "2"]),
                          ([EXAMPLE_SHARED, "-n", "3"], []),
                          ([EXAMPLE_SHARED, "-n", "5"], ["--every", "2"]),
                          ([EXAMPLE, "-n", "3"], ["--precise"])):
            with self.subTest(cmd=cmd[0], mode=mode):
                err, _ = self.assert_same_events(mode, cmd, "bpf_cookie")
                self.assert_noted(err, "bpf_cookie")
                self.assertIn("at its exec", err)

    def test_children_without_cookies_are_stopped_at_their_exec(self):
        sh = ["sh", "-c", f"{EXAMPLE} -n 3; {EXAMPLE} -n 2"]
        for mode in ([], ["--precise"]):
            with self.subTest(mode=mode):
                err, dump = self.assert_same_events(mode, sh, "bpf_cookie")
                self.assert_noted(err, "bpf_cookie")
                self.assertIn("stopped at its exec", err)
                self.assertEqual(len(dump["run_data"]), 7)

    def test_everything_lacking_records_every_mode(self):
        for mode in ([], ["--precise"], ["--values"], ["--allocations"],
                     COUNTERS, ["--keep-slower-than", "1us"]):
            with self.subTest(mode=mode):
                self.assert_same_events(mode, [EXAMPLE, "-n", "2"], ALL)

    def test_a_pid_with_everything_lacking(self):
        keys = []
        for lacks in (None, ALL):
            out = self.path("pid.etdp")
            example = start_waiting_example(["-n", "3"])
            try:
                # Recorder runs record in our environment
                if lacks:
                    os.environ["ETDUMP_KERNEL_LACKS"] = lacks
                try:
                    rec = Recorder(["-f", "-o", out, "-p", str(example.pid)]
                                   + COUNTERS)
                finally:
                    os.environ.pop("ETDUMP_KERNEL_LACKS", None)
                rec.wait_attached()
                example.send_signal(signal.SIGUSR1)
                example.wait(timeout=60)
                self.assertEqual(rec.wait(), 0, rec.stderr)
            finally:
                example.kill()
                example.wait()
            keys.append([run_keys(r) for r in decode(out)["run_data"]])
            if lacks:
                self.assert_noted(rec.stderr, "task_storage")
        self.assertEqual(keys[0], keys[1])
        self.assertEqual(len(keys[0]), 4)

    def test_nothing_said_where_nothing_lacks(self):
        err, _ = self.record(COUNTERS + ["--values"], [EXAMPLE, "-n", "1"])
        self.assertNotIn("needs Linux", err)
        self.assertNotIn("need Linux", err)

    def test_an_unknown_name_is_warned_of(self):
        err, _ = self.record([], [EXAMPLE, "-n", "1"],
                             env=lacking("no_such_thing"))
        self.assertIn("ETDUMP_KERNEL_LACKS: no kernel feature 'no_such_thing'",
                      err)
