"""A stock ExecuTorch runtime loaded after the attach, in symbol mode: the
host of test_late_libraries.py (example-dlopen-host, as a Python service
loading ExecuTorch through ctypes) dlopen()s libexecutorch-stock.so (our
runner built as a library from the ExecuTorch install's static libraries:
no tracer, no etdump probes; tests/executorch/runner.cpp) when told, and
runs cnn.pte. The recorder finds the library in the maps, reads its
symbols and attaches its functions: with -- CMD (a host whose own
functions no rule names: the recording waits, then turns to symbol mode),
with -- python3 host.py through a pyenv-style shim (a Python service
loading it with ctypes), with -p on a host that runs one copy already
(the next is added), with -p --wait-for-runtime before any load, with
-- sh -c 'host ...; echo done' (the host a child of the script's shell:
the recording turns to symbol mode for it; a second child's load is said
and not recorded, symbol mode recording one process).
Unloaded and loaded again it keeps its probes (they belong to its inode);
two copies mapped at once are each attached, their sites their own (the
raw capture converts to the same); a copy added once the first one's gaps
were measured takes one trap a kernel from the start; the same where the
kernel lacks uprobe_multi links, BPF cookies and task storage (6.1, 5.10,
forced); --values refuses a copy loaded later in one line, the first
recorded whole. Each ETDump decoded with flatc, its events compared with
ETDumpGen's (reference/) as test_executorch_symbols.py compares them, run
by run. A library with the XNNPACK delegate (libexecutorch-stock-xnn.so)
loaded later has its XNNPACK operators read as the first libraries' are:
loaded first (the recording turns to symbol mode then), added as a second
copy to one that has XNNPACK (its operators named from its own tables),
and added to a recording whose first library had no XNNPACK at all (its
programs loaded before any XNNPACK was there), also without uprobe_multi,
cookies and task storage; the operators compared with ETDumpGen's as
test_executorch_xnn_symbols.py compares them.
"""
import os
import re
import signal
import subprocess

import executorch_env as et
from etdump_e2e import BUILD, CLI, TempDirTest, decode, run
from test_executorch_symbol_fallbacks import LACKS
from test_executorch_symbols import EXECUTIONS, PROBE_TIME, runs_visible
from test_executorch_xnn_symbols import execute_runs, operators
from test_late_libraries import (LOADED, SCRIPT_PARENT, Host,
                                 a_child_loads_once, installed_copy,
                                 load_once_waited_for)
from test_replaced_files import wait_for_line
from test_scripts import python_host_through_a_shim, record_released

STOCK_LIB = os.path.join(BUILD, "libexecutorch-stock.so")
# the same with the XNNPACK delegate linked in
STOCK_XNN_LIB = os.path.join(BUILD, "libexecutorch-stock-xnn.so")
XNN_MODEL = "xnn_mlp"
MODEL = "cnn"
# user/symbol/symbol_mode.c: the kernels' returns taken out
GAPS_DONE = "one trap a kernel call from then on"


