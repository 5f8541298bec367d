"""Symbol mode on the real ExecuTorch: the stock executor_runner (its event
tracer compiled out, no probes), its stripped copy with the debug file found
through .gnu_debuglink or given with --debug-file, for every model, against
the ETDumps ETDumpGen wrote (reference/). What symbol mode can see must be
what ETDumpGen wrote: the blocks, the framework events, every kernel event
and its instruction's OPERATOR_CALL with name, chain and instruction id, in
order, per run, and the DELEGATE_CALL of a delegated instruction. Left out
here is what no function spans: the events a delegate logs itself, but for
XNNPACK's operators (test_executorch_xnn_symbols.py). Each
recording says what its probes' own time, measured at attach, was taken out
of the durations: at attach, in its summary and in the ETDump. A build
whose kernel no rule names records the rest and names what it cannot.
The xnn_* models need the XNNPACK backend, which the stock runner lacks: they
are recorded from our runner (tests/executorch/runner.cpp) in symbol mode.
"""
import os
import re
import shutil
import unittest

import executorch_env as et
from etdump_e2e import BUILD, CLI, TempDirTest, decode, run

RUNNER = os.path.join(BUILD, "executorch-runner")
# torch::executor::native::relu_out(KernelRuntimeContext&, ...), mangled
RELU_SYMBOL = "6native8relu_outERN10executorch7runtime20KernelRuntimeContextE" \
    "RKNS3_7etensor6TensorERS7_"
EXECUTIONS = 3
# user/symbol/symbol_calibrate.h: the probes' time taken out, said in the ETDump
PROBE_TIME = "etdump-bpf-probe-time:1;"


def visible(ev):
    """(name, chain, instruction) of an event symbol mode can see, or None
    for what it cannot: delegate-logged events."""
    pe = ev["profile_event"]
    if pe.get("delegate_debug_id_str") or pe["delegate_debug_id_int"] != -1:
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
        dump = decode(out)
        self.assert_probe_time_said(proc.stderr, dump)
        return proc, dump

    def assert_probe_time_said(self, stderr, dump):
        """Measured at attach, said then and in the summary, and in the
        metadata of each run's outermost event, the same figures."""
        said = re.findall(r"durations (?:are|were) written less the "
                          r"probes' own time, measured at attach: "
                          r"(\d+) ns per probed scope and (\d+) ns", stderr)
        self.assertEqual(len(said), 2, stderr)
        self.assertEqual(said[0], said[1])
        scope, call = map(int, said[0])
        self.assertGreater(scope, 0)
        self.assertGreaterEqual(call, scope)
        for r in dump["run_data"]:
            meta = bytes(r["events"][-1]["profile_event"]
                         ["delegate_debug_metadata"]).decode()
            self.assertTrue(meta.startswith(PROBE_TIME), meta)
            fields = dict(f.split("=") for f in meta.split(";")[1:])
            self.assertEqual((int(fields["scope_ns"]),
                              int(fields["call_ns"])), (scope, call))

    def assert_as_etdumpgen(self, binary, model, *extra):
        proc, ours = self.record(binary, model, *extra)
        ref = decode(et.reference(model, EXECUTIONS))
        expect = runs_visible(ref)
        self.assertEqual(runs_visible(ours), expect)
        # nothing but what ETDumpGen wrote: with the XNNPACK operators,
        # which symbol mode reads in XNNPACK itself (their names and ids:
        # test_executorch_xnn_symbols.py)
        self.assertEqual(sum(len(r["events"]) for r in ours["run_data"]),
                         sum(len(r["events"]) for r in ref["run_data"]))
        return proc

    def test_stock_runner_every_model(self):
        for model in et.models():
            with self.subTest(model=model):
                extra = ("--symbols",) if model.startswith("xnn_") else ()
                self.assert_as_etdumpgen(runner_for(model), model, *extra)

    def test_delegate_call_of_an_xnnpack_program(self):
        _, ours = self.record(RUNNER, "xnn_mlp", "--symbols")
        execute = [k for k in map(visible, ours["run_data"][1]["events"])
                   if k]
        self.assertEqual(execute[0], ("DELEGATE_CALL", 0, 0))

    def test_stripped_runner_finds_its_debug_file_by_debuglink(self):
        # the .debug file sits beside the stripped runner
        for model in ("cnn", "linear"):
            with self.subTest(model=model):
                self.assert_as_etdumpgen(et.STRIPPED_RUNNER, model)

    def renamed_copy(self, name, keep):
        """A copy of the stock runner whose kernel symbols for which
        keep(symbol) is false get names no rule knows, as another build or
        vendor library would spell them."""
        proc = run(["nm", et.STOCK_RUNNER])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        kernels = [line.split()[2] for line in proc.stdout.splitlines()
                   if re.search(r" T \S*6native\d+\w*_outE", line)]
        renames = [f"--redefine-sym={k}=vendor_kernel_{i}"
                   for i, k in enumerate(kernels) if not keep(k)]
        self.assertTrue(renames)
        copy = self.path(name)
        proc = run(["objcopy", *renames, et.STOCK_RUNNER, copy])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return copy, len(renames)

    def test_another_build_records_what_it_can(self):
        """A build whose relu kernel no rule names: the rest of cnn.pte is
        recorded as ETDumpGen wrote it, and what is missing is named
        once."""
        other, n = self.renamed_copy("other_build",
                                     lambda k: not k.endswith(RELU_SYMBOL))
        self.assertEqual(n, 1)
        proc, ours = self.record(other, "cnn")
        said = re.findall(r"no function of the target stands for .*",
                          proc.stderr)
        self.assertEqual(len(said), 1, proc.stderr)
        self.assertIn("2 of its 10 kernel and delegate instructions", said[0])
        self.assertIn("relu.out (instructions 1, 4)", said[0])
        self.assertNotIn("convolution", said[0])
        # relu's instructions (1 and 4) and nothing else left out
        ref = decode(et.reference("cnn", EXECUTIONS))
        expect = [(name, [k for k in keys if k[1:] not in ((0, 1), (0, 4))])
                  for name, keys in runs_visible(ref)]
        self.assertEqual(runs_visible(ours), expect)

    def test_a_build_with_no_kernel_mapped_says_so(self):
        """Without --program, that no kernel at all maps is what can be
        told; the runtime's own functions are still recorded."""
        other, _ = self.renamed_copy("no_kernels", lambda k: False)
        out = self.path("no_kernels.etdp")
        proc = run([CLI, "record", "-o", out, "--", other, "--model_path",
                    et.model("cnn"), "--print_output", "none"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr.count("no kernel function of the "
                                           "target matches a rule"), 1,
                         proc.stderr)
        names = [[e["profile_event"]["name"] for e in r["events"]]
                 for r in decode(out)["run_data"]]
        self.assertEqual(names, [["Method::init", "Program::load_method"],
                                 ["Method::execute"]])

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
        self.assertEqual(rows[0], ["FILE", "KIND", "FUNCTION", "EVENT", "ENTRY",
                                   "RETURN", "TRAPS"])
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
        # found beside the binary's real path, as gdb looks (../shared may
        # be a symbolic link)
        debug = os.path.realpath(et.STRIPPED_DEBUG)
        self.assertIn(f"symbols: debug file {debug}", proc.stderr)


if __name__ == "__main__":
    unittest.main()
