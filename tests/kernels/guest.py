#!/usr/bin/env python3
"""Boot one kernel of the matrix under qemu and run a shell command in it.

usage: tests/kernels/guest.py run --kernel 6.1-amd64 [--results DIR]
                              [--timeout SECONDS] -- CMD...

The guest's root is this machine's root (read-only, a tmpfs overlay for
its writes), so CMD runs in the same repository folder as here, with the
same paths (but /tmp, a tmpfs of the guest's own); DIR (a temporary
folder when not given) is /results inside, the one place where the
guest's writes outlive it. The environment's ETDUMP_* and EXECUTORCH_*
variables are passed on. CMD's output is printed as it comes, and
guest.py exits with CMD's exit status: 124 when the guest ran past the
timeout (then it is killed), 125 when it did not get to run CMD (the
console's log then says why).
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fetch  # noqa: E402
import initramfs  # noqa: E402
import kernels  # noqa: E402
import qemu_cmd  # noqa: E402

BEGIN = "etdump-guest: begin"
END = "etdump-guest: end "
# an arm64 guest's shell and tools: its busybox's applets before the
# host's x86-64 programs
BUSYBOX_BIN = "/.etdump-guest/bin"
PASSED_ON = ("ETDUMP_", "EXECUTORCH_")


def write_config(gdir, arch, cwd, cmd):
    path = os.environ.get("PATH", "/usr/bin:/bin")
    if arch == "arm64":
        path = BUSYBOX_BIN + ":" + path
    else:
        path = path + ":" + BUSYBOX_BIN
    with open(os.path.join(gdir, "config"), "w") as f:
        f.write(f"GUEST_CWD={shlex.quote(cwd)}\n"
                f"GUEST_PATH={shlex.quote(path)}\n"
                f"GUEST_SHELL={'busybox' if arch == 'arm64' else 'host'}\n")
        # the project's own settings reach the command as they are here
        # (ETDUMP_KERNEL_LACKS, EXECUTORCH_DIR, ...)
        for name, value in sorted(os.environ.items()):
            if name.startswith(PASSED_ON):
                f.write(f"export {name}={shlex.quote(value)}\n")
    with open(os.path.join(gdir, "command"), "w") as f:
        f.write(cmd + "\n")


def stream(proc, log, echo):
    """Copy the console into the log; echo what lies between the markers."""
    inside = False
    for raw in proc.stdout:
        line = raw.decode(errors="replace").replace("\r", "")
        log.write(line)
        log.flush()
        if line.startswith(END):
            inside = False
        if inside and echo:
            sys.stdout.write(line)
            sys.stdout.flush()
        if line.startswith(BEGIN):
            inside = True


def run(kernel, cmd, results, timeout, cpus=2, echo=True, cwd=None):
    """Boot, run cmd, power off. Returns (status, seconds)."""
    arch = kernels.arch_of(kernel)
    fetch.fetch([kernel])
    kdir = fetch.kernel_dir(kernel)
    busybox = fetch.busybox_arm64() if arch == "arm64" else "/bin/busybox"
    gdir = os.path.join(results, ".guest")
    shutil.rmtree(gdir, ignore_errors=True)
    os.makedirs(gdir)
    write_config(gdir, arch, cwd or os.getcwd(), cmd)
    initrd = os.path.join(gdir, "initramfs.cpio")
    with open(initrd, "wb") as f:
        f.write(initramfs.build(kdir, busybox))
    argv = qemu_cmd.command(arch, os.path.join(kdir, "vmlinuz"), initrd,
                            os.path.abspath(results), cpus=cpus)
    t0 = time.monotonic()
    with open(os.path.join(results, "console.log"), "w") as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        reader = threading.Thread(target=stream, args=(proc, log, echo))
        reader.start()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            reader.join()
            return 124, time.monotonic() - t0
        reader.join()
    seconds = time.monotonic() - t0
    os.remove(initrd)
    try:
        return int(open(os.path.join(gdir, "status")).read()), seconds
    except (OSError, ValueError):
        sys.stderr.write(open(os.path.join(results, "console.log")).read())
        print(f"guest.py: {kernel}: the guest did not run the command "
              f"(console above)", file=sys.stderr)
        return 125, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run", help="boot a kernel and run CMD in it")
    r.add_argument("--kernel", required=True, type=kernels.check,
                   help=", ".join(kernels.KERNELS))
    r.add_argument("--results", help="the guest's /results (kept)")
    r.add_argument("--timeout", type=float, default=1200)
    r.add_argument("--cpus", type=int, default=2)
    r.add_argument("cmd", nargs="+", help="a shell command line")
    args = ap.parse_args()
    cmd = " ".join(args.cmd)
    results = args.results or tempfile.mkdtemp(prefix="etdump-guest.")
    os.makedirs(results, exist_ok=True)
    try:
        status, seconds = run(args.kernel, cmd, results, args.timeout,
                              args.cpus)
    finally:
        if not args.results:
            shutil.rmtree(results, ignore_errors=True)
    print(f"guest.py: {args.kernel}: exit status {status} after "
          f"{seconds:.0f} s", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
