"""The guest's initramfs: a static busybox of the guest's architecture,
the kernel's modules for 9p and overlay (fetch.py), and the two stages
of its init (init.sh in the initramfs, then stage2.sh in the shared root
it switches to)."""
import os

from cpio_newc import Newc

HERE = os.path.dirname(os.path.abspath(__file__))


def build(kernel_dir, busybox):
    ar = Newc()
    for d in ("bin", "dev", "proc", "sys", "mnt", "modules", "etc"):
        ar.dir(d)
    # the kernel gives init its stdio on /dev/console before any devtmpfs
    ar.chardev("dev/console", 5, 1)
    ar.file("bin/busybox", open(busybox, "rb").read(), 0o755)
    ar.symlink("bin/sh", "busybox")
    ar.file("init", open(os.path.join(HERE, "init.sh"), "rb").read(), 0o755)
    ar.file("etc/stage2.sh",
            open(os.path.join(HERE, "stage2.sh"), "rb").read(), 0o755)
    mods = os.path.join(kernel_dir, "modules")
    for name in sorted(os.listdir(mods)):
        ar.file("modules/" + name, open(os.path.join(mods, name), "rb").read())
    return ar.bytes()
