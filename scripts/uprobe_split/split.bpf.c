// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * split.bpf.c - the programs scripts/uprobe-split.sh attaches: ones that
 * only count (what the kernel's uprobe machinery costs), and ones that
 * write a record as symbol mode does (a clock read and a ring buffer
 * record each way).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

__u64 hits = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} ring SEC(".maps");

SEC("uprobe")
int count_entry(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

SEC("uprobe")
int count_return(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

/* entry and return in one program (BPF_TRACE_UPROBE_SESSION) */
SEC("uprobe")
int count_session(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

static __always_inline void record(__u32 size)
{
	__u64 *r = bpf_ringbuf_reserve(&ring, size, 0);

	if (!r)
		return;
	r[0] = bpf_ktime_get_ns();
	r[1] = bpf_get_current_pid_tgid();
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/* the sizes of symbol mode's entry and exit records */
SEC("uprobe")
int record_entry(void *ctx)
{
	record(160);
	return 0;
}

SEC("uprobe")
int record_return(void *ctx)
{
	record(32);
	return 0;
}
