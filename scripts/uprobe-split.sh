#!/bin/sh
# uprobe-split.sh - where a symbol-mode probe's time goes, on this machine
# (x86-64, Linux >= 6.12 for the session, as root): scripts/uprobe_split/
# run 7 times per way of probing, interleaved; the median of each.
# Usage: scripts/uprobe-split.sh
set -eu
[ "$(uname -m)" = x86_64 ] || { echo "uprobe-split: x86-64 only" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CLANG:-clang} -g -O2 -target bpf -D__TARGET_ARCH_x86 \
	-I"$here/../vmlinux/x86" -c "$here/uprobe_split/split.bpf.c" \
	-o "$tmp/split.bpf.o"
${BPFTOOL:-bpftool} gen skeleton "$tmp/split.bpf.o" >"$tmp/split.skel.h"
${CC:-cc} -O2 -Wall -Wextra -Werror -I"$tmp" "$here/uprobe_split/split.c" \
	-lbpf -o "$tmp/uprobe-split"
modes="entry return both session both-record"
for _ in 1 2 3 4 5 6 7; do
	for m in $modes; do "$tmp/uprobe-split" "$m"; done
done >"$tmp/runs"
printf '%-12s %s\n' "probes" "ns per call (median of 7)"
for m in $modes; do
	printf '%-12s %s\n' "$m" "$(sed -n "s/^$m ns_per_call=//p" "$tmp/runs" |
		sort -n | sed -n 4p)"
done
