"""etdump-bpf doctor: one screen saying whether recording can work here,
and for a binary or process whether there is anything to record."""
import os
import shutil
import subprocess

from etdump_e2e import CLI, EXAMPLE, EXAMPLE_NOPROBES, ROOT, TempDirTest, \
    run, start_waiting_example

CHECKS = ["kernel", "BTF", "uprobes", "privileges", "ring buffer",
          "perf_event_paranoid", "PMU", "tracefs", "leftovers", "lockdown"]
VERDICTS = ("ok", "note", "MISSING")
# the modes doctor records its own target in (user/cli/doctor_modes.c)
MODES = ["batched", "--precise", "counters", "--values", "--allocations",
         "-p PID", "children", "symbol mode"]


def lines(stdout):
    """{check: (verdict, text)} of doctor's output."""
    out = {}
    for ln in stdout.splitlines()[1:-1]:
        verdict, rest = ln.split(None, 1)
        assert verdict in VERDICTS, ln
        if rest.startswith("mode "):
            mode = next(m for m in MODES
                        if rest[4:].strip().startswith(m + " "))
            out["mode " + mode] = (verdict,
                                   rest[4:].strip()[len(mode):].strip())
            continue
        name = next(c for c in CHECKS + ["probes", "symbols", "debug file",
                                         "SELinux", "target", "modes"]
                    if rest.startswith(c + " "))
        out[name] = (verdict, rest[len(name):].strip())
    return out


