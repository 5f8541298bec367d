"""record, list and doctor -p from the host on a runtime in a container:
its own mount and PID namespaces (unshare), its root a private tmpfs the
host cannot see, holding the runtime and the libraries ldd names, the
runtime run there through chroot. The files are reached through
/proc/PID/root (the maps name them under a mount point that leads nowhere
on the host); a stripped runtime's debug file is found by build-id in the
container's root, its symbolic links resolved in that root and never out
of it. Each ETDump is decoded with flatc and its events compared.
"""
import os
import shlex
import signal
import subprocess

from etdump_e2e import (CLI, DEFAULT_EVENTS, EXAMPLE, EXAMPLE_NOPROBES,
                        EXECUTE_EVENTS, ROOT, Recorder, TempDirTest, decode,
                        run, run_keys)

RULES = os.path.join(ROOT, "tests", "example", "example.rules")
IN_ROOT = "/app/runtime"
RUNS = 3


def libraries(binary):
    """The files the loader maps for binary (ldd), the loader included."""
    proc = run(["ldd", binary])
    assert proc.returncode == 0, proc.stderr
    return sorted({w for line in proc.stdout.splitlines()
                   for w in line.split() if w.startswith("/")})


def build_id(binary):
    proc = run(["readelf", "-n", binary])
    for line in proc.stdout.splitlines():
        if "Build ID:" in line:
            return line.split()[-1]
    raise AssertionError(f"{binary}: no build-id")


def assert_example_runs(test, dump, execute_events=EXECUTE_EVENTS):
    """The example's RUNS executions, each event ETDumpGen would write."""
    runs = dump["run_data"]
    test.assertEqual([r["name"] for r in runs],
                     ["Default"] + ["Execute"] * RUNS)
    test.assertEqual(run_keys(runs[0]), DEFAULT_EVENTS)
    for i, r in enumerate(runs[1:]):
        test.assertEqual(run_keys(r), execute_events, f"Execute run {i}")


class Container:
    """The example runtime, held before its load (--wait-signal), as PID 1
    of a new PID namespace in a new mount namespace whose root is a tmpfs
    mounted there only. setup: shell lines run in that root before the
    runtime starts ($R is the root)."""

    def __init__(self, tmp, binary, setup=()):
        self.mount_point = os.path.join(tmp, "container")
        os.mkdir(self.mount_point)
        lines = ["set -e", "R=" + shlex.quote(self.mount_point),
                 "mount -t tmpfs etdump-container \"$R\"",
                 "mkdir -p \"$R/app\"",
                 f"cp {shlex.quote(binary)} \"$R{IN_ROOT}\""]
        for lib in libraries(binary):
            lines += [f"mkdir -p \"$R\"{shlex.quote(os.path.dirname(lib))}",
                      f"cp {shlex.quote(lib)} \"$R\"{shlex.quote(lib)}"]
        lines += list(setup)
        lines.append(f"exec chroot \"$R\" {IN_ROOT} --wait-signal "
                     f"-n {RUNS}")
        self.proc = subprocess.Popen(
            ["unshare", "--mount", "--pid", "--fork", "--propagation",
             "private", "sh", "-c", "\n".join(lines)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("ready "):
            self.close()
            raise AssertionError(f"container did not start: {line!r} "
                                 f"{self.proc.stderr.read()}")
        # the namespace numbers it 1; the host, as unshare's child
        self.ns_pid = int(line.split()[1])
        with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
            self.pid = int(f.read().split()[0])

    def release(self):
        os.kill(self.pid, signal.SIGUSR1)
        self.proc.wait(timeout=60)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


class ContainerTest(TempDirTest):
    def start(self, binary, setup=()):
        c = Container(self.tmp, binary, setup)
        self.addCleanup(c.close)
        # a container indeed: its own namespaces, a root the host cannot see
        self.assertEqual(c.ns_pid, 1)
        for ns in ("mnt", "pid"):
            self.assertNotEqual(os.readlink(f"/proc/{c.pid}/ns/{ns}"),
                                os.readlink(f"/proc/self/ns/{ns}"))
        self.assertFalse(os.path.exists(c.mount_point + IN_ROOT))
        return c

    def record(self, c, *args):
        out = self.path("container.etdp")
        rec = Recorder(["-o", out, "-p", str(c.pid)] + list(args))
        try:
            rec.wait_attached()
            c.release()
            self.assertEqual(rec.wait(), 0, rec.stderr)
        finally:
            if rec.proc.poll() is None:
                rec.proc.kill()
                rec.proc.wait()
        return rec.stderr, decode(out)

    def assert_runs(self, dump, execute_events):
        assert_example_runs(self, dump, execute_events)

    def test_list_doctor_and_record_from_the_host(self):
        c = self.start(EXAMPLE)
        reached = f"/proc/{c.pid}/root{IN_ROOT}"
        proc = run([CLI, "list", "-p", str(c.pid)])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        probes = [line.split("\t") for line in proc.stdout.splitlines()
                  if "\tetdump:" in line]
        self.assertIn([reached, "etdump:flush"],
                      [p[:2] for p in probes])
        proc = run([CLI, "doctor", "-p", str(c.pid)])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn(f"etdump USDT probes in {reached}", proc.stdout)
        err, dump = self.record(c)
        self.assertIn(f"to PID {c.pid} ({reached})", err)
        self.assert_runs(dump, EXECUTE_EVENTS)

    def stripped_with_debug_file(self, link_to):
        """A stripped runtime without probes, its debug file linked from
        the container's build-id folder by an absolute symbolic link."""
        stripped, debug = self.path("stripped"), self.path("runtime.debug")
        for cmd in (["objcopy", "--only-keep-debug", EXAMPLE_NOPROBES, debug],
                    ["objcopy", "--strip-all", EXAMPLE_NOPROBES, stripped]):
            proc = run(cmd)
            self.assertEqual(proc.returncode, 0, proc.stderr)
        bid = build_id(EXAMPLE_NOPROBES)
        link = f"/usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug"
        return stripped, debug, [
            f"cp {shlex.quote(debug)} \"$R/app/runtime.debug\"",
            f"mkdir -p \"$R\"{os.path.dirname(link)}",
            f"ln -s {shlex.quote(link_to or debug)} \"$R\"{link}"]

    def test_symbol_mode_reads_the_debug_file_in_the_container(self):
        stripped, _, setup = self.stripped_with_debug_file("/app/runtime.debug")
        c = self.start(stripped, setup)
        err, dump = self.record(c, "--rules", RULES)
        self.assertIn("symbol mode", err)
        self.assert_runs(dump, [k for k in EXECUTE_EVENTS
                                if not k[0].startswith("delegate:")])

    def test_a_link_out_of_the_container_is_not_followed(self):
        # the link names the debug file by its path on the host: resolved
        # in the container's root it leads nowhere, and nothing else
        # offers one
        stripped, debug, setup = self.stripped_with_debug_file(None)
        c = self.start(stripped, setup)
        self.assertTrue(os.path.exists(debug))
        proc = run([CLI, "record", "-o", self.path("no.etdp"), "--rules",
                    RULES, "-p", str(c.pid)], timeout=60)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        # the file as the container names it, and the path tried
        self.assertIn(f"{IN_ROOT} (PID {c.pid}'s, reached as "
                      f"/proc/{c.pid}/root{IN_ROOT}): ", proc.stderr)
        self.assertIn("it is stripped (no .symtab) and no debug file was "
                      "found", proc.stderr)
        self.assertFalse(os.path.exists(self.path("no.etdp")))


if __name__ == "__main__":
    import unittest
    unittest.main()
