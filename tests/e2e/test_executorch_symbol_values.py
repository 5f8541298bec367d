"""record --values in symbol mode on the real ExecuTorch: the stock
executor_runner (no tracer, no probes) logs nothing, so the recorder reads
each kernel's out tensors itself at the kernel's return, where the rules
place them (schema/executorch.rules: `outputs` lines) with the tensor
layout the rules give (`tensor` lines). For cnn.pte every kernel's
DebugEvents must be what ETDumpGen wrote with intermediates
(reference/cnn-intermediates.etdp + .debug.bin): ids, order, dtypes,
sizes, strides and bytes. The program's output, which ETDumpGen logs after
Method::execute, is no kernel's return: symbol mode leaves it out. Also:
the rules' layout equals offsetof in the sdk's headers; a kernel no rule
places is named once and gets nothing; a cut value is marked and counted.
"""
import os
import re
import shutil
import subprocess
import unittest

import executorch_env as et
from etdump_e2e import CLI, ROOT, TempDirTest, decode, run
from test_executorch_values import REF_BUFFER, REF_ETDUMP, debug_identity, \
    read, runs

RULES = os.path.join(ROOT, "schema", "executorch.rules")
# the fields the rules name, as the C++ members they stand for
MEMBERS = {"Tensor.impl": "Tensor, impl_",
           "TensorImpl.sizes": "TensorImpl, sizes_",
           "TensorImpl.strides": "TensorImpl, strides_",
           "TensorImpl.data": "TensorImpl, data_",
           "TensorImpl.dim": "TensorImpl, dim_",
           "TensorImpl.numel": "TensorImpl, numel_",
           "TensorImpl.type": "TensorImpl, type_"}
OFFSETS_CPP = """
#include <cstddef>
#include <cstdio>
#include <executorch/runtime/core/portable_type/scalar_type.h>
// the members are private: offsetof needs them public, nothing else does
#define private public
#include <executorch/runtime/core/portable_type/tensor_impl.h>
#include <executorch/runtime/core/portable_type/tensor.h>
#undef private
using executorch::runtime::etensor::Tensor;
using executorch::runtime::etensor::TensorImpl;
int main() {
%s
}
"""


def reference_without_program_output():
    ref = runs(decode(REF_ETDUMP), read(REF_BUFFER))
    return [(name, [e for e in evs if e[0] != "debug" or not e[1][6]])
            for name, evs in ref]


def debug_events(rs):
    return [e[1] for _, evs in rs for e in evs if e[0] == "debug"]


