"""record --values on the real ExecuTorch: our runner (tests/executorch/
runner.cpp) at debug level intermediate_outputs logs every kernel's outputs
and the program output through our EventTracer; the ETDump's DebugEvents and
the debug buffer beside it must be what ETDumpGen wrote for cnn.pte
(reference/cnn-intermediates.etdp + .debug.bin): same runs, order, chain and
instruction ids, dtypes, sizes, strides, output flags and tensor bytes.
Offsets may differ: ETDumpGen aligns blobs to 64 bytes of memory from
wherever its buffer began, we from the file's start. Decoded with flatc.
"""
import os

import executorch_env as et
from etdump_e2e import BUILD, CLI, TempDirTest, decode, run
from test_executorch_tracer import event_identity

RUNNER = os.path.join(BUILD, "executorch-runner")
REF_ETDUMP = os.path.join(et.REFERENCE, "cnn-intermediates.etdp")
REF_BUFFER = os.path.join(et.REFERENCE, "cnn-intermediates.debug.bin")
ELEMENT_BYTES = {"BYTE": 1, "CHAR": 1, "BOOL": 1, "SHORT": 2, "HALF": 2,
                 "INT": 4, "FLOAT": 4, "LONG": 8, "DOUBLE": 8}


def tensor_bytes(t, buf):
    n = ELEMENT_BYTES[t["scalar_type"]]
    for s in t["sizes"]:
        n *= s
    return buf[t["offset"]:t["offset"] + n] if n else b""


def debug_identity(de, buf):
    """A DebugEvent as the Inspector reads it, bytes inflated."""
    v = de["debug_entry"]
    tensors = [v["tensor"]] if v.get("tensor") else \
        (v.get("tensor_list") or {}).get("tensors", [])
    return (de["chain_index"], de["instruction_id"], de.get("name"),
            de["delegate_debug_id_int"], de.get("delegate_debug_id_str"),
            v["val"], (v.get("output") or {}).get("bool_val"),
            [(t["scalar_type"], t["sizes"], t["strides"],
              tensor_bytes(t, buf)) for t in tensors])


def runs(dump, buf):
    out = []
    for r in dump["run_data"]:
        evs = []
        for e in r["events"]:
            if e.get("debug_event"):
                evs.append(("debug", debug_identity(e["debug_event"], buf)))
            else:
                evs.append(event_identity(e))
        out.append((r["name"], evs))
    return out


def read(path):
    with open(path, "rb") as f:
        return f.read()


