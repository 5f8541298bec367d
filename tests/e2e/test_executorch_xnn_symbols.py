"""Symbol mode on the stock XNNPACK runner (bin/executor_runner_xnn: no
event tracer, no XNNPACK profiling, no DWARF): each XNNPACK operator run
is the delegate event ETDumpGen's XNNPACK profiler writes (reference/
xnn_*-x3.etdp): same name ("Fully Connected (NC, F32) GEMM #1"), same
ids, same order, before its DELEGATE_CALL, for the unstripped runner, the
stripped one with --debug-file, and the stripped one beside its debug file
(.gnu_debuglink). A copy whose XNNPACK reads the operator's type elsewhere
gets no operator name at all, says so, and keeps its DELEGATE_CALL.
Models loaded and freed in turn in one process (XNNPACK's operators
deleted, their memory reused) keep their own names: the fields a thread
keeps of an operator are dropped where XNNPACK deletes one.
"""
import os
import shutil
import signal
import subprocess
import time
import unittest

import executorch_env as et
from etdump_e2e import BUILD, CLI, Recorder, TempDirTest, decode, run

EXECUTIONS = 3
XNN_RUNNER = os.path.join(et.BIN, "executor_runner_xnn")
XNN_STRIPPED = os.path.join(et.BIN, "executor_runner_xnn_stripped")
XNN_DEBUG = XNN_STRIPPED + ".debug"
# ours, with XNNPACK, symbols, and --model_path repeatable
RUNNER = os.path.join(BUILD, "executorch-runner")
MODELS = ("xnn_linear", "xnn_mlp")
# xnn_operator_type_to_string_v2's start: mov %rdi,%rax; mov 0xb8(%rdi),%edi
# (op->type); cmp $42,%edi
TYPE_READ = bytes.fromhex("4889f8" "8bbfb8000000" "83ff2a")


def key(ev):
    """(kind, name, chain, instruction, delegate int id) of an event."""
    pe = ev["profile_event"]
    if pe.get("delegate_debug_id_str"):
        return ("delegate", pe["delegate_debug_id_str"], pe["chain_index"],
                pe["instruction_id"], pe["delegate_debug_id_int"])
    return ("event", pe["name"], pe["chain_index"], pe["instruction_id"],
            pe["delegate_debug_id_int"])


def execute_runs(dump):
    return [[key(e) for e in r["events"]] for r in dump["run_data"]
            if r["name"] == "Execute"]


def operators(run):
    return [k for k in run if k[0] == "delegate"]


