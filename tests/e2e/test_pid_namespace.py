"""record inside a PID namespace (a container: unshare --pid --fork
--mount-proc) against a target in it: the pids it is given are the
namespace's, not the kernel's, and every mode records every run (it
recorded none before: the BPF filter compared them with the kernel's).
"""
import os
import sys
import unittest

from etdump_e2e import (CLI, EXAMPLE, EXAMPLE_NOPROBES, ROOT, TempDirTest,
                        decode, run)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from etdump_counters import parse_counters  # noqa: E402

RULES = os.path.join(ROOT, "tests", "example", "example.rules")
IN_NAMESPACE = ["unshare", "--pid", "--fork", "--mount-proc"]


class PidNamespaceTest(TempDirTest):
    def record(self, args):
        out = self.path(f"ns{len(os.listdir(self.tmp))}.etdp")
        proc = run(IN_NAMESPACE + [CLI, "record", "-o", out] + args,
                   timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return decode(out)

    def assert_runs(self, dump, executions=3):
        # ETDumpGen's names, in symbol mode too
        self.assertEqual([r["name"] for r in dump["run_data"]],
                         ["Default"] + ["Execute"] * executions)

    def test_command_in_every_mode(self):
        cases = [[], ["--precise", "-e", "task-clock"],
                 ["--rules", RULES]]
        for flags in cases:
            with self.subTest(flags=flags):
                binary = EXAMPLE_NOPROBES if "--rules" in flags else EXAMPLE
                dump = self.record(flags + ["--", binary, "-n", "3"])
                self.assert_runs(dump)
                if "task-clock" in flags:
                    # sched_switch knows the target too: CPU times are read
                    clocks = [parse_counters(bytes(
                        e["profile_event"]["delegate_debug_metadata"]))
                        for r in dump["run_data"] for e in r["events"]
                        if e["profile_event"].get("name")]
                    self.assertTrue(any(c and c["task-clock"] is not None
                                        for c in clocks))

    def test_attach_with_a_pid_of_the_namespace(self):
        out = self.path("p.etdp")
        # the recorder is given the runtime once it is one ("ready": a
        # PID taken before the exec is a shell's), and the wait for its
        # attach ends when it exits without one
        ready, err = self.path("ready"), self.path("err")
        script = (f"{EXAMPLE} --wait-signal -n 3 > {ready} & P=$!; "
                  f"while ! grep -q ready {ready}; do "
                  f"kill -0 $P || exit 1; sleep 0.05; done; "
                  f"{CLI} record -o {out} -p $P 2> {err} & R=$!; "
                  f"while ! grep -q attached {err}; do "
                  f"kill -0 $R || break; sleep 0.05; done; "
                  f"kill -USR1 $P; wait $R; S=$?; cat {err} >&2; exit $S")
        proc = run(IN_NAMESPACE + ["sh", "-c", script], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_runs(decode(out))


if __name__ == "__main__":
    unittest.main()