class ExecuTorchSymbolValuesTest(TempDirTest):
    def record(self, *extra, executions=1, binary=None):
        out = self.path(f"s{len(os.listdir(self.tmp))}.etdp")
        proc = run([CLI, "record", "-o", out, "--values", *extra, "--",
                    binary or et.STOCK_RUNNER, "--model_path",
                    et.model("cnn"), "--num_executions", str(executions)],
                   timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("symbol mode", proc.stderr)
        return proc, out, out[:-len(".etdp")] + ".debug.bin"

    def test_kernel_outputs_equal_etdumpgens(self):
        proc, out, buf = self.record("--program", et.model("cnn"))
        ours = runs(decode(out), read(buf))
        want = reference_without_program_output()
        # every event in place: each DebugEvent just before its kernel's
        self.assertEqual(ours, want)
        self.assertEqual(len(debug_events(ours)), 12)
        self.assertIn("values: 12 DebugEvents (12 tensors", proc.stderr)
        self.assertNotIn("cut short", proc.stderr)
        self.assertNotIn("no outputs rule", proc.stderr)

    def test_every_execution_and_call_order_ids(self):
        # without --program the ids follow call order: cnn's are the plan's
        _, out, buf = self.record(executions=3)
        ours = runs(decode(out), read(buf))
        self.assertEqual([n for n, _ in ours],
                         ["Default", "Execute", "Execute", "Execute"])
        want = reference_without_program_output()
        for run_ in ours[1:]:
            self.assertEqual(debug_events([run_]), debug_events(want))

    def test_the_stripped_runner_with_its_debug_file(self):
        _, out, buf = self.record("--program", et.model("cnn"),
                                  binary=et.STRIPPED_RUNNER)
        self.assertEqual(runs(decode(out), read(buf)),
                         reference_without_program_output())

    def test_a_kernel_no_rule_places_is_named_once_and_gets_nothing(self):
        rules = self.path("relu.rules")
        with open(rules, "w") as f:
            f.write("outputs torch::executor::native::relu_out none\n")
        proc, out, buf = self.record("--rules", rules, executions=2)
        said = [line for line in proc.stderr.splitlines()
                if "no outputs rule" in line]
        self.assertEqual(len(said), 1, proc.stderr)
        self.assertIn("1 kernel function(s)", said[0])
        self.assertTrue(said[0].endswith(": native_call_relu.out"), said[0])
        ours = debug_events(runs(decode(out), read(buf)))
        want = [d for d in debug_events(reference_without_program_output())
                if d[1] not in (1, 4)]   # relu.out: instructions 1 and 4
        self.assertEqual(ours, want * 2)

    def test_a_value_over_the_bound_is_cut_counted_and_marked(self):
        proc, out, buf = self.record("--values=300")
        data = read(buf)
        got = [debug_identity(e["debug_event"], data)
               for r in decode(out)["run_data"] for e in r["events"]
               if e.get("debug_event")]
        want = debug_events(reference_without_program_output())
        self.assertEqual(len(got), len(want))
        cut = 0
        for g, w in zip(got, want):
            self.assertEqual(g[:7], w[:7])
            (_, sizes, strides, bytes_), = g[7]
            (_, wsizes, wstrides, wbytes), = w[7]
            self.assertEqual((sizes, strides), (wsizes, wstrides))
            self.assertEqual(bytes_[:300], wbytes[:300])
            if len(wbytes) > 300:
                cut += 1
                self.assertEqual(bytes_[300:], bytes(len(wbytes) - 300))
        # the 6 of cnn's intermediates over 300 bytes, as in USDT mode
        self.assertEqual(cut, 6)
        self.assertEqual(data[-8:], b"EDBPFCUT")
        self.assertIn("6 tensors cut short (--values=300 bytes a value",
                      proc.stderr)

    def test_a_raw_capture_converts_to_the_same_files(self):
        raw = self.path("s.raw")
        _, out, buf = self.record("--raw", raw)
        proc = run([CLI, "convert", raw, "-o", self.path("again.etdp")])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(read(self.path("again.debug.bin")), read(buf))
        # call-order ids (no --program at convert) and the same times
        self.assertEqual(read(self.path("again.etdp")), read(out))

    def test_the_rules_tensor_layout_is_the_headers(self):
        cxx = shutil.which("g++") or shutil.which("c++")
        self.assertTrue(cxx, "a C++ compiler to read the headers with")
        with open(RULES) as f:
            given = dict(m.groups() for m in re.finditer(
                r"^tensor\s+(\S+)\s+(\d+)", f.read(), re.M))
        self.assertEqual(sorted(given), sorted(MEMBERS))
        prints = "\n".join(
            f'  std::printf("{k} %zu\\n", offsetof({v}));'
            for k, v in MEMBERS.items())
        src = self.path("offsets.cpp")
        with open(src, "w") as f:
            f.write(OFFSETS_CPP % prints)
        inc = os.path.join(et.PREFIX, "include")
        exe = self.path("offsets")
        subprocess.run([cxx, "-std=gnu++17", "-DC10_USING_CUSTOM_GENERATED_MACROS",
                        "-I" + inc, "-I" + os.path.join(
                            inc, "executorch", "runtime", "core",
                            "portable_type", "c10"), src, "-o", exe],
                       check=True, capture_output=True, timeout=120)
        printed = subprocess.run([exe], check=True, capture_output=True,
                                 text=True).stdout.split()
        self.assertEqual(dict(zip(printed[::2], printed[1::2])), given)


if __name__ == "__main__":
    unittest.main()
