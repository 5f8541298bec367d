#!/usr/bin/env python3
"""The kernel matrix: cases.sh on this machine's own kernel (the "host"
row) and in a guest of each kernel, two at a time at most (this machine's
two CPUs are shared), then check.py on all of their results.

usage: tests/kernels/matrix.py [--results DIR] [--jobs N] [KERNEL...]
       (default: build/kernels, every kernel; make test-kernels
       KERNELS="6.1-amd64 5.10-arm64" picks)
The last line is check.py's "N passed, N failed"; exit status 0 only when
nothing failed.
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import check  # noqa: E402
import fetch  # noqa: E402
import guest  # noqa: E402
import kernels  # noqa: E402

CASES = os.path.relpath(os.path.join(HERE, "cases.sh"), ROOT)
# a guest's whole run of the cases; past it the guest is killed and its
# missing cases fail
GUEST_TIMEOUT = 900


def kernel_age(name):
    version = name.split("-")[0]
    return tuple(int(part) for part in version.split("."))


def run_row(name, results):
    """One row of the matrix; (name, how it ended, seconds)."""
    out = os.path.join(results, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    t0 = time.monotonic()
    if name == kernels.HOST:
        with open(os.path.join(out, "console.log"), "w") as log:
            status = subprocess.run(["sh", CASES, out], cwd=ROOT, stdout=log,
                                    stderr=subprocess.STDOUT).returncode
        return name, f"exit status {status}", time.monotonic() - t0
    status, _ = guest.run(name, f"sh {CASES} /results", out, GUEST_TIMEOUT,
                          echo=False, cwd=ROOT)
    how = {124: f"killed after {GUEST_TIMEOUT} s",
           125: "did not run the cases (console.log)"}.get(
               status, f"exit status {status}")
    return name, how, time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", default=os.path.join(ROOT, "build",
                                                      "kernels"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("kernels", nargs="*", type=kernels.check)
    args = ap.parse_args()
    names = args.kernels or list(kernels.KERNELS)
    t0 = time.monotonic()
    # fetched one after the other before any guest boots: each suite's
    # private apt state is updated once
    fetch.fetch(names)
    # the oldest kernels first: their guests are the longest (what they
    # lack, the programs make up for with more to verify), and two at a
    # time end together best when the long ones start first
    rows = [kernels.HOST, *sorted(names, key=kernel_age)]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        running = [pool.submit(run_row, n, args.results) for n in rows]
        for done in concurrent.futures.as_completed(running):
            name, how, seconds = done.result()
            print(f"matrix: {name}: {how}, {seconds:.0f} s", flush=True)
    print(f"matrix: all rows in {time.monotonic() - t0:.0f} s", flush=True)
    sys.argv = [sys.argv[0], "--results", args.results, *rows]
    return check.main()


if __name__ == "__main__":
    sys.exit(main())
