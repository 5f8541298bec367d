"""Symbol mode where the kernel lacks what it uses on 6.18, forced here
with ETDUMP_KERNEL_LACKS (user/capture/kernel_features.h): uprobe_multi
links (6.6: a link per probe instead), BPF cookies (5.15: a copy of the
programs per site), task storage (5.11: a hash map by thread id), and all
of them as on Debian 11's 5.10. Each recording must hold the very events
the same recording holds without the fallback, and ETDumpGen's, and its
summary says in one line each way the kernel made it take. The stock
runner on cnn.pte, the XNNPACK runner on xnn_mlp.pte, the stripped runner
with --debug-file, --values, --allocations, --duty and -p.

tests/kernels/ runs the same cases on the real kernels.
"""
import os
import signal
import subprocess
import unittest

import executorch_env as et
from etdump_e2e import (BUILD, CLI, Recorder, TempDirTest, decode, run,
                        run_keys)
from test_executorch_symbols import runs_visible
from test_executorch_xnn_symbols import XNN_RUNNER, execute_runs, operators
from test_record_duty import assert_whole_runs, duty_summary

EXECUTIONS = 3
RUNNER = os.path.join(BUILD, "executorch-runner")

MULTI = "uprobe_multi links need Linux 6.6: a link per probe instead"
COOKIES = ("BPF cookies need Linux 5.15: loaded the entry and exit "
           "programs once per site")
TASK_STORAGE = ("task storage needs Linux 5.11: each thread's hits kept "
                "in a hash map by thread id")
# what each kernel lacks, and the lines its summary must say. No kernel
# has bpf_loop (5.17) without cookies, nor cookies without
# bpf_get_current_task_btf.
AS_6_1 = ("uprobe_multi", [MULTI])
AS_5_10 = ("uprobe_multi,bpf_cookie,bpf_loop,task_storage,current_task_btf",
           [MULTI, COOKIES, TASK_STORAGE])
LACKS = {
    "6.1": AS_6_1,
    "cookies": ("bpf_cookie,bpf_loop", [MULTI, COOKIES]),
    "task_storage": ("task_storage", [TASK_STORAGE]),
    "5.10": AS_5_10,
}


def lacking(lacks):
    env = dict(os.environ)
    env["ETDUMP_KERNEL_LACKS"] = lacks
    return env


