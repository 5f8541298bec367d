"""etdump-bpf convert to pprof's profile.proto, read as the fleet's tools
read it: `go tool pprof` (Debian's golang-go, installed by make deps; a
missing go fails these tests) on recordings of the example runtime (from
the raw capture and from the ETDump) and on ExecuTorch's own reference
ETDumps (tests/fixtures), its totals per operator equal to report's sums;
and the flame graph of `go tool pprof -http` opened in headless Chromium."""
import collections
import gzip
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request

from etdump_e2e import CLI, EXAMPLE, ROOT, TempDirTest, decode, run

GO = shutil.which("go")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
VIEWER = os.path.join(ROOT, "tests", "viewer")
REFERENCE = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".etdp"))
# name: (record options, example options)
RECORDINGS = {
    "batched": ([], ["-n", "20"]),
    "counters": (["-e", "task-clock,page-faults"], ["-n", "10",
                                                    "--counter-ops"]),
    "pool": ([], ["-n", "10", "--pool", "--threads", "2"]),
}
ROW = re.compile(r"^\s*(-?\d+)(?:ns)?\s+\S+\s+\S+\s+(-?\d+)(?:ns)?\s+\S+\s+(.*)$")


def go_pprof(*args, timeout=120):
    proc = subprocess.run([GO, "tool", "pprof", *args], capture_output=True,
                          text=True, timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"go tool pprof {' '.join(args)}: "
                             f"{proc.stderr.strip()}")
    return proc.stdout


