"""etdump-bpf top -p PID and record --live against the real example
runtime: a table per second of the operators seen in that second (counts
that add up per execution), q or Ctrl-C quits with status 0, and on a
terminal the terminal's settings come back as they were.
"""
import os
import pty
import re
import select
import signal
import subprocess
import termios
import time
import unittest

from etdump_e2e import CLI, EXAMPLE, TempDirTest, decode, run

# the example's operators as the table names them (tests/example/README.md)
OPERATORS = {"Method::execute", "OPERATOR_CALL", "DELEGATE_CALL",
             "native_call_convolution.out", "native_call_relu.out",
             "native_call_max_pool2d_with_indices.out",
             "native_call_view_copy.out", "native_call__softmax.out",
             "linear #0", "relu #1", "linear #2", "delegate #7"}
ROW = re.compile(r"^(\S.*?)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s*$")


def tables(text):
    """Each table's {operator: count}."""
    out = []
    for block in text.split("etdump-bpf top: ")[1:]:
        rows = {}
        for line in block.splitlines()[2:]:
            m = ROW.match(line)
            if m:
                rows[m.group(1)] = int(m.group(2))
        out.append(rows)
    return out


class LiveTest(TempDirTest):
    def start_example(self):
        ex = subprocess.Popen([EXAMPLE, "-n", "1000000", "--sleep-ms", "1"],
                              stdout=subprocess.DEVNULL)
        self.addCleanup(ex.wait)
        self.addCleanup(ex.kill)
        return ex

    def assert_counts_add_up(self, rows):
        """Each execution has five OPERATOR_CALLs and one of every other
        operator; a second's table holds whole executions but for the one
        its start and its end may cut (a flush can end mid-execution)."""
        n = rows["Method::execute"]
        self.assertGreater(n, 0)
        # the load's events too in the table of its second
        self.assertEqual(set(rows) - {"Method::init", "Program::load_method"},
                         OPERATORS)
        for op in OPERATORS - {"OPERATOR_CALL"}:
            self.assertLessEqual(abs(rows[op] - n), 2, rows)
        self.assertLessEqual(abs(rows["OPERATOR_CALL"] - 5 * n), 10, rows)

    def test_top_from_a_pipe_quits_on_q(self):
        ex = self.start_example()
        top = subprocess.Popen([CLI, "top", "-p", str(ex.pid)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        try:
            seen = ""
            while "native_call_convolution.out" not in seen:
                line = top.stdout.readline()
                if not line:
                    self.fail("top ended: " + top.stderr.read())
                seen += line
            # the rest of that table
            while True:
                line = top.stdout.readline()
                seen += line
                if not line.strip():
                    break
            top.stdin.write("q")
            top.stdin.flush()
            out, err = top.communicate(timeout=60)
        finally:
            if top.poll() is None:
                top.kill()
                top.wait()
        self.assertEqual(top.returncode, 0, err)
        self.assertIn("quit: ", err)
        self.assertIn("mean (us)", seen)
        self.assertIn("p99 (us)", seen)
        self.assert_counts_add_up(tables(seen)[0])
        self.assertEqual(os.listdir(self.tmp), [])

    def test_top_names_the_threads_as_they_name_themselves(self):
        """A line under each title: the events of each thread that second,
        by the name it gave itself (pthread_setname_np), or its process's."""
        proc = run([CLI, "top", "--", EXAMPLE, "-n", "15", "--threads", "3",
                    "--sleep-ms", "100"], input="")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        named = set()
        for block in proc.stdout.split("etdump-bpf top: ")[1:]:
            line = block.splitlines()[1]
            if not line.startswith("threads: "):
                continue
            for item in line[len("threads: "):].split(", "):
                m = re.fullmatch(r"(.+) \(TID (\d+)\) (\d+)", item)
                self.assertTrue(m, line)
                named.add(m.group(1))
        self.assertEqual(named, {"example-runtime", "worker 1", "worker 2"},
                         proc.stdout)

    def run_on_a_terminal(self, stop):
        """top with a pty as its terminal; the terminal's settings before
        and after, and what it drew."""
        ex = self.start_example()
        master, slave = pty.openpty()
        self.addCleanup(os.close, master)
        before = termios.tcgetattr(slave)
        top = subprocess.Popen([CLI, "top", "-p", str(ex.pid)], stdin=slave,
                               stdout=slave, stderr=subprocess.PIPE)
        seen = b""
        try:
            deadline = time.monotonic() + 60
            while b"DELEGATE_CALL" not in seen and time.monotonic() < deadline:
                r, _, _ = select.select([master], [], [], 1)
                if r:
                    seen += os.read(master, 65536)
            stop(top, master)
            # read on while it quits: a full terminal would block its writes
            while top.poll() is None and time.monotonic() < deadline:
                r, _, _ = select.select([master], [], [], 0.1)
                if r:
                    seen += os.read(master, 65536)
            top.wait(timeout=60)
            after = termios.tcgetattr(slave)
        finally:
            if top.poll() is None:
                top.kill()
                top.wait()
            os.close(slave)
        err = top.stderr.read().decode(errors="replace")
        top.stderr.close()
        return top.returncode, before, after, seen, err

    def test_top_on_a_terminal_quits_on_q_and_gives_it_back(self):
        rc, before, after, seen, err = self.run_on_a_terminal(
            lambda top, master: os.write(master, b"q"))
        self.assertEqual(rc, 0, err)
        self.assertIn(b"q to quit", seen)
        self.assertIn(b"\033[H\033[2J", seen)
        self.assertEqual(after, before)

    def test_top_on_a_terminal_quits_on_ctrl_c_and_gives_it_back(self):
        rc, before, after, seen, err = self.run_on_a_terminal(
            lambda top, master: top.send_signal(signal.SIGINT))
        self.assertEqual(rc, 0, err)
        self.assertIn(b"DELEGATE_CALL", seen)
        self.assertEqual(after, before)

    def test_record_live_writes_the_etdump_too(self):
        out = self.path("live.etdp")
        # 300 executions 5 ms apart: over a second and a half
        proc = run([CLI, "record", "--live", "-o", out, "--", EXAMPLE,
                    "-n", "300", "--sleep-ms", "5"], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(len(decode(out)["run_data"]), 301)
        found = tables(proc.stdout)
        self.assertTrue(found, proc.stdout)
        for rows in found:
            if rows:
                self.assert_counts_add_up(rows)


if __name__ == "__main__":
    unittest.main()
