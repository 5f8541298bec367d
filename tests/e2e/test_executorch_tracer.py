"""The real ExecuTorch runtime with our EventTracer (schema/
etdump_event_tracer.h) in our runner (tests/executorch/runner.cpp): for
every model, `record` gives an ETDump whose runs hold the same events as the
one ETDumpGen wrote for the same model and execution count (reference/):
same blocks, names, order, chain and instruction ids, delegate ids and
metadata, OPERATOR_CALL included; only times differ. Both capture modes.
Both files are decoded with flatc and the schema.
"""
import os
import signal
import subprocess
import unittest

import executorch_env as et
from etdump_e2e import (BUILD, CLI, Recorder, TempDirTest, decode, run)

RUNNER = os.path.join(BUILD, "executorch-runner")
EXECUTIONS = 3


def event_identity(ev):
    """What ETDumpGen and a tracer must agree on for one event: all but
    times (and our counters, which only non-delegate events carry)."""
    if "profile_event" in ev and ev["profile_event"]:
        pe = ev["profile_event"]
        delegated = bool(pe.get("delegate_debug_id_str")) or \
            pe["delegate_debug_id_int"] != -1
        return ("profile", pe.get("name"), pe.get("delegate_debug_id_str"),
                pe["delegate_debug_id_int"], pe["chain_index"],
                pe["instruction_id"],
                pe.get("delegate_debug_metadata") if delegated else None)
    if ev.get("debug_event"):
        return ("debug", ev["debug_event"])
    return ("other", sorted(k for k, v in ev.items() if v))


def runs_identity(dump):
    return [(r["name"], r.get("bundled_input_index"),
             [event_identity(e) for e in r.get("events", [])])
            for r in dump["run_data"]]


class ExecuTorchTracerTest(TempDirTest):
    def record(self, model, *extra):
        out = self.path(f"{model}{len(os.listdir(self.tmp))}.etdp")
        proc = run([CLI, "record", "-o", out, *extra, "--", RUNNER,
                    "--model_path", et.model(model),
                    "--num_executions", str(EXECUTIONS)], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc, decode(out)

    def assert_same_as_etdumpgen(self, *extra):
        for model in et.models():
            with self.subTest(model=model):
                proc, ours = self.record(model, *extra)
                ref = decode(et.reference(model, EXECUTIONS))
                self.assertEqual(runs_identity(ours), runs_identity(ref))
                names = [r["name"] for r in ours["run_data"]]
                self.assertEqual(names, ["Default"] + ["Execute"] *
                                 EXECUTIONS)
                self.assertIn("0 dropped", proc.stderr)

    def test_every_model_batched_equals_etdumpgen(self):
        self.assertIn("batched", self.record("add")[0].stderr)
        self.assert_same_as_etdumpgen()

    def test_every_model_per_scope_equals_etdumpgen(self):
        self.assert_same_as_etdumpgen("--precise", "--no-counters")

    def test_per_scope_counters_leave_the_events_as_etdumpgen_wrote(self):
        proc, ours = self.record("cnn", "-e", "task-clock")
        ref = decode(et.reference("cnn", EXECUTIONS))
        self.assertEqual(runs_identity(ours), runs_identity(ref))
        kernels = [e["profile_event"] for r in ours["run_data"]
                   for e in r["events"]
                   if e["profile_event"]["name"].startswith("native_call_")]
        self.assertTrue(kernels)
        for pe in kernels:
            self.assertTrue(pe.get("delegate_debug_metadata"), pe)

    def test_attach_to_a_running_runner(self):
        proc = subprocess.Popen([RUNNER, "--wait-signal", "--model_path",
                                 et.model("cnn"), "--num_executions",
                                 str(EXECUTIONS)], stdout=subprocess.PIPE,
                                text=True)
        try:
            self.assertTrue(proc.stdout.readline().startswith("ready "))
            out = self.path("p.etdp")
            rec = Recorder(["-o", out, "-p", str(proc.pid)])
            rec.wait_attached()
            proc.send_signal(signal.SIGUSR1)
            self.assertEqual(proc.wait(timeout=60), 0)
            self.assertEqual(rec.wait(), 0, rec.stderr)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        ref = decode(et.reference("cnn", EXECUTIONS))
        self.assertEqual(runs_identity(decode(out)), runs_identity(ref))

    def test_detached_runner_computes_what_the_stock_runner_does(self):
        for model in et.models():
            with self.subTest(model=model):
                ours = run([RUNNER, "--model_path", et.model(model),
                            "--print_output"])
                self.assertEqual(ours.returncode, 0, ours.stderr)
                self.assertRegex(ours.stdout, r"Output 0: [-0-9.e ]+\n")
        cnn = run([RUNNER, "--model_path", et.model("cnn"),
                   "--print_output"]).stdout.split()[2:]
        # the stock runner's output for cnn.pte (its README), 6 digits
        expect = "0.08972 0.100746 0.103533 0.0930275 0.0992102 0.100056 " \
                 "0.1031 0.103755 0.105543 0.10131".split()
        self.assertEqual(cnn, expect)

    def test_a_file_the_runtime_rejects_is_one_line_and_status_1(self):
        bad = self.path("bad.pte")
        with open(bad, "wb") as f:
            f.write(b"\0" * 64)
        proc = run([RUNNER, "--model_path", bad])
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1,
                         proc.stderr)
        self.assertIn(bad, proc.stderr)
        self.assertIn("not a program", proc.stderr)
        missing = run([RUNNER, "--model_path", self.path("none.pte")])
        self.assertEqual(missing.returncode, 1)
        self.assertIn("cannot be read", missing.stderr)


if __name__ == "__main__":
    unittest.main()
