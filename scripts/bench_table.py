"""What every row of make bench shares (scripts/bench.py): where the
build's programs are, the table the rows fill, and how a number is said."""
import os
import statistics
import sys


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def median(xs):
    return statistics.median(xs) if xs else float("nan")


class Build:
    def __init__(self, d):
        self.dir = d
        self.loop5 = os.path.join(d, "bench-loop")
        self.loop1 = os.path.join(d, "bench-loop-nop1")
        self.noprobes = os.path.join(d, "bench-loop-noprobes")
        self.writer = os.path.join(d, "bench-writer")
        self.example = os.path.join(d, "example-runtime")
        self.against = None  # --against: another build's recorder


class Table:
    def __init__(self):
        self.rows = []

    def section(self, title):
        self.rows.append((title,))

    def add(self, what, measured, ratio="", note=""):
        self.rows.append(("   " + what, measured, ratio, note))

    def render(self):
        cells = [r for r in self.rows if len(r) > 1]
        w = [max((len(r[i]) for r in cells), default=0) for i in range(3)]
        lines = []
        for r in self.rows:
            if len(r) == 1:
                lines.append(r[0])
            else:
                lines.append(f"{r[0]:<{w[0]}}  {r[1]:>{w[1]}}  "
                             f"{r[2]:>{w[2]}}  {r[3]}".rstrip())
        return "\n".join(lines)


def fmt_ratio(x):
    return f"{x:.2f}x"
