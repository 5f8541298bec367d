"""The command line perf users expect: usage errors in one line with the
--help hint, -v/-q after the command, record's default output file,
`record -o - | report -`, and a file given to the wrong command naming
the right one."""
import os
import pty
import subprocess

from etdump_e2e import CLI, EXAMPLE, TempDirTest, decode, run

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "fixtures")


class CommandLineTest(TempDirTest):
    def assert_one_line_usage(self, args, hint_cmd):
        proc = run([CLI] + args)
        self.assertEqual(proc.returncode, 2, args)
        self.assertEqual(proc.stdout, "")
        lines = proc.stderr.splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn(f"(see 'etdump-bpf {hint_cmd}--help')", lines[0])
        return lines[0]

    def test_unknown_options_take_one_line(self):
        for cmd in ("record", "report", "list", "convert", "diff", "doctor"):
            line = self.assert_one_line_usage([cmd, "--bogus"], cmd + " ")
            self.assertIn("unknown option '--bogus'", line)
            line = self.assert_one_line_usage([cmd, "-Z"], cmd + " ")
            self.assertIn("unknown option '-Z'", line)
        line = self.assert_one_line_usage(["record", "-o"], "record ")
        self.assertIn("option '-o' needs a value", line)
        line = self.assert_one_line_usage(["report", "--units"], "report ")
        self.assertIn("option '--units' needs a value", line)
        self.assert_one_line_usage(["report"], "report ")
        self.assert_one_line_usage(["list"], "list ")
        self.assertIn("unknown option '--bogus'",
                      self.assert_one_line_usage(["--bogus"], ""))
        self.assertIn("unknown command 'nope'",
                      self.assert_one_line_usage(["nope"], ""))

    def record_in_tmp(self, args):
        return subprocess.run([CLI, "record"] + args +
                              ["--", EXAMPLE, "-n", "3"], cwd=self.tmp,
                              capture_output=True, timeout=60)

    def test_quiet_and_verbose_after_the_command(self):
        proc = self.record_in_tmp(["-q", "-o", "q.etdp"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr, b"")  # no mode, attach, summary lines
        decode(self.path("q.etdp"))
        proc = self.record_in_tmp(["--verbose", "-o", "v.etdp"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(b"libbpf: ", proc.stderr)  # libbpf's own log
        proc = run([CLI, "report", "-q", self.path("q.etdp")])
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_record_writes_a_default_file_never_overwritten(self):
        default = self.path("etdump.etdp")
        proc = self.record_in_tmp([])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(b"wrote etdump.etdp: 4 runs", proc.stderr)
        self.assertEqual(len(decode(default)["run_data"]), 4)
        with open(default, "rb") as f:
            before = f.read()
        proc = self.record_in_tmp([])
        self.assertEqual(proc.returncode, 1)
        self.assertIn(b"etdump.etdp: file exists (use --force to overwrite)",
                      proc.stderr)
        with open(default, "rb") as f:
            self.assertEqual(f.read(), before)
        proc = self.record_in_tmp(["-f"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        decode(default)
        # --raw alone still writes only the raw capture
        proc = self.record_in_tmp(["--raw", "only.raw"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(sorted(os.listdir(self.tmp)),
                         ["etdump.etdp", "only.raw"])

    def test_record_to_stdout_into_report_from_stdin(self):
        rec = subprocess.Popen([CLI, "record", "-o", "-", "--", EXAMPLE,
                                "-n", "4"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
        rep = subprocess.run([CLI, "report", "-", "--json"],
                             stdin=rec.stdout, capture_output=True,
                             timeout=60)
        rec.stdout.close()
        _, err = rec.communicate(timeout=60)
        self.assertEqual(rec.returncode, 0, err)
        self.assertEqual(rep.returncode, 0, rep.stderr)
        self.assertIn(b'"event_name": "native_call_convolution.out", '
                      b'"runs": 4', rep.stdout)
        # the target's own stdout went to stderr, not into the ETDump
        self.assertIn(b"executions: 4", err)
        self.assertIn(b"wrote standard output: 5 runs", err)
        # the bytes on stdout are exactly one ETDump
        out = self.path("piped.etdp")
        with open(out, "wb") as f:
            proc = subprocess.run([CLI, "record", "-o", "-", "--", EXAMPLE,
                                   "-n", "2"], stdout=f,
                                  stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(len(decode(out)["run_data"]), 3)
        self.assertFalse(os.path.exists(self.path("-")))

    def test_convert_reads_standard_input(self):
        raw, etdp = self.path("r.raw"), self.path("r.etdp")
        proc = run([CLI, "record", "-o", etdp, "--raw", raw, "--", EXAMPLE,
                    "-n", "2"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        piped = self.path("piped.etdp")
        with open(raw, "rb") as f:
            proc = subprocess.run([CLI, "convert", "-", "-o", piped],
                                  stdin=f, capture_output=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(etdp, "rb") as a, open(piped, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_record_to_a_terminal_is_refused(self):
        master, slave = pty.openpty()
        try:
            proc = subprocess.run([CLI, "record", "-o", "-", "--", EXAMPLE,
                                   "-n", "1"], stdout=slave,
                                  stderr=subprocess.PIPE, timeout=60)
        finally:
            os.close(slave)
            os.close(master)
        self.assertEqual(proc.returncode, 2)
        self.assertIn(b"standard output is a terminal", proc.stderr)
        self.assertNotIn(b"attached", proc.stderr)  # nothing was started

    def test_report_from_a_terminal_is_refused(self):
        master, slave = pty.openpty()
        try:
            proc = subprocess.run([CLI, "report", "-"], stdin=slave,
                                  capture_output=True, timeout=60)
        finally:
            os.close(slave)
            os.close(master)
        self.assertEqual(proc.returncode, 1)
        self.assertIn(b"standard input is a terminal", proc.stderr)

    def test_a_file_for_another_command_names_it(self):
        raw = self.path("x.raw")
        proc = run([CLI, "record", "--raw", raw, "--", EXAMPLE, "-n", "1"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for cmd, path, says in (
                (["report"], raw, "a raw capture (record --raw), not an "
                 "ETDump: use `etdump-bpf convert` on it"),
                (["report"], EXAMPLE, "an ELF binary, not an ETDump: "
                 "`etdump-bpf list` shows its probes"),
                (["report"], os.path.join(FIXTURES, "add.pte"),
                 "an ExecuTorch program (.pte), not an ETDump"),
                (["diff", raw], raw, "a raw capture")):
            proc = run([CLI] + cmd + [path])
            self.assertEqual(proc.returncode, 1, proc.stderr)
            lines = proc.stderr.splitlines()
            self.assertEqual(len(lines), 1, proc.stderr)
            self.assertEqual(lines[0][:len(f"etdump-bpf: {path}: ")],
                             f"etdump-bpf: {path}: ")
            self.assertIn(says, lines[0])
