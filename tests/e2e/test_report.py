"""etdump-bpf report: the Inspector's statistics table, checked against
inspector_ref (the Inspector's rules in plain Python over flatc's decoding)
on ExecuTorch's own files, on files built with flatc to hit its special
rules, and on recordings of the example runtime."""
import csv
import glob
import io
import json
import os

import inspector_ref
from etdump_e2e import CLI, EXAMPLE, EXECUTE_EVENTS, SCHEMA, TempDirTest, \
    decode, run

FIXTURES = os.environ.get("ETDUMP_FIXTURES", os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
TUTORIAL = os.path.join(FIXTURES, "executorch-tutorial.etdp")
STATS = ("p10", "p50", "p90", "avg", "min", "max")
SOFTWARE_COUNTERS = "task-clock,page-faults,context-switches"


def report(args):
    return run([CLI, "report"] + args)


class ReportTest(TempDirTest):
    def report_json(self, path, unit=None, extra=()):
        args = [path, "--json"] + (["--units", unit] if unit else []) + \
            list(extra)
        proc = report(args)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr, "")
        return json.loads(proc.stdout)

    def assert_matches_inspector(self, path, unit):
        got = self.report_json(path, unit)
        want = inspector_ref.rows(decode(path), unit)
        self.assertEqual([(r["event_block_index"], r["event_block_name"],
                           r["event_name"]) for r in got],
                         [(r["event_block_index"], r["event_block_name"],
                           r["event_name"]) for r in want])
        for g, w in zip(got, want):
            for key, value in w.items():
                # the same double: the C code and numpy's algorithm agree
                # to the bit, far finer than the nanosecond asked for
                self.assertEqual(g[key], value, f"{g['event_name']}: {key}")
        return got

    def flatc_etdump(self, name, dump):
        """A size-prefixed ETDump that flatc builds from a JSON dict."""
        src = self.path(name + ".json")
        with open(src, "w") as f:
            json.dump(dump, f)
        proc = run(["flatc", "-b", "--size-prefixed", "-o", self.tmp,
                    SCHEMA, src])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return self.path(name + ".etdp")

    def assert_refused(self, path, why):
        proc = report([path])
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertEqual(proc.stdout, "")
        lines = proc.stderr.splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertTrue(lines[0].startswith(f"etdump-bpf: {path}: "),
                        lines[0])
        self.assertIn(why, lines[0])

    # ExecuTorch's own files

    def test_report_tutorial_fixture(self):
        rows = self.assert_matches_inspector(TUTORIAL, "ns")
        self.assertEqual(len(rows), 31)
        self.assertEqual([r["event_name"] for r in rows[:3]],
                         ["Method::init", "Program::load_method",
                          "native_call_convolution.out"])
        self.assertEqual(rows[-1]["event_name"], "Method::execute")
        # Method::init: 399054 -> 421538 in the file
        self.assertEqual(rows[0]["p50 (ns)"], 22484)
        self.assertEqual(rows[0]["runs"], 1)
        self.assertEqual(sum(r["op_call"] for r in rows), 14)
        self.assertFalse(any(r["is_delegated_op"] for r in rows))
        self.assertEqual({r["event_block_name"] for r in rows},
                         {"Default", "Execute"})

    def test_report_every_fixture_in_every_unit(self):
        paths = sorted(glob.glob(os.path.join(FIXTURES, "*.etdp")))
        self.assertGreaterEqual(len(paths), 6)
        for path in paths:
            for unit in ("ns", "us", "ms", "s"):
                with self.subTest(fixture=os.path.basename(path), unit=unit):
                    self.assert_matches_inspector(path, unit)

    def test_report_add_x3_merges_the_execute_runs(self):
        rows = self.assert_matches_inspector(
            os.path.join(FIXTURES, "executorch-add-x3.etdp"), "ns")
        self.assertEqual([(r["event_block_name"], r["event_name"], r["runs"])
                          for r in rows],
                         [("Default", "Method::init", 1),
                          ("Default", "Program::load_method", 1),
                          ("Execute", "native_call_add.out", 3),
                          ("Execute", "OPERATOR_CALL", 3),
                          ("Execute", "Method::execute", 3)])
        add = rows[2]
        self.assertLess(add["min (ns)"], add["p50 (ns)"])
        self.assertLess(add["p50 (ns)"], add["max (ns)"])

    def test_report_debug_events_add_no_rows(self):
        for name in ("executorch-linear-intermediates.etdp",
                     "executorch-linear-outputs.etdp"):
            with self.subTest(fixture=name):
                rows = self.assert_matches_inspector(
                    os.path.join(FIXTURES, name), "ms")
                self.assertEqual([r["event_name"] for r in rows],
                                 ["Method::init", "Program::load_method",
                                  "native_call_mul.out", "OPERATOR_CALL",
                                  "native_call_add.out", "OPERATOR_CALL",
                                  "Method::execute"])

    # the Inspector's special rules, on files built to hit them

    def rules_file(self):
        def pe(name, chain, instr, start, end, **kw):
            return {"profile_event": dict(name=name, chain_index=chain,
                                          instruction_id=instr,
                                          start_time=start, end_time=end,
                                          **kw)}

        def de(name, chain, instr, output=False):
            value = {"val": "Int", "int_value": {"int_val": 3}}
            if output:
                value["output"] = {"bool_val": True}
            return {"debug_event": {"name": name, "chain_index": chain,
                                    "instruction_id": instr,
                                    "debug_entry": value}}

        def execute(k):
            return {"name": "Execute", "events": [
                de("", 0, 0),
                pe("native_call_a.out", 0, 0, 100, 150 + k),
                pe("OPERATOR_CALL", 0, 0, 90, 160 + k),
                pe("OPERATOR_CALL", 0, 4, 90, 160 + k),
                # chain_index is no part of a signature: replaces the
                # above (not the one of instruction 0, whose group has a
                # debug event, so another signature)
                pe("OPERATOR_CALL", 1, 4, 90, 170 + 3 * k),
                de("renamed", 0, 1),
                pe("native_call_b.out", 0, 1, 200, 230),
                {"profile_event": {"chain_index": 0, "instruction_id": 2,
                                   "delegate_debug_id_str": "conv #0",
                                   "start_time": 123456789 + k,
                                   "end_time": 123457790 + 7 * k}},
                {"profile_event": {"name": "ignored", "chain_index": 0,
                                   "instruction_id": 2,
                                   "delegate_debug_id_int": 0,
                                   "start_time": 4294967000,
                                   "end_time": 100 + k}},
                de("lonely", 0, 3),
                pe("Method::execute", -1, 0, 50, 4000 + 11 * k),
                de("out", 2**64 - 1, 0, output=True),
            ]}

        return self.flatc_etdump("rules", {"run_data": [
            {"name": "Default", "events": [
                pe("Method::init", -1, 0, 10, 20)]},
            {"name": "Execute"},  # no events vector: skipped
        ] + [execute(k) for k in range(9)] + [
            {"name": "Execute", "bundled_input_index": 1,
             "events": [pe("Method::execute", -1, 0, 0, 5)]},
        ]})

    def test_report_inspector_rules(self):
        path = self.rules_file()
        for unit in ("ns", "ms"):
            rows = self.assert_matches_inspector(path, unit)
        self.assertEqual([(r["event_block_index"], r["event_name"])
                          for r in rows],
                         [(0, "Method::init"), (1, "native_call_a.out"),
                          (1, "OPERATOR_CALL"), (1, "OPERATOR_CALL"),
                          (1, "renamed"), (1, "conv #0"), (1, "0"),
                          (1, "lonely"), (1, "Method::execute"),
                          (2, "Method::execute")])
        self.assertEqual([r["runs"] for r in rows], [1] + [9] * 8 + [1])
        # the last of the two, over k = 0..8: 170 + 3 * 8 - 90
        self.assertEqual(rows[3]["max (ms)"], 104 / 1e6)
        conv, zero, lonely = rows[5], rows[6], rows[7]
        self.assertTrue(conv["is_delegated_op"])
        self.assertEqual(conv["delegate_debug_identifier"], "conv #0")
        self.assertEqual(zero["delegate_debug_identifier"], 0)
        # the wrap rule on converted times: 32 bits of milliseconds
        self.assertEqual(zero["min (ms)"],
                         (4294967295 - 4294967000 / 1e6) + 100 / 1e6)
        self.assertFalse(lonely["is_delegated_op"])
        self.assertIsNone(lonely["p50 (ms)"])

    def test_report_refuses_what_the_inspector_refuses(self):
        ok = {"profile_event": {"name": "x", "start_time": 1,
                                "end_time": 2}}
        cases = {
            "allocation": ([{"name": "Execute", "events": [
                ok, {"allocation_event": {"allocator_id": 1}}]}],
                "run_data[0].events[1] is an allocation event"),
            "empty": ([{"name": "Default", "events": [ok]},
                       {"name": "Execute", "events": []}],
                      "run_data[1] (\"Execute\") has an empty events vector"),
            "noruns": ([], "no run has events"),
            "noevents": ([{"name": "Execute"}], "no run has events"),
            "wrap": ([{"name": "Execute", "events": [
                {"profile_event": {"name": "x", "start_time": 2**33,
                                   "end_time": 5}}]}],
                     "run_data[0].events[0] starts at 8589934592 and ends "
                     "at 5"),
        }
        for name, (runs, why) in cases.items():
            with self.subTest(case=name):
                self.assert_refused(
                    self.flatc_etdump(name, {"run_data": runs}), why)

    def test_report_truncated_or_corrupt_file(self):
        with open(TUTORIAL, "rb") as f:
            data = f.read()
        path = self.path("bad.etdp")
        variants = [data[:n] for n in range(0, len(data), 61)]
        for pos in range(12, len(data), 37):
            b = bytearray(data)
            b[pos] ^= 0xff
            variants.append(bytes(b))
        refused = 0
        for v in variants:
            with open(path, "wb") as f:
                f.write(v)
            proc = report([path, "--json"])
            self.assertIn(proc.returncode, (0, 1), proc.stderr)
            if proc.returncode == 1:
                refused += 1
                self.assertEqual(proc.stdout, "")
                self.assertEqual(len(proc.stderr.splitlines()), 1,
                                 proc.stderr)
                self.assertTrue(proc.stderr.startswith(
                    f"etdump-bpf: {path}: "), proc.stderr)
            else:  # a flipped byte inside a number or a name
                json.loads(proc.stdout)
        self.assertGreater(refused, len(data) // 61)

    # the three outputs

    def test_report_csv_is_the_json_rows(self):
        rows = self.report_json(TUTORIAL)
        proc = report([TUTORIAL, "--csv"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        table = list(csv.DictReader(io.StringIO(proc.stdout, newline="")))
        self.assertEqual(len(table), len(rows))
        for c, j in zip(table, rows):
            self.assertEqual(list(c), list(j))
            self.assertEqual(c["event_name"], j["event_name"])
            for stat in STATS:
                self.assertEqual(float(c[f"{stat} (ms)"]), j[f"{stat} (ms)"])
            self.assertEqual(c["is_delegated_op"], "False")
            self.assertEqual(c["delegate_backend_name"], "")

    def test_report_no_operator_call(self):
        rows = self.report_json(TUTORIAL)
        kept = self.report_json(TUTORIAL, extra=["--no-operator-call"])
        self.assertEqual(kept, [r for r in rows
                                if "OPERATOR_CALL" not in r["event_name"]])
        self.assertEqual(len(kept), 17)

    def test_report_table(self):
        proc = report([TUTORIAL])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = proc.stdout.splitlines()
        self.assertEqual(lines[0], f"{TUTORIAL}: 2 event blocks from 2 "
                         "runs; times in ms; OPERATOR_CALL rows left out "
                         "(--operator-call shows them)")
        # print_data_tabular()'s columns, then what it lacks
        header = lines[2].split()
        self.assertEqual(header, [
            "event_block_name", "event_name", "p10", "(ms)", "p50", "(ms)",
            "p90", "(ms)", "avg", "(ms)", "min", "(ms)", "max", "(ms)",
            "op_types", "is_delegated_op", "delegate_backend_name", "runs",
            "share", "(%)", "start_time"])
        rows = [line for line in lines[4:] if line]
        # print_data_tabular's 17 rows, and one total line per block
        self.assertEqual(len(rows), 17 + 2)
        self.assertNotIn("OPERATOR_CALL", proc.stdout.split("\n", 1)[1])
        self.assertEqual(rows[0].split()[:3],
                         ["Default", "Method::init", "0.022484"])
        self.assertEqual(rows[0].split()[8:10], ["[]", "False"])
        self.assertEqual(rows[2].split()[:2], ["Default", "(block"])
        self.assertEqual(lines[7], "", "a blank line between the blocks")
        self.assertTrue(all(line == line.rstrip() for line in lines))
        # the Execute total is Method::execute's time (all inside it)
        execute = next(r for r in rows if "Method::execute" in r).split()
        total = rows[-1].split()
        self.assertEqual(total[:3], ["Execute", "(block", "total)"])
        self.assertEqual(total[3:9], execute[2:8])
        with_calls = report([TUTORIAL, "--operator-call"])
        self.assertEqual(len([ln for ln in with_calls.stdout.splitlines()[4:]
                              if ln]), 31 + 2)

    def test_report_sort_and_top(self):
        proc = report([TUTORIAL, "--sort", "share", "--top", "3"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = [ln.split() for ln in proc.stdout.splitlines()[4:] if ln]
        execute = [r for r in rows if r[0] == "Execute"]
        # Method::execute holds everything: 100%, then the two largest
        self.assertEqual(len(execute), 3 + 1)
        self.assertEqual(execute[0][1], "Method::execute")
        shares = [float(r[-2]) for r in execute[:3]]
        self.assertEqual(shares, sorted(shares, reverse=True))
        want = sorted((r for r in self.report_json(TUTORIAL)
                       if r["event_block_name"] == "Execute" and
                       not r["op_call"]),
                      key=lambda r: -r["avg (ms)"])[:3]
        self.assertEqual([r[1] for r in execute[:3]],
                         [r["event_name"] for r in want])
        for bad in (["--sort", "median"], ["--top", "0"], ["--top", "-1"]):
            self.assertEqual(report([TUTORIAL] + bad).returncode, 2, bad)

    def test_report_usage_errors(self):
        for args in (["--units", "h", TUTORIAL], ["--csv", "--json", TUTORIAL],
                     [], [TUTORIAL, TUTORIAL], ["--bogus", TUTORIAL]):
            with self.subTest(args=args):
                self.assertEqual(report(args).returncode, 2)
        proc = report([self.path("missing.etdp")])
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stderr.strip(), "etdump-bpf: " +
                         self.path("missing.etdp") +
                         ": cannot read the file: No such file or directory")

    # recordings of the example runtime

    def record_example(self, extra=()):
        out = self.path("example.etdp")
        proc = run([CLI, "record", "-o", out] + list(extra) +
                   ["--", EXAMPLE, "-n", "5"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return out

    def test_report_recorded_example(self):
        path = self.record_example()
        rows = self.assert_matches_inspector(path, "ms")
        self.assert_matches_inspector(path, "ns")
        want = [("Default", name, 1, False) for name, _, _ in
                [("Method::init", -1, 0), ("Program::load_method", -1, 0)]]
        for name, _, _ in EXECUTE_EVENTS:
            delegated = name.startswith("delegate:")
            want.append(("Execute", name.split(":", 1)[1] if delegated
                         else name, 5, delegated))
        self.assertEqual([(r["event_block_name"], r["event_name"], r["runs"],
                           r["is_delegated_op"]) for r in rows], want)
        for r in rows:
            self.assertGreater(r["min (ms)"], 0, r["event_name"])
            self.assertLessEqual(r["p10 (ms)"], r["p50 (ms)"])
            self.assertLessEqual(r["p50 (ms)"], r["p90 (ms)"])
        proc = report([path, "--no-operator-call"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(proc.stdout.startswith(
            f"{path}: 2 event blocks from 6 runs; times in ms; "
            "OPERATOR_CALL rows left out"), proc.stdout)
        # 11 events and the block's total
        self.assertEqual(sum(line.startswith("Execute ")
                             for line in proc.stdout.splitlines()), 12)

    def test_report_recorded_counters(self):
        path = self.record_example(["-e", SOFTWARE_COUNTERS])
        rows = self.assert_matches_inspector(path, "ms")
        for name in SOFTWARE_COUNTERS.split(","):
            self.assertIn(f"{name}_p50", rows[0])
            self.assertIn(f"{name}_avg", rows[0])
        kernel = next(r for r in rows
                      if r["event_name"] == "native_call_convolution.out")
        self.assertGreater(kernel["task-clock_avg"], 0)
        delegate = next(r for r in rows if r["event_name"] == "linear #0")
        self.assertIsNone(delegate["task-clock_p50"])
