#!/usr/bin/env python3
"""Fetch the matrix's kernels from Debian's archive into the cache.

For each kernel: the suite's linux-image-<arch> resolved to the image
package it depends on, downloaded with apt-get download through a private
apt state (apt_private.py), and from that .deb only what a guest boots
with: the vmlinuz and the modules the initramfs loads (module_closure.py),
decompressed. The arm64 guests' shell is busybox-static's arm64 package.
A kernel already in the cache downloads nothing (not even apt's lists).

usage: tests/kernels/fetch.py [KERNEL...]   (default: every kernel)
cache: ${ETDUMP_KERNEL_CACHE:-/var/cache/etdump-bpf/kernels}
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402
import module_closure  # noqa: E402
from apt_private import PrivateApt  # noqa: E402

# the suite whose busybox-static the arm64 guests use as their shell
BUSYBOX_SUITE = "bookworm"


def cache_root():
    return os.environ.get("ETDUMP_KERNEL_CACHE",
                          "/var/cache/etdump-bpf/kernels")


def kernel_dir(name):
    return os.path.join(cache_root(), name)


def busybox_arm64():
    return os.path.join(cache_root(), "busybox-arm64", "busybox")


_updated = {}


def apt_for(suite):
    """The suite's private apt state, updated once per run (only when
    something has to be downloaded)."""
    if suite not in _updated:
        apt = PrivateApt(os.path.join(cache_root(), "apt", suite), suite,
                         kernels.ARCHES)
        print(f"fetch: apt-get update ({suite}, private state)", flush=True)
        apt.update()
        _updated[suite] = apt
    return _updated[suite]


def image_package(apt, arch):
    """linux-image-<arch> of the suite, followed to the real image
    package (linux-image-6.1.0-NN-amd64) it depends on."""
    for rec in apt.show(f"linux-image-{arch}:{arch}"):
        if rec.get("Architecture") != arch:
            continue
        m = re.search(r"(linux-image-[\w.+-]+)\s*\(=\s*([^)\s]+)\)",
                      rec.get("Depends", ""))
        if m:
            return m.group(1), m.group(2)
    raise SystemExit(f"fetch: no linux-image-{arch} in {apt.suite}")


def download(apt, package, version, arch, dest):
    os.makedirs(dest, exist_ok=True)
    deb = glob.glob(os.path.join(dest, f"{package}_*_{arch}.deb"))
    if deb:
        return deb[0]
    apt.download(f"{package}:{arch}={version}", dest)
    return glob.glob(os.path.join(dest, f"{package}_*_{arch}.deb"))[0]


def deb_members(deb, patterns, dest):
    """Extract the members of a .deb's data that match the patterns."""
    data = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb],
                            stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", dest, "--wildcards", *patterns],
                   stdin=data.stdout, check=True)
    data.stdout.close()
    if data.wait() != 0:
        raise SystemExit(f"fetch: dpkg-deb could not read {deb}")


def deb_list(deb):
    """The paths of a .deb's data, as tar names them (./lib/...)."""
    data = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb],
                            stdout=subprocess.PIPE)
    out = subprocess.run(["tar", "-t"], stdin=data.stdout, check=True,
                         capture_output=True, text=True).stdout
    data.stdout.close()
    data.wait()
    return out.splitlines()


def decompress(path):
    """busybox insmod loads plain .ko files only."""
    # each removes the compressed file once it wrote the plain one
    for ext, tool in ((".xz", ["xz"]), (".zst", ["zstd", "--rm"])):
        if path.endswith(ext):
            subprocess.run([*tool, "-d", "-q", "-f", path], check=True)
            return path[:-len(ext)]
    return path


def fetch_kernel(name):
    out = kernel_dir(name)
    if os.path.exists(os.path.join(out, "package")):
        return out
    suite, arch = kernels.KERNELS[name]
    apt = apt_for(suite)
    package, version = image_package(apt, arch)
    print(f"fetch: {name}: {package} {version}", flush=True)
    deb = download(apt, package, version, arch,
                   os.path.join(cache_root(), "debs"))
    tmp = tempfile.mkdtemp(prefix=name + ".", dir=cache_root())
    listing = deb_list(deb)
    members = {module_closure.module_name(p): p for p in listing
               if re.search(r"/modules/[^/]+/kernel/.*\.ko(\.\w+)?$", p)}
    builtin_list = [p for p in listing if p.endswith("/modules.builtin")]
    deb_members(deb, ["./boot/vmlinuz-*", *builtin_list], tmp)
    builtin = module_closure.builtin_names(
        open(os.path.join(tmp, builtin_list[0])).read()) if builtin_list \
        else set()

    def extract(paths):
        deb_members(deb, paths, tmp)
        return {p: decompress(os.path.join(tmp, p)) for p in paths}

    mods = os.path.join(tmp, "modules")
    os.makedirs(mods)
    order = []
    for ko in module_closure.closure(members, builtin, extract):
        shutil.move(ko, os.path.join(mods, os.path.basename(ko)))
        order.append(os.path.basename(ko))
    with open(os.path.join(mods, "load-order"), "w") as f:
        f.write("".join(m + "\n" for m in order))
    shutil.move(glob.glob(os.path.join(tmp, "boot", "vmlinuz-*"))[0],
                os.path.join(tmp, "vmlinuz"))
    for top in os.listdir(tmp):
        if top in ("boot", "lib", "usr"):
            shutil.rmtree(os.path.join(tmp, top))
    with open(os.path.join(tmp, "package"), "w") as f:
        f.write(f"{package} {version} {arch} ({suite})\n")
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    # what a boot needs is out of it: the cache keeps no 70 MB package
    os.remove(deb)
    return out


def fetch_busybox_arm64():
    path = busybox_arm64()
    if os.path.exists(path):
        return path
    apt = apt_for(BUSYBOX_SUITE)
    rec = [r for r in apt.show("busybox-static:arm64")
           if r.get("Architecture") == "arm64"][0]
    deb = download(apt, "busybox-static", rec["Version"], "arm64",
                   os.path.join(cache_root(), "debs"))
    tmp = tempfile.mkdtemp(prefix="busybox.", dir=cache_root())
    # /bin/busybox, or /usr/bin/busybox in a merged-/usr suite
    deb_members(deb, ["*bin/busybox"], tmp)
    found = glob.glob(os.path.join(tmp, "bin", "busybox")) + \
        glob.glob(os.path.join(tmp, "usr", "bin", "busybox"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shutil.move(found[0], path)
    shutil.rmtree(tmp)
    return path


def fetch(names):
    os.makedirs(cache_root(), exist_ok=True)
    for name in names:
        fetch_kernel(kernels.check(name))
        if kernels.arch_of(name) == "arm64":
            fetch_busybox_arm64()


if __name__ == "__main__":
    fetch(sys.argv[1:] or list(kernels.KERNELS))
