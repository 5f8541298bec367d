"""Where the real ExecuTorch build is, for the tests that trace it.

EXECUTORCH_PREFIX is an ExecuTorch install (headers and static libraries:
what `make` builds our runner against); it defaults to
../shared/executorch/sdk beside the repository when that exists.
EXECUTORCH_DIR holds what the tests run and compare with: bin/ (the stock
runner, its stripped copy and debug file, the ETDumpGen runners), models/
(.pte programs) and reference/ (the ETDumps ETDumpGen wrote for them); it
defaults to the folder above the prefix.

Test modules named test_executorch_*.py need it: tests/run.py loads them
only when available() says so, and otherwise prints one line saying that
they did not run and why (ETDUMP_REQUIRE_EXECUTORCH=1 makes that a failure,
as .ci/run does).
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
_DEFAULT_PREFIX = os.path.normpath(
    os.path.join(ROOT, "..", "shared", "executorch", "sdk"))

PREFIX = os.environ.get("EXECUTORCH_PREFIX") or _DEFAULT_PREFIX
DIR = os.environ.get("EXECUTORCH_DIR") or os.path.dirname(
    os.path.normpath(PREFIX))
BIN = os.path.join(DIR, "bin")
MODELS = os.path.join(DIR, "models")
REFERENCE = os.path.join(DIR, "reference")

STOCK_RUNNER = os.path.join(BIN, "executor_runner")
STRIPPED_RUNNER = os.path.join(BIN, "executor_runner_stripped")
STRIPPED_DEBUG = os.path.join(BIN, "executor_runner_stripped.debug")
ETDUMPGEN_RUNNER = os.path.join(BIN, "executor_runner_etdump")
ETDUMPGEN_XNN_RUNNER = os.path.join(BIN, "executor_runner_xnn_etdump")
# the stock runner cross-built for aarch64 (listed here, run under qemu)
ARM64_RUNNER = os.path.join(DIR, "arm64", "bin", "executor_runner")


def models():
    """The .pte programs, by name without the extension, sorted."""
    return sorted(f[:-4] for f in os.listdir(MODELS) if f.endswith(".pte"))


def model(name):
    return os.path.join(MODELS, name + ".pte")


def reference(name, executions=3):
    """ETDumpGen's ETDump for a model and execution count."""
    return os.path.join(REFERENCE, f"{name}-x{executions}.etdp")


def available():
    """(True, "") when the ExecuTorch tests can run, else (False, why)."""
    needed = [
        (os.path.join(PREFIX, "include", "executorch", "runtime", "core",
                      "event_tracer.h"), "EXECUTORCH_PREFIX"),
        (STOCK_RUNNER, "EXECUTORCH_DIR"),
        (MODELS, "EXECUTORCH_DIR"),
        (REFERENCE, "EXECUTORCH_DIR"),
    ]
    for path, var in needed:
        if not os.path.exists(path):
            return False, (f"{path} not found (set {var}; default "
                           f"{_DEFAULT_PREFIX})")
    return True, ""
