"""etdump-bpf list --symbols: what symbol mode would attach to, without
attaching (the same search record --symbols makes)."""
import os

from etdump_e2e import CLI, EXAMPLE_NOPROBES, ROOT, TempDirTest, run

RULES = os.path.join(ROOT, "tests", "example", "example.rules")
# what tests/example/example.rules names in the example runtime
EXAMPLE_EVENTS = {
    "Program::load_method", "Method::init", "Method::execute",
    "DELEGATE_CALL", "native_call__softmax.out",
    "native_call_convolution.out", "native_call_relu.out",
    "native_call_max_pool2d_with_indices.out", "native_call_view_copy.out",
    "native_call_touch_pages.out", "native_call_yield.out",
    "native_call_spin.out",
}


class ListSymbolsTest(TempDirTest):
    def test_the_example_rules_find_every_event(self):
        proc = run([CLI, "list", "--symbols", "--rules", RULES,
                    EXAMPLE_NOPROBES])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = [ln.split("\t") for ln in proc.stdout.splitlines()]
        self.assertEqual({ln[2] for ln in lines}, EXAMPLE_EVENTS)
        for path, function, event, kind, offset, entry in lines:
            self.assertEqual(path, EXAMPLE_NOPROBES)
            self.assertIn(kind, ("event", "block", "kernel", "delegate"))
            self.assertGreater(int(offset, 16), 0)
            self.assertIn(entry, ("simulated", "single-stepped"))
        kinds = {ln[2]: ln[3] for ln in lines}
        self.assertEqual(kinds["Method::execute"], "block")
        self.assertEqual(kinds["DELEGATE_CALL"], "delegate")

    def test_no_rule_matching_is_one_line_and_exit_1(self):
        proc = run([CLI, "list", "--symbols", EXAMPLE_NOPROBES])
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout, "")
        self.assertIn("no function a rule names", proc.stderr)
        self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)

    def test_rules_without_symbols_is_a_usage_error(self):
        proc = run([CLI, "list", "--rules", RULES, EXAMPLE_NOPROBES])
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--symbols", proc.stderr)

    def test_a_bad_rules_file_is_named(self):
        bad = os.path.join(self.tmp, "bad.rules")
        with open(bad, "w") as f:
            f.write("kernel\n")
        proc = run([CLI, "list", "--symbols", "--rules", bad,
                    EXAMPLE_NOPROBES])
        self.assertEqual(proc.returncode, 1)
        self.assertIn(bad, proc.stderr)
        self.assertEqual(proc.stdout, "")
