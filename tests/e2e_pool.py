#!/usr/bin/env python3
"""The end-to-end tests' classes run in worker processes, a few at a time.

The tests mostly wait (for a recorder to attach, a target to run, the
kernel to let probes go); where what they wait on is each one's own,
classes side by side take the suite's minutes down without more CPU (here
they wait on one lock of the kernel's: tests/run.py -j says why one at a
time is the default). Each class runs in a process of its own (python3 tests/e2e_pool.py --worker ...), its output in a file of its
own, printed whole once the class is done: never two tests' lines
interleaved. Its results come back as JSON beside it.

run(units, jobs, pattern, out) -> (results, times), where units are class
ids (module.Class) in the order to start them.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

TESTS = os.path.dirname(os.path.abspath(__file__))
E2E = os.path.join(TESTS, "e2e")


class TimedResult(unittest.TextTestResult):
    """Each test's wall time, for the slowest list at the end (where the
    suite's minutes go: not a check of any test's speed)."""

    def startTest(self, test):
        self._t0 = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        self.times.append((time.monotonic() - self._t0, test.id()))


def summary(result):
    """What the parent adds up, as JSON can carry it."""
    # a test counts once however many of its subtests failed
    failed = sorted({getattr(test, "test_case", test).id()
                     for test, _ in result.failures + result.errors})
    return {"run": result.testsRun, "failed": failed,
            "skipped": [(t.id(), why) for t, why in result.skipped],
            "unexpected": len(result.unexpectedSuccesses),
            "times": result.times}


def worker(units, pattern, out):
    """Run the classes named, one after the other; the summary into out."""
    sys.path.insert(0, E2E)
    loader = unittest.TestLoader()
    if pattern:
        loader.testNamePatterns = [f"*{pattern}*"]
    suite = unittest.TestSuite(loader.loadTestsFromName(u) for u in units)
    TimedResult.times = []
    runner = unittest.TextTestRunner(verbosity=2, stream=sys.stdout,
                                     resultclass=TimedResult)
    result = runner.run(suite)
    with open(out, "w") as f:
        json.dump(summary(result), f)


def start(units, pattern, tmp, n, stream):
    """A worker for units; its summary goes to a file in tmp, its output
    too, or to ours as it comes when it is the only one (stream)."""
    log = None if stream else os.path.join(tmp, f"{n}.log")
    res = os.path.join(tmp, f"{n}.json")
    with open(log or os.devnull, "w") as f:
        proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", res,
             "--pattern", pattern, "--"] + list(units),
            stdout=None if stream else f,
            stderr=None if stream else subprocess.STDOUT,
            stdin=subprocess.DEVNULL)
    return proc, log, res, time.monotonic()


def finish(units, log, res, t0, status, out):
    """Its output, whole; its summary, or one that says it died."""
    if log:
        with open(log, errors="replace") as f:
            out.write(f.read())
    what = units[0] if len(units) == 1 else f"{len(units)} classes"
    out.write(f"# {what}: {time.monotonic() - t0:.0f} s\n")
    out.flush()
    try:
        with open(res) as f:
            return json.load(f)
    except (OSError, ValueError):
        # the worker itself died: every class it had counts as failed
        what = units[0] if len(units) == 1 else f"{len(units)} classes"
        return {"run": 0, "failed": [], "skipped": [], "unexpected": 0,
                "times": [], "died": f"{what}: exit status {status}, "
                                     "no results"}


def run(groups, jobs, pattern, out=sys.stdout):
    """Each group (a list of class ids, run one after the other in one
    worker) in a worker of its own, jobs of them at a time, in the order
    given. Their summaries, in the order they ended. One at a time, a
    worker's output comes as it is written."""
    results = []
    running = []
    pending = list(groups)
    with tempfile.TemporaryDirectory(prefix="etdump-e2e-pool-") as tmp:
        n = 0
        while pending or running:
            while pending and len(running) < jobs:
                out.flush()
                running.append((pending[0],) + start(pending[0], pattern,
                                                     tmp, n, jobs == 1))
                pending.pop(0)
                n += 1
            # the first to end, whichever it is
            pid, status = os.wait()
            for i, (units, proc, log, res, t0) in enumerate(running):
                if proc.pid == pid:
                    proc.returncode = status
                    results.append(finish(units, log, res, t0,
                                          os.waitstatus_to_exitcode(status),
                                          out))
                    del running[i]
                    break
    return results


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", required=True)
    ap.add_argument("--pattern", default="")
    ap.add_argument("units", nargs="+")
    args = ap.parse_args()
    worker(args.units, args.pattern, args.worker)


if __name__ == "__main__":
    main()
