"""etdump-bpf record --raw and etdump-bpf convert against the real example
runtime: the ETDump converted from a raw capture is the very file record -o
wrote; a capture cut anywhere converts every complete run; the Chrome trace
follows the trace-event rules."""
import datetime
import json
import os
import struct
import time
import zlib

from etdump_e2e import (CLI, DEFAULT_EVENTS, EXAMPLE, EXECUTE_EVENTS,
                        TempDirTest, decode, record_starved, run, run_keys)

MAGIC = b"ETDPRAW\n"
CHUNK_HEADER, CHUNK_DATA, CHUNK_END, CHUNK_THREADS = 1, 2, 3, 4


def chunks(data):
    """(offset, type, payload length) of every chunk, checked the way
    schema/RAW_FORMAT.md describes them, independently of our reader."""
    assert data[:8] == MAGIC, data[:8]
    at, out = 8, []
    while at < len(data):
        typ, length, payload_crc, chunk_crc = struct.unpack_from(
            "<IIII", data, at)
        assert zlib.crc32(data[at:at + 12]) == chunk_crc, at
        assert zlib.crc32(data[at + 16:at + 16 + length]) == payload_crc, at
        out.append((at, typ, length))
        at += 16 + length
    assert at == len(data)
    return out


def header(data):
    """The header chunk's fixed fields and its (tag, bytes) items."""
    at, typ, length = chunks(data)[0]
    assert typ == CHUNK_HEADER
    payload = data[at + 16:at + 16 + length]
    fixed = struct.unpack_from("<IIIIQQQ", payload)
    items, p = [], struct.calcsize("<IIIIQQQ")
    while p < len(payload):
        tag, n = struct.unpack_from("<II", payload, p)
        items.append((tag, payload[p + 8:p + 8 + n]))
        p += 8 + (n + 7) // 8 * 8
    return fixed, items


def runs_of(dump):
    return dump.get("run_data", [])


