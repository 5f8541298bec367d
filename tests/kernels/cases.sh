#!/bin/sh
# The kernel matrix's cases, run from a built checkout (its root as the
# working folder) on the kernel under test: each mode of record once, on
# the example runtime and on ExecuTorch's real runners, with few
# executions (a TCG guest is slow). POSIX sh that busybox runs too: the
# arm64 guests have no python. Each case writes into RESULTS/CASE/ its
# ETDump (out.etdp), stdout, stderr and exit status (status); check.py
# reads them on the host.
#
# usage: tests/kernels/cases.sh RESULTS [CASE...]   (default: every case)
#        tests/kernels/cases.sh --one CASE DIR      (one case, into DIR)
set -u

ET=${EXECUTORCH_DIR:-../shared/executorch}
M=$ET/models
case "$(uname -m)" in
aarch64)
	arch=arm64 B=build/arm64 ETBIN=$ET/arm64/bin
	;;
*)
	arch=amd64 B=build ETBIN=$ET/bin
	;;
esac
CLI=$B/etdump-bpf
EX=$B/example-runtime
# a case that hangs is killed, and the others still run. 300 s: on 5.10
# a TCG guest verifies symbol mode's --values programs (a copy per site,
# a bounded loop) for over 3 minutes
CASE_TIMEOUT=300

# the cases of an architecture: the arm64 build has no EventTracer runner
# (no arm64 ExecuTorch install) and no XNNPACK runner; only a PMU there
# (qemu's PMUv3) opens cycles
cases() {
	echo doctor batched precise values allocations counters every flight \
		slower live top pid children report symbols_stock symbols_stripped \
		symbols_values duty one_trap
	if [ $arch = amd64 ]; then
		echo tracer symbols_xnn symbols_late
	else
		echo counters_cycles
	fi
}

# wait_for FILE TEXT: until FILE holds TEXT (a minute at most)
wait_for() {
	n=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 600 ] || return 1
		sleep 0.1
	done
}

record() {
	"$CLI" record -o "$d/out.etdp" "$@"
}