class XnnpackSymbolModeTest(TempDirTest):
    def record(self, binary, model, *extra):
        out = self.path(f"{model}{len(os.listdir(self.tmp))}.etdp")
        proc = run([CLI, "record", "-o", out, *extra, "--", binary,
                    "--model_path", et.model(model), "--num_executions",
                    str(EXECUTIONS), "--print_output", "none"], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("symbol mode", proc.stderr)
        return proc, decode(out)

    def assert_operators_as_etdumpgen(self, binary, model, *extra):
        proc, ours = self.record(binary, model, *extra)
        ref = execute_runs(decode(et.reference(model, EXECUTIONS)))
        got = execute_runs(ours)
        self.assertEqual(len(got), EXECUTIONS)
        for run_got, run_ref in zip(got, ref):
            # names, ids and order of the operators
            self.assertEqual(operators(run_got), operators(run_ref))
            self.assertTrue(operators(run_ref))
            # written where ETDumpGen writes them: right before their
            # DELEGATE_CALL, which holds them in time
            names = [k[1] for k in run_got]
            first = names.index(operators(run_ref)[0][1])
            call = names.index("DELEGATE_CALL")
            self.assertEqual(call, first + len(operators(run_ref)))
        for r in ours["run_data"]:
            if r["name"] != "Execute":
                continue
            evs = [e["profile_event"] for e in r["events"]]
            call = next(e for e in evs if e.get("name") == "DELEGATE_CALL")
            for e in evs:
                if e.get("delegate_debug_id_str"):
                    self.assertLessEqual(call["start_time"], e["start_time"])
                    self.assertLessEqual(e["start_time"], e["end_time"])
                    self.assertLessEqual(e["end_time"], call["end_time"])
        self.assertNotIn("XNNPACK's operators are not recorded", proc.stderr)
        return proc

    def test_one_trap_an_operator(self):
        """Once the gaps after the returns are measured, an XNNPACK
        operator takes one trap, ended at the next operator's entry or at
        its delegate call's return: a service recorded with -p past that
        point writes ETDumpGen's operators in every run, each inside its
        DELEGATE_CALL and lasting some time, 9 traps an execution of
        xnn_mlp.pte (Method::execute 2, DELEGATE_CALL 2, _softmax 1, an
        operator 1)."""
        want = operators(execute_runs(decode(et.reference("xnn_mlp",
                                                          EXECUTIONS)))[0])
        target = subprocess.Popen(
            [XNN_RUNNER, "--model_path", et.model("xnn_mlp"),
             "--num_executions", "1000000000", "--print_output", "none"],
            stdout=subprocess.DEVNULL)
        try:
            out = self.path("one-trap.etdp")
            rec = Recorder(["-o", out, "-p", str(target.pid)])
            rec.wait_for("taken out now", timeout=120)
            # runs with one trap an operator, after the returns came out
            time.sleep(0.5)
            # held still, so that what the recording holds is what ran
            # until now, whatever the recorder's pace (an ASan build's
            # drains the ring for seconds while the runner would go on)
            target.send_signal(signal.SIGSTOP)
            rec.signal(signal.SIGINT)
            self.assertEqual(rec.wait(timeout=120), 0, rec.stderr)
            self.assertIsNone(target.poll(), "the target died")
        finally:
            target.kill()
            target.wait()
        self.assertIn("9 traps per 'Execute' run", rec.stderr)
        self.assertNotIn("in no probed call", rec.stderr)
        dump = decode(out)
        runs = [r for r in dump["run_data"] if r["name"] == "Execute"]
        self.assertGreater(len(runs), 100)
        for r in runs:
            keys = [key(e) for e in r["events"]]
            self.assertEqual(operators(keys), want)
            evs = [e["profile_event"] for e in r["events"]]
            call = next(e for e in evs if e.get("name") == "DELEGATE_CALL")
            for e in evs:
                if e.get("delegate_debug_id_str"):
                    self.assertLessEqual(call["start_time"], e["start_time"])
                    self.assertLess(e["start_time"], e["end_time"])
                    self.assertLessEqual(e["end_time"], call["end_time"])

    def test_unstripped(self):
        for model in MODELS:
            with self.subTest(model=model):
                self.assert_operators_as_etdumpgen(XNN_RUNNER, model)

    def test_with_program(self):
        for model in MODELS:
            with self.subTest(model=model):
                self.assert_operators_as_etdumpgen(
                    XNN_RUNNER, model, "--program", et.model(model))

    def test_stripped_with_debug_file(self):
        # alone in a folder: only --debug-file gives its symbols
        alone = self.path("runner")
        shutil.copy(XNN_STRIPPED, alone)
        for model in MODELS:
            with self.subTest(model=model):
                self.assert_operators_as_etdumpgen(alone, model,
                                                   "--debug-file", XNN_DEBUG)

    def test_stripped_with_debuglink(self):
        for model in MODELS:
            with self.subTest(model=model):
                self.assert_operators_as_etdumpgen(XNN_STRIPPED, model)

    def test_another_layout_gets_no_name(self):
        """XNNPACK reading the operator's type at another offset (a byte
        of the copy patched): no operator is named, one line says why, and
        the rest is recorded as before."""
        with open(XNN_RUNNER, "rb") as f:
            data = bytearray(f.read())
        self.assertEqual(data.count(TYPE_READ), 1)
        at = data.index(TYPE_READ)
        data[at + 5] = 0xc0  # mov 0xc0(%rdi),%edi: the microkernel type
        other = self.path("other_layout")
        with open(other, "wb") as f:
            f.write(data)
        os.chmod(other, 0o755)
        proc, ours = self.record(other, "xnn_mlp")
        said = [line for line in proc.stderr.splitlines()
                if "XNNPACK's operators are not recorded" in line]
        self.assertEqual(len(said), 1, proc.stderr)
        self.assertIn("op->type at 0xb8", said[0])
        for run_got in execute_runs(ours):
            self.assertEqual(operators(run_got), [])
            self.assertEqual([k[1] for k in run_got],
                             ["DELEGATE_CALL", "native_call__softmax.out",
                              "OPERATOR_CALL", "Method::execute"])

    def test_models_in_turn_keep_their_names(self):
        """xnn_mlp, xnn_linear, xnn_mlp loaded, run and freed in turn in
        one process (--symbols: our runner has the tracer's probes, but
        none is attached to a method here): each run's operators are its
        model's, as ETDumpGen names them, and the recorder saw each
        operator of the first two models deleted."""
        turn = ("xnn_mlp", "xnn_linear", "xnn_mlp")
        out = self.path("turns.etdp")
        argv = [CLI, "record", "-v", "--symbols", "-o", out, "--", RUNNER,
                "--no-tracer", "--num_executions", str(EXECUTIONS)]
        for model in turn:
            argv += ["--model_path", et.model(model)]
        proc = run(argv, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        got = execute_runs(decode(out))
        self.assertEqual(len(got), EXECUTIONS * len(turn))
        for i, model in enumerate(turn):
            ref = execute_runs(decode(et.reference(model, EXECUTIONS)))
            for k in range(EXECUTIONS):
                with self.subTest(model=model, turn=i, run=k):
                    self.assertEqual(
                        operators(got[i * EXECUTIONS + k]),
                        operators(ref[k]))
        said = [line for line in proc.stderr.splitlines()
                if "xnn_delete_operator ran" in line]
        self.assertEqual(len(said), 1, proc.stderr)
        deleted = int(said[0].split("ran ")[1].split()[0])
        # 4 operators of xnn_mlp and 1 of xnn_linear at least
        self.assertGreaterEqual(deleted, 5)


if __name__ == "__main__":
    unittest.main()
