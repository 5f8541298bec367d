#!/usr/bin/env bash
# The leak check of the collector and everything around it: the unit tests,
# then recordings of the example runtime in both modes and the conversion
# of their raw captures (and ETDumps, to timelines), each under valgrind. A memory error or a definite
# or indirect leak fails; the traced example itself runs natively.
# Prints "ok - NAME" / "FAIL - NAME" like the other suites; exit 1 on any
# failure.
#
# usage: tests/valgrind.sh [BUILD_DIR]   (from the repository root, as root)
set -uo pipefail
build=${1:-build}
vg=(valgrind -q --suppressions=tests/valgrind.supp --leak-check=full
    --errors-for-leak-kinds=definite,indirect
    --error-exitcode=99)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# name, its log, valgrind's exit status
report() {
	if [ "$3" -eq 0 ]; then
		echo "ok - $1"
	else
		echo "FAIL - $1 (exit status $3)"
		# valgrind's notes on the bpf commands and syscalls it does not
		# model would fill the tail: what it found is shown instead
		grep -v -e 'WARNING: unhandled' -e 'You may be able' \
			-e README_MISSING -e 'Nevertheless we consider' \
			-e 'it at http' "$2" | tail -n 40
		failed=1
	fi
}

check() {
	local name=$1 status=0
	shift
	"${vg[@]}" "$@" >"$tmp/log" 2>&1 || status=$?
	report "$name" "$tmp/log" "$status"
}

# the unit tests a CPU each (each one process on one CPU, as alone), their
# verdicts in their order once all are done
units=("$build"/tests/test_*)
for i in "${!units[@]}"; do
	(status=0
	 "${vg[@]}" "${units[$i]}" >"$tmp/unit$i.log" 2>&1 || status=$?
	 echo "$status" >"$tmp/unit$i.status") &
	while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do
		wait -n
	done
done
wait
for i in "${!units[@]}"; do
	report "$(basename "${units[$i]}")" "$tmp/unit$i.log" \
		"$(cat "$tmp/unit$i.status")"
done
for mode in batched precise; do
	args=()
	[ "$mode" = precise ] && args=(--precise --sched)
	check "record, $mode" "$build/etdump-bpf" record -o "$tmp/$mode.etdp" \
		--raw "$tmp/$mode.raw" "${args[@]}" -- \
		"$build/example-runtime" -n 20 --threads 2
	check "convert, $mode" "$build/etdump-bpf" convert "$tmp/$mode.raw" \
		-o "$tmp/$mode-converted.etdp"
	check "timeline, $mode" "$build/etdump-bpf" convert "$tmp/$mode.raw" \
		-o "$tmp/$mode.json"
	check "timeline of the ETDump, $mode" "$build/etdump-bpf" convert \
		"$tmp/$mode.etdp" -o "$tmp/$mode-etdump.json"
done
check "doctor" "$build/etdump-bpf" doctor "$build/example-runtime"
check "list, symbol mode's preview" "$build/etdump-bpf" list \
	--rules tests/example/example.rules "$build/example-runtime-noprobes"
# the run log's other ways out: a rotated series, the slow runs, the last runs
check "record, rotate" "$build/etdump-bpf" record -o "$tmp/rot.etdp" \
	--rotate 16K -- "$build/example-runtime" -n 100 --threads 2
check "record, keep slower, flight recorder" "$build/etdump-bpf" record \
	-o "$tmp/fr.etdp" --keep-slower-than 10ms --flight-recorder 2 -- \
	"$build/example-runtime" -n 60 --slow-every 20
check "record, live" "$build/etdump-bpf" record --live --precise -- \
	"$build/example-runtime" -n 20
exit $failed
