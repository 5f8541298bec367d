#!/bin/sh
# The guest's first stage, PID 1 in the initramfs: load the modules for
# 9p and overlay, mount this machine's root (read-only, 9p) under a tmpfs
# overlay and the results directory (writable, 9p) in it, then switch to
# that root and run stage2.sh there. Whatever fails powers the guest off
# at once: the host sees no status file and says the guest failed.
/bin/busybox --install -s /bin
export PATH=/bin

fail() {
	echo "etdump-guest: init: $*"
	poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r m; do
	insmod "/modules/$m" || fail "insmod $m"
done </modules/load-order

# msize: the largest payload per 9p message; TCG pays per message
opts=trans=virtio,version=9p2000.L,msize=524288
mkdir -p /mnt/host /mnt/rw /mnt/root
# cache=loose: the host's files do not change under a guest's run
mount -t 9p -o "$opts,ro,cache=loose" hostroot /mnt/host ||
	fail "mount the host's root over 9p"
mount -t tmpfs -o mode=0755 tmpfs /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay overlay \
	-o lowerdir=/mnt/host,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work \
	/mnt/root || fail "mount the overlay"

r=/mnt/root
mkdir -p $r/results
mount -t 9p -o "$opts" results $r/results || fail "mount the results share"
mount -t proc proc $r/proc
mount -t sysfs sysfs $r/sys
mount -t devtmpfs devtmpfs $r/dev
mkdir -p $r/dev/pts $r/dev/shm
mount -t devpts devpts $r/dev/pts
mount -t tmpfs tmpfs $r/dev/shm
mount -t tmpfs tmpfs $r/tmp
mount -t tmpfs tmpfs $r/run
mount -t debugfs debugfs $r/sys/kernel/debug
mount -t tracefs tracefs $r/sys/kernel/tracing 2>/dev/null ||
	echo "etdump-guest: init: no tracefs (use debugfs's tracing)"
mount -t bpf bpf $r/sys/fs/bpf

# this guest's busybox in the new root: poweroff there, and the shell
# and tools of an arm64 guest, whose root holds x86-64 programs
g=$r/.etdump-guest
mkdir -p $g/bin
cp /bin/busybox $g/busybox
for applet in $(busybox --list); do
	ln -s /.etdump-guest/busybox "$g/bin/$applet"
done
. $r/results/.guest/config
if [ "$GUEST_SHELL" = busybox ]; then
	ln -sf /.etdump-guest/busybox $r/bin/sh
fi
cp /etc/stage2.sh $g/stage2.sh

exec switch_root $r /.etdump-guest/busybox sh /.etdump-guest/stage2.sh