class ExecuTorchValuesTest(TempDirTest):
    def record(self, *extra, level="intermediate_outputs", executions=1,
               out="v.etdp"):
        out = self.path(out)
        proc = run([CLI, "record", "-o", out, "--no-counters", *extra, "--",
                    RUNNER, "--model_path", et.model("cnn"),
                    "--num_executions", str(executions),
                    "--debug_level", level], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc, out

    def reference(self):
        return runs(decode(REF_ETDUMP), read(REF_BUFFER))

    def test_cnn_debug_events_equal_etdumpgens(self):
        proc, out = self.record("--values")
        buffer = self.path("v.debug.bin")
        self.assertTrue(os.path.exists(buffer), proc.stderr)
        ours = runs(decode(out), read(buffer))
        ref = self.reference()
        self.assertEqual(ours, ref)
        debug = [e for _, evs in ref for e in evs if e[0] == "debug"]
        self.assertEqual(len(debug), 13)
        self.assertIn("values: 13 DebugEvents (13 tensors", proc.stderr)
        self.assertNotIn("cut short", proc.stderr)
        self.assertNotEqual(read(buffer)[-8:], b"EDBPFCUT")

    def test_a_runner_a_shell_starts_logs_the_same_values(self):
        """Through sh -c the runner is armed before it starts: its probes'
        arguments are read by the specs record sets itself, not libbpf's,
        and every value is ETDumpGen's all the same."""
        out = self.path("sh.etdp")
        proc = run([CLI, "record", "-o", out, "--no-counters", "--values",
                    "--", "sh", "-c",
                    f"{RUNNER} --model_path {et.model('cnn')} "
                    "--num_executions 1 --debug_level intermediate_outputs"],
                   timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("before its exec", proc.stderr)
        ours = runs(decode(out), read(self.path("sh.debug.bin")))
        self.assertEqual(ours, self.reference())

    def test_every_execution_logs_the_same_values(self):
        _, out = self.record("--values", executions=3)
        ours = runs(decode(out), read(self.path("v.debug.bin")))
        self.assertEqual([name for name, _ in ours],
                         ["Default", "Execute", "Execute", "Execute"])
        ref = self.reference()
        for run_ in ours[1:]:
            self.assertEqual(run_, ref[1])

    def test_a_value_over_the_bound_is_cut_counted_and_zero_filled(self):
        proc, out = self.record("--values=300", "--debug-buffer",
                                self.path("cut.bin"))
        ours = decode(out)
        buf = read(self.path("cut.bin"))
        ref = self.reference()
        cut = 0
        debug = [e["debug_event"] for r in ours["run_data"]
                 for e in r["events"] if e.get("debug_event")]
        ref_debug = [e[1] for _, evs in ref for e in evs if e[0] == "debug"]
        self.assertEqual(len(debug), len(ref_debug))
        for de, want in zip(debug, ref_debug):
            got = debug_identity(de, buf)
            # everything but the bytes is whole
            self.assertEqual(got[:6], want[:6])
            (_, sizes, strides, data), = got[7]
            (_, wsizes, wstrides, wdata), = want[7]
            self.assertEqual((sizes, strides), (wsizes, wstrides))
            self.assertEqual(len(data), len(wdata))
            if len(wdata) > 300:
                cut += 1
                self.assertEqual(data[:300], wdata[:300])
                self.assertEqual(data[300:], bytes(len(wdata) - 300))
            else:
                self.assertEqual(data, wdata)
        self.assertEqual(cut, 6)
        # and marked: the trailer after the last blob lists them
        self.assertEqual(buf[-8:], b"EDBPFCUT")
        self.assertEqual(int.from_bytes(buf[-16:-8], "little"), 6)
        self.assertIn("6 tensors cut short (--values=300 bytes a value",
                      proc.stderr)

    def test_a_raw_capture_converts_to_the_same_files(self):
        _, out = self.record("--values", "--raw", self.path("v.raw"))
        proc = run([CLI, "convert", self.path("v.raw"), "-o",
                    self.path("again.etdp")])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(read(self.path("again.etdp")), read(out))
        self.assertEqual(read(self.path("again.debug.bin")),
                         read(self.path("v.debug.bin")))

    def test_without_values_no_debug_event_and_no_buffer(self):
        _, out = self.record()
        self.assertFalse(os.path.exists(self.path("v.debug.bin")))
        dump = decode(out)
        self.assertFalse([e for r in dump["run_data"] for e in r["events"]
                          if e.get("debug_event")])

    def test_program_outputs_only(self):
        _, out = self.record("--values", level="program_outputs")
        ours = runs(decode(out), read(self.path("v.debug.bin")))
        ref = self.reference()
        # the reference's events without the kernels' intermediates
        want = [(name, [e for e in evs if e[0] != "debug" or e[1][6]])
                for name, evs in ref]
        self.assertEqual(ours, want)

    def report(self, *args):
        proc = run([CLI, "report", "--values", *args])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stdout.splitlines()

    def test_report_values_per_operator(self):
        _, out = self.record("--values")
        rows = self.report(out)
        self.assertEqual(len(rows), 1 + 13)
        softmax = [r for r in rows if "native_call__softmax.out" in r]
        self.assertEqual(len(softmax), 1)
        # the softmax of 10 numbers: its mean is 0.1, no NaN or Inf
        self.assertEqual(softmax[0].split()[5:],
                         ["FLOAT", "[1,10]", "0.08972", "0.105543", "0.1",
                          "0", "0"])
        self.assertIn("(program output)", rows[-1])
        self.assertEqual(sum("max_pool2d_with_indices" in r and "LONG" in r
                             for r in rows), 2)
        self.assertFalse([r for r in rows if "cut:" in r])
        # ETDumpGen's own file reads the same
        self.assertEqual(self.report(REF_ETDUMP, "--debug-buffer",
                                     REF_BUFFER), rows)

    def test_report_values_marks_what_was_cut(self):
        _, out = self.record("--values=300")
        rows = self.report(out)
        cut = [r for r in rows if r.endswith("cut: 300 of 1024 bytes")]
        self.assertEqual(len(cut), 2)
        self.assertEqual(len([r for r in rows if "cut: 300 of" in r]), 6)

    def test_report_two_recordings_names_the_first_operator_that_differs(self):
        _, whole = self.record("--values", out="whole.etdp")
        _, cut = self.record("--values=300", out="cut.etdp")
        rows = self.report(REF_ETDUMP, whole, "--debug-buffer", REF_BUFFER)
        self.assertEqual(rows[-1], "no difference: 13 values equal")
        rows = self.report(whole, cut)
        self.assertTrue(rows[-1].startswith(
            "first difference: Execute run 2, chain 0, instruction 0, "
            "native_call_convolution.out: "), rows[-1])
        self.assertTrue(rows[-1].endswith("; 6 of 13 values differ"),
                        rows[-1])
        self.assertEqual(len([r for r in rows if r.endswith("B cut")]), 6)
        # the floats differ by less than 1, the pooling's indices more
        rows = self.report(whole, cut, "--atol", "1")
        self.assertTrue(rows[-1].startswith(
            "first difference: Execute run 2, chain 0, instruction 2, "
            "native_call_max_pool2d_with_indices.out: "), rows[-1])
        self.assertTrue(rows[-1].endswith("; 1 of 13 values differ"),
                        rows[-1])
        rows = self.report(whole, cut, "--atol", "64")
        self.assertEqual(rows[-1],
                         "no difference: 13 values equal within the tolerance")

    def test_report_values_of_a_file_without_its_buffer(self):
        _, out = self.record("--values")
        os.unlink(self.path("v.debug.bin"))
        proc = run([CLI, "report", "--values", out])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("no debug buffer", proc.stderr)
        self.assertTrue(all(r.endswith("no buffer")
                            for r in proc.stdout.splitlines()[1:]))
        proc = run([CLI, "report", "--values", out, "--debug-buffer",
                    self.path("none.bin")])
        self.assertEqual(proc.returncode, 1)
        self.assertIn("none.bin", proc.stderr)
        self.assertEqual(proc.stdout, "")

    def test_bad_flags_are_usage_errors_before_anything_runs(self):
        for args in (["--values=x"], ["--values=2G"],
                     ["--debug-buffer", self.path("b.bin")],
                     ["--values", "--debug-buffer", self.path("v.etdp")]):
            with self.subTest(args=args):
                proc = run([CLI, "record", "-o", self.path("v.etdp"), *args,
                            "--", RUNNER, "--model_path", et.model("cnn")])
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertEqual(len(proc.stderr.strip().splitlines()), 2)
                self.assertFalse(os.path.exists(self.path("v.etdp")))

    def test_an_existing_debug_buffer_is_kept_without_force(self):
        with open(self.path("v.debug.bin"), "wb") as f:
            f.write(b"mine")
        proc = run([CLI, "record", "-o", self.path("v.etdp"), "--values",
                    "--", RUNNER, "--model_path", et.model("cnn")])
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("v.debug.bin", proc.stderr)
        self.assertEqual(read(self.path("v.debug.bin")), b"mine")
        self.assertFalse(os.path.exists(self.path("v.etdp")))


if __name__ == "__main__":
    import unittest
    unittest.main()
