"""etdump-bpf diff: recordings of the example runtime with one operator
made slower (--slow-op) and recordings of the same build, compared run by
run; the gate a CI job uses (--fail-above) and what it says.

The two recordings of a comparison are made side by side (at the same
time), as a CI job should make them: a machine busy with other work during
one recording only (other jobs share this one) slows every operator of
that recording alike, and no test over its runs can tell that from a
slower build."""
import json
import subprocess

from etdump_e2e import CLI, EXAMPLE, TempDirTest, decode, run

SLOW_OP = "native_call_relu.out"
KERNELS = ("native_call_convolution.out", "native_call_relu.out",
           "native_call_max_pool2d_with_indices.out",
           "native_call_view_copy.out", "native_call__softmax.out")


def diff(args):
    return run([CLI, "diff"] + args)


class DiffTest(TempDirTest):
    def record_pair(self, base_args=(), new_args=()):
        """Two recordings made at the same time: base.etdp, new.etdp."""
        procs, outs = [], []
        for name, args in (("base", base_args), ("new", new_args)):
            outs.append(self.path(f"{name}.etdp"))
            procs.append(subprocess.Popen(
                [CLI, "record", "-f", "-o", outs[-1], "--", EXAMPLE,
                 "-n", "20"] + list(args), stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, text=True))
        for proc in procs:
            _, err = proc.communicate(timeout=60)
            self.assertEqual(proc.returncode, 0, err)
        for out in outs:
            decode(out)  # a valid ETDump, as flatc reads it
        return outs

    def diff_json(self, base, new, extra=()):
        proc = diff([base, new, "--json"] + list(extra))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr, "")
        return json.loads(proc.stdout)

    def row(self, rows, name):
        found = [r for r in rows if r["event_name"] == name]
        self.assertEqual(len(found), 1, name)
        return found[0]

    def test_injected_slowdown_is_found_and_gated(self):
        base, slow = self.record_pair(new_args=["--slow-op", "relu.out:300"])
        rows = self.diff_json(base, slow, ["--units", "us"])
        relu = self.row(rows, SLOW_OP)
        self.assertEqual(relu["verdict"], "slower")
        self.assertTrue(relu["significant"])
        # 300 us spun inside a kernel of a few us
        self.assertGreater(relu["p50_change (us)"], 250)
        self.assertLess(relu["p_value"], 0.01)
        self.assertEqual((relu["runs_base"], relu["runs_new"]), (20, 20))
        # largest change first: the operator and the execution holding it
        self.assertEqual({r["event_name"] for r in rows[:2]},
                         {SLOW_OP, "Method::execute"})
        for name in KERNELS:
            if name != SLOW_OP:
                self.assertEqual(self.row(rows, name)["verdict"], "", name)
        # OPERATOR_CALL rows only when asked, as print_data_tabular
        self.assertNotIn("OPERATOR_CALL", [r["event_name"] for r in rows])
        with_calls = self.diff_json(base, slow, ["--operator-call"])
        self.assertIn("OPERATOR_CALL", [r["event_name"] for r in with_calls])

        gate = diff([base, slow, "--fail-above", "50"])
        self.assertEqual(gate.returncode, 3, gate.stderr)
        lines = gate.stderr.splitlines()
        self.assertEqual(len(lines), 1, gate.stderr)
        self.assertIn(f"{SLOW_OP} (Execute) p50 +", lines[0])
        self.assertIn("above --fail-above 50%", lines[0])
        self.assertIn(SLOW_OP, gate.stdout)  # the table is still printed

        # the other way round it is an improvement, which passes the gate
        back = diff([slow, base, "--fail-above", "50", "--json"])
        self.assertEqual(back.returncode, 0, back.stderr)
        self.assertEqual(self.row(json.loads(back.stdout),
                                  SLOW_OP)["verdict"], "faster")
        # a change below the gate's percentage passes too
        high = diff([base, slow, "--fail-above", "1000000"])
        self.assertEqual(high.returncode, 0, high.stderr)

    def test_same_build_raises_no_false_alarm(self):
        # repeated trials: three pairs, each compared both ways
        for trial in range(3):
            pair = self.record_pair()
            for a, b in (pair, pair[::-1]):
                proc = diff([a, b, "--fail-above", "5", "--json"])
                self.assertEqual(proc.returncode, 0, proc.stderr)
                rows = json.loads(proc.stdout)
                flagged = [(r["event_name"], r["p50_change_pct"],
                            r["p_value"]) for r in rows if r["verdict"]]
                self.assertEqual(flagged, [], f"trial {trial}")

    def test_table_and_top(self):
        base, slow = self.record_pair(new_args=["--slow-op", "relu.out:300"])
        proc = diff([base, slow, "--top", "2", "--units", "us"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = proc.stdout.splitlines()
        self.assertTrue(lines[0].startswith(f"base {base}: 21 runs; new "
                                            f"{slow}: 21 runs"), lines[0])
        self.assertIn("slower", lines[1])
        header = lines[3].split()
        self.assertEqual(header[:4], ["event_block_name", "event_name",
                                      "runs_base", "runs_new"])
        self.assertEqual(len(lines), 6, proc.stdout)  # 2 rows
        self.assertTrue(all(not ln.endswith(" ") for ln in lines))
        csv = diff([base, slow, "--csv"])
        self.assertEqual(csv.returncode, 0, csv.stderr)
        self.assertIn("event_block_ordinal", csv.stdout.splitlines()[0])

    def test_bad_input(self):
        missing = self.path("missing.etdp")
        proc = diff([missing, missing])
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout, "")
        self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
        self.assertTrue(proc.stderr.startswith(f"etdump-bpf: {missing}: "))
        for args in (["only-one.etdp"], ["a", "b", "--fail-above", "x"],
                     ["a", "b", "--bogus"], ["a", "b", "--csv", "--json"]):
            proc = diff(args)
            self.assertEqual(proc.returncode, 2, args)
            lines = proc.stderr.splitlines()
            self.assertEqual(len(lines), 1, proc.stderr)
            self.assertIn("--help", lines[0])
