// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_floor.bpf.c - the benchmark's floor: a USDT program that only counts
 * its hits. What any BPF tracer pays per probe hit before doing anything
 * (the uprobe, the USDT argument spec lookup, the program's entry), against
 * which `make bench` sets capture.bpf.c's cost. The uprobe and uretprobe
 * pair does the same on a function's entry and return: the kernel's share of
 * what symbol mode adds to a stock binary.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

__u64 hits = 0;

SEC("usdt")
int BPF_USDT(count_hit)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

SEC("uprobe")
int count_call(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

SEC("uretprobe")
int count_return(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}
