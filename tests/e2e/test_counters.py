"""Perf counters per profile event, against operators built to differ:
touch_pages faults fresh pages in, yield gives up the CPU, spin only
computes (the example runtime's --counter-ops)."""
import os
import statistics
import sys

from etdump_e2e import CLI, EXAMPLE, ROOT, TempDirTest, decode, run

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from etdump_counters import counter_rows, parse_counters  # noqa: E402

SOFTWARE = "task-clock,page-faults,context-switches"
TOUCHED_PAGES = 64  # tests/example/program.c


def has_pmu():
    return os.path.exists("/sys/bus/event_source/devices/cpu")


def op_counters(dump, op):
    """[(wall ns, {counter: value}) per Execute run] for one event name."""
    out = []
    for r in dump["run_data"]:
        for ev in r["events"]:
            pe = ev["profile_event"]
            if pe.get("name") == op:
                wall = int(pe["end_time"]) - int(pe["start_time"])
                out.append((wall, parse_counters(
                    bytes(pe["delegate_debug_metadata"]))))
    return out


class CountersTest(TempDirTest):
    def record(self, counters_args, executions=10):
        out = self.path("out.etdp")
        proc = run([CLI, "record", "-o", out] + counters_args +
                   ["--", EXAMPLE, "-n", str(executions), "--counter-ops"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc, decode(out)

    def test_counters_tell_the_operators_apart(self):
        proc, dump = self.record(["-e", SOFTWARE])
        self.assertIn(f"counters: {SOFTWARE.replace(',', ', ')}", proc.stderr)
        touch = op_counters(dump, "native_call_touch_pages.out")
        sleep = op_counters(dump, "native_call_yield.out")
        spin = op_counters(dump, "native_call_spin.out")
        self.assertEqual(len(touch), 10)
        for (_, t), (_, s) in zip(touch, spin):
            self.assertGreaterEqual(t["page-faults"], TOUCHED_PAGES)
            self.assertEqual(s["page-faults"], 0, "pure compute faults nothing")
        # a sleep switches the thread out, unless the VM's vCPU stalls past
        # the timer before the thread can schedule (seen once in ~10 CI
        # runs): most executions show a switch
        self.assertGreaterEqual(statistics.median(
            y["context-switches"] for _, y in sleep), 1)
        # the thread's own CPU time: never more than the wall time, and all
        # of it for an operator that only computes
        for r in dump["run_data"]:
            for ev in r["events"]:
                pe = ev["profile_event"]
                c = parse_counters(bytes(pe.get("delegate_debug_metadata", [])))
                if c is None or c["task-clock"] is None:
                    continue
                wall = int(pe["end_time"]) - int(pe["start_time"])
                self.assertLessEqual(c["task-clock"], wall, pe.get("name"))
        # a switch the accounting did not see gives "?" (None), never a
        # number; it is rare: most executions have a value
        def shares(samples):
            got = [c["task-clock"] / wall for wall, c in samples
                   if c["task-clock"] is not None]
            self.assertGreaterEqual(len(got), len(samples) - 2)
            return got
        self.assertGreater(statistics.median(shares(spin)), 0.9)
        # sleeping is not CPU time: far below the wall time there
        self.assertLess(statistics.median(shares(sleep)), 0.5)

    def test_every_profile_event_but_delegates_carries_them(self):
        _, dump = self.record(["-e", SOFTWARE], executions=2)
        for r in dump["run_data"]:
            for ev in r["events"]:
                pe = ev["profile_event"]
                delegated = pe.get("delegate_debug_id_str") or \
                    pe["delegate_debug_id_int"] != -1
                parsed = parse_counters(bytes(pe["delegate_debug_metadata"]))
                if delegated:
                    self.assertIsNone(parsed, "delegate metadata kept as is")
                else:
                    self.assertEqual(list(parsed), SOFTWARE.split(","))

    def test_precise_without_pmu_falls_back_with_one_clear_line(self):
        proc, dump = self.record(["--precise"], executions=2)
        names = list(parse_counters(bytes(
            dump["run_data"][1]["events"][0]["profile_event"]
            ["delegate_debug_metadata"])))
        if has_pmu():
            self.assertEqual(names, ["cycles", "instructions"])
            return
        self.assertEqual(names, SOFTWARE.split(","))
        lines = [l for l in proc.stderr.splitlines() if "counters:" in l]
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("cycles, instructions not available", lines[0])
        self.assertIn(f"counters: {SOFTWARE.replace(',', ', ')}", lines[0])
        spin = op_counters(dump, "native_call_spin.out")
        self.assertTrue(all(c["task-clock"] for _, c in spin), "real values")

    def test_explicit_counter_is_recorded_or_refused_naming_others(self):
        out = self.path("cycles.etdp")
        proc = run([CLI, "record", "-o", out, "-e", "cycles", "--",
                    EXAMPLE, "-n", "2", "--counter-ops"])
        if has_pmu():
            self.assertEqual(proc.returncode, 0, proc.stderr)
            names = list(parse_counters(bytes(
                decode(out)["run_data"][1]["events"][0]["profile_event"]
                ["delegate_debug_metadata"])))
            self.assertEqual(names, ["cycles"])
            return
        # asked for by name: no software stand-in, nothing written
        self.assertEqual(proc.returncode, 1, proc.stderr)
        errors = [l for l in proc.stderr.splitlines() if "-e cycles" in l]
        self.assertEqual(len(errors), 1, proc.stderr)
        self.assertIn("not available here", errors[0])
        self.assertIn("available: ", errors[0])
        for name in SOFTWARE.split(","):
            self.assertIn(name, errors[0].split("available: ")[1])
        self.assertNotIn("attached", proc.stderr)
        self.assertFalse(os.path.exists(out))

    def test_no_counters(self):
        _, dump = self.record(["--no-counters"], executions=1)
        for ev in dump["run_data"][1]["events"]:
            pe = ev["profile_event"]
            self.assertIsNone(parse_counters(
                bytes(pe.get("delegate_debug_metadata", []))))

    def test_unknown_counter_is_a_usage_error(self):
        proc = run([CLI, "record", "-o", self.path("o.etdp"), "-e", "bogus",
                    "--", EXAMPLE])
        self.assertEqual(proc.returncode, 2)
        self.assertIn("unknown counter 'bogus'", proc.stderr)

    def test_python_helper_gives_columns_per_inspector_event(self):
        _, dump = self.record(["-e", SOFTWARE], executions=3)

        class Event:
            def __init__(self, metadatas):
                self.raw_delegate_debug_metadatas = metadatas

        class Block:
            def __init__(self, events):
                self.events = events

        class Inspector:
            """The shape of ExecuTorch's: a block merges identical runs."""
            event_blocks = [Block([
                Event([bytes(r["events"][i]["profile_event"]
                             ["delegate_debug_metadata"])
                       for r in dump["run_data"][1:]])
                for i in range(len(dump["run_data"][1]["events"]))])]

        rows = counter_rows(Inspector())
        names = [e["profile_event"].get("name")
                 for e in dump["run_data"][1]["events"]]
        touch = rows[names.index("native_call_touch_pages.out")]
        self.assertGreaterEqual(touch["page-faults_p50"], TOUCHED_PAGES)
        self.assertEqual(rows[names.index("native_call_spin.out")]
                         ["page-faults_avg"], 0)
