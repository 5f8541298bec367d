"""What the end-to-end tests share: where the binaries are, how to run the
recorder, and how to read an ETDump the way ExecuTorch does (Debian's flatc
against schema/etdump.fbs, size-prefixed), independently of our own reader.
"""
import json
import os
import signal
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.environ.get("ETDUMP_BUILD", os.path.join(ROOT, "build"))
CLI = os.path.join(BUILD, "etdump-bpf")
EXAMPLE = os.path.join(BUILD, "example-runtime")
EXAMPLE_NOPROBES = os.path.join(BUILD, "example-runtime-noprobes")
# make bench's loop: batched delegate_log events, paced, one run a thread
BENCH_LOOP = os.path.join(BUILD, "bench-loop")
# the same runtime as a library: every probe in libexample-runtime.so
EXAMPLE_SHARED = os.path.join(BUILD, "example-runtime-shared")
EXAMPLE_LIB = os.path.join(BUILD, "libexample-runtime.so")
SCHEMA = os.path.join(ROOT, "schema", "etdump.fbs")

# One Execute run of the example runtime (tests/example/README.md), in the
# order ETDumpGen writes events (when they end): (name or delegate id,
# chain, instruction). Delegate ids are marked with a "delegate:" prefix.
EXECUTE_EVENTS = [
    ("native_call_convolution.out", 0, 0), ("OPERATOR_CALL", 0, 0),
    ("native_call_relu.out", 0, 1), ("OPERATOR_CALL", 0, 1),
    ("native_call_max_pool2d_with_indices.out", 0, 2), ("OPERATOR_CALL", 0, 2),
    ("native_call_view_copy.out", 0, 3), ("OPERATOR_CALL", 0, 3),
    ("delegate:linear #0", 0, 4), ("delegate:relu #1", 0, 4),
    ("delegate:linear #2", 0, 4), ("delegate:7", 0, 4),
    ("DELEGATE_CALL", 0, 4),
    ("native_call__softmax.out", 0, 5), ("OPERATOR_CALL", 0, 5),
    ("Method::execute", -1, 0),
]
DEFAULT_EVENTS = [("Method::init", -1, 0), ("Program::load_method", -1, 0)]

# A scope's times as the probes saw them against the runtime's own clock
# reads around the same sites (example-runtime --timings): each probe time
# lies between the runtime's read at its site and the read next to it, in
# program order. No bound in nanoseconds: a preemption between a read and
# its probe (tens of us under load) is not an error.


def run(cmd, timeout=60, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=timeout, **kw)


def decode(path):
    """The ETDump as flatc decodes it for ExecuTorch's Inspector."""
    with tempfile.TemporaryDirectory() as d:
        proc = run(["flatc", "--size-prefixed", "--json", "--strict-json",
                    "--defaults-json", "-o", d, SCHEMA, "--", path])
        if proc.returncode != 0:
            raise AssertionError(f"flatc cannot decode {path}: "
                                 f"{proc.stdout}{proc.stderr}")
        base = os.path.splitext(os.path.basename(path))[0]
        with open(os.path.join(d, base + ".json")) as f:
            return json.load(f)


def event_key(ev):
    """(name or delegate:id, chain, instruction) of a decoded Event."""
    pe = ev["profile_event"]
    if pe.get("delegate_debug_id_str"):
        name = "delegate:" + pe["delegate_debug_id_str"]
    elif pe["delegate_debug_id_int"] != -1:
        name = f"delegate:{pe['delegate_debug_id_int']}"
    else:
        name = pe.get("name")
    return (name, pe["chain_index"], pe["instruction_id"])


def run_keys(run_data):
    return [event_key(e) for e in run_data["events"]]


def read_timings(path):
    """The example runtime's own measurements, one dict per event."""
    rows = []
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split("\t")))
            for k in ("tid", "run", "chain", "instr", "start_ns", "end_ns"):
                row[k] = int(row[k])
            rows.append(row)
    return rows


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="etdump-e2e-")
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)


class Recorder:
    """etdump-bpf record running in the background."""

    def __init__(self, args, wrapper=()):
        """wrapper: a command that runs record (taskset -c N, say)."""
        self.proc = subprocess.Popen(list(wrapper) + [CLI, "record"] + args,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.stderr_lines = []

    def wait_attached(self, timeout=30):
        self.wait_for("attached", timeout, "recorder did not attach")

    def wait_for(self, text, timeout=30, what=None):
        """Until a line of stderr holds text."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.stderr_lines.append(line)
            if text in line:
                return
        raise AssertionError((what or f"recorder never said {text!r}") +
                             ": " + "".join(self.stderr_lines))

    def signal(self, sig=signal.SIGINT):
        self.proc.send_signal(sig)

    def wait(self, timeout=60):
        self.stdout, err = self.proc.communicate(timeout=timeout)
        self.stderr = "".join(self.stderr_lines) + err
        return self.proc.returncode


def end_stopped(proc):
    """Whatever a test that stops proc (SIGSTOP) left running when it
    failed: continued, killed and reaped."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGCONT)
        proc.kill()
        proc.wait()


def start_waiting_example(args, binary=EXAMPLE, env=None):
    """The example runtime held before its load until SIGUSR1; its PID."""
    proc = subprocess.Popen([binary, "--wait-signal"] + args,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    line = proc.stdout.readline()
    if not line.startswith("ready "):
        proc.kill()
        raise AssertionError(f"example did not get ready: {line!r}")
    return proc


def record_starved(record_args, example_args):
    """record -p of the example with the recorder stopped (SIGSTOP) from
    attach to the example's exit: its ring fills and the rest is dropped,
    whatever the machine's speed. The recorder's exit status and stderr."""
    example = start_waiting_example(example_args)
    rec = None
    try:
        rec = Recorder(record_args + ["-p", str(example.pid)])
        rec.wait_attached()
        rec.signal(signal.SIGSTOP)
        example.send_signal(signal.SIGUSR1)
        example.wait(timeout=60)
        rec.signal(signal.SIGCONT)
        return rec.wait(), rec.stderr
    finally:
        example.kill()
        example.wait()
        if rec and rec.proc.poll() is None:
            rec.signal(signal.SIGCONT)
            rec.proc.kill()
            rec.proc.wait()
