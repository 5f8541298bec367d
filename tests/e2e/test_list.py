"""etdump-bpf list: the probes a user can trace, before recording."""

from etdump_e2e import CLI, EXAMPLE, EXAMPLE_NOPROBES, TempDirTest, run, \
    start_waiting_example

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

    def test_running_process(self):
        example = start_waiting_example(["-n", "1"])
        try:
            proc = run([CLI, "list", "-p", str(example.pid)])
        finally:
            example.kill()
            example.wait()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(listed_probes(proc.stdout), EXAMPLE_PROBES)

    def test_binary_without_probes(self):
        proc = run([CLI, "list", EXAMPLE_NOPROBES])
        self.assertEqual(proc.returncode, 1)
        self.assertIn("no 'etdump' USDT probes", proc.stderr)

    def test_not_an_elf_file(self):
        path = self.path("text")
        with open(path, "w") as f:
            f.write("hello\n")
        proc = run([CLI, "list", path])
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stderr.strip(),
                         f"etdump-bpf: {path}: not an ELF file")
