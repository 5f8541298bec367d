"""The kernel's own timing of BPF programs (/proc/sys/kernel/bpf_stats_enabled,
read back with bpftool): run count and run time of the newest loaded
program of a name. Enabled only around what a bench row reads this way,
never while it times a runner: the timing costs each run two clock reads."""
import contextlib
import json
import subprocess

BPF_STATS = "/proc/sys/kernel/bpf_stats_enabled"


@contextlib.contextmanager
def enabled():
    with open(BPF_STATS) as f:
        was = f.read().strip()
    try:
        with open(BPF_STATS, "w") as f:
            f.write("1")
        yield
    finally:
        with open(BPF_STATS, "w") as f:
            f.write(was)


def programs(names):
    """{name: (run_cnt, run_time_ns)} of the newest program of each name
    loaded; a name with no program is left out."""
    out = subprocess.run(["bpftool", "prog", "show", "-j"],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    newest = {}
    for p in json.loads(out):
        name = p.get("name")
        if name in names and p["id"] > newest.get(name, {"id": -1})["id"]:
            newest[name] = p
    return {n: (p.get("run_cnt", 0), p.get("run_time_ns", 0))
            for n, p in newest.items()}