class SymbolFallbackTest(TempDirTest):
    def record(self, lacks, binary, model, *extra, executions=EXECUTIONS):
        """(stderr, decoded ETDump, its path) of a recording of binary on
        model; lacks: None for the kernel as it is."""
        out = self.path(f"{model}{len(os.listdir(self.tmp))}.etdp")
        proc = run([CLI, "record", "-o", out, *extra, "--", binary,
                    "--model_path", et.model(model), "--num_executions",
                    str(executions), "--print_output", "none"],
                   timeout=300, env=lacking(lacks) if lacks else None)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("symbol mode", proc.stderr)
        return proc.stderr, decode(out), out

    def assert_said(self, stderr, lines, lacks):
        """Each fallback's line once, no other kernel's line."""
        for line in (MULTI, COOKIES, TASK_STORAGE):
            want = 1 if line in lines else 0
            self.assertEqual(stderr.count(line), want,
                             f"{lacks}: {line!r}\n{stderr}")

    def each_kernel(self, which, check):
        """check(lacks, lines) for each kernel named in which."""
        for name in which:
            lacks, lines = LACKS[name]
            with self.subTest(kernel=name):
                check(lacks, lines)

    def test_stock_runner_cnn(self):
        _, plain, _ = self.record(None, et.STOCK_RUNNER, "cnn", "--program",
                                  et.model("cnn"))
        ref = runs_visible(decode(et.reference("cnn", EXECUTIONS)))
        self.assertEqual(runs_visible(plain), ref)

        def check(lacks, lines):
            err, dump, _ = self.record(lacks, et.STOCK_RUNNER, "cnn",
                                       "--program", et.model("cnn"))
            self.assertEqual(runs_visible(dump), ref)
            self.assertEqual(events_of(dump), events_of(plain))
            self.assert_said(err, lines, lacks)
        self.each_kernel(LACKS, check)

    def test_xnnpack_runner(self):
        _, plain, _ = self.record(None, XNN_RUNNER, "xnn_mlp")
        ref = execute_runs(decode(et.reference("xnn_mlp", EXECUTIONS)))
        self.assertEqual([operators(r) for r in execute_runs(plain)],
                         [operators(r) for r in ref])

        def check(lacks, lines):
            err, dump, _ = self.record(lacks, XNN_RUNNER, "xnn_mlp")
            self.assertEqual(execute_runs(dump), execute_runs(plain))
            self.assert_said(err, lines, lacks)
        self.each_kernel(("6.1", "cookies", "task_storage", "5.10"), check)

    def test_stripped_runner_with_its_debug_file(self):
        ref = runs_visible(decode(et.reference("cnn", EXECUTIONS)))

        def check(lacks, lines):
            err, dump, _ = self.record(lacks, et.STRIPPED_RUNNER, "cnn",
                                       "--program", et.model("cnn"),
                                       "--debug-file", et.STRIPPED_DEBUG)
            self.assertEqual(runs_visible(dump), ref)
            self.assert_said(err, lines, lacks)
        self.each_kernel(("6.1", "5.10"), check)

    def test_values(self):
        _, plain, path = self.record(None, et.STOCK_RUNNER, "cnn",
                                     "--values", "--program",
                                     et.model("cnn"), executions=1)
        with open(path[:-len(".etdp")] + ".debug.bin", "rb") as f:
            values = f.read()
        self.assertTrue(values)

        def check(lacks, lines):
            err, dump, p = self.record(lacks, et.STOCK_RUNNER, "cnn",
                                       "--values", "--program",
                                       et.model("cnn"), executions=1)
            # the debug events, their descriptions and the bytes alike
            self.assertEqual(events_of(dump), events_of(plain))
            with open(p[:-len(".etdp")] + ".debug.bin", "rb") as f:
                self.assertEqual(f.read(), values)
            self.assertIn("values: 12 DebugEvents (12 tensors", err)
            # per hit, nothing is kept per thread: no task storage line
            self.assert_said(err, [ln for ln in lines
                                   if ln != TASK_STORAGE], lacks)
        self.each_kernel(("6.1", "5.10"), check)

    def test_allocations(self):
        _, plain, _ = self.record(None, et.STOCK_RUNNER, "cnn",
                                  "--allocations-in-etdump", executions=2)

        def check(lacks, lines):
            err, dump, _ = self.record(lacks, et.STOCK_RUNNER, "cnn",
                                       "--allocations-in-etdump",
                                       executions=2)
            self.assertEqual(events_of(dump), events_of(plain))
            self.assertIn("--allocations: 1 allocate function(s) probed",
                          err)
            self.assert_said(err, [ln for ln in lines
                                   if ln != TASK_STORAGE], lacks)
        self.each_kernel(("6.1", "5.10"), check)

    def test_duty(self):
        _, one, _ = self.record(None, et.STOCK_RUNNER, "cnn", "--program",
                                et.model("cnn"), executions=1)
        want = run_keys(one["run_data"][1])
        self.assertEqual(len(want), 21)

        def check(lacks, lines):
            # a link per probe takes a grace period of its own to come
            # out (~0.1 s each here): a service that runs until stopped,
            # the recording stopped once the probes went back in
            target = subprocess.Popen(
                [et.STOCK_RUNNER, "--model_path", et.model("cnn"),
                 "--num_executions", "1000000000", "--print_output",
                 "none"], stdout=subprocess.DEVNULL)
            try:
                out = self.path(f"duty{len(os.listdir(self.tmp))}.etdp")
                rec = Recorder(["-v", "-o", out, "--program",
                                et.model("cnn"), "--duty", "80/1s", "-p",
                                str(target.pid)],
                               wrapper=("env", "ETDUMP_KERNEL_LACKS=" +
                                        lacks))
                rec.wait_for("--duty: window 2:", timeout=120)
                rec.signal(signal.SIGINT)
                self.assertEqual(rec.wait(timeout=120), 0, rec.stderr)
                self.assertIsNone(target.poll(), "the target died")
            finally:
                target.kill()
                target.wait()
            # attached after the load: no Default run
            assert_whole_runs(self, decode(out), want, [])
            self.assertGreaterEqual(duty_summary(self, rec.stderr)["windows"],
                                    2)
            self.assert_said(rec.stderr, [ln for ln in lines
                                          if ln != TASK_STORAGE], lacks)
        self.each_kernel(("6.1", "5.10"), check)

    def test_attached_with_p(self):
        ref = runs_visible(decode(et.reference("cnn", EXECUTIONS)))

        def check(lacks, lines):
            proc = subprocess.Popen([RUNNER, "--wait-signal", "--model_path",
                                     et.model("cnn"), "--num_executions",
                                     str(EXECUTIONS)],
                                    stdout=subprocess.PIPE, text=True)
            try:
                self.assertTrue(proc.stdout.readline().startswith("ready "))
                out = self.path(f"p{len(os.listdir(self.tmp))}.etdp")
                rec = Recorder(["-o", out, "--symbols", "--program",
                                et.model("cnn"), "-p", str(proc.pid)],
                               wrapper=("env", "ETDUMP_KERNEL_LACKS=" +
                                        lacks))
                rec.wait_attached(timeout=120)
                proc.send_signal(signal.SIGUSR1)
                self.assertEqual(proc.wait(timeout=120), 0)
                self.assertEqual(rec.wait(timeout=120), 0, rec.stderr)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            self.assertEqual(runs_visible(decode(out)), ref)
            self.assert_said(rec.stderr, lines, lacks)
        self.each_kernel(("6.1", "5.10"), check)


def events_of(dump):
    """Each run whole but for the times: its allocators and events (their
    probe-time notes left out too)."""
    timed = ("start_time", "end_time", "delegate_debug_metadata")
    return [(r["name"], r.get("allocators"),
             [(kind, {k: v for k, v in ev.items() if k not in timed})
              for e in r["events"] for kind, ev in e.items()])
            for r in dump["run_data"]]


if __name__ == "__main__":
    unittest.main()
