"""The same recording, the same file: record -o writes an ETDump and
--raw a capture; convert of the capture gives byte for byte the file
record wrote, for runs of several threads and of the processes the
command starts, whatever order the ring delivered them in."""
import os

from etdump_e2e import (CLI, DEFAULT_EVENTS, EXAMPLE, EXECUTE_EVENTS,
                        TempDirTest, decode, run, run_keys)

THREADS, EXECUTIONS = 4, 40
CHILD_THREADS, CHILD_EXECUTIONS = 2, 10
# (command, runtimes, Execute runs): the command, and a shell
# starting two runtimes at once (children, followed)
COMMANDS = {
    "threads": ([EXAMPLE, "-n", str(EXECUTIONS), "--threads", str(THREADS)],
                1, THREADS * EXECUTIONS),
    "children": (["sh", "-c",
                  f"{EXAMPLE} -n {EXECUTIONS} --threads {THREADS} "
                  f"> /dev/null & {EXAMPLE} -n {CHILD_EXECUTIONS} "
                  f"--threads {CHILD_THREADS} > /dev/null; wait"],
                 2, THREADS * EXECUTIONS + CHILD_THREADS * CHILD_EXECUTIONS),
}
TRIALS = 2


class SameFileTest(TempDirTest):
    def record_and_convert(self, name, mode, command):
        rec, raw = self.path(f"{name}.etdp"), self.path(f"{name}.raw")
        conv = self.path(f"{name}-converted.etdp")
        proc = run([CLI, "record", "-o", rec, "--raw", raw, *mode, "--",
                    *command], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc = run([CLI, "convert", raw, "-o", conv], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return rec, conv

    def assert_every_run(self, path, runtimes, executions):
        runs = decode(path)["run_data"]
        names = [r["name"] for r in runs]
        self.assertEqual(names.count("Default"), runtimes)
        self.assertEqual(names.count("Execute"), executions)
        for r in runs:
            self.assertEqual(run_keys(r), EXECUTE_EVENTS if
                             r["name"] == "Execute" else DEFAULT_EVENTS)

    def test_convert_writes_the_file_record_wrote(self):
        for what, (command, runtimes, executions) in COMMANDS.items():
            for mode in ([], ["--precise"]):
                for trial in range(TRIALS):
                    name = f"{what}-{len(mode)}-{trial}"
                    with self.subTest(what, mode=mode, trial=trial):
                        rec, conv = self.record_and_convert(name, mode,
                                                            command)
                        self.assert_every_run(rec, runtimes, executions)
                        with open(rec, "rb") as a, open(conv, "rb") as b:
                            same = a.read() == b.read()
                        self.assertTrue(same, f"{conv} is not the file "
                                        f"record wrote ({rec})")

    def test_a_file_past_what_the_recorder_holds(self):
        """Past the 4 MiB the recorder keeps in memory, the ETDump goes to
        disk as it grows and is made where it went (record and convert
        alike): the same file from both, every run in it, nothing else
        left in the folder."""
        threads, executions = 4, 2000
        rec, conv = self.record_and_convert(
            "big", [], [EXAMPLE, "-n", str(executions), "--threads",
                        str(threads)])
        size = os.path.getsize(rec)
        self.assertGreater(size, 4 << 20)
        # made in place: whole pages, the padding after its identifier
        self.assertEqual(size % 4096, 0)
        with open(rec, "rb") as a, open(conv, "rb") as b:
            self.assertTrue(a.read() == b.read(),
                            f"{conv} is not the file record wrote ({rec})")
        self.assert_every_run(rec, 1, threads * executions)
        self.assertEqual(sorted(os.listdir(self.tmp)),
                         ["big-converted.etdp", "big.etdp", "big.raw"])