def top(profile, *args):
    """{name: (flat, cum)} of every function, as -top prints them."""
    out = go_pprof("-top", "-unit=ns", "-nodefraction=0", "-nodecount=100000",
                   *args, profile)
    rows = {}
    for line in out.splitlines():
        m = ROW.match(line)
        if m:
            rows[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    return rows


def report_sums(etdp):
    """report's rows summed by name, OPERATOR_CALL and DELEGATE_CALL over
    all their instructions: ({name: ns}, {name: calls})."""
    proc = run([CLI, "report", etdp, "--json", "--units", "ns"])
    assert proc.returncode == 0, proc.stderr
    ns, calls = collections.Counter(), collections.Counter()
    for row in json.loads(proc.stdout):
        if row["avg (ns)"] is None:
            continue
        ns[row["event_name"]] += round(row["avg (ns)"] * row["runs"])
        calls[row["event_name"]] += row["runs"]
    return ns, calls


def decoded_sums(etdp):
    """Every profile event of the file as flatc decodes it, by report's
    names: ({name: ns}, {name: events}, {names a run holds twice})."""
    ns, calls, repeated = collections.Counter(), collections.Counter(), set()
    for run_data in decode(etdp).get("run_data", []):
        seen = set()
        for ev in run_data.get("events") or []:
            pe = ev.get("profile_event")
            if not pe:
                continue
            name = (pe.get("name") or pe.get("delegate_debug_id_str") or
                    str(pe["delegate_debug_id_int"]))
            key = (name, pe["instruction_id"])
            if key in seen:
                repeated.add(name)
            seen.add(key)
            ns[name] += int(pe["end_time"]) - int(pe["start_time"])
            calls[name] += 1
    return ns, calls, repeated


def by_operator(rows, column):
    """pprof's rows by report's names: each instruction's OPERATOR_CALL
    (DELEGATE_CALL) added into one."""
    out = collections.Counter()
    for name, values in rows.items():
        out[re.sub(r" instruction \d+$", "", name)] += values[column]
    return out


class PprofTest(TempDirTest):
    @classmethod
    def setUpClass(cls):
        if not GO:
            raise AssertionError("no go on PATH: make deps installs "
                                 "golang-go (go tool pprof)")
        cls._dir = tempfile.TemporaryDirectory(prefix="etdump-pprof-")
        d = cls._dir.name
        cls.recorded = {}
        for name, (rec, ex) in RECORDINGS.items():
            etdp, raw = f"{d}/{name}.etdp", f"{d}/{name}.raw"
            proc = run([CLI, "record", "-o", etdp, "--raw", raw, *rec, "--",
                        EXAMPLE, *ex])
            cls.recorded[name] = (etdp, raw, proc.returncode, proc.stderr)

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def recording(self, name):
        etdp, raw, rc, err = self.recorded[name]
        self.assertEqual(rc, 0, err)
        return etdp, raw

    def convert(self, src, out, *extra, status=0):
        proc = run([CLI, "convert", src, "-o", out, *extra])
        self.assertEqual(proc.returncode, status, proc.stderr)
        return proc

    def assert_totals_match_report(self, profile, etdp):
        """Per operator, pprof's cum is report's summed durations, and its
        flat events count report's calls. report follows the Inspector,
        which keeps one event of a signature a run repeats (a pool's jobs
        put into one run): for those names the profile holds every event,
        checked against the file as flatc decodes it."""
        want_ns, want_calls = report_sums(etdp)
        every_ns, every_calls, repeated = decoded_sums(etdp)
        self.assertTrue(want_ns, etdp)
        cum = by_operator(top(profile), 1)
        calls = by_operator(top(profile, "-sample_index=events"), 0)
        kept = [k for k in want_ns if k not in repeated]
        self.assertEqual({k: cum.get(k, 0) for k in kept},
                         {k: want_ns[k] for k in kept}, profile)
        self.assertEqual({k: calls.get(k, 0) for k in kept},
                         {k: want_calls[k] for k in kept}, profile)
        self.assertEqual({k: cum.get(k, 0) for k in every_ns},
                         dict(every_ns), profile)
        self.assertEqual({k: calls.get(k, 0) for k in every_calls},
                         dict(every_calls), profile)

    def test_example_recordings(self):
        for name in RECORDINGS:
            with self.subTest(recording=name):
                etdp, raw = self.recording(name)
                for src in (raw, etdp):
                    out = self.path(os.path.basename(src) + ".pb.gz")
                    self.convert(src, out)
                    with open(out, "rb") as f:
                        self.assertEqual(f.read(2), b"\x1f\x8b")
                    self.assert_totals_match_report(out, etdp)

    def test_reference_etdumps(self):
        self.assertTrue(REFERENCE)
        for fixture in REFERENCE:
            with self.subTest(fixture=fixture):
                etdp = os.path.join(FIXTURES, fixture)
                out = self.path(fixture + ".pb.gz")
                self.convert(etdp, out)
                self.assert_totals_match_report(out, etdp)

    def test_counters_labels_comments_and_time(self):
        etdp, raw = self.recording("counters")
        out = self.path("c.pb.gz")
        self.convert(raw, out)
        raw_text = go_pprof("-raw", out)
        self.assertIn("events/count wall/nanoseconds[dflt] "
                      "task-clock/nanoseconds page-faults/count", raw_text)
        self.assertRegex(raw_text, r"Comment: recorder: etdump-bpf \S+\n")
        self.assertIn("Comment: command: record -o " + etdp, raw_text)
        self.assertIn("Comment: converted from the raw capture " + raw,
                      raw_text)
        self.assertRegex(raw_text, r"\nTime: 20\d\d-")
        self.assertRegex(raw_text, r"\nDuration: [1-9]")
        tags = go_pprof("-tags", out)
        for label in ("block:", "Execute", "Default", "run:", "thread:",
                      "example-runtime", "tid:"):
            self.assertIn(label, tags)
        # 11 runs: 1 Default, 10 Execute, numbered from 1
        self.assertRegex(tags, r"\): 11\n")
        self.assertNotRegex(tags, r"\): 0\n")
        # a counter's own part: the spinning kernel takes task-clock
        clock = top(out, "-sample_index=task-clock")
        self.assertGreater(clock["native_call_spin.out"][0], 0)

    def test_output_name_format_and_safety(self):
        etdp, _ = self.recording("batched")
        out = self.path("profile")
        self.convert(etdp, out, "--format", "pprof")
        with gzip.open(out) as f:
            self.assertTrue(f.read())
        before = open(out, "rb").read()
        proc = self.convert(etdp, out, "--format", "pprof", status=1)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1)
        self.assertIn(out, proc.stderr)
        self.assertEqual(open(out, "rb").read(), before)
        self.convert(etdp, out, "--format", "pprof", "-f")
        bad = self.path("bad.etdp")
        with open(bad, "w") as f:
            f.write("not a recording\n")
        proc = self.convert(bad, self.path("bad.pb.gz"), status=1)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1)
        self.assertIn(bad, proc.stderr)
        self.assertFalse(os.path.exists(self.path("bad.pb.gz")))
        proc = self.convert(etdp, self.path("x"), "--format", "perf",
                            status=2)
        self.assertIn("pprof", proc.stderr)

    def test_help_names_the_format(self):
        proc = run([CLI, "convert", "--help"])
        self.assertEqual(proc.returncode, 0)
        self.assertIn("pprof", proc.stdout)
        self.assertIn(".pb.gz", proc.stdout)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PprofFlameGraphTest(TempDirTest):
    """The flame graph as a user opens it: go tool pprof -http, then a
    browser on /ui/flamegraph (Chromium headless, driven by puppeteer-core
    from tests/viewer, installed by make deps)."""

    def flame_graph(self, profile):
        chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
        node = shutil.which("node") or shutil.which("nodejs")
        self.assertTrue(GO and chromium and node,
                        "make deps installs golang-go, chromium and nodejs")
        port = free_port()
        server = subprocess.Popen(
            # -nodefraction=0: pprof hides frames under 0.5% by default,
            # and every operator is to be drawn here
            [GO, "tool", "pprof", f"-http=127.0.0.1:{port}", "-no_browser",
             "-nodefraction=0", profile], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, start_new_session=True)
        url = f"http://127.0.0.1:{port}/ui/flamegraph"
        try:
            # the server is ready when it answers (go may build caches first)
            for _ in range(600):
                try:
                    urllib.request.urlopen(url, timeout=5).read()
                    break
                except OSError:
                    if server.poll() is not None:
                        self.fail(f"go tool pprof -http ended: "
                                  f"{server.stdout.read()}")
                    time.sleep(0.1)
            profile_dir = tempfile.mkdtemp(dir=self.tmp, prefix="chromium-")
            proc = subprocess.run(
                [node, os.path.join(VIEWER, "pprof_flamegraph.mjs"),
                 chromium, url, profile_dir],
                capture_output=True, text=True, timeout=300)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            return json.loads(proc.stdout)
        finally:
            # go tool runs pprof as its child, and outlives a SIGTERM:
            # end the group this test started
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=30)

    def check(self, etdp):
        out = self.path(os.path.basename(etdp) + ".pb.gz")
        proc = run([CLI, "convert", etdp, "-o", out])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        shown = self.flame_graph(out)
        self.assertEqual(shown["errors"], [])
        names, _ = report_sums(etdp)
        titles = {re.sub(r" \([^()]*\)$", "", t) for t in shown["titles"]}
        frames = {re.sub(r" instruction \d+$", "", t) for t in titles}
        # the page draws a frame a pixel wide or more, as a user sees it:
        # every operator of 1% of the widest or more (the profile itself
        # holds them all: go tool pprof -top, above)
        widest = max(names.values())
        for name, ns in names.items():
            if ns >= widest / 100:
                self.assertIn(name, frames)
        # the widest operators' names are drawn, not only in tooltips
        labels = set(shown["labels"])
        for name in ("Method::execute", "OPERATOR_CALL instruction 0"):
            self.assertIn(name, labels)

    def test_flame_graph_of_a_recording(self):
        d = tempfile.mkdtemp(dir=self.tmp)
        etdp = os.path.join(d, "r.etdp")
        proc = run([CLI, "record", "-o", etdp, "--", EXAMPLE, "-n", "10"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.check(etdp)

    def test_flame_graph_of_executorch_etdump(self):
        self.check(os.path.join(FIXTURES, "executorch-cnn-x3.etdp"))
