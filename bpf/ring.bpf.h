/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ring.bpf.h - what every capture program shares: the target filter, the
 * ring buffer with batched wakeups, and the count of every record lost.
 * Include once, from a .bpf.c, after vmlinux.h and bpf_helpers.h.
 */
#ifndef ETDUMP_RING_BPF_H
#define ETDUMP_RING_BPF_H

#include "schema/etdump_follow.h"
#include "schema/etdump_record.h"

/* Set by the collector before load. */
const volatile __u32 target_tgid = 0;
/*
 * A recorder in a PID namespace other than the initial one (a container)
 * knows the target by its pid there, not by the kernel's: the namespace's
 * device and inode are set, and the filter asks the kernel for the current
 * task's tgid in it. The kernel's own tgid of the target is learnt from
 * its first probe hit, for what is not the current task (sched_switch).
 */
const volatile __u64 pidns_dev = 0;
const volatile __u64 pidns_ino = 0;
__u32 target_kernel_tgid = 0;

/* -p PID,PID...: the processes after the first (initial namespace only) */
#define MAX_MORE_TARGETS 15
const volatile __u32 more_tgids[MAX_MORE_TARGETS] = {};
const volatile __u32 nmore_tgids = 0;

/*
 * Following children (etdump_follow.h): the descendants the recorder
 * attached to are marked FOLLOW_RECORDED here; bpf/follow_children.bpf.h
 * shares this map. Looked up only when following, and only for a process
 * that is none of the targets given.
 */
const volatile bool follow_children = false;

#include "bpf/followed_map.bpf.h"

/* One of the processes recorded, by the kernel's tgid. */
static __always_inline bool is_target_tgid(__u32 tgid)
{
	__u8 *f;
	__u32 i;

	if (pidns_ino)
		return target_kernel_tgid && tgid == target_kernel_tgid;
	if (tgid == target_tgid)
		return true;
	for (i = 0; i < MAX_MORE_TARGETS && i < nmore_tgids; i++)
		if (tgid == more_tgids[i])
			return true;
	if (!follow_children)
		return false;
	f = bpf_map_lookup_elem(&followed, &tgid);
	return f && (*f & FOLLOW_RECORDED);
}

static __always_inline bool is_target(__u64 id)
{
	struct bpf_pidns_info ns;

	if (!pidns_ino)
		return is_target_tgid(id >> 32);
	if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)) ||
	    ns.tgid != target_tgid)
		return false;
	target_kernel_tgid = id >> 32;
	return true;
}

/*
 * Waking the collector costs microseconds; it polls on a timer instead and
 * is woken early each time this much more has been produced.
 */
const volatile __u64 wakeup_bytes = 1 << 20;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* resized by the collector */
} events SEC(".maps");

/* Reserve failures, per CPU: every lost record is counted. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/*
 * Threads that lost a record since their last one in the ring: their next
 * record says so (ETDUMP_REC_F_LOST_BEFORE, and ETDUMP_REC_F_LOST_BLOCK
 * when a block was among them: the value is those flags), and the
 * collector leaves out the run that lost it rather than merge what follows
 * into it. Looked up only once some record was lost, so a ring that keeps
 * up pays nothing.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} lost_threads SEC(".maps");

bool any_lost = false;

/* n records of thread tid lost */
static __always_inline void count_drops_of(__u32 tid, __u64 n)
{
	__u32 zero = 0;
	__u8 one = ETDUMP_REC_F_LOST_BEFORE;
	__u64 *lost;

	lost = bpf_map_lookup_elem(&drops, &zero);
	if (lost)
		*lost += n;
	any_lost = true;
	/* a block lost before keeps its flag */
	bpf_map_update_elem(&lost_threads, &tid, &one, BPF_NOEXIST);
}

static __always_inline void count_drops(__u64 n)
{
	count_drops_of((__u32)bpf_get_current_pid_tgid(), n);
}

/*
 * The record count_drops() just counted was a block: the thread's next
 * records belong to a run the collector never saw open, not to the one it
 * has (or to none: a worker's).
 */
static __always_inline void mark_block_lost(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u8 *flags = bpf_map_lookup_elem(&lost_threads, &tid);

	if (flags)
		*flags |= ETDUMP_REC_F_LOST_BLOCK;
}

/* Flags for this thread's record about to go into the ring. */
static __always_inline __u16 take_lost_flag(__u32 tid)
{
	__u8 *lost;
	__u16 flags;

	if (!any_lost)
		return 0;
	lost = bpf_map_lookup_elem(&lost_threads, &tid);
	if (!lost)
		return 0;
	flags = *lost;
	bpf_map_delete_elem(&lost_threads, &tid);
	return flags;
}

/*
 * A record of the target's, stamped now; NULL (and counted) when the ring
 * is full. The uprobes are attached for the target already: the tgid check
 * also keeps out children that share the probed file.
 */
static __always_inline void *reserve_at(__u32 size, __u8 type, __u64 ts)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct etdump_rec_hdr *hdr;

	if (!is_target(id))
		return NULL;
	hdr = bpf_ringbuf_reserve(&events, size, 0);
	if (!hdr) {
		count_drops(1);
		return NULL;
	}
	hdr->type = type;
	hdr->ncounters = 0;
	hdr->size = size;
	hdr->cpu = bpf_get_smp_processor_id();
	hdr->flags = take_lost_flag((__u32)id);
	hdr->pid = id >> 32;
	hdr->tid = (__u32)id;
	hdr->ts = ts;
	return hdr;
}

static __always_inline void *reserve(__u32 size, __u8 type)
{
	return reserve_at(size, type, bpf_ktime_get_ns());
}

/*
 * A wakeup is a self-IPI: an exit to the hypervisor in a VM, ~6 us here.
 * Waking at every record while more than wakeup_bytes waited (a collector
 * behind, and busy already) made a batch flush 10x dearer: wake once per
 * wakeup_bytes produced instead. The producer position crosses each
 * multiple once; the data waiting, taken as it comes, can hover about one
 * and cross it again and again. `end` is the producer position after the
 * record (another CPU's reserve may move it first: a wakeup missed or
 * doubled, and the collector's timed poll still comes).
 */
static __always_inline __u64 wakeup_flags(__u64 end, __u32 size)
{
	if ((end - size) / wakeup_bytes != end / wakeup_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* A reserved record is behind the producer position already. */
static __always_inline void submit(void *rec)
{
	__u32 size = ((struct etdump_rec_hdr *)rec)->size;

	bpf_ringbuf_submit(rec, wakeup_flags(bpf_ringbuf_query(
		&events, BPF_RB_PROD_POS), size));
}

#endif /* ETDUMP_RING_BPF_H */
