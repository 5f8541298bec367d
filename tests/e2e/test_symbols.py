"""Symbol mode: the example runtime built without its probes
(example-runtime-noprobes, same code) recorded through uprobes on the
functions tests/example/example.rules names, against the USDT recording of
the probed build, both decoded with flatc. Also: stripped copies with and
without a separate debug file, --program, -p PID, threads, errors."""
import os
import re
import shutil
import subprocess

import test_record

from etdump_e2e import (CLI, EXAMPLE, EXAMPLE_NOPROBES, ROOT, TempDirTest,
                        decode, run, run_keys)

RULES = os.path.join(ROOT, "tests", "example", "example.rules")
PROGRAM_SCHEMA = os.path.join(ROOT, "tests", "example", "program_subset.fbs")
PROGRAM_JSON = os.path.join(ROOT, "tests", "example", "example_program.json")
FIXTURES = os.environ.get("ETDUMP_FIXTURES",
                          os.path.join(ROOT, "tests", "fixtures"))
# user/symbol/symbol_translate.h: runs whose ids follow call order say so
CALL_ORDER_LINE = "instruction ids are call-order ids"


def usdt_keys_symbol_mode_can_see(run_data):
    """All but the delegate's own events (logged, not called): OPERATOR_CALL
    included, from its kernel's span."""
    return [k for k in run_keys(run_data) if not k[0].startswith("delegate:")]


