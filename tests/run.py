#!/usr/bin/env python3
"""Run the whole suite: the C unit tests, then the end-to-end tests.

Each unit-test binary prints one line per case ("ok - name" / "FAIL - name")
and the end-to-end tests are Python unittest modules that drive the real
etdump-bpf binary against real traced processes. The last line is the sum:
"N passed, N failed". Exit status 0 only when nothing failed.

usage: tests/run.py [--build DIR] [-k PATTERN] [-j JOBS] [--part all|alone|rest]
"""
import argparse
import os
import re
import subprocess
import sys
import time
import unittest

import e2e_groups
import e2e_pool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_unit(build, pattern, wrap=()):
    """wrap: what runs each binary (tests/qemu.py: qemu-aarch64)."""
    passed = failed = 0
    tests_dir = os.path.join(build, "tests")
    for name in sorted(os.listdir(tests_dir)):
        path = os.path.join(tests_dir, name)
        if not name.startswith("test_") or not os.access(path, os.X_OK):
            continue
        if pattern and pattern not in name:
            continue
        print(f"# {name}", flush=True)
        proc = subprocess.run([*wrap, path], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              errors="replace")
        out = proc.stdout
        sys.stdout.write(out)
        p = len(re.findall(r"^ok - ", out, re.M))
        f = len(re.findall(r"^FAIL - ", out, re.M))
        if proc.returncode != 0 and f == 0:
            # crashed or exited early: that is a failure of its own
            print(f"FAIL - {name}: exit status {proc.returncode}")
            f = 1
        passed += p
        failed += f
    return passed, failed


def executorch_modules(e2e_dir):
    """Whether the ExecuTorch tests can run; when not, one line says why
    (and run_e2e fails when they are required)."""
    sys.path.insert(0, e2e_dir)
    import executorch_env
    ok, why = executorch_env.available()
    if ok:
        return True, ""
    print(f"# ExecuTorch tests did not run: {why}", flush=True)
    return False, why


def viewer_modules():
    """Whether the real-viewer tests can run (tests/e2e/viewer_env.py);
    when not, one line says why."""
    import viewer_env
    ok, why = viewer_env.available()
    if not ok:
        print(f"# viewer tests did not run: {why}", flush=True)
    return ok, why


def print_slowest(times, n=15):
    print(f"# the {n} slowest end-to-end tests:")
    for spent, name in sorted(times, reverse=True)[:n]:
        print(f"#   {spent:6.1f} s  {name}")


def class_name(test):
    """module.Name that loads the test's class: the name the module binds
    it to (a class made by type() may call itself otherwise)."""
    cls = type(test)
    module = sys.modules[cls.__module__]
    name = next((n for n, v in vars(module).items() if v is cls),
                cls.__name__)
    return f"{cls.__module__}.{name}"


def class_ids(suite):
    """module.Class of every test in the suite, each once, in its order."""
    ids = []
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            ids += [i for i in class_ids(test) if i not in ids]
        else:
            # a module that failed to import: loaded again, it says why
            failed = isinstance(test, unittest.loader._FailedTest)
            cid = test.id().rsplit(".", 1)[1] if failed else \
                class_name(test)
            if cid not in ids:
                ids.append(cid)
    return ids


def run_e2e(build, pattern, jobs, part):
    os.environ["ETDUMP_BUILD"] = os.path.abspath(build)
    e2e_dir = os.path.join(ROOT, "tests", "e2e")
    loader = unittest.TestLoader()
    if pattern:
        loader.testNamePatterns = [f"*{pattern}*"]
    et_ok, et_why = executorch_modules(e2e_dir)
    viewer_ok, viewer_why = viewer_modules()
    # the modules that need ExecuTorch or the viewer are never imported
    # without it
    suite = unittest.TestSuite(
        loader.loadTestsFromName(f[:-3])
        for f in sorted(os.listdir(e2e_dir))
        if f.startswith("test_") and f.endswith(".py")
        and (et_ok or not f.startswith("test_executorch_"))
        and (viewer_ok or "viewer" not in f))
    alone, side_by_side = e2e_groups.split(class_ids(suite))
    alone = alone if part != "rest" else []
    side_by_side = side_by_side if part != "alone" else []
    # those alone first, on a machine no earlier recording's probes are
    # still leaving (symbol mode's durations are judged at full speed)
    print(f"# end-to-end: {len(alone)} classes alone (tests/e2e_groups.py), "
          f"then {len(side_by_side)} {jobs} at a time", flush=True)
    # one at a time, a class a worker would start ~80 Pythons for nothing
    rest = [[c] for c in side_by_side] if jobs > 1 else [side_by_side]
    results = e2e_pool.run([alone], 1, pattern) if alone else []
    results += e2e_pool.run([g for g in rest if g], jobs, pattern)
    times = [tuple(t) for r in results for t in r["times"]]
    print_slowest(times)
    failed_tests = {t for r in results for t in r["failed"]}
    failed = len(failed_tests)
    skipped = [s for r in results for s in r["skipped"]]
    for r in results:
        if "died" in r:
            print(f"FAIL - {r['died']}")
            failed += 1
    # a skipped end-to-end test is a failure: nothing here may be skipped
    failed += len(skipped) + sum(r["unexpected"] for r in results)
    for test, reason in skipped:
        print(f"FAIL - {test}: skipped ({reason}), which counts as failed")
    passed = sum(r["run"] for r in results) - len(failed_tests) - \
        len(skipped)
    if not et_ok and os.environ.get("ETDUMP_REQUIRE_EXECUTORCH") == "1":
        print(f"FAIL - ExecuTorch tests are required here "
              f"(ETDUMP_REQUIRE_EXECUTORCH=1) and did not run: {et_why}")
        failed += 1
    if not viewer_ok and os.environ.get("ETDUMP_REQUIRE_VIEWER") == "1":
        print(f"FAIL - viewer tests are required here "
              f"(ETDUMP_REQUIRE_VIEWER=1) and did not run: {viewer_why}")
        failed += 1
    return passed, failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("-k", dest="pattern", default="")
    ap.add_argument("--unit-only", action="store_true")
    # a part of the suite: the unit tests and the classes kept alone
    # (tests/e2e_groups.py), or the other classes; CI runs the kernel
    # matrix beside the second (.ci/run)
    ap.add_argument("--part", choices=("all", "alone", "rest"),
                    default="all")
    # the end-to-end classes side by side (tests/e2e_groups.py says which
    # never are). One at a time by default: the recordings wait mostly on
    # the kernel's event_mutex, which each perf-event uprobe holds over two
    # RCU grace periods to go out, one at a time machine-wide, so two
    # classes side by side took 819-847 s where one at a time took 907
    ap.add_argument("-j", "--jobs", type=int,
                    default=int(os.environ.get("ETDUMP_TEST_JOBS", "1")))
    args = ap.parse_args()
    build = os.path.join(ROOT, args.build) if not os.path.isabs(args.build) \
        else args.build
    t0 = time.monotonic()
    up = uf = ep = ef = 0
    if args.part != "rest":
        up, uf = run_unit(build, args.pattern)
    if not args.unit_only:
        ep, ef = run_e2e(build, args.pattern, max(1, args.jobs), args.part)
    passed, failed = up + ep, uf + ef
    print(f"\nunit: {up} passed, {uf} failed; end-to-end: {ep} passed, "
          f"{ef} failed; {time.monotonic() - t0:.0f} s ({args.build})")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
