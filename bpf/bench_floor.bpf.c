// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_floor.bpf.c - the benchmark's floor: a USDT program that only counts
 * its hits. What any BPF tracer pays per probe hit before doing anything
 * (the uprobe, the USDT argument spec lookup, the program's entry), against
 * which `make bench` sets capture.bpf.c's cost. The uprobe and uretprobe
 * pair does the same on a function's entry and return: the kernel's share of
 * what symbol mode adds to a stock binary. The stamped pair is the least a
 * program that records a hit does: a clock read and 16 bytes stored (no
 * thread told apart, nothing handed on).
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

struct stamped_hit {
	__u64 ts;
	__u64 id;
};

#define STAMPED_HITS 256 /* a power of two */

struct stamped_hits {
	__u32 at;
	__u32 pad;
	struct stamped_hit hit[STAMPED_HITS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stamped_hits);
} stamped SEC(".maps");

static __always_inline void stamp_hit(void *ctx)
{
	struct stamped_hits *s;
	__u32 zero = 0, i;

	s = bpf_map_lookup_elem(&stamped, &zero);
	if (!s)
		return;
	i = s->at++ & (STAMPED_HITS - 1);
	s->hit[i].ts = bpf_ktime_get_ns();
	s->hit[i].id = bpf_get_attach_cookie(ctx);
	__sync_fetch_and_add(&hits, 1);
}

SEC("uprobe")
int stamp_call(void *ctx)
{
	stamp_hit(ctx);
	return 0;
}

SEC("uretprobe")
int stamp_return(void *ctx)
{
	stamp_hit(ctx);
	return 0;
}
