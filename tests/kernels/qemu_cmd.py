"""The qemu-system command line that boots one kernel of the matrix:
TCG only (nested KVM faults on these machines), no display, no network,
this machine's root shared read-only and the results folder writable,
both over virtio-9p."""

CONSOLE = {"amd64": "ttyS0", "arm64": "ttyAMA0"}


def machine(arch):
    if arch == "amd64":
        return ["qemu-system-x86_64", "-cpu", "max"]
    # -cpu max: a PMUv3 that opens cycles; pauth-impdef: qemu's own,
    # cheaper pointer-authentication hash (the architected one is slow
    # to emulate and buys these tests nothing)
    return ["qemu-system-aarch64", "-M", "virt", "-cpu",
            "max,pauth-impdef=on"]


def share(tag, path, readonly):
    # multidevs=remap: the host's root spans several filesystems whose
    # inode numbers would collide in one export
    opt = f"local,path={path},mount_tag={tag},security_model=none," \
          f"multidevs=remap"
    return ["-virtfs", opt + (",readonly=on" if readonly else "")]


def command(arch, vmlinuz, initrd, results, memory="2G", cpus=2):
    append = (f"console={CONSOLE[arch]} rdinit=/init quiet loglevel=3 "
              "panic=-1")
    # thread=single: one host thread runs every vCPU in turn. With a thread
    # each (MTTCG) the 6.12 x86-64 guest oopsed on an int3 the kernel had
    # left while patching its text (text_poke_bp) on another vCPU, in
    # do_exit of a recorder; one thread a guest is also what two guests
    # at a time on this machine's two CPUs can have
    return [*machine(arch), "-accel", "tcg,thread=single", "-m", memory,
            "-smp", str(cpus), "-nographic", "-monitor", "none",
            "-no-reboot", "-nic", "none",
            "-kernel", vmlinuz, "-initrd", initrd, "-append", append,
            *share("hostroot", "/", True), *share("results", results, False)]
