#!/usr/bin/env python3
"""Check that the code keeps its layers: each folder of user/ uses only the
folders below it, every include names its folder, no two files use each
other (C includes, and the imports of the Python scripts and tests), and no
C file of user/ holds more than MAX_LINES lines.

LAYERS below is the one place the order is declared. A file may include
files of its own folder and of folders below it, never above.

usage: scripts/check_layers.py [--root DIR]
Prints one line per fault and exits 1 when there is any.
"""
import argparse
import ast
import os
import re
import sys

# bottom to top: (folder, what it holds)
LAYERS = [
    ("schema", "the record, probe and file formats the BPF programs, "
               "the runtimes and the tool share"),
    ("user/lib", "what every layer uses: logging, files, parsing, clock, "
                 "growing arrays, strings"),
    ("user/model", "the data model of a run: the in-memory ETDump, the run "
                   "log, the debug buffer"),
    ("user/read", "decoding files: ETDumps, raw captures, flatbuffers"),
    ("user/target", "the traced process: its files, probes and privileges"),
    ("user/capture", "BPF programs attached, the ring read"),
    ("user/collect", "records into runs"),
    ("user/symbol", "symbol mode: uprobes on a stock binary, translated"),
    ("user/write", "ETDumps, raw captures, timelines and profiles written"),
    ("user/convert", "recorded files replayed and converted"),
    ("user/report", "tables, statistics and diffs of ETDumps"),
    ("user/cli", "the commands"),
]
# BPF programs sit on schema/; tests/ may use any layer. Both are checked
# for bare includes and circles, not for order.
OTHER_C = ["bpf", "tests/unit", "tests/fuzz", "tests/bench", "tests/probes"]
# Built the way a runtime outside this repository is built (-Ischema,
# #include "etdump_usdt.h"), and the schema headers stay includable so.
OUTSIDE_BUILDS = ["schema", "tests/example", "tests/executorch"]
# generated into the build folder or per architecture
GENERATED = re.compile(r"(\.skel\.h|^vmlinux\.h)$")
PYTHON = ["scripts", "tests", "tests/e2e", "tests/fuzz"]
MAX_LINES = 900

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)


def c_files(root, folder):
    d = os.path.join(root, folder)
    if not os.path.isdir(d):
        return []
    return sorted(os.path.join(folder, f) for f in os.listdir(d)
                  if f.endswith((".c", ".h", ".cpp")))


def layer_of(path):
    """Index in LAYERS of the folder holding path, or None."""
    folder = os.path.dirname(path)
    for i, (name, _) in enumerate(LAYERS):
        if folder == name:
            return i
    return None


def resolve(root, includer, name, headers):
    """The repository path an include names, or None when it is not ours
    (a system or generated header). A bare name that is no sibling is found
    by its name alone (headers), as an -I per folder would find it."""
    if "/" in name:
        for base in ("user", ""):
            p = os.path.normpath(os.path.join(base, name))
            if os.path.exists(os.path.join(root, p)):
                return p
        return None
    sibling = os.path.join(os.path.dirname(includer), name)
    if os.path.exists(os.path.join(root, sibling)):
        return sibling
    return headers.get(name)


def check_includes(root, faults):
    """The include graph of C files, checked for bare names and order;
    returns {module: {module}} where a module is foo.c and foo.h as one."""
    edges = {}
    folders = [name for name, _ in LAYERS if name != "schema"] + OTHER_C
    headers = {}
    for folder in folders + OUTSIDE_BUILDS:
        for path in c_files(root, folder):
            headers.setdefault(os.path.basename(path), path)
    for folder in folders + OUTSIDE_BUILDS:
        for path in c_files(root, folder):
            with open(os.path.join(root, path), errors="replace") as f:
                text = f.read()
            mod = os.path.splitext(path)[0]
            edges.setdefault(mod, set())
            me = layer_of(path)
            for lineno, name in ((text.count("\n", 0, m.start()) + 1,
                                  m.group(1))
                                 for m in INCLUDE.finditer(text)):
                where = f"{path}:{lineno}"
                if GENERATED.search(name):
                    continue
                target = resolve(root, path, name, headers)
                sibling = os.path.exists(os.path.join(
                    root, os.path.dirname(path), name))
                # tests/ alone keeps its siblings bare (testlib.h)
                if "/" not in name and folder not in OUTSIDE_BUILDS and \
                        (me is not None or not sibling or
                         path.startswith("bpf/")):
                    faults.append(f"{where}: #include \"{name}\" names no "
                                  f"folder (write it as \"lib/log.h\", "
                                  f"\"schema/etdump_record.h\")")
                if target is None:
                    continue
                them = layer_of(target)
                if me is not None and them is not None and them > me:
                    faults.append(f"{where}: {LAYERS[me][0]}/ reaches up "
                                  f"into {LAYERS[them][0]}/ "
                                  f"(#include \"{name}\")")
                tmod = os.path.splitext(target)[0]
                if tmod != mod:
                    edges[mod].add(tmod)
    return edges


def python_imports(root):
    """{module path: {module path}} of the Python files that import each
    other, by module name, wherever in the file the import is."""
    where = {}
    for folder in PYTHON:
        d = os.path.join(root, folder)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith(".py"):
                where.setdefault(f[:-3], os.path.join(folder, f))
    edges = {}
    for name, path in where.items():
        with open(os.path.join(root, path)) as f:
            tree = ast.parse(f.read(), path)
        used = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                used |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and \
                    not node.level:
                used.add(node.module.split(".")[0])
        edges[path] = {where[u] for u in used if u in where and u != name}
    return edges


def circles(edges):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def check_lengths(root, faults):
    for name, _ in LAYERS:
        for path in c_files(root, name):
            if not path.endswith(".c"):
                continue
            with open(os.path.join(root, path), errors="replace") as f:
                n = sum(1 for _ in f)
            if n > MAX_LINES:
                faults.append(f"{path}: {n} lines, over {MAX_LINES}: "
                              f"split it by job")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    args = ap.parse_args()
    faults = []
    user = os.path.join(args.root, "user")
    for d in sorted(os.listdir(user) if os.path.isdir(user) else []):
        if os.path.isdir(os.path.join(args.root, "user", d)) and \
                layer_of(f"user/{d}/x") is None:
            faults.append(f"user/{d}/: a folder LAYERS in "
                          f"scripts/check_layers.py does not place")
    edges = check_includes(args.root, faults)
    for comp in circles(edges) + circles(python_imports(args.root)):
        faults.append("files that use each other: " + " <-> ".join(comp))
    check_lengths(args.root, faults)
    for f in faults:
        print(f)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
