#!/usr/bin/env python3
"""Seed the fuzzers' corpora, then run each libFuzzer target for a bounded
time; exit status 1 when one of them crashed (its input is kept in
BUILD/fuzz-artifacts/).

Seeds, made fresh each time into BUILD/corpus/<target>/ (what the fuzzers
found in earlier runs stays there too):
  etdump_reader  ExecuTorch's own ETDumps (tests/fixtures) and ours
  raw_reader     raw captures of the example, both modes (first byte: 0 as
                 is, 1 with checksums recomputed by the target)
  collector      the records of those captures, framed for fuzz_collector.c
  usdt_notes     the example's probe notes in a small ELF
  cli_parse      numbers and counter lists as the command line gives them
  pte_reader     ExecuTorch's programs (tests/fixtures/*.pte)
  symbol_rules   the rules files in schema/
Our files come from recording the example runtime, which needs root and
BPF; without them the fixtures alone seed the ETDump reader.

usage: tests/fuzz/run.py --build DIR [--seconds S] [--fixtures DIR]
                         [--runs N] [TARGET...]
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

CLI_SEEDS = [
    (0, "0"), (0, "18446744073709551615"), (0, "18446744073709551616"),
    (1, "12"), (2, "1234"), (2, "-3"), (2, "12x"), (3, "2"), (3, "0.5"),
    (3, "10.123456789123"), (3, "1."), (4, "4096"), (4, "8M"), (4, "1g"),
    (4, "3000"), (5, "cycles,instructions"), (5, "task-clock,page-faults"),
    (5, "r1a2b,context-switches"), (5, "cycles,cycles"), (5, ",")]


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def raw_records(data):
    """(counter kinds, records) of a raw capture (schema/raw_format.h)."""
    at, kinds, records = 8, [], []
    while at + 16 <= len(data):
        typ, length = struct.unpack_from("<II", data, at)
        payload, end = at + 16, at + 16 + length
        if typ == 1:  # header: struct raw_header (32 bytes), then items
            p = payload + 32
            while p + 8 <= end:
                tag, n = struct.unpack_from("<II", data, p)
                if tag == 3:  # counter: u32 kind, then the name
                    kinds.append(struct.unpack_from("<I", data, p + 8)[0])
                p += 8 + (n + 7) // 8 * 8
        elif typ == 2:  # data: struct raw_data (16 bytes), framed records
            p = payload + 16
            while p + 8 <= end:
                n, = struct.unpack_from("<I", data, p)
                records.append(data[p + 8:p + 8 + n])
                p += 8 + (n + 7) // 8 * 8
        at = end
    return kinds, records


def collector_seed(kinds, records):
    """The input format of fuzz_collector.c."""
    out = bytes([len(kinds)]) + bytes(k & 0xff for k in kinds)
    for r in records:
        out += struct.pack("<H", len(r)) + r
    return out


def record_example(build, tmp):
    """Raw captures and ETDumps of two executions, both modes; [] when
    this machine cannot record (not root, no BPF)."""
    cli = os.path.join(build, "etdump-bpf")
    example = os.path.join(build, "example-runtime")
    made = []
    for mode, args in (("batched", []), ("precise", ["--precise"]),
                       ("plain", ["--precise", "--no-counters"])):
        raw = os.path.join(tmp, f"{mode}.raw")
        etdp = os.path.join(tmp, f"{mode}.etdp")
        proc = subprocess.run([cli, "record", "-o", etdp, "--raw", raw,
                               *args, "--", example, "-n", "2",
                               "--threads", "2"],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, timeout=120)
        if proc.returncode != 0:
            print(f"fuzz: no recorded seeds ({proc.stderr.strip()})")
            return []
        made.append((mode, raw, etdp))
    return made


def make_seeds(build, fixtures):
    corpus = os.path.join(build, "corpus")
    dirs = {t: os.path.join(corpus, t) for t in
            ("etdump_reader", "raw_reader", "collector", "usdt_notes",
             "cli_parse", "pte_reader", "symbol_rules")}
    for d in dirs.values():
        os.makedirs(d, exist_ok=True)
    for target, pattern in (("etdump_reader", f"{fixtures}/*.etdp"),
                            ("pte_reader", f"{fixtures}/*.pte"),
                            ("symbol_rules", f"{ROOT}/schema/*.rules")):
        for f in sorted(glob.glob(pattern)):
            shutil.copyfile(f, os.path.join(dirs[target],
                                            "seed-" + os.path.basename(f)))
    with tempfile.TemporaryDirectory() as tmp:
        for mode, raw, etdp in record_example(build, tmp):
            shutil.copyfile(etdp, os.path.join(dirs["etdump_reader"],
                                           f"seed-example-{mode}.etdp"))
            with open(raw, "rb") as f:
                data = f.read()
            for flag in (0, 1):
                write(os.path.join(dirs["raw_reader"],
                                   f"seed-example-{mode}-{flag}"),
                      bytes([flag]) + data)
            write(os.path.join(dirs["collector"], f"seed-example-{mode}"),
                  collector_seed(*raw_records(data)))
        notes = os.path.join(dirs["usdt_notes"], "seed-example-notes.elf")
        subprocess.run(["objcopy", "--strip-all",
                        "--only-section=.note.stapsdt",
                        "--only-section=.stapsdt.base",
                        "--only-section=.probes",
                        os.path.join(build, "example-runtime"), notes],
                       check=True)
    for i, (which, text) in enumerate(CLI_SEEDS):
        write(os.path.join(dirs["cli_parse"], f"seed-{i}"),
              bytes([which]) + text.encode())
    return corpus


def run_target(build, corpus, target, seconds, runs):
    binary = os.path.join(build, "fuzz", "fuzz_" + target)
    artifacts = os.path.join(build, "fuzz-artifacts")
    os.makedirs(artifacts, exist_ok=True)
    os.makedirs(os.path.join(corpus, target), exist_ok=True)
    limit = [f"-runs={runs}"] if runs else [f"-max_total_time={seconds}"]
    proc = subprocess.run(
        [binary, os.path.join(corpus, target), *limit, "-timeout=10",
         "-rss_limit_mb=2048", "-print_final_stats=1",
         f"-artifact_prefix={artifacts}/{target}-"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        errors="replace")
    m = re.search(r"stat::number_of_executed_units:\s*(\d+)", proc.stdout)
    execs = int(m.group(1)) if m else 0
    return proc.returncode == 0, execs, proc.stdout[-6000:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build-fuzz")
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--runs", type=int, default=0,
                    help="executions per target instead of a time")
    ap.add_argument("--fixtures", default=os.path.join(
        ROOT, "tests", "fixtures"))
    ap.add_argument("targets", nargs="*")
    args = ap.parse_args()
    build = os.path.join(ROOT, args.build) \
        if not os.path.isabs(args.build) else args.build
    corpus = make_seeds(build, args.fixtures)
    targets = args.targets or sorted(
        os.path.basename(p)[len("fuzz_"):] for p in
        glob.glob(os.path.join(build, "fuzz", "fuzz_*")))
    failed = []
    # one target a CPU: each is one process on one CPU for its time, so
    # side by side each gets what it got alone, in a fraction of the wall
    # time; the lines come in the targets' order
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        done = pool.map(lambda t: run_target(build, corpus, t, args.seconds,
                                             args.runs), targets)
        results = list(zip(targets, done))
    for t, (ok, execs, out) in results:
        if not ok:
            sys.stdout.write(out)
        print(f"fuzz_{t}: {execs} executions, "
              f"{'no crash' if ok else 'CRASHED'}", flush=True)
        if not ok:
            failed.append(t)
    if failed:
        print(f"fuzz: crashed: {', '.join(failed)} "
              f"(inputs in {build}/fuzz-artifacts/)")
    return 1 if failed or not targets else 0


if __name__ == "__main__":
    sys.exit(main())
