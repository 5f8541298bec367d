"""What the real-viewer tests need: Debian's Chromium, Node.js, and the npm
packages of tests/viewer (speedscope, puppeteer-core) installed there by
`make deps` (scripts/install-deps.sh).

Test modules with "viewer" in their name need it: tests/run.py loads them
only when available() says so, and otherwise prints one line saying that
they did not run and why (ETDUMP_REQUIRE_VIEWER=1 makes that a failure, as
.ci/run does).
"""
import json
import os
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
VIEWER_DIR = os.path.join(ROOT, "tests", "viewer")
LOADER = os.path.join(VIEWER_DIR, "speedscope_load.mjs")
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or ""
NODE = shutil.which("node") or shutil.which("nodejs") or ""


def available():
    """(True, "") when the viewer tests can run, else (False, why)."""
    if not CHROMIUM:
        return False, "no chromium on PATH (make deps installs it)"
    if not NODE:
        return False, "no node on PATH (make deps installs nodejs)"
    for pkg in ("speedscope", "puppeteer-core"):
        if not os.path.isdir(os.path.join(VIEWER_DIR, "node_modules", pkg)):
            return False, (f"tests/viewer/node_modules/{pkg} missing "
                           f"(make deps installs it)")
    return True, ""


def load_in_speedscope(files, timeout=300):
    """Each file as speedscope imports it in headless Chromium: a dict
    with the import's console "warnings" and "errors" and the profile it
    "exported" in speedscope's own file format."""
    with tempfile.TemporaryDirectory(prefix="etdump-viewer-") as out:
        proc = subprocess.run([NODE, LOADER, CHROMIUM, out, *files],
                              capture_output=True, text=True,
                              timeout=timeout)
        if proc.returncode != 0:
            raise AssertionError(f"speedscope_load.mjs failed: "
                                 f"{proc.stderr.strip()}")
        loaded = []
        for n in range(len(files)):
            with open(os.path.join(out, f"{n}.json")) as f:
                loaded.append(json.load(f))
        return loaded