class LateStockLibraryTest(TempDirTest):
    def lib(self, name):
        return installed_copy(self, STOCK_LIB, name)

    def host(self, libs, record_args=None, log="host.log",
             executions=EXECUTIONS, parent=()):
        host = Host(self.path(log), libs, record_args,
                    ["--wait-signal", "--model_path", et.model(MODEL),
                     "--num_executions", str(executions)], parent=parent)
        self.addCleanup(host.kill)
        return host

    def record_flags(self, out):
        return ["-o", out, "--program", et.model(MODEL)]

    def assert_copies(self, out, copies, stderr, executions=EXECUTIONS):
        """ETDumpGen's runs once per load (its Default run, then its
        Execute run each execution), each kernel's ids the plan's; every
        run says the probes' time taken out."""
        ours = decode(out)
        ref = runs_visible(decode(et.reference(MODEL, EXECUTIONS)))
        self.assertEqual([r[0] for r in ref],
                         ["Default"] + ["Execute"] * EXECUTIONS)
        load = [ref[0]] + [ref[1]] * executions
        self.assertEqual(runs_visible(ours), load * copies, stderr)
        for r in ours["run_data"]:
            meta = bytes(r["events"][-1]["profile_event"]
                         ["delegate_debug_metadata"]).decode()
            self.assertTrue(meta.startswith(PROBE_TIME), meta)

    def record_cmd(self, libs, loaded_each, flags=()):
        """record flags -- the host loading libs in turn; loaded_each[i]:
        the recorder says it attached the i-th load's library then."""
        out = self.path("cmd.etdp")
        host = self.host(libs, self.record_flags(out) + list(flags),
                         "record.log")
        loaded = 0
        for each in loaded_each:
            pid = host.load()
            if each:
                loaded += 1
                host.wait_said(LOADED, loaded)
            os.kill(pid, signal.SIGUSR1)
        self.assertEqual(host.finish(), 0, host.said())
        return out, host.said()

    def test_cmd_loaded_after_the_attach_and_again_after_dlclose(self):
        lib = self.lib("libexecutorch.so")
        out, err = self.record_cmd([lib, lib], (True, False))
        # once: the same inode loaded again keeps its probes
        self.assertEqual(err.count(LOADED), 1, err)
        self.assertIn(f"loaded {lib} {LOADED}", err)
        self.assertIn("in symbol mode", err)
        self.assertIn("symbol mode (no 'etdump' USDT probes in the target)",
                      err)
        self.assert_copies(out, 2, err)

    def test_cmd_a_python_host_through_a_shim(self):
        # record -- python3 host.py: python3 a pyenv-style shim, the host
        # loading the stock library through ctypes once it runs
        lib = self.lib("libexecutorch.so")
        command, env, shim = python_host_through_a_shim(self, lib)
        out, err = record_released(
            self, command + ["--wait-signal", "--model_path", et.model(MODEL),
                             "--num_executions", str(EXECUTIONS)],
            env, lambda pid: f"PID {pid} loaded {lib} {LOADED}",
            ["--program", et.model(MODEL)])
        self.assertIn(f"{shim} is a script: PID ", err)
        self.assertIn("to 19 function(s) in symbol mode", err)
        self.assert_copies(out, 1, err)

    def test_cmd_a_child_of_a_script_loads_it(self):
        # record -- sh -c 'host ...; echo done': the shell names no
        # function a rule names; its child, the host, loads the stock
        # library later, which turns the recording to symbol mode for it
        lib = self.lib("libexecutorch.so")
        out = self.path("child.etdp")
        host = self.host([lib], self.record_flags(out), "record.log",
                         parent=SCRIPT_PARENT)
        a_child_loads_once(self, host, lib)
        self.assertIn("in symbol mode", host.said())
        self.assert_copies(out, 1, host.said())

    def test_cmd_a_second_child_is_refused_once_one_is_recorded(self):
        # sh -c 'host; host': the first host's load turns the recording
        # to symbol mode for it; symbol mode records one process, so the
        # second host's load of the same library is said, not recorded
        lib = self.lib("libexecutorch.so")
        out = self.path("second.etdp")
        host = self.host([lib], self.record_flags(out), "record.log",
                         parent=("sh", "-c", '"$@"; "$@"', "sh"))
        first = host.load()
        host.wait_said(f"PID {first} loaded {lib} {LOADED}")
        os.kill(first, signal.SIGUSR1)
        second = host.load()
        host.wait_said("function(s) rules name, after the attach: not "
                       f"recorded (symbol mode records PID {first} alone)")
        os.kill(second, signal.SIGUSR1)
        self.assertEqual(host.finish(), 0, host.said())
        self.assertIn(f"PID {second} loaded {lib}, whose ", host.said())
        self.assert_copies(out, 1, host.said())

    def test_cmd_two_copies_each_recorded(self):
        # and the raw capture, converted, says the same: each record of
        # the copies carries its site's description
        one, two = self.lib("libone.so"), self.lib("libtwo.so")
        raw, converted = self.path("cmd.raw"), self.path("converted.etdp")
        out, err = self.record_cmd(["--keep", one, two], (True, True),
                                   ["--raw", raw])
        self.assertIn(f"loaded {one} {LOADED}", err)
        self.assertIn(f"loaded {two} {LOADED}", err)
        self.assert_copies(out, 2, err)
        proc = run([CLI, "convert", raw, "-o", converted])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_copies(converted, 2, proc.stderr)

    def record_p(self, pid, *flags, env=None):
        """record -p pid in the background: it, its stderr's file, its
        ETDump's."""
        out = self.path(f"p{len(os.listdir(self.tmp))}.etdp")
        log = self.path("record.log")
        with open(log, "w") as f:
            rec = subprocess.Popen([CLI, "record"] + self.record_flags(out)
                                   + list(flags) + ["-p", str(pid)], stderr=f,
                                   env=env)
        self.addCleanup(lambda: rec.poll() is None and rec.kill())
        return rec, log, out

    def finish_p(self, host, rec, log, out, copies, executions=EXECUTIONS):
        self.assertEqual(host.finish(), 0, host.said())
        status = rec.wait(timeout=60)
        with open(log) as f:
            err = f.read()
        self.assertEqual(status, 0, err)
        self.assert_copies(out, copies, err, executions)
        return err

    def add_a_copy(self, env=None, executions=EXECUTIONS, first_said=None):
        """-p on a host running one copy, which loads a second one after
        the attach (once the recorder said first_said, if given): both
        recorded; the recorder's stderr."""
        one, two = self.lib("libone.so"), self.lib("libtwo.so")
        host = self.host([one, two], executions=executions)
        pid = host.load()
        rec, log, out = self.record_p(pid, env=env)
        wait_for_line(log, "attached", rec)
        os.kill(pid, signal.SIGUSR1)
        if first_said:
            wait_for_line(log, first_said, rec)
        pid = host.load()
        wait_for_line(log, f"PID {pid} loaded {two} {LOADED}", rec)
        os.kill(pid, signal.SIGUSR1)
        err = self.finish_p(host, rec, log, out, 2, executions)
        self.assertNotIn(f"loaded {one} ", err)
        return err

    def test_p_adds_a_copy_after_the_gaps_were_measured(self):
        # the first copy's runs measured the gaps after its kernels and
        # their returns went out: the second copy's kernels take one trap
        # from the start, the gaps measured standing for theirs
        executions = 8
        err = self.add_a_copy(executions=executions, first_said=GAPS_DONE)
        ended = re.findall(r"symbol mode: (\d+) kernel call\(s\) ended "
                           r"where the thread's next event began", err)
        self.assertEqual(len(ended), 1, err)
        # each of the second copy's kernel calls (10 an execution), at least
        self.assertGreaterEqual(int(ended[0]), 10 * executions, err)

    def test_p_adds_a_copy_loaded_after_the_attach(self):
        self.add_a_copy()

    def test_p_adds_a_copy_where_the_kernel_lacks_what_6_18_has(self):
        # a link per probe (6.1), and a program per site, hits by thread
        # id (5.10): the copy's sites get links and programs of their own
        for name in ("6.1", "5.10"):
            with self.subTest(kernel=name):
                lacks, lines = LACKS[name]
                err = self.add_a_copy(dict(os.environ,
                                           ETDUMP_KERNEL_LACKS=lacks))
                for line in lines:
                    self.assertIn(line, err)

    def test_p_with_values_refuses_a_copy_loaded_later(self):
        # the programs were loaded for the first copy's values: the
        # second is said not recorded, the first recorded whole
        one, two = self.lib("libone.so"), self.lib("libtwo.so")
        host = self.host(["--keep", one, two])
        pid = host.load()
        rec, log, out = self.record_p(pid, "--values")
        wait_for_line(log, "attached", rec)
        os.kill(pid, signal.SIGUSR1)
        pid = host.load()
        wait_for_line(log, "function(s) rules name, after the attach: not "
                      "recorded (symbol mode adds a library loaded later "
                      "without --values", rec)
        with open(log) as f:
            self.assertIn(f"PID {pid} loaded {two}, whose ", f.read())
        os.kill(pid, signal.SIGUSR1)
        self.assertEqual(host.finish(), 0, host.said())
        self.assertEqual(rec.wait(timeout=60), 0)
        self.assertEqual([r["name"] for r in decode(out)["run_data"]],
                         ["Default"] + ["Execute"] * EXECUTIONS)

    def test_p_waits_for_a_stock_runtime_not_loaded_yet(self):
        lib = self.lib("libexecutorch.so")
        host = self.host([lib])
        host.line("loading")
        rec, log, out = self.record_p(host.proc.pid, "--wait-for-runtime")
        load_once_waited_for(host, lib, rec, log)
        self.finish_p(host, rec, log, out, 1)


