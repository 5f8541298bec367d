"""Overload degrades, it does not vanish: the ring record uses without
--ring-size is sized from the machine (grows with its CPUs); when a ring
is too small for the load, the summary names the threads whose runs were
left out, how many each, and the --ring-size to record with instead."""
import os
import re

from etdump_e2e import CLI, EXAMPLE, TempDirTest, run

MiB = 1 << 20


def machine_ring():
    """32M a CPU as a power of two, 8M to 256M, at most 1/64 of memory."""
    want = 32 * MiB * os.sysconf("SC_NPROCESSORS_ONLN")
    ring = 1
    while ring < want:
        ring *= 2
    ring = min(max(ring, 8 * MiB), 256 * MiB)
    share = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 64
    while ring > share and ring > MiB:
        ring //= 2
    return ring


class OverloadTest(TempDirTest):
    def test_default_ring_is_sized_from_the_machine(self):
        out = self.path("d.etdp")
        proc = run([CLI, "record", "-v", "-o", out, "--", EXAMPLE, "-n", "2"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        m = re.search(r"ring buffer: (\d+) KiB", proc.stderr)
        self.assertTrue(m, proc.stderr)
        self.assertEqual(int(m.group(1)) * 1024, machine_ring())

    def test_runs_lost_are_named_by_thread_with_the_ring_to_use(self):
        out = self.path("o.etdp")
        proc = run([CLI, "record", "-o", out, "--precise", "--no-counters",
                    "--ring-size", "4K", "--", EXAMPLE, "-n", "100",
                    "--threads", "4"], timeout=120)
        # 3: written, with drops; a ring of one page always overflows
        self.assertEqual(proc.returncode, 3, proc.stderr)
        left = re.search(r"(\d+) run\(s\) left out: the ring buffer lost",
                         proc.stderr)
        self.assertTrue(left, proc.stderr)
        line = re.search(r"(\d+) run\(s\) of (\d+) thread\(s\) left out, "
                         r"the full ring lost some of each.*by thread: (.*)",
                         proc.stderr)
        self.assertTrue(line, proc.stderr)
        per_thread = re.findall(r"TID (\d+): (\d+) run\(s\), (\d+) event",
                                line.group(3))
        self.assertEqual(len(per_thread), int(line.group(2)))
        self.assertLessEqual(len(per_thread), 4 + 1)  # + the main thread
        self.assertEqual(len({t for t, _, _ in per_thread}), len(per_thread))
        self.assertEqual(sum(int(r) for _, r, _ in per_thread),
                         int(left.group(1)))
        self.assertEqual(int(line.group(1)), int(left.group(1)))
        self.assertIn("--ring-size 16K (this one: 4K)", proc.stderr)
