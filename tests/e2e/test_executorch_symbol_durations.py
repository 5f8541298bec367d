"""Symbol mode's durations against ETDumpGen's on the same machine (issue
28): the stock runner on cnn.pte, and the stock XNNPACK runner on
xnn_mlp.pte, each run alternately with ETDumpGen's own runner, 200
executions a run, three rounds (scripts/kernel_durations.py). Each
kernel's median within max(25 %, 150 ns) of ETDumpGen's, each XNNPACK
operator's within 1 us (its profiler counts whole microseconds), every
event of ETDumpGen's found under the same name and instruction (without
--program: the names as the binary registers its kernels), and no
duration written is 0 or the 1 ns a clamp leaves: taking the probes' own
time out must not eat a call.
"""
import os
import sys
import unittest

from etdump_e2e import BUILD, ROOT

sys.path.insert(0, os.path.join(ROOT, "scripts"))
import kernel_durations as kd  # noqa: E402

ROUNDS, EXECUTIONS = 3, 200


class SymbolDurationsTest(unittest.TestCase):
    def assert_like_etdumpgen(self, model):
        ref, got, ours, least, refs = kd.side_by_side(BUILD, model, ROUNDS,
                                                      EXECUTIONS)
        self.assertTrue(ref)
        for key in sorted(ref):
            with self.subTest(event=key):
                self.assertIn(key, got)
                # each round's median too: a round disturbed tells
                # itself from a difference every round shows
                self.assertLessEqual(
                    abs(got[key] - ref[key]),
                    kd.bound_ns(model, ref[key], key[1]),
                    f"{key}: symbol mode {got[key]} ns (rounds "
                    f"{[o.get(key) for o in ours]}), ETDumpGen "
                    f"{ref[key]} ns (rounds {[r.get(key) for r in refs]})")
        self.assertGreater(least, 1)

    def test_cnn_kernels(self):
        self.assert_like_etdumpgen("cnn")

    def test_xnn_mlp_operators(self):
        self.assert_like_etdumpgen("xnn_mlp")


if __name__ == "__main__":
    unittest.main()
