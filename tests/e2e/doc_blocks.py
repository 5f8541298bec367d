"""The documentation's runnable shell blocks, and how the tests run them.

A fenced block whose info string is `sh run` runs on a fresh clone with the
build alone; `sh run executorch` needs the ExecuTorch build beside the clone
(docs/README.md, "Writing these pages"). Each page's blocks of one kind run
in order, as root, in one fresh folder that looks like the clone's root (its
entries linked there, build/ being the build under test), with build/ first
on PATH; each block in its own `bash -e -o pipefail`.
"""
import os
import re
import subprocess
import tempfile
import unittest

from etdump_e2e import BUILD, ROOT
import executorch_env

SHELLS = ("sh", "bash", "shell")
# the words that may follow the language, and the kind of block they make
MARKERS = {("run",): "plain", ("run", "executorch"): "executorch"}
BLOCK_TIMEOUT = 300


def pages():
    """README.md and every page of docs/, as paths relative to ROOT."""
    docs = sorted(f for f in os.listdir(os.path.join(ROOT, "docs"))
                  if f.endswith(".md"))
    return ["README.md"] + [os.path.join("docs", f) for f in docs]


def fenced_blocks(text):
    """(line of the opening fence, info string, body) of each fenced block;
    a fence of more backticks holds shorter ones as text."""
    blocks = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(`{3,})(.*)$", lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group(1), m.group(2).strip(), i
        body = []
        i += 1
        while i < len(lines) and not re.match(
                rf"^{fence}`*\s*$", lines[i]):
            body.append(lines[i])
            i += 1
        blocks.append((start + 1, info, "\n".join(body)))
        i += 1
    return blocks


def block_kind(info):
    """'plain', 'executorch', None for a block that is only shown; raises
    ValueError for a shell block with words that mark nothing, so that a
    misspelt marker fails instead of leaving a block untested."""
    words = info.split()
    if not words or words[0] not in SHELLS or len(words) == 1:
        return None
    kind = MARKERS.get(tuple(words[1:]))
    if kind is None:
        raise ValueError(f"info string '{info}' marks nothing: "
                         f"'sh run' or 'sh run executorch'")
    return kind


def runnable(page, kind):
    """(line, body) of the page's blocks of that kind, in order."""
    with open(os.path.join(ROOT, page)) as f:
        text = f.read()
    return [(line, body) for line, info, body in fenced_blocks(text)
            if block_kind(info) == kind]


def clone_like_folder(tmp):
    """tmp made to look like the clone's root: its entries linked there,
    build/ being the build under test."""
    for name in os.listdir(ROOT):
        if name == ".git" or name.startswith("build"):
            continue
        os.symlink(os.path.join(ROOT, name), os.path.join(tmp, name))
    os.symlink(BUILD, os.path.join(tmp, "build"))


def block_env():
    env = dict(os.environ)
    env["PATH"] = BUILD + os.pathsep + env.get("PATH", "")
    env["EXECUTORCH_PREFIX"] = os.path.abspath(executorch_env.PREFIX)
    env["EXECUTORCH_DIR"] = os.path.abspath(executorch_env.DIR)
    return env


def run_page(test, page, kind):
    blocks = runnable(page, kind)
    with tempfile.TemporaryDirectory(prefix="docs-") as tmp:
        clone_like_folder(tmp)
        env = block_env()
        for line, body in blocks:
            proc = subprocess.run(
                ["bash", "-e", "-o", "pipefail", "-c", body], cwd=tmp,
                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True, errors="replace",
                timeout=BLOCK_TIMEOUT)
            if proc.returncode != 0:
                test.fail(f"{page}:{line}: the block exited "
                          f"{proc.returncode}:\n{body}\n--- output "
                          f"(last 3000 characters):\n{proc.stdout[-3000:]}")


def page_tests(kind, module):
    """A TestCase with one test per page holding blocks of that kind, in
    the test module `module` (so that -k PATTERN finds it by its name)."""
    def make(page):
        def test(self):
            run_page(self, page, kind)
        test.__doc__ = f"the '{kind}' runnable blocks of {page} run"
        return test

    attrs = {}
    for page in pages():
        if runnable(page, kind):
            stem = re.sub(r"\W", "_", os.path.splitext(page)[0])
            attrs[f"test_{stem}"] = make(page)
    attrs["__module__"] = module
    return type(f"DocBlocks_{kind}", (unittest.TestCase,), attrs)
