"""Symbol mode on the real ExecuTorch: the stock executor_runner (its event
tracer compiled out, no probes), its stripped copy with the debug file found
through .gnu_debuglink or given with --debug-file, for every model, against
the ETDumps ETDumpGen wrote (reference/). What symbol mode can see must be
what ETDumpGen wrote: the blocks, the framework events, every kernel event
with its name, chain and instruction id, in order, per run, and the
DELEGATE_CALL of a delegated instruction. What no function spans is left
out: OPERATOR_CALL (ETDumpGen's scope around the kernel call inside
Method::execute_instruction) and the events a delegate logs itself.
The xnn_* models need the XNNPACK backend, which the stock runner lacks: they
are recorded from our runner (tests/executorch/runner.cpp) in symbol mode.
"""
import os
import shutil
import unittest

import executorch_env as et
from etdump_e2e import BUILD, CLI, TempDirTest, decode, run

RUNNER = os.path.join(BUILD, "executorch-runner")
EXECUTIONS = 3


def visible(ev):
    """(name, chain, instruction) of an event symbol mode can see, or None
    for what it cannot: OPERATOR_CALL and delegate-logged events."""
    pe = ev["profile_event"]
    if pe.get("delegate_debug_id_str") or pe["delegate_debug_id_int"] != -1:
        return None
    if pe.get("name") == "OPERATOR_CALL":
        return None
    return (pe["name"], pe["chain_index"], pe["instruction_id"])


def runs_visible(dump):
    return [(r["name"], [k for k in map(visible, r["events"]) if k])
            for r in dump["run_data"]]


def runner_for(model):
    return RUNNER if model.startswith("xnn_") else et.STOCK_RUNNER


class ExecuTorchSymbolModeTest(TempDirTest):
    def record(self, binary, model, *extra):
        out = self.path(f"{model}{len(os.listdir(self.tmp))}.etdp")
        proc = run([CLI, "record", "-o", out, "--program", et.model(model),
                    *extra, "--", binary, "--model_path", et.model(model),
                    "--num_executions", str(EXECUTIONS)], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("symbol mode", proc.stderr)
        return proc, decode(out)

    def assert_as_etdumpgen(self, binary, model, *extra):
        proc, ours = self.record(binary, model, *extra)
        ref = decode(et.reference(model, EXECUTIONS))
        expect = runs_visible(ref)
        self.assertEqual(runs_visible(ours), expect)
        # nothing but what ETDumpGen wrote
        self.assertEqual(sum(len(r["events"]) for r in ours["run_data"]),
                         sum(len(k) for _, k in expect))
        return proc

    def test_stock_runner_every_model(self):
        for model in et.models():
            with self.subTest(model=model):
                extra = ("--symbols",) if model.startswith("xnn_") else ()
                self.assert_as_etdumpgen(runner_for(model), model, *extra)

    def test_delegate_call_of_an_xnnpack_program(self):
        _, ours = self.record(RUNNER, "xnn_mlp", "--symbols")
        execute = ours["run_data"][1]["events"]
        self.assertEqual(visible(execute[0]), ("DELEGATE_CALL", 0, 0))

    def test_stripped_runner_finds_its_debug_file_by_debuglink(self):
        # the .debug file sits beside the stripped runner
        for model in ("cnn", "linear"):
            with self.subTest(model=model):
                self.assert_as_etdumpgen(et.STRIPPED_RUNNER, model)

    def test_stripped_runner_with_debug_file_option(self):
        # a copy alone in a folder: no debuglink lookup can find it
        alone = self.path("runner")
        shutil.copy(et.STRIPPED_RUNNER, alone)
        without = run([CLI, "record", "-o", self.path("none.etdp"), "--",
                       alone, "--model_path", et.model("add")])
        self.assertEqual(without.returncode, 1)
        self.assertIn("--debug-file", without.stderr)
        self.assertFalse(os.path.exists(self.path("none.etdp")))
        for model in ("add", "cnn"):
            with self.subTest(model=model):
                self.assert_as_etdumpgen(alone, model, "--debug-file",
                                         et.STRIPPED_DEBUG)

    def test_list_previews_what_symbol_mode_attaches_to(self):
        proc = run([CLI, "list", et.STOCK_RUNNER])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = [line.split("\t") for line in proc.stdout.splitlines()]
        self.assertEqual(rows[0], ["FILE", "KIND", "FUNCTION", "EVENT"])
        events = {(r[1], r[3]) for r in rows[1:]}
        for want in (("kernel", "native_call_convolution.out"),
                     ("block", "Method::execute (opens a run 'Execute')"),
                     ("event", "Method::init")):
            self.assertIn(want, events)
        self.assertIn("`record` would use symbol mode", proc.stderr)
        self.assertIn("symbols: its own .symtab", proc.stderr)
        # the stripped copy: the debug file its .gnu_debuglink names
        proc = run([CLI, "list", et.STRIPPED_RUNNER])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(len(proc.stdout.splitlines()), len(rows))
        self.assertIn(f"symbols: debug file {et.STRIPPED_DEBUG}",
                      proc.stderr)


if __name__ == "__main__":
    unittest.main()
