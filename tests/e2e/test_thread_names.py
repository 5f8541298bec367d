"""Threads named as the process names them (their comm: the example's
workers call pthread_setname_np "worker N", its main thread keeps the
process's name), in the timeline of a raw capture, in the ETDump's run
notes and the timeline made of it, also for threads that exited before the
recorder read a record of theirs: the probes read the name at the
thread's first record, not /proc afterwards.
"""
import json
import unittest

from etdump_e2e import CLI, TempDirTest, decode, record_starved, run

THREADS = 3
# each slot's thread hands over to a new one, RESPAWN in all: most exit
# long before the recording ends (slot 0's first is the main thread)
RESPAWN = 3
NAMES = {"example-runtime"} | {f"worker {i}" for i in range(THREADS)}


def thread_names(trace_path):
    """{tid: name} the timeline gives, and the tids its slices are on."""
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    return names, {e["tid"] for e in events if e["ph"] == "B"}


def note_threads(path):
    """The thread each run's outermost event's note names, in run order."""
    out = []
    for r in decode(path)["run_data"]:
        notes = [bytes(e["profile_event"]["delegate_debug_metadata"])
                 for e in r["events"]
                 if e["profile_event"].get("delegate_debug_metadata")]
        said = [n.decode().split(";thread=", 1)[1].split(";")[0]
                for n in notes
                if n.startswith(b"etdump-bpf-") and b";thread=" in n]
        out.append(said)
    return out


class ThreadNamesTest(TempDirTest):
    def record_exited(self, *mode):
        """record -p with the recorder stopped from attach to the target's
        exit (a ring that holds it all): every worker thread is gone before
        any record of it is read. The ETDump and the raw capture."""
        out, raw = self.path("t.etdp"), self.path("t.raw")
        status, stderr = record_starved(
            list(mode) + ["--ring-size", "64M", "-o", out, "--raw", raw],
            ["-n", "3", "--threads", str(THREADS), "--respawn", str(RESPAWN)])
        self.assertEqual(status, 0, stderr)
        return out, raw

    def assert_raw_names(self, raw):
        trace = self.path("raw.json")
        proc = run([CLI, "convert", raw, "-o", trace])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        names, on = thread_names(trace)
        self.assertEqual(len(on), THREADS * RESPAWN)
        self.assertEqual({names.get(tid) for tid in on}, NAMES)

    def test_batched_names_exited_threads(self):
        out, raw = self.record_exited()
        self.assert_raw_names(raw)
        said = note_threads(out)
        self.assertTrue(all(len(s) == 1 for s in said), said)
        self.assertEqual({s[0] for s in said}, NAMES)
        # the Default run is the main thread's
        self.assertEqual(said[0], ["example-runtime"])
        self.assertEqual(sum(s == ["worker 1"] for s in said), 3 * RESPAWN)
        # the timeline made of the ETDump alone names the same threads
        trace = self.path("etdump.json")
        proc = run([CLI, "convert", out, "-o", trace])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        names, on = thread_names(trace)
        self.assertEqual({names[tid] for tid in on}, NAMES)

    def test_precise_names_exited_threads(self):
        _, raw = self.record_exited("--precise")
        self.assert_raw_names(raw)

    def test_precise_without_counters_notes_names(self):
        out, raw = self.record_exited("--precise", "--no-counters")
        self.assert_raw_names(raw)
        self.assertEqual({s[0] for s in note_threads(out)}, NAMES)


if __name__ == "__main__":
    unittest.main()
