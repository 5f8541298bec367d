"""What the kernel does at each symbol-mode site, on the stock runners
(bin/executor_runner, bin/executor_runner_xnn): `list` says it per site
(ENTRY, RETURN, the traps a call takes), record says it at attach and in
its summary, with the traps and single-stepped hits each run took, counted
from what it recorded. No site the stock runners are recorded at is
single-stepped: cnn.pte's execution takes its 11 probed calls' 22 traps,
xnn_mlp.pte's its 7 calls' 14 (Method::execute, DELEGATE_CALL, 4 XNNPACK
operators, softmax), while the first runs measure the gaps after the
kernels' returns, and with --exact-returns; once the kernels' returns are
out (docs/symbol-mode.md#one-trap-a-kernel), 12 an execution of cnn.pte
(a trap a kernel call), 13 of xnn_mlp.pte. The allocator, probed with
--allocations only, is the one single-stepped entry, and says so.
"""
import re
import unittest

import executorch_env as et
from etdump_e2e import CLI, TempDirTest, run
from test_executorch_xnn_symbols import XNN_RUNNER

EXECUTIONS = 5


def list_rows(binary):
    proc = run([CLI, "list", binary])
    if proc.returncode:
        raise AssertionError(proc.stderr)
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    return rows[0], {r[2]: dict(zip(rows[0], r)) for r in rows[1:]}, \
        proc.stderr


class SiteTrapsTest(TempDirTest):
    def test_list_says_what_the_kernel_does_at_each_site(self):
        for binary in (et.STOCK_RUNNER, XNN_RUNNER):
            with self.subTest(binary=binary):
                header, rows, err = list_rows(binary)
                self.assertEqual(header[4:], ["ENTRY", "RETURN", "TRAPS"])
                alloc = rows.pop(
                    "executorch::runtime::MemoryAllocator::allocate")
                # its first instruction is a mov: stepped, 3 traps a call
                self.assertEqual((alloc["ENTRY"], alloc["TRAPS"]),
                                 ("single-stepped", "3"))
                for function, row in rows.items():
                    self.assertEqual(row["ENTRY"], "emulated", function)
                    # a kernel ends at the next event: its entry alone,
                    # and an XNNPACK operator at the next one's call
                    kernel = row["KIND"] in ("kernel", "xnnpack")
                    self.assertEqual(row["TRAPS"], "1" if kernel else "2",
                                     function)
                    if kernel:
                        self.assertEqual(row["RETURN"], "next event",
                                         function)
                # Method::execute starts with a cmpb: probed past its guard
                self.assertEqual(rows["executorch::runtime::Method::execute"]
                                 ["RETURN"], "uretprobe")
                self.assertIn("entries %d emulated, 1 single-stepped" %
                              len(rows), err)
        _, rows, err = list_rows(XNN_RUNNER)
        # the operator's exit (the jump after its call returns) probed
        # only while the gaps are measured
        self.assertEqual(rows["xnn_run_operator_with_index"]["RETURN"],
                         "next event")
        self.assertIn("1 an XNNPACK operator;", err)
        self.assertIn("--exact-returns: 2 a kernel call, 2 an XNNPACK "
                      "operator", err)

    def record(self, binary, model, *extra, executions=EXECUTIONS):
        out = self.path(f"{model}.etdp")
        proc = run([CLI, "record", "-f", "-o", out, *extra, "--", binary,
                    "--model_path", et.model(model), "--num_executions",
                    str(executions), "--print_output", "none"], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stderr

    def assert_traps(self, err, sites, execute, default):
        attach = [line for line in err.splitlines()
                  if "(etdump-bpf list shows each)" in line]
        self.assertEqual(len(attach), 1, err)
        self.assertIn(f"{sites} site(s): entries {sites} emulated, "
                      "0 single-stepped", attach[0])
        summary = [line for line in err.splitlines()
                   if "traps per 'Execute' run" in line]
        self.assertEqual(len(summary), 1, err)
        self.assertIn(f"{execute} traps per 'Execute' run "
                      "(0 single-stepped hits)", summary[0])
        self.assertIn(f"{default} traps per 'Default' run", summary[0])

    def test_cnn_no_single_stepped_hit(self):
        err = self.record(et.STOCK_RUNNER, "cnn", "--program",
                          et.model("cnn"))
        # 10 kernels and Method::execute, each entry and return
        self.assert_traps(err, 15, 22, 4)

    def test_xnn_mlp_no_single_stepped_hit(self):
        err = self.record(XNN_RUNNER, "xnn_mlp")
        self.assert_traps(err, 17, 14, 4)

    def test_cnn_one_trap_a_kernel(self):
        """Enough executions that the kernels' returns come out: the runs
        after take a trap a kernel call, the first runs' 22 said apart;
        with --exact-returns every run takes 22."""
        err = self.record(et.STOCK_RUNNER, "cnn", "--program",
                          et.model("cnn"), executions=20000)
        self.assertRegex(err, r"12 traps per 'Execute' run \(0 "
                              r"single-stepped hits\) and 22(\.0)? in the "
                              r"\d+ run\(s\) that measured the gaps")
        err = self.record(et.STOCK_RUNNER, "cnn", "--program",
                          et.model("cnn"), "--exact-returns",
                          executions=20000)
        self.assert_traps(err, 15, 22, 4)
        self.assertNotIn("measured the gaps", err)

    def test_allocations_single_step_and_say_so(self):
        err = self.record(et.STOCK_RUNNER, "add", "--allocations")
        self.assertIn("1 single-stepped", err)
        m = re.search(r"(\d+) traps per 'Default' run \((\d+) "
                      r"single-stepped hits\)", err)
        self.assertTrue(m, err)
        # each allocation's entry is stepped: 3 traps where 2 were
        self.assertGreater(int(m.group(2)), 0)


if __name__ == "__main__":
    unittest.main()
