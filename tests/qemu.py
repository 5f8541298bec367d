#!/usr/bin/env python3
"""The arm64 build under qemu-aarch64, beside the host's (make test ARCH=arm64).

qemu-user runs aarch64 programs on this machine, not an aarch64 kernel, so
what needs one cannot be run here: recording (BPF programs and uprobes
attach to the host kernel, whose uprobes would patch x86 breakpoints into
aarch64 code). Everything else is: the unit tests, the example runtime
detached (its results equal to the host build's), and report, convert and
list of the arm64 build on the ETDumps, raw captures and binaries the host
suite uses, compared byte for byte with the host build's output. The raw
captures and their ETDumps are recorded by the host build, so this needs
root, as the host suite does.

The programs run on Debian's arm64 multiarch libraries (libc6:arm64, as
`make deps ARCH=arm64` installs), not with `-L /usr/aarch64-linux-gnu`: with
that cross sysroot as qemu's path prefix, qemu 7.2's forked children spin
before they reach their next line (a ten-line fork-and-exec program shows
it), so a test that forks a command, as test_raw does, fails there; the
same test on the same cross glibc loaded without -L passes (cross_sysroot).

usage: tests/qemu.py --build build/arm64 --host-build build [-k PATTERN]
"""
import argparse
import filecmp
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

from run import ROOT, run_unit

sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import executorch_env  # noqa: E402

QEMU = "qemu-aarch64"
NOT_RUN = ("not run under qemu-aarch64: record (attaching BPF programs and "
           "uprobes needs an arm64 kernel)")


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=300, cwd=ROOT, **kw)


