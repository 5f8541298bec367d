#!/bin/sh
# Record the bundled example runtime (20 executions) into an ETDump and show
# what it holds. Usage: scripts/run-example.sh [BUILD_DIR]
set -eu
build=${1:-build}
out="$build/example.etdp"

"$build/etdump-bpf" record --force -o "$out" -- "$build/example-runtime" -n 20
echo "ETDump written to $out"
if "$build/etdump-bpf" report --help >/dev/null 2>&1; then
	"$build/etdump-bpf" report "$out"
fi
