"""Which kernel modules a guest must load, in load order: the ones it
needs for its root (virtio-9p) and its overlay, and what each depends on.
A kernel package ships no modules.dep (depmod writes it at install), so
the dependencies are read from each module's own .modinfo "depends="."""
import os
import re

# 9p over virtio for the shared root and results, overlay for the
# writable layer over the read-only root
NEEDED = ["virtio", "virtio_ring", "virtio_pci", "9pnet", "9pnet_virtio",
          "9p", "overlay"]


def module_name(path):
    base = os.path.basename(path)
    return base.split(".ko")[0].replace("-", "_")


def depends(ko_path):
    """The modules a (decompressed) .ko names in its modinfo depends=."""
    with open(ko_path, "rb") as f:
        m = re.search(rb"(?:^|\0)depends=([^\0]*)\0", f.read())
    if not m or not m.group(1):
        return []
    return [d.decode().replace("-", "_") for d in m.group(1).split(b",")]


def closure(members, builtin, extract):
    """members: {name: path in the package}; builtin: the names built in;
    extract(paths) -> {path: local decompressed file}. Returns the local
    files to insmod, dependencies first."""
    local = {}
    order = []

    def fetch(names):
        want = [members[n] for n in names
                if n not in builtin and members.get(n) not in local]
        missing = [n for n in names if n not in builtin and n not in members]
        if missing:
            raise SystemExit("kernel modules neither in the package nor "
                             "built in: " + " ".join(missing))
        if want:
            local.update(extract(want))

    def visit(name, seen=()):
        if name in builtin or members[name] in order:
            return
        deps = depends(local[members[name]])
        fetch(deps)
        for dep in deps:
            visit(dep, seen + (name,))
        if members[name] not in order:
            order.append(members[name])

    fetch(NEEDED)
    for name in NEEDED:
        visit(name)
    return [local[p] for p in order]


def builtin_names(text):
    return {module_name(line.strip()) for line in text.splitlines() if line}
