#!/bin/sh
# bench-uprobes.sh - what symbol mode costs per traced call, by the first
# instruction of the function it attaches to (x86-64, as root).
# Usage: scripts/bench-uprobes.sh [BUILD_DIR] [CALLS]
#
# For each kind of first instruction, scripts/uprobe_bench.c calls an empty
# function CALLS times, bare and under `etdump-bpf record` in symbol mode
# (an entry uprobe, a uretprobe, two ring-buffer records, the collector);
# the median of 3 runs each. Cost per call = traced - bare. "attach at" is
# where symbol mode puts the uprobe (after endbr64 when what follows is
# emulated, user/symbol/symbol_sites.c), "kernel" what the kernel does there.
set -eu
build=${1:-build}
calls=${2:-100000}
[ "$(uname -m)" = x86_64 ] || { echo "bench-uprobes: x86-64 only" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bench="$tmp/uprobe-bench"
${CC:-cc} -O2 -g -Wall -Wextra -Werror "$(dirname "$0")/uprobe_bench.c" -o "$bench"


ns_per_call() { sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p'; }

median3() { sort -n | sed -n 2p; }

bare() {
	for _ in 1 2 3; do "$bench" "$1" "$calls" | ns_per_call; done | median3
}

# Only the function measured and the loop: every probe costs its removal
# (a grace period each) at the end.
traced() {
	printf 'block bench_run Bench Bench\nevent f_%s %s\n' "$1" "$1" \
		>"$tmp/bench.rules"
	for _ in 1 2 3; do
		"$build/etdump-bpf" record -f -o "$tmp/out.etdp" --symbols \
			--rules "$tmp/bench.rules" -- "$bench" "$1" "$calls" \
			2>"$tmp/err" | ns_per_call
		grep -q "wrote" "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	done | median3
}

printf '%-14s %-18s %-26s %10s %10s %12s\n' kind "first instruction" \
	"kernel at attach point" "bare ns" "traced ns" "cost ns/call"
while read -r kind insn kernel; do
	b=$(bare "$kind")
	t=$(traced "$kind")
	printf '%-14s %-18s %-26s %10s %10s %12.0f\n' "$kind" \
		"$(echo "$insn" | tr _ ' ')" "$(echo "$kernel" | tr _ ' ')" \
		"$b" "$t" "$(echo "$t - $b" | bc)"
done <<'KINDS'
push_rbp push_%rbp emulated
push_r12 push_%r12 emulated
nop1 nop emulated
nop5 nopl_(5_bytes) optimized_(call)
endbr64_push endbr64;push emulated_(after_endbr64)
mov mov single-stepped
sub_rsp sub_$8,%rsp single-stepped
endbr64_mov endbr64;mov single-stepped
KINDS