class DoctorTest(TempDirTest):
    def test_this_machine_can_record(self):
        # the suite records here, as root: every need is met
        proc = run([CLI, "doctor"], env=dict(os.environ, TMPDIR=self.tmp))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        got = lines(proc.stdout)
        for check in CHECKS:
            self.assertIn(check, got)
        for check in ("kernel", "BTF", "uprobes", "privileges",
                      "ring buffer", "lockdown"):
            self.assertEqual(got[check][0], "ok", got[check])
        self.assertIn(os.uname().release, got["kernel"][1])
        # each mode recorded for real, its target's events written
        for mode in MODES:
            self.assertEqual(got["mode " + mode][0], "ok", got)
            self.assertTrue(got["mode " + mode][1].startswith(
                "records here"), got["mode " + mode])
        self.assertTrue(proc.stdout.splitlines()[-1].startswith(
            "recording can work here"))
        self.assertLessEqual(len(proc.stdout.splitlines()), 24)
        # and nothing of its own left in the temporary directory
        self.assertEqual(os.listdir(self.tmp), [])

    def test_without_privileges_it_says_what_is_missing(self):
        setpriv = shutil.which("setpriv")
        self.assertIsNotNone(setpriv, "setpriv (util-linux) is needed")
        cli = self.path("etdump-bpf")
        shutil.copy(CLI, cli)
        os.chmod(self.tmp, 0o755)
        proc = subprocess.run([setpriv, "--reuid=65534", "--regid=65534",
                               "--clear-groups", cli, "doctor"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=60)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        got = lines(proc.stdout)
        self.assertEqual(got["privileges"][0], "MISSING")
        self.assertIn("CAP_SYS_ADMIN", got["privileges"][1])
        self.assertIn("run as root", got["privileges"][1])
        self.assertIn("1 thing is missing", proc.stdout.splitlines()[-1])

    def test_what_a_device_kernel_lacks_is_named(self):
        # a kernel without BTF, without the uprobe event source and locked
        # down for confidentiality, as a device may be: shown to doctor in
        # a private mount namespace, the machine itself untouched
        script = (
            "mount -t tmpfs none /sys/kernel/btf && "
            "mount -t tmpfs none /sys/bus/event_source/devices && "
            "mount -t tmpfs none /sys/kernel/security && "
            "echo 'none integrity [confidentiality]' "
            "> /sys/kernel/security/lockdown && "
            f"exec {CLI} doctor")
        proc = subprocess.run(["unshare", "--mount", "--propagation",
                               "private", "sh", "-c", script],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=60)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        got = lines(proc.stdout)
        self.assertEqual(got["BTF"][0], "MISSING")
        self.assertIn("CONFIG_DEBUG_INFO_BTF", got["BTF"][1])
        self.assertEqual(got["uprobes"][0], "MISSING")
        self.assertIn("CONFIG_UPROBE_EVENTS", got["uprobes"][1])
        self.assertEqual(got["lockdown"][0], "MISSING")
        self.assertIn("confidentiality", got["lockdown"][1])
        self.assertEqual(got["privileges"][0], "ok")
        # without BTF no program loads: every mode is tried and said
        # to fail, none called working
        for mode in MODES:
            self.assertEqual(got["mode " + mode][0], "MISSING", got)
        self.assertEqual(proc.stdout.splitlines()[-1],
                         f"recording cannot work here: {3 + len(MODES)} "
                         "things are missing (MISSING above)")

    def test_what_an_older_kernel_degrades_is_said_per_mode(self):
        # the features 5.10 lacks, forced (user/capture/kernel_features.h):
        # every mode still records, each degraded mode says how, and
        # symbol mode names every way it took
        lacks = ("uprobe_multi,bpf_cookie,bpf_loop,task_storage,"
                 "current_task_btf")
        proc = run([CLI, "doctor"], env=dict(os.environ, TMPDIR=self.tmp,
                                            ETDUMP_KERNEL_LACKS=lacks))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        got = lines(proc.stdout)
        verdict, text = got["mode symbol mode"]
        self.assertEqual(verdict, "note", text)
        self.assertTrue(text.startswith("records here, degraded: "), text)
        for said in ("uprobe_multi links need Linux 6.6",
                     "BPF cookies need Linux 5.15",
                     "task storage needs Linux 5.11"):
            self.assertIn(said, text)
        self.assertIn("bpf_loop needs Linux 5.17", got["mode --values"][1])
        self.assertTrue(proc.stdout.splitlines()[-1].startswith(
            "recording can work here"))

    def test_a_binary_with_probes(self):
        proc = run([CLI, "doctor", EXAMPLE])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        verdict, text = lines(proc.stdout)["probes"]
        self.assertEqual(verdict, "ok")
        self.assertIn("etdump USDT probes", text)

    def test_a_running_process(self):
        example = start_waiting_example(["-n", "1"])
        try:
            proc = run([CLI, "doctor", "-p", str(example.pid)])
        finally:
            example.kill()
            example.wait()
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(lines(proc.stdout)["probes"][0], "ok")

    def test_a_binary_with_nothing_to_record(self):
        # no probes, and no function ExecuTorch's built-in rules name
        proc = run([CLI, "doctor", EXAMPLE_NOPROBES])
        self.assertEqual(proc.returncode, 1, proc.stdout)
        verdict, text = lines(proc.stdout)["symbols"]
        self.assertEqual(verdict, "MISSING")
        self.assertIn("--rules", text)

    def test_a_stripped_binary_without_its_debug_file(self):
        stripped = self.path("stripped")
        subprocess.run(["strip", "-s", "-o", stripped, EXAMPLE_NOPROBES],
                       check=True)
        proc = run([CLI, "doctor", stripped])
        self.assertEqual(proc.returncode, 1, proc.stdout)
        verdict, text = lines(proc.stdout)["symbols"]
        self.assertEqual(verdict, "MISSING")
        self.assertIn("--debug-file", text)

    def test_bad_arguments(self):
        proc = run([CLI, "doctor", os.path.join(ROOT, "no-such-file")])
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout, "")
        self.assertIn("no-such-file", proc.stderr)
        proc = run([CLI, "doctor", self.tmp])
        self.assertEqual(proc.returncode, 1)
        self.assertIn("Is a directory", proc.stderr)
        for args in (["-p", "1", EXAMPLE], ["-p", "x"], [EXAMPLE, EXAMPLE]):
            proc = run([CLI, "doctor", *args])
            self.assertEqual(proc.returncode, 2, args)
            self.assertEqual(proc.stdout, "")
            self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
            self.assertIn("(see 'etdump-bpf doctor --help')", proc.stderr)