case_doctor() { "$CLI" doctor; }
# the runtime's own clock reads around each site, and the clock they are
# of: batched stamps must lie inside them (check.py)
case_batched() {
	cat /sys/devices/system/clocksource/clocksource0/current_clocksource \
		>"$d/clocksource" 2>/dev/null
	record -- "$EX" -n 5 --timings "$d/timings.tsv"
}
case_precise() { record --precise -- "$EX" -n 5; }
case_values() { record --values -- "$EX" -n 5; }
case_allocations() { record --allocations -- "$EX" -n 5; }
case_counters() { record -e task-clock -- "$EX" -n 5; }
# a per-CPU cycles counter counts for a scope only where its thread stayed
# on one CPU, never switched out ("cycles=?" else): the runtime alone on
# CPU 1, the recorder, who wakes at each record, on CPU 0
case_counters_cycles() { record_held 1 0 --precise -e cycles; }
# the first run after the attach, then every 10th: 3 of 30 executions
case_every() { record --every 10 -- "$EX" -n 30; }
# the last 5 runs, written at the end as out.0001.etdp
case_flight() { record --flight-recorder 5 -- "$EX" -n 20; }
# every 5th execution spends 20 ms more: at least those 4 are kept
case_slower() {
	record --keep-slower-than 15ms -- "$EX" -n 20 --slow-every 5
}
# record --live: a table each second on stdout, and the ETDump
case_live() { record --live -- "$EX" -n 100 --sleep-ms 20; }
# top -p PID from a pipe: q quits once a few tables were printed
case_top() {
	"$EX" -n 1000000 --sleep-ms 1 >/dev/null &
	pid=$!
	(sleep 15; echo q) | "$CLI" top -p $pid
	status=$?
	kill $pid
	wait $pid
	return $status
}
# record_held EX_CPU REC_CPU [OPTION...]: the runtime held before its
# load, recorded with -p from before it; each on the CPU given (- for any)
record_held() {
	pin_ex=$1 pin_rec=$2
	shift 2
	exec_pinned "$pin_ex" "$EX" --wait-signal -n 5 >"$d/runtime.out" &
	pid=$!
	wait_for "$d/runtime.out" '^ready ' || { kill $pid; return 90; }
	exec_pinned "$pin_rec" "$CLI" record -o "$d/out.etdp" "$@" -p $pid \
		2>"$d/record.err" &
	rec=$!
	wait_for "$d/record.err" attached || { kill $pid $rec; return 91; }
	kill -USR1 $pid
	wait $pid
	wait $rec
	status=$?
	cat "$d/record.err" >&2
	return $status
}
# exec_pinned CPU CMD...: becomes CMD, on CPU (- for any); run with &, so
# that $! is CMD's PID
exec_pinned() {
	cpu=$1
	shift
	[ "$cpu" = - ] || exec taskset -c "$cpu" "$@"
	exec "$@"
}
case_pid() { record_held - -; }
# a shell starting two runtimes: each recorded in its own runs. They wait
# for SIGUSR1 before their load, sent once both are followed: a child is
# attached after its exec, and on a slow guest one could load (or end)
# before
case_children() {
	record -- sh -c "$EX --wait-signal -n 2 >$d/child1.out &
		$EX --wait-signal -n 3 --threads 2 >$d/child2.out & wait" \
		2>"$d/record.err" &
	rec=$!
	for f in child1.out child2.out; do
		wait_for "$d/$f" '^ready ' || { kill $rec; return 90; }
	done
	n=0
	while [ "$(grep -c '^etdump-bpf: following PID' "$d/record.err")" -lt 2 ]
	do
		n=$((n + 1))
		[ $n -lt 600 ] || { kill $rec; return 91; }
		sleep 0.1
	done
	for f in child1.out child2.out; do
		kill -USR1 "$(sed -n 's/^ready //p' "$d/$f")"
	done
	wait $rec
	status=$?
	cat "$d/record.err" >&2
	return $status
}
case_report() { "$CLI" report "$R/batched/out.etdp"; }
# our runner with the EventTracer (ETDumpGen's reference: cnn-x3.etdp)
case_tracer() {
	record -- build/executorch-runner --model_path "$M/cnn.pte" \
		--num_executions 3
}
# symbol mode on the stock runner, the plan's ids from --program
case_symbols_stock() {
	record --program "$M/cnn.pte" -- "$ETBIN/executor_runner" \
		--model_path "$M/cnn.pte" --num_executions 3 --print_output none
}
# the stripped runner alone in a folder: its symbols from --debug-file
case_symbols_stripped() {
	mkdir -p "$T"
	cp "$ETBIN/executor_runner_stripped" "$T/runner"
	record --program "$M/cnn.pte" --debug-file \
		"$ETBIN/executor_runner_stripped.debug" -- "$T/runner" \
		--model_path "$M/cnn.pte" --num_executions 3 --print_output none
}
# symbol mode's --values: each kernel's out tensors, at its return
case_symbols_values() {
	record --values --program "$M/cnn.pte" -- "$ETBIN/executor_runner" \
		--model_path "$M/cnn.pte" --num_executions 1 --print_output none
}
# the stock XNNPACK runner: XNNPACK's operators as ETDumpGen names them
# a stock ExecuTorch library a host dlopens after the attach, then a copy
# of it after dlclose: -p --wait-for-runtime turns to symbol mode at the
# first (its programs loaded then), the second is added to it. The host
# reads a line before each load, its runtime waits for SIGUSR1 before its
# run, sent once the recorder said it attached that library
case_symbols_late() {
	mkdir -p "$T"
	cp "$B/libexecutorch-stock.so" "$T/libone.so"
	cp "$B/libexecutorch-stock.so" "$T/libtwo.so"
	mkfifo "$T/in"
	"$B/example-dlopen-host" "$T/libone.so" "$T/libtwo.so" -- \
		--wait-signal --model_path "$M/cnn.pte" --num_executions 3 \
		<"$T/in" >"$d/host.out" &
	host=$!
	exec 3>"$T/in"
	wait_for "$d/host.out" '^loading ' || { kill $host; return 90; }
	record --program "$M/cnn.pte" --wait-for-runtime -p $host \
		2>"$d/record.err" &
	rec=$!
	wait_for "$d/record.err" 'carries no runtime yet' ||
		{ kill $host $rec; return 91; }
	for n in 1 2; do
		echo >&3
		while [ "$(grep -c '^ready ' "$d/host.out")" -lt $n ]; do
			kill -0 $host || return 92
			sleep 0.1
		done
		while [ "$(grep -c 'after the attach: attached' \
			"$d/record.err")" -lt $n ]; do
			kill -0 $rec || { kill $host; return 93; }
			sleep 0.1
		done
		kill -USR1 $host
	done
	exec 3>&-
	wait $host
	wait $rec
	status=$?
	cat "$d/record.err" >&2
	return $status
}
case_symbols_xnn() {
	record -- "$ETBIN/executor_runner_xnn" --model_path "$M/xnn_mlp.pte" \
		--num_executions 3 --print_output none
}
# symbol mode's probes in for half of every second (the default period:
# putting 35 probes in takes a guest 100-250 ms): whole executions. 2000
# of them last a few windows in a guest, a fifth of a second here
case_duty() {
	record --program "$M/cnn.pte" --duty 50 -- \
		"$ETBIN/executor_runner" --model_path "$M/cnn.pte" \
		--num_executions 2000 --print_output none
}
# one trap a kernel: a long-running stock runner recorded with -p until
# the kernels' returns came out (after the first runs measured the gaps),
# then 8 s more (a link per probe comes out in seconds on a guest) of runs
# taking a trap a kernel call
case_one_trap() {
	"$ETBIN/executor_runner" --model_path "$M/cnn.pte" \
		--num_executions 100000000 --print_output none &
	runner=$!
	# the recorder itself in the background, not a function's subshell:
	# SIGINT reaches it (it catches the signal a shell's job ignores)
	"$CLI" record -o "$d/out.etdp" --program "$M/cnn.pte" -p $runner \
		2>"$d/record.err" &
	rec=$!
	wait_for "$d/record.err" 'one trap a kernel call from then on' ||
		{ kill $runner $rec; cat "$d/record.err" >&2; return 90; }
	sleep 8
	kill -INT $rec
	wait $rec
	status=$?
	kill $runner
	wait $runner
	cat "$d/record.err" >&2
	# what is judged is the summary (check.py): the ETDump of a fast
	# host's seconds of runs is large
	rm -f "$d/out.etdp"
	return $status
}

if [ "${1:-}" = --one ]; then
	d=$3 R=$(dirname "$3") T=${TMPDIR:-/tmp}/etdump-cases.$$
	"case_$2"
	status=$?
	rm -rf "$T"
	exit $status
fi

R=${1:?usage: tests/kernels/cases.sh RESULTS [CASE...]}
shift
# shellcheck disable=SC2046 # the names are words
[ $# -gt 0 ] || set -- $(cases)
mkdir -p "$R"
uname -r >"$R/kernel"
for name in "$@"; do
	d=$R/$name
	rm -rf "$d"
	mkdir -p "$d"
	echo "case $name"
	timeout $CASE_TIMEOUT sh "$0" --one "$name" "$d" \
		>"$d/stdout" 2>"$d/stderr" </dev/null
	status=$?
	echo $status >"$d/status"
	echo "case $name: exit status $status"
done
