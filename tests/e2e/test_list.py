"""etdump-bpf list: the probes a user can trace, before recording."""
import os

from etdump_e2e import CLI, EXAMPLE, EXAMPLE_LIB, EXAMPLE_NOPROBES, \
    EXAMPLE_SHARED, ROOT, TempDirTest, run, start_waiting_example

RULES = os.path.join(ROOT, "tests", "example", "example.rules")

# every probe schema/etdump_usdt.h defines that the example runtime uses
EXAMPLE_PROBES = {"block", "profile_begin", "profile_end", "instruction",
                  "delegate_begin", "delegate_end", "delegate_log", "flush"}


def listed_probes(stdout):
    return {line.split("\t")[1].split(":", 1)[1]
            for line in stdout.splitlines() if line}


class ListTest(TempDirTest):
    def test_binary(self):
        proc = run([CLI, "list", EXAMPLE])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(listed_probes(proc.stdout), EXAMPLE_PROBES)
        for line in proc.stdout.splitlines():
            path, probe, pc, sema, args = line.split("\t")
            self.assertEqual(path, EXAMPLE)
            self.assertNotEqual(int(sema, 16), 0, f"{probe} has a semaphore")
            self.assertTrue(all(a.startswith("8@%") for a in args.split()),
                            args)

    def list_running(self, binary):
        example = start_waiting_example(["-n", "1"], binary)
        try:
            proc = run([CLI, "list", "-p", str(example.pid)])
        finally:
            example.kill()
            example.wait()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(listed_probes(proc.stdout), EXAMPLE_PROBES)

    def test_running_process(self):
        self.list_running(EXAMPLE)

    def test_binary_whose_probes_are_in_a_library_it_needs(self):
        proc = run([CLI, "list", EXAMPLE_SHARED])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(listed_probes(proc.stdout), EXAMPLE_PROBES)
        paths = {line.split("\t")[0] for line in proc.stdout.splitlines()}
        self.assertEqual({os.path.realpath(p) for p in paths},
                         {os.path.realpath(EXAMPLE_LIB)})

    def test_running_process_whose_probes_are_in_a_library(self):
        self.list_running(EXAMPLE_SHARED)

    def test_binary_without_probes_previews_symbol_mode(self):
        # no rule of the built-in ones names a function of this C runtime
        proc = run([CLI, "list", EXAMPLE_NOPROBES])
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout, "")
        self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
        self.assertIn("no 'etdump' USDT probes, and none of the", proc.stderr)
        self.assertIn("--rules FILE", proc.stderr)
        # its own rules: what record --rules would attach to
        proc = run([CLI, "list", "--rules", RULES, EXAMPLE_NOPROBES])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = [line.split("\t") for line in proc.stdout.splitlines()]
        self.assertEqual(rows[0], ["FILE", "KIND", "FUNCTION", "EVENT", "ENTRY",
                                   "RETURN", "TRAPS"])
        by_function = {r[2]: (r[0], r[1], r[3]) for r in rows[1:]}
        self.assertEqual(by_function["method_execute"],
                         (EXAMPLE_NOPROBES, "block",
                          "Method::execute (opens a run 'Execute')"))
        self.assertEqual(by_function["op_relu"], (EXAMPLE_NOPROBES,
                                                  "kernel",
                                                  "native_call_relu.out"))
        self.assertEqual(by_function["delegate_execute"][1:],
                         ("delegate", "DELEGATE_CALL"))
        self.assertIn("`record` would use symbol mode", proc.stderr)
        self.assertIn(f"{RULES} + the built-in ExecuTorch rules",
                      proc.stderr)
        self.assertIn("symbols: its own .symtab", proc.stderr)

    def test_a_fifo_is_refused_at_once(self):
        # no writer ever comes: opening it to read would wait for good
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        proc = run([CLI, "list", fifo], timeout=30)
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stderr.strip(),
                         f"etdump-bpf: {fifo}: not a regular file (a device "
                         f"or FIFO is never read)")

    def test_not_an_elf_file(self):
        path = self.path("text")
        with open(path, "w") as f:
            f.write("hello\n")
        proc = run([CLI, "list", path])
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stderr.strip(),
                         f"etdump-bpf: {path}: not an ELF file")