class ConvertTest(TempDirTest):
    def record(self, *extra, n=20):
        a, raw = self.path("A.etdp"), self.path("R.raw")
        proc = run([CLI, "record", "-o", a, "--raw", raw, *extra, "--",
                    EXAMPLE, "-n", str(n)])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(f"wrote {a} and {raw}", proc.stderr)
        return a, raw

    def convert(self, raw, out, *extra, status=0):
        proc = run([CLI, "convert", raw, "-o", out, *extra])
        self.assertEqual(proc.returncode, status, proc.stderr)
        return proc

    def assert_same_file(self, mode_args):
        a, raw = self.record(*mode_args)
        b = self.path("B.etdp")
        self.convert(raw, b)
        with open(a, "rb") as fa, open(b, "rb") as fb:
            self.assertEqual(fa.read(), fb.read())
        layout = chunks(open(raw, "rb").read())
        self.assertEqual(layout[0][1], CHUNK_HEADER)
        self.assertEqual(layout[-1][1], CHUNK_END)
        middle = [t for _, t, _ in layout[1:-1]]
        self.assertEqual(set(middle), {CHUNK_DATA, CHUNK_THREADS})
        runs = runs_of(decode(b))
        self.assertEqual(len(runs), 21)
        self.assertEqual(run_keys(runs[0]), DEFAULT_EVENTS)
        return open(raw, "rb").read()

    def assert_header(self, data, probes, counters):
        (version, _, clock, pid, real, mono, start), items = header(data)
        self.assertEqual((version, clock), (1, 1))  # CLOCK_MONOTONIC
        self.assertGreater(real, mono)
        self.assertGreaterEqual(mono, start)
        exe = os.path.realpath(EXAMPLE).encode()
        self.assertEqual([v for t, v in items if t == 1], [exe])
        self.assertEqual(sorted(v.decode() for t, v in items if t == 2),
                         sorted(probes))
        names = [v[4:].decode() for t, v in items if t == 3]
        self.assertEqual(bool(names), counters, names)
        # a command we start: its map is the runtime's, not our fork's
        maps = [v for t, v in items if t == 4]
        self.assertEqual(len(maps), 1)
        self.assertIn(exe, maps[0])

    def test_convert_gives_the_file_record_wrote_batched(self):
        data = self.assert_same_file([])
        self.assert_header(data, ["flush"], counters=False)

    def test_convert_gives_the_file_record_wrote_precise_with_counters(self):
        data = self.assert_same_file(["--precise"])
        self.assert_header(data, ["block", "profile_begin", "profile_end",
                                  "instruction", "delegate_begin",
                                  "delegate_end", "delegate_log"],
                           counters=True)

    def test_convert_of_a_cut_capture_holds_every_complete_run(self):
        a, raw = self.record("--precise", n=30)
        full = runs_of(decode(a))
        data = open(raw, "rb").read()
        header_end = chunks(data)[1][0]
        cuts = [header_end] + [len(data) * p // 100 for p in (10, 50, 90)]
        counts = []
        for cut in cuts:
            part = self.path(f"cut{cut}.raw")
            with open(part, "wb") as f:
                f.write(data[:cut])
            out = self.path(f"cut{cut}.etdp")
            proc = self.convert(part, out)
            warnings = [line for line in proc.stderr.splitlines()
                        if "warning" in line]
            self.assertEqual(len(warnings), 1, proc.stderr)
            self.assertIn(part, warnings[0])
            self.assertIn(f"truncated at byte {cut}", warnings[0])
            runs = runs_of(decode(out))
            # the complete runs of a single thread: the first ones, exactly
            self.assertEqual(runs, full[:len(runs)], f"cut at {cut}")
            if runs:
                self.assertEqual(run_keys(runs[0]), DEFAULT_EVENTS)
            for r in runs[1:]:
                self.assertEqual(run_keys(r), EXECUTE_EVENTS)
            counts.append(len(runs))
        self.assertEqual(counts[0], 0)
        self.assertEqual(counts, sorted(counts))
        self.assertLess(counts[1], counts[3])
        self.assertLess(counts[3], len(full))

    def test_a_damaged_capture_converts_what_precedes_the_damage(self):
        a, raw = self.record()
        data = bytearray(open(raw, "rb").read())
        layout = chunks(bytes(data))
        bad = layout[len(layout) // 2][0]
        data[bad + 20] ^= 0xff
        part = self.path("bad.raw")
        with open(part, "wb") as f:
            f.write(data)
        out = self.path("bad.etdp")
        proc = self.convert(part, out, status=4)
        self.assertIn(f"corrupt chunk at byte {bad}", proc.stderr)
        runs = runs_of(decode(out))
        self.assertEqual(runs, runs_of(decode(a))[:len(runs)])

    def test_non_raw_input_is_one_line_error(self):
        a, _ = self.record(n=1)
        text = self.path("notes.txt")
        with open(text, "w") as f:
            f.write("hello\n")
        for path in (a, text, self.path("missing.raw")):
            out = self.path("out.etdp")
            proc = run([CLI, "convert", path, "-o", out])
            self.assertEqual(proc.returncode, 1, proc.stderr)
            lines = proc.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, proc.stderr)
            self.assertTrue(lines[0].startswith(f"etdump-bpf: {path}: "))
            self.assertFalse(os.path.exists(out))

    def test_outputs_are_never_overwritten_without_force(self):
        a, raw = self.record(n=1)
        proc = run([CLI, "convert", raw, "-o", a])
        self.assertEqual(proc.returncode, 1)
        self.assertIn("file exists", proc.stderr)
        self.convert(raw, a, "--force")
        before = open(raw, "rb").read()
        proc = run([CLI, "record", "--raw", raw, "--", EXAMPLE, "-n", "1"])
        self.assertEqual(proc.returncode, 1)
        self.assertIn("file exists", proc.stderr)
        self.assertEqual(open(raw, "rb").read(), before)


def slices_of(events):
    """Every B/E pair as one slice: the B with "dur" (microseconds, from the
    E); checks that each thread's pairs nest, in file order."""
    stacks, out = {}, []
    for e in events:
        track = (e["pid"], e["tid"])
        if e["ph"] == "B":
            stacks.setdefault(track, []).append(e)
        elif e["ph"] == "E":
            b = stacks[track].pop()
            assert (b["name"], b["cat"]) == (e["name"], e["cat"]), (b, e)
            assert "args" not in e, e
            out.append(dict(b, dur=(round(e["ts"] * 1000) -
                                    round(b["ts"] * 1000)) / 1000))
    assert all(not s for s in stacks.values()), stacks
    return out


class ChromeTraceTest(TempDirTest):
    """The trace-event rules Perfetto's JSON importer relies on."""

    def chrome(self, *record_args, n=10, status=0, starved=False,
               convert_args=()):
        etdp, raw, js = (self.path("A.etdp"), self.path("R.raw"),
                         self.path("T.json"))
        args = ["-o", etdp, "--raw", raw, *record_args]
        if starved:
            rc, stderr = record_starved(args, ["-n", str(n)])
        else:
            proc = run([CLI, "record", *args, "--", EXAMPLE, "-n", str(n)])
            rc, stderr = proc.returncode, proc.stderr
        self.assertEqual(rc, status, stderr)
        proc = run([CLI, "convert", raw, "-o", js, *convert_args])
        self.assertEqual(proc.returncode, status, proc.stderr)
        with open(js) as f:
            trace = json.load(f)
        return decode(etdp), trace

    def assert_trace_rules(self, dump, trace):
        self.assertEqual(trace["displayTimeUnit"], "ns")
        events = trace["traceEvents"]
        for e in events:
            for key in ("ph", "pid", "tid", "ts"):
                self.assertIn(key, e, e)
        # B/E pairs only: a reader nests them without adding ts + dur, and
        # Perfetto keeps the file's order at equal times only without X
        self.assertFalse([e for e in events if e["ph"] == "X"])
        # monotonic per track, in file order
        last = {}
        for e in events:
            if e["ph"] in ("B", "E"):
                track = (e["pid"], e["tid"])
                self.assertGreaterEqual(e["ts"], last.get(track, 0), e)
                last[track] = e["ts"]
        slices = slices_of(events)
        # one slice per profile event, at the ETDump's times in microseconds
        runs = runs_of(dump)
        want = sorted((int(pe["start_time"]),
                       int(pe["end_time"]) - int(pe["start_time"]))
                      for r in runs for pe in
                      (ev["profile_event"] for ev in r["events"]))
        got = sorted((round(e["ts"] * 1000), round(e["dur"] * 1000))
                     for e in slices if e["cat"] != "run")
        self.assertEqual(got, want)
        self.assertEqual(len([e for e in slices if e["cat"] == "run"]),
                         len(runs))
        # metadata names the process and every thread with slices
        meta = [e for e in events if e["ph"] == "M"]
        # the target's; from an ETDump (which names none), the one used
        pid = trace["otherData"].get("pid", events[0]["pid"])
        self.assertIn(("process_name", pid),
                      [(e["name"], e["pid"]) for e in meta])
        named = {e["tid"] for e in meta if e["name"] == "thread_name"}
        self.assertEqual(named, {e["tid"] for e in slices})
        return slices

    def test_chrome_trace_slices_have_no_per_run_args(self):
        dump, trace = self.chrome("--precise")
        slices = self.assert_trace_rules(dump, trace)
        self.assertEqual([e for e in slices if "args" in e], [])
        self.assertEqual(trace["otherData"]["capture"], "complete")
        self.assertEqual(trace["otherData"]["stop"], "target exited")

    def test_chrome_trace_slice_args_keep_ids_and_counters(self):
        dump, trace = self.chrome("--precise", convert_args=["--slice-args"])
        slices = self.assert_trace_rules(dump, trace)
        ops = [e for e in slices if e["cat"] == "profile"]
        self.assertTrue(all("chain_index" in e["args"] and
                            "instruction_id" in e["args"] and
                            "run" in e["args"] for e in ops))
        delegates = [e for e in slices if e["cat"] == "delegate"]
        self.assertIn("linear #0", [e["name"] for e in delegates])
        self.assertTrue(all("delegate_debug_metadata" in e["args"]
                            for e in delegates))
        names = {e["name"] for e in trace["traceEvents"] if e["ph"] == "C"}
        self.assertTrue(names)
        # every scope carries them; delegate-logged events have none
        for e in ops:
            self.assertTrue(names <= set(e["args"]), e)
        runs = [e for e in slices if e["cat"] == "run"]
        self.assertEqual(sorted(e["args"]["run"] for e in runs),
                         list(range(len(runs_of(dump)))))

    def test_chrome_trace_counters_are_tracks(self):
        dump, trace = self.chrome("--precise")
        self.assert_trace_rules(dump, trace)
        counters = [e for e in trace["traceEvents"] if e["ph"] == "C"]
        self.assertTrue(counters)
        last = {}
        for e in counters:
            key = (e["name"], tuple(e["args"]))
            self.assertGreaterEqual(e["ts"], last.get(key, 0), e)
            last[key] = e["ts"]

    def test_chrome_trace_marks_drops(self):
        dump, trace = self.chrome("--precise", "--ring-size", "4K", n=300,
                                  status=3, starved=True)
        self.assert_trace_rules(dump, trace)
        drops = [e for e in trace["traceEvents"] if e["ph"] == "i"]
        self.assertTrue(drops)
        self.assertTrue(all(e["s"] == "g" for e in drops))
        self.assertEqual(sum(e["args"]["dropped"] for e in drops),
                         trace["otherData"]["dropped"])
        self.assertGreater(trace["otherData"]["dropped"], 0)

    def test_chrome_trace_from_an_etdump(self):
        etdp, js = self.path("A.etdp"), self.path("T.json")
        proc = run([CLI, "record", "-o", etdp, "--precise", "--", EXAMPLE,
                    "-n", "10", "--threads", "2"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc = run([CLI, "convert", etdp, "-o", js])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("a raw capture", proc.stderr)
        with open(js) as f:
            trace = json.load(f)
        dump = decode(etdp)
        slices = self.assert_trace_rules(dump, trace)
        self.assertEqual(trace["otherData"]["source"], "etdump")
        version = run([CLI, "--version"]).stdout.split()[1]
        self.assertEqual(trace["otherData"]["producer"],
                         f"etdump-bpf {version}")
        self.assertTrue([e for e in trace["traceEvents"] if e["ph"] == "C"])
        # runs on one track never overlap
        runs = sorted((e["tid"], e["ts"], e["ts"] + e["dur"])
                      for e in slices if e["cat"] == "run")
        for a, b in zip(runs, runs[1:]):
            if a[0] == b[0]:
                self.assertLessEqual(a[2], b[1])

    def test_chrome_trace_of_what_is_no_etdump_is_one_line(self):
        text, js = self.path("notes.txt"), self.path("T.json")
        with open(text, "w") as f:
            f.write("hello\n")
        proc = run([CLI, "convert", text, "-o", js])
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stderr.strip().splitlines(),
                         [f"etdump-bpf: {text}: neither a raw capture nor an "
                          f"ETDump: " + proc.stderr.split("ETDump: ", 1)[1]
                          .strip()])
        self.assertFalse(os.path.exists(js))

    def test_chrome_trace_names_threads_and_the_recording(self):
        """Each thread by its own name (comm), as perf and uftrace; the
        file says what wrote it, how it was called and when."""
        raw, js = self.path("R.raw"), self.path("T.json")
        before = time.time()
        # workers outlive a poll turn: their names are read at first sight
        cmd = ["record", "--raw", raw, "--", EXAMPLE, "-n", "10",
               "--threads", "3", "--sleep-ms", "30"]
        proc = run([CLI, *cmd])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        after = time.time()
        proc = run([CLI, "convert", raw, "-o", js])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(js) as f:
            trace = json.load(f)
        names = sorted(e["args"]["name"] for e in trace["traceEvents"]
                       if e["ph"] == "M" and e["name"] == "thread_name")
        self.assertEqual(names, ["example-runtime", "worker 1", "worker 2"])
        other = trace["otherData"]
        version = run([CLI, "--version"]).stdout.split()[1]
        self.assertEqual(other["recorder"], f"etdump-bpf {version}")
        self.assertEqual(other["command"], cmd)
        recorded = datetime.datetime.strptime(
            other["recorded"], "%Y-%m-%dT%H:%M:%SZ").replace(
                tzinfo=datetime.timezone.utc).timestamp()
        self.assertTrue(int(before) <= recorded <= after, other["recorded"])

    def test_chrome_trace_links_delegate_events_to_their_call(self):
        """A flow from the instruction's slice to each event its delegate
        logged, each end bound where Perfetto's importer binds it: "s" to
        the slice open where it stands, "f" (bp "e") to the one enclosing
        it."""
        dump, trace = self.chrome(convert_args=["--slice-args"])
        events = trace["traceEvents"]
        open_at, starts, finishes = [], {}, {}
        for e in events:
            if e["ph"] == "B":
                open_at.append(e)
            elif e["ph"] == "E":
                open_at.pop()
            elif e["ph"] == "s":
                starts[e["id"]] = open_at[-1]
            elif e["ph"] == "f":
                self.assertEqual(e["bp"], "e")
                finishes[e["id"]] = open_at[-1]
        delegates = [e for e in events
                     if e["ph"] == "B" and e["cat"] == "delegate"]
        self.assertTrue(delegates)
        self.assertEqual(sorted(starts), sorted(finishes))
        self.assertEqual(len(finishes), len(delegates))
        for flow, event in finishes.items():
            call = starts[flow]
            self.assertEqual(event["cat"], "delegate")
            self.assertEqual(call["cat"], "profile")
            self.assertEqual(call["args"]["instruction_id"],
                             event["args"]["instruction_id"])
            self.assertEqual(call["args"]["run"], event["args"]["run"])
