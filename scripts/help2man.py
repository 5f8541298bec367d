#!/usr/bin/env python3
"""etdump-bpf.1 from the program's own --help texts (etdump-bpf --help and
each command's), so that the man page and --help cannot drift apart: the
page is made from the binary it is installed with.

usage: scripts/help2man.py BUILD/etdump-bpf > etdump-bpf.1"""
import re
import subprocess
import sys


def helptext(cli, *args):
    proc = subprocess.run([cli, *args, "--help"], capture_output=True,
                          text=True, check=True)
    return proc.stdout


def roff(text):
    """Verbatim text: backslashes escaped, no line read as a request."""
    out = []
    for line in text.rstrip("\n").split("\n"):
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def main():
    cli = sys.argv[1]
    version = subprocess.run([cli, "--version"], capture_output=True,
                             text=True, check=True).stdout.split()[1]
    top = helptext(cli)
    commands = re.findall(r"^  (\w+)\s+(.*)$",
                          top.split("commands:", 1)[1].split("\n\n")[0],
                          re.M)
    print(f'.TH ETDUMP-BPF 1 "" "etdump-bpf {version}" "User Commands"')
    print(".SH NAME")
    print("etdump-bpf \\- record ExecuTorch-style runtimes from the kernel "
          "into ETDumps, and report on them")
    print(".SH SYNOPSIS")
    print(".nf")
    print(roff(top))
    print(".fi")
    print(".SH COMMANDS")
    for name, summary in commands:
        print(f".SS etdump-bpf {name}")
        print(roff(summary))
        print(".PP")
        print(".nf")
        print(roff(helptext(cli, name)))
        print(".fi")
    print(".SH SEE ALSO")
    print("perf-record(1), bpftrace(8); the project's docs/: a page per "
          "command (docs/etdump-bpf-record.md, ...) and per topic")


if __name__ == "__main__":
    main()