class SymbolModeTest(TempDirTest):
    N = 5

    def record(self, binary, *args, n=None, extra=()):
        out = self.path(f"out{len(os.listdir(self.tmp))}.etdp")
        proc = run([CLI, "record", "-o", out] + list(args) +
                   ["--", binary, "-n", str(n or self.N)] + list(extra))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc, decode(out)

    def usdt(self, **kw):
        return self.record(EXAMPLE, "--no-counters", **kw)[1]

    def program(self):
        proc = run(["flatc", "-b", "-o", self.tmp, PROGRAM_SCHEMA,
                    PROGRAM_JSON])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return self.path("example_program.pte")

    def assert_same_as_usdt(self, usdt, sym):
        """Same runs (named as ETDumpGen names them, call-order ids or
        not), same events in the same order, same ids."""
        names = [r["name"] for r in sym["run_data"]]
        self.assertEqual(names, [r["name"] for r in usdt["run_data"]])
        for i, (u, s) in enumerate(zip(usdt["run_data"], sym["run_data"])):
            self.assertEqual(run_keys(s), usdt_keys_symbol_mode_can_see(u),
                             f"run {i}")
            kernels = [k for k in run_keys(s)
                       if k[0].startswith("native_call_")]
            self.assertEqual(len(kernels), 5 if i else 0, f"run {i}")
            for ev in s["events"]:
                pe = ev["profile_event"]
                self.assertLessEqual(int(pe["start_time"]),
                                     int(pe["end_time"]))

    def test_symbol_mode_matches_usdt_in_call_order(self):
        usdt = self.usdt()
        proc, sym = self.record(EXAMPLE_NOPROBES, "--rules", RULES)
        self.assertIn("symbol mode (no 'etdump' USDT probes in the target)",
                      proc.stderr)
        self.assertIn("instruction ids in call order", proc.stderr)
        self.assertIn(f"1 Default + {self.N} Execute)", proc.stderr)
        self.assertIn(CALL_ORDER_LINE, proc.stderr)
        self.assert_same_as_usdt(usdt, sym)

    def test_symbol_mode_with_program_gives_the_same_ids(self):
        pte = self.program()
        usdt = self.usdt()
        proc, sym = self.record(EXAMPLE_NOPROBES, "--rules", RULES,
                                "--program", pte)
        self.assertIn(f"instruction ids from {pte}", proc.stderr)
        self.assertNotIn("warning", proc.stderr)
        self.assertNotIn(CALL_ORDER_LINE, proc.stderr)
        self.assert_same_as_usdt(usdt, sym)

    def test_call_order_said_in_the_etdump_and_its_report(self):
        """Block names stay ETDumpGen's; that the ids follow call order is
        in each run's note (its outermost event's metadata), and report's
        header says it; with --program neither says it."""
        for args, said in ((["--rules", RULES], True),
                           (["--rules", RULES, "--program", self.program()],
                            False)):
            with self.subTest(program=not said):
                proc, sym = self.record(EXAMPLE_NOPROBES, *args)
                out = proc.stderr.split("wrote ")[1].split(":")[0]
                self.assertEqual(
                    [r["name"] for r in sym["run_data"]],
                    ["Default"] + ["Execute"] * self.N)
                for r in sym["run_data"]:
                    meta = bytes(r["events"][-1]["profile_event"]
                                 .get("delegate_debug_metadata", [])).decode()
                    self.assertEqual(meta.endswith(";ids=call-order"), said,
                                     meta)
                rep = run([CLI, "report", out])
                self.assertEqual(rep.returncode, 0, rep.stderr)
                header = rep.stdout.splitlines()[:3]
                self.assertEqual(any(CALL_ORDER_LINE in h for h in header),
                                 said, rep.stdout)

    def test_symbol_mode_threads_keep_their_runs(self):
        extra = ["--threads", "3"]
        usdt = self.usdt(n=3, extra=extra)
        _, sym = self.record(EXAMPLE_NOPROBES, "--rules", RULES,
                             "--program", self.program(), n=3, extra=extra)
        self.assertEqual(len(sym["run_data"]), 1 + 3 * 3)
        self.assert_same_as_usdt(usdt, sym)

    def test_symbols_option_on_a_probed_binary(self):
        proc, sym = self.record(EXAMPLE, "--symbols", "--rules", RULES)
        self.assertIn("symbol mode (--symbols)", proc.stderr)
        self.assertIn(CALL_ORDER_LINE, proc.stderr)
        self.assert_same_as_usdt(self.usdt(), sym)

    def test_symbol_mode_attaches_mid_run(self):
        """-p PID of a process already executing (its libraries from
        /proc/PID/maps): whole Execute runs only, each as USDT sees it."""
        want = usdt_keys_symbol_mode_can_see(self.usdt()["run_data"][1])
        out = self.path("pid.etdp")
        example = subprocess.Popen([EXAMPLE_NOPROBES, "-n", "1000000",
                                    "--sleep-ms", "2"],
                                   stdout=subprocess.DEVNULL)
        try:
            proc = run([CLI, "record", "-o", out, "-p", str(example.pid),
                        "--duration", "1", "--rules", RULES])
        finally:
            example.kill()
            example.wait()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        runs = decode(out)["run_data"]
        self.assertGreater(len(runs), 10)
        for r in runs:
            self.assertEqual(r["name"], "Execute")
            self.assertEqual(run_keys(r), want)

    def test_symbol_mode_raw_capture_converts_the_same(self):
        """--raw keeps symbol mode's own records; convert translates them
        as record did (without --program: call-order ids)."""
        out, raw, again = (self.path(n) for n in ("r.etdp", "r.raw",
                                                  "again.etdp"))
        proc = run([CLI, "record", "-o", out, "--raw", raw, "--rules", RULES,
                    "--", EXAMPLE_NOPROBES, "-n", "3"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        converted = run([CLI, "convert", raw, "-o", again])
        self.assertEqual(converted.returncode, 0, converted.stderr)
        with open(out, "rb") as a, open(again, "rb") as b:
            self.assertEqual(a.read(), b.read())
        # the probes' time measured at record, taken out by both, said by both
        said = [re.findall(r"durations were written less the probes' own "
                           r"time, measured at attach: .*", p.stderr)
                for p in (proc, converted)]
        self.assertEqual(len(said[0]), 1, proc.stderr)
        self.assertEqual(said[0], said[1])

    def test_probe_time_measured_again_while_the_target_runs(self):
        """What a probe costs drifts while recording: measured again every
        10 ms while records come, said in the summary, each lower figure a
        record of the raw capture, which converts to the very same file."""
        out, raw, again = (self.path(n) for n in ("m.etdp", "m.raw",
                                                  "m-again.etdp"))
        proc = run([CLI, "record", "-o", out, "--raw", raw, "--rules", RULES,
                    "--", EXAMPLE_NOPROBES, "-n", "20", "--sleep-ms", "5"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        again_said = re.findall(
            r"probes' time measured again (\d+) time\(s\) while "
            r"recording, every 10 ms, (\d+) to (\d+) ns per probed scope, "
            r"the least so far taken out of what followed", proc.stderr)
        self.assertEqual(len(again_said), 1, proc.stderr)
        times, least, most = map(int, again_said[0])
        self.assertGreaterEqual(times, 1)
        self.assertTrue(0 < least <= most, again_said)
        converted = run([CLI, "convert", raw, "-o", again])
        self.assertEqual(converted.returncode, 0, converted.stderr)
        with open(out, "rb") as a, open(again, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def stripped_copy(self, debuglink):
        """A stripped copy of the runtime, its debug file elsewhere or next
        to it (found through .gnu_debuglink)."""
        debug = self.path("example.debug")
        stripped = self.path("example-stripped")
        for cmd in (["objcopy", "--only-keep-debug", EXAMPLE_NOPROBES, debug],
                    ["objcopy", "--strip-all"] +
                    ([f"--add-gnu-debuglink={debug}"] if debuglink else []) +
                    [EXAMPLE_NOPROBES, stripped]):
            proc = run(cmd, cwd=self.tmp)
            self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn(".symtab", run(["readelf", "-S", stripped]).stdout)
        return stripped, debug

    def test_symbol_mode_stripped_with_debuglink(self):
        stripped, _ = self.stripped_copy(debuglink=True)
        _, sym = self.record(stripped, "--rules", RULES)
        self.assert_same_as_usdt(self.usdt(), sym)

    def test_symbol_mode_stripped_with_debug_file_option(self):
        stripped, debug = self.stripped_copy(debuglink=False)
        moved = self.path("elsewhere.debug")
        shutil.move(debug, moved)
        _, sym = self.record(stripped, "--rules", RULES, "--debug-file",
                             moved)
        self.assert_same_as_usdt(self.usdt(), sym)

    # record's other refusals are checked the same way
    assert_one_line_error = test_record.RecordErrorTest.assert_one_line_error

    def assert_fails(self, proc, *needles):
        self.assert_one_line_error(proc, *needles)
        self.assertEqual(proc.returncode, 1)

    def test_symbol_mode_stripped_without_debug_file_fails(self):
        stripped, debug = self.stripped_copy(debuglink=False)
        os.unlink(debug)
        out = self.path("none.etdp")
        proc = run([CLI, "record", "-o", out, "--rules", RULES, "--",
                    stripped, "-n", "1"])
        self.assert_fails(proc, stripped, "stripped",
                                   "no debug file was found", "build-id",
                                   "--debug-file FILE")
        self.assertFalse(os.path.exists(out))

    def test_symbol_mode_wrong_debug_file_fails(self):
        stripped, _ = self.stripped_copy(debuglink=False)
        proc = run([CLI, "record", "-o", self.path("o.etdp"), "--rules",
                    RULES, "--debug-file", EXAMPLE, "--", stripped])
        self.assert_fails(proc, f"{EXAMPLE}: not a debug file of")

    def test_symbol_mode_bad_rules_file_fails(self):
        rules = self.path("bad.rules")
        with open(rules, "w") as f:
            f.write("event ok Ok\nkernel op_{x} E\n")
        proc = run([CLI, "record", "-o", self.path("o.etdp"), "--rules",
                    rules, "--", EXAMPLE_NOPROBES, "-n", "1"])
        self.assert_fails(proc, f"{rules}:2:", "{op}")

    def test_symbol_mode_no_rule_matches(self):
        proc = run([CLI, "record", "-o", self.path("o.etdp"), "--",
                    EXAMPLE_NOPROBES, "-n", "1"])
        self.assert_fails(proc, "matches a rule", "--rules FILE")

    def test_symbol_mode_program_of_another_model(self):
        """add.pte plans only aten::add: no example kernel gets an id."""
        proc, sym = self.record(EXAMPLE_NOPROBES, "--rules", RULES,
                                "--program", os.path.join(FIXTURES, "add.pte"),
                                n=1)
        self.assertIn("matches no KernelCall instruction", proc.stderr)
        for k in run_keys(sym["run_data"][1]):
            if k[0].startswith("native_call_"):
                self.assertEqual(k[1:], (-1, 0), k)