class Suite:
    def __init__(self, build, host, pattern):
        self.build, self.host, self.pattern = build, host, pattern
        self.passed = self.failed = 0
        self.tmp = tempfile.mkdtemp(prefix="etdump-qemu.")

    def check(self, name, why_not):
        """One case: why_not is None when it holds, else what differs."""
        if self.pattern and self.pattern not in name:
            return
        if why_not is None:
            print(f"ok - {name}", flush=True)
            self.passed += 1
        else:
            print(f"FAIL - {name}: {why_not}", flush=True)
            self.failed += 1

    def same(self, name, args, outputs=()):
        """args run by both builds' etdump-bpf: the same exit status and
        output, and the same bytes in each file of outputs (an {out}
        placeholder in args, one folder per build)."""
        got = []
        for cli, wrap in ((os.path.join(self.host, "etdump-bpf"), []),
                          (os.path.join(self.build, "etdump-bpf"), [QEMU])):
            out = os.path.join(self.tmp, f"{len(got)}")
            os.makedirs(out, exist_ok=True)
            p = run([*wrap, cli, *[a.format(out=out) for a in args]])
            files = []
            for f in outputs:
                path = os.path.join(out, f)
                files.append(path if os.path.exists(path) else None)
            got.append((p.returncode, p.stdout.replace(out.encode(), b"OUT"),
                        p.stderr.replace(out.encode(), b"OUT"), files))
        (hrc, hout, herr, hfiles), (arc, aout, aerr, afiles) = got
        why = None
        if hrc != arc:
            why = f"exit status {arc}, the host build's {hrc}: {aerr[-300:]!r}"
        elif hout != aout or herr != aerr:
            why = "its output differs from the host build's"
        elif not hout and not herr and not hfiles:
            why = "the host build printed nothing to compare"
        for h, a in zip(hfiles, afiles):
            if why is None and (h is None or a is None):
                why = "an output file was not written"
            elif why is None and not filecmp.cmp(h, a, shallow=False):
                why = f"{os.path.basename(a)} differs from the host build's"
        self.check(name, why)

    def unit(self):
        p, f = run_unit(self.build, self.pattern, wrap=[QEMU])
        self.passed += p
        self.failed += f
        if p + f == 0 and not self.pattern:
            self.check("unit tests", "none ran")

    def cross_sysroot(self):
        """test_raw's started command fails under `qemu-aarch64 -L
        /usr/aarch64-linux-gnu` alone: there qemu's forked child spins before
        it execs. The same binary on the same cross glibc, loaded without
        -L, passes: the failure is qemu's, not the recorder's."""
        sysroot = "/usr/aarch64-linux-gnu/lib"
        test = os.path.join(self.build, "tests", "test_raw")
        p = run([QEMU, os.path.join(sysroot, "ld-linux-aarch64.so.1"),
                 "--library-path", sysroot, test])
        out = p.stdout.decode(errors="replace")
        self.check("test_raw on the cross sysroot's glibc (without qemu -L)",
                   None if p.returncode == 0 and "FAIL" not in out
                   and "ok - a_started_command_is_mapped_once_it_has_execd"
                   in out else f"exit status {p.returncode}: {out[-300:]!r}")

    def example_detached(self):
        for args in (["-n", "3"], ["-n", "2", "--threads", "2"]):
            for name in ("example-runtime", "example-runtime-shared",
                         "example-runtime-noprobes"):
                h = run([os.path.join(self.host, name), *args])
                a = run([QEMU, os.path.join(self.build, name), *args])
                why = None
                if a.returncode or h.returncode:
                    why = f"exit status {a.returncode} ({h.returncode} here)"
                elif a.stdout != h.stdout or b"probabilities" not in a.stdout:
                    why = (f"prints {a.stdout[:200]!r}, the host build "
                           f"{h.stdout[:200]!r}")
                self.check(f"{name} {' '.join(args)} detached: the host "
                           f"build's results", why)

    def record_captures(self):
        """Raw captures and ETDumps recorded by the host build, as the host
        suite records them: batched, per-scope, and with a delegate."""
        cli = os.path.join(self.host, "etdump-bpf")
        made = []
        example = os.path.join(self.host, "example-runtime")
        rules = os.path.join(ROOT, "tests", "example", "example.rules")
        for tag, extra, target in (
                ("batched", [], [example, "-n", "5"]),
                ("precise", ["--precise", "--no-counters"],
                 [example, "-n", "5"]),
                ("threads-counters", ["-e", "task-clock,page-faults"],
                 [example, "-n", "3", "--threads", "2"]),
                ("symbols", ["--symbols", "--rules", rules],
                 [os.path.join(self.host, "example-runtime-noprobes"),
                  "-n", "3"])):
            raw = os.path.join(self.tmp, f"{tag}.raw")
            etdp = os.path.join(self.tmp, f"{tag}.etdp")
            p = run([cli, "record", "-o", etdp, "--raw", raw, *extra, "--",
                     *target])
            self.check(f"host build records the example ({tag})",
                       None if p.returncode == 0 else
                       f"exit status {p.returncode}: {p.stderr[-300:]!r}")
            if p.returncode == 0:
                made.append((raw, etdp))
        return made

    def convert_report_list(self):
        captures = self.record_captures()
        etdumps = [e for _, e in captures]
        etdumps += sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures",
                                                 "*.etdp")))
        reference = os.path.join(ROOT, "..", "shared", "executorch",
                                 "reference")
        etdumps += sorted(glob.glob(os.path.join(reference, "*.etdp")))
        for raw, _ in captures:
            base = os.path.basename(raw)
            self.same(f"convert {base} to an ETDump", ["convert", raw, "-o",
                      "{out}/x.etdp"], ["x.etdp"])
            self.same(f"convert {base} to a Chrome trace", ["convert", raw,
                      "-o", "{out}/x.json"], ["x.json"])
        for etdp in etdumps:
            base = os.path.relpath(etdp, ROOT)
            self.same(f"report {base}", ["report", etdp])
            self.same(f"report --json --units us {base}",
                      ["report", "--json", "--units", "us", etdp])
            self.same(f"report --csv --no-operator-call {base}",
                      ["report", "--csv", "--no-operator-call", etdp])
        binaries = [os.path.join(b, n) for b in (self.host, self.build)
                    for n in ("example-runtime", "example-runtime-shared",
                              "libexample-runtime.so", "example-forker")]
        # ExecuTorch's: ours with the EventTracer's probes, the stock ones
        binaries += [b for b in (
            os.path.join(self.host, "executorch-runner"),
            executorch_env.STOCK_RUNNER,
            os.path.join(executorch_env.DIR, "arm64", "bin",
                         "executor_runner")) if os.path.exists(b)]
        for b in binaries:
            self.same(f"list {os.path.relpath(b, ROOT)}", ["list", b])
        # what has no probes, or is no ELF file: the same one line and status
        self.same("list of a binary without probes",
                  ["list", os.path.join(self.build,
                                        "example-runtime-noprobes")])
        self.same("list of what is not an ELF file",
                  ["list", os.path.join(ROOT, "README.md")])
        self.same("report of what is not an ETDump",
                  ["report", os.path.join(ROOT, "README.md")])

    def sites(self, arm64, args):
        """list's symbol-mode preview by the arm64 (else the host) build:
        the exit status, each site's (kind, function, event), and the
        summary line's count of single-stepped sites."""
        if arm64:
            cmd = [QEMU, os.path.join(self.build, "etdump-bpf")]
        else:
            cmd = [os.path.join(self.host, "etdump-bpf")]
        p = run([*cmd, "list", *args])
        lines = p.stdout.decode().splitlines()[1:]
        stepped = re.search(r"(\d+) single-stepped", p.stderr.decode())
        return (p.returncode, sorted(tuple(ln.split("\t")[1:4])
                                     for ln in lines),
                int(stepped.group(1)) if stepped else None)

    def same_sites(self, name, host_args, arm64_args):
        hrc, hsites, _ = self.sites(False, host_args)
        arc, asites, _ = self.sites(True, arm64_args)
        why = None
        if hrc or arc:
            why = f"exit status {arc} (the host build's {hrc})"
        elif not hsites:
            why = "the host build found no site"
        elif asites != hsites:
            missing = set(hsites) - set(asites)
            extra = set(asites) - set(hsites)
            why = f"missing {sorted(missing)[:3]}, more {sorted(extra)[:3]}"
        self.check(name, why)

    def symbols(self):
        """Symbol mode's ELF, rules and debug-file parts (list's preview of
        what record would attach to): the arm64 build on arm64 binaries
        finds the functions the host build finds on the host's."""
        rules = os.path.join(ROOT, "tests", "example", "example.rules")
        name = "example-runtime-noprobes"
        self.same_sites(f"list --rules: {name} (arm64) has the host's "
                        f"symbol-mode sites",
                        ["--rules", rules, os.path.join(self.host, name)],
                        ["--rules", rules, os.path.join(self.build, name)])
        ok, why = executorch_env.available()
        arm64_bin = os.path.join(executorch_env.DIR, "arm64", "bin")
        if not ok or not os.path.isdir(arm64_bin):
            why = why or f"{arm64_bin} is missing"
            print(f"# ExecuTorch's arm64 runner did not run: {why}")
            if os.environ.get("ETDUMP_REQUIRE_EXECUTORCH") == "1":
                self.check("ExecuTorch's arm64 runner", why)
            return
        host_runner = executorch_env.STOCK_RUNNER
        runner = os.path.join(arm64_bin, "executor_runner")
        stripped = os.path.join(arm64_bin, "executor_runner_stripped")
        self.same_sites("list: ExecuTorch's arm64 runner has the x86-64 "
                        "runner's kernels and framework functions",
                        [host_runner], [runner])
        self.same_sites("list: the stripped arm64 runner, by its "
                        ".gnu_debuglink", [host_runner], [stripped])
        self.same_sites("list --debug-file: the stripped arm64 runner",
                        [host_runner],
                        ["--debug-file", stripped + ".debug", stripped])
        # GCC's aarch64 prologues (stp x29, x30, [sp, #-n]!; sub sp, sp,
        # #n; a load) are single-stepped (tests/unit/test_arm64_insn.c):
        # all but 2 of the 16 functions are probed past them and on their
        # rets (tests/e2e/test_executorch_arm64_sites.py)
        _, sites, stepped = self.sites(True, [runner])
        self.check("list: 2 of the arm64 runner's 16 sites single-stepped",
                   None if len(sites) == 16 and stepped == 2 else
                   f"{stepped} of {len(sites)} single-stepped")

    def doctor(self):
        """doctor of the arm64 build under qemu: it finds the arm64
        runner's functions by its debug file, and names what qemu lacks
        for recording (bpf() is not emulated: no ring buffer)."""
        stripped = os.path.join(executorch_env.DIR, "arm64", "bin",
                                "executor_runner_stripped")
        if not os.path.exists(stripped):
            return
        p = run([QEMU, os.path.join(self.build, "etdump-bpf"), "doctor",
                 stripped])
        out = p.stdout.decode()
        want = ["MISSING  ring buffer", "ok       symbols",
                "ok       debug file", "ok       kernel"]
        why = None
        if p.returncode != 1:
            why = f"exit status {p.returncode}, not 1: {out!r}"
        elif not all(w in out for w in want):
            why = f"{out!r} lacks one of {want}"
        self.check("doctor under qemu: the runner's symbols by its debug "
                   "file, and no BPF ring buffer (what qemu lacks)", why)

    def static(self, path):
        """make ARCH=arm64 STATIC=1: an aarch64 executable with no program
        interpreter and no dynamic section, whose report is the host's."""
        with open(path, "rb") as f:
            elf = f.read()
        machine, = struct.unpack_from("<H", elf, 18)
        phoff, = struct.unpack_from("<Q", elf, 32)
        phentsize, phnum = struct.unpack_from("<HH", elf, 54)
        types = {struct.unpack_from("<I", elf, phoff + i * phentsize)[0]
                 for i in range(phnum)}
        why = None
        if elf[:4] != b"\x7fELF" or machine != 183:     # EM_AARCH64
            why = "not an aarch64 ELF file"
        elif types & {3, 2}:                            # PT_INTERP, PT_DYNAMIC
            why = "it has a program interpreter or a dynamic section"
        self.check("the static arm64 etdump-bpf needs no shared library", why)
        etdp = os.path.join(ROOT, "tests", "fixtures", "executorch-add.etdp")
        h = run([os.path.join(self.host, "etdump-bpf"), "report", etdp])
        a = run([QEMU, path, "report", etdp])
        self.check("the static arm64 etdump-bpf reports as the host build",
                   None if a.returncode == 0 and a.stdout == h.stdout else
                   f"exit status {a.returncode}: {a.stderr[-200:]!r}")

    def finish(self, t0):
        shutil.rmtree(self.tmp, ignore_errors=True)
        print(f"\n{NOT_RUN}")
        print(f"arm64 under qemu: {time.monotonic() - t0:.0f} s "
              f"({os.path.relpath(self.build, ROOT)} against "
              f"{os.path.relpath(self.host, ROOT)})")
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed or not self.passed else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/arm64")
    ap.add_argument("--host-build", default="build")
    ap.add_argument("--static", help="make ARCH=arm64 STATIC=1's etdump-bpf")
    ap.add_argument("-k", dest="pattern", default="")
    args = ap.parse_args()
    build = os.path.join(ROOT, args.build)
    host = os.path.join(ROOT, args.host_build)
    if not shutil.which(QEMU):
        print(f"FAIL - {QEMU} is not installed: make deps ARCH=arm64\n"
              f"0 passed, 1 failed")
        return 1
    t0 = time.monotonic()
    s = Suite(build, host, args.pattern)
    s.unit()
    s.cross_sysroot()
    s.example_detached()
    s.convert_report_list()
    s.symbols()
    s.doctor()
    if args.static:
        s.static(os.path.join(ROOT, args.static))
    return s.finish(t0)


if __name__ == "__main__":
    sys.exit(main())
