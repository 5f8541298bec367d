"""A site probed on each of its rets instead of a uretprobe, as symbol
mode probes an aarch64 function whose first instruction is single-stepped
(user/symbol/arm64_exits.h), attached as record attaches it, on this
machine: build/exit-probes (tests/probes/exit_probes.c) calls a function
of its own that leaves by one of two rets, beside one with a uretprobe,
and counts the records. Each call gives one entry and one exit, in that
order, whichever ret it left by."""
import os
import re
import unittest

from etdump_e2e import BUILD, run

EXIT_PROBES = os.path.join(BUILD, "exit-probes")
CALLS = 20000


class ExitProbesTest(unittest.TestCase):
    def test_one_exit_per_call_whichever_ret(self):
        proc = run([EXIT_PROBES, str(CALLS)])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        # an entry each, a uretprobe, two exits at the rets
        self.assertTrue(proc.stdout.startswith("5 probes; "), proc.stdout)
        m = re.search(r"two rets (\d+) entries (\d+) exits, one ret (\d+) "
                      r"entries (\d+) exits, (\d+) unpaired", proc.stdout)
        self.assertTrue(m, proc.stdout)
        self.assertEqual([int(g) for g in m.groups()],
                         [CALLS] * 4 + [0])
        self.assertIn(f"({CALLS // 2} by the first ret)", proc.stdout)


if __name__ == "__main__":
    unittest.main()