def runtime_args(model, executions=EXECUTIONS):
    return ["--wait-signal", "--model_path", et.model(model),
            "--num_executions", str(executions)]


class LateXnnpackLibraryTest(TempDirTest):
    """A stock library with XNNPACK loaded after the attach: its XNNPACK
    operators in the ETDump as ETDumpGen's XNNPACK runner writes them."""

    def lib(self, name, source=STOCK_XNN_LIB):
        return installed_copy(self, source, name)

    def host(self, libs, args, record_args=None):
        host = Host(self.path("record.log" if record_args is not None
                              else "host.log"), libs, record_args, args)
        self.addCleanup(host.kill)
        return host

    def assert_xnn_runs(self, runs, stderr):
        """Each Execute run of runs (key lists) ETDumpGen's operators of
        XNN_MODEL, in its order, right before their DELEGATE_CALL."""
        ref = execute_runs(decode(et.reference(XNN_MODEL, EXECUTIONS)))
        want = operators(ref[0])
        self.assertTrue(want)
        self.assertEqual(len(runs), EXECUTIONS, stderr)
        for run_got in runs:
            self.assertEqual(operators(run_got), want, stderr)
            names = [k[1] for k in run_got]
            self.assertEqual(names.index("DELEGATE_CALL"),
                             names.index(want[0][1]) + len(want))
        self.assertNotIn("XNNPACK's operators are not recorded", stderr)

    def assert_inside_delegate_calls(self, dump):
        for r in dump["run_data"]:
            evs = [e["profile_event"] for e in r["events"]]
            calls = [e for e in evs if e.get("name") == "DELEGATE_CALL"]
            for e in evs:
                if e.get("delegate_debug_id_str"):
                    self.assertTrue(any(
                        c["start_time"] <= e["start_time"] <= e["end_time"]
                        <= c["end_time"] for c in calls), r["name"])

    def load_each(self, host, libs, said):
        """Each of libs loaded in turn, the recorder's line for it
        awaited in said (its log) before its runtime goes on (a turn to
        symbol mode measures the probes first, and 5.10's ways verify a
        program per site: longer than a line's usual wait under ASan)."""
        for lib in libs:
            pid = host.load()
            wait_for_line(said, f"PID {pid} loaded {lib} {LOADED}",
                          host.proc, timeout=120)
            os.kill(pid, signal.SIGUSR1)

    def test_cmd_loaded_first(self):
        # -- CMD: the host carries no runtime; the XNNPACK library loaded
        # later turns the recording to symbol mode, XNNPACK read then
        lib = self.lib("libexecutorch.so")
        out = self.path("cmd.etdp")
        host = self.host([lib], runtime_args(XNN_MODEL), ["-o", out])
        self.load_each(host, [lib], host.log)
        self.assertEqual(host.finish(), 0, host.said())
        dump = decode(out)
        self.assert_xnn_runs(execute_runs(dump), host.said())
        self.assert_inside_delegate_calls(dump)

    def test_p_adds_a_copy_with_xnnpack(self):
        # -p on a host running one XNNPACK copy: the second copy's
        # operators named from its own tables, its deletions probed too
        one, two = self.lib("libone.so"), self.lib("libtwo.so")
        host = self.host([one, two], runtime_args(XNN_MODEL))
        pid = host.load()
        out, log = self.path("p.etdp"), self.path("p.log")
        with open(log, "w") as f:
            rec = subprocess.Popen([CLI, "record", "-o", out, "-p",
                                    str(pid)], stderr=f)
        self.addCleanup(lambda: rec.poll() is None and rec.kill())
        wait_for_line(log, "attached", rec)
        os.kill(pid, signal.SIGUSR1)
        self.load_each(host, [two], log)
        self.assertEqual(host.finish(), 0, host.said())
        self.assertEqual(rec.wait(timeout=60), 0)
        with open(log) as f:
            err = f.read()
        dump = decode(out)
        runs = execute_runs(dump)
        self.assert_xnn_runs(runs[:EXECUTIONS], err)
        self.assert_xnn_runs(runs[EXECUTIONS:], err)
        self.assert_inside_delegate_calls(dump)

    def test_cmd_adds_xnnpack_to_a_recording_begun_without(self):
        # the first library has no XNNPACK (cnn.pte on the portable
        # kernels): symbol mode's programs are loaded then; the XNNPACK
        # library after it runs xnn_mlp.pte, its operators recorded; the
        # same where the kernel lacks what 6.18 has (an operator's program
        # copied per site without cookies)
        cnn = [[k[0] for k in r[1]] for r in
               runs_visible(decode(et.reference(MODEL, EXECUTIONS)))]
        for name in ("6.18", "5.10"):
            with self.subTest(kernel=name):
                plain = self.lib(f"libplain{name}.so", STOCK_LIB)
                xnn = self.lib(f"libxnn{name}.so")
                out = self.path(f"cmd{name}.etdp")
                env = None if name == "6.18" else dict(
                    os.environ, ETDUMP_KERNEL_LACKS=LACKS[name][0])
                host = Host(self.path(f"record{name}.log"), [plain, xnn],
                            ["-o", out], runtime_args(MODEL) + ["--"]
                            + runtime_args(XNN_MODEL), env=env)
                self.addCleanup(host.kill)
                self.load_each(host, [plain, xnn], host.log)
                self.assertEqual(host.finish(), 0, host.said())
                dump = decode(out)
                runs = [[k[0] for k in r[1]] for r in runs_visible(dump)]
                # the cnn.pte runs as ETDumpGen's, by name (call-order ids)
                self.assertEqual(runs[:EXECUTIONS + 1], cnn, host.said())
                self.assertEqual([r["name"] for r in dump["run_data"]
                                  [EXECUTIONS + 1:]],
                                 ["Default"] + ["Execute"] * EXECUTIONS)
                self.assert_xnn_runs(execute_runs(dump)[EXECUTIONS:],
                                     host.said())
                self.assert_inside_delegate_calls(dump)

if __name__ == "__main__":
    import unittest
    unittest.main()
