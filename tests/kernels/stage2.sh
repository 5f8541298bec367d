#!/bin/sh
# The guest's second stage, PID 1 in the shared root: run the command
# guest.py wrote into the results directory, in the repository's folder,
# its output on the console between two marker lines guest.py looks for,
# its exit status into the results directory; then power off.
. /results/.guest/config
export PATH="$GUEST_PATH" HOME=/root LANG=C.UTF-8 TERM=dumb
cd "$GUEST_CWD" || echo "etdump-guest: no folder $GUEST_CWD"
btf=yes
[ -e /sys/kernel/btf/vmlinux ] || btf="no (/sys/kernel/btf/vmlinux missing)"
echo "etdump-guest: kernel $(uname -r) $(uname -m), BTF $btf"
echo "etdump-guest: begin"
sh /results/.guest/command </dev/null
status=$?
echo "etdump-guest: end $status"
echo "$status" >/results/.guest/status
sync
/.etdump-guest/busybox poweroff -f
