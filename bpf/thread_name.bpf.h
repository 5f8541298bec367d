/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * thread_name.bpf.h - each thread's name (comm) as the kernel has it when
 * the thread's first record is made, and again whenever it changed by a
 * block or a flush (pthread_setname_np): a thread that exits before the
 * recorder reads its records has no /proc entry left to name it.
 * Include after ring.bpf.h.
 */
#ifndef ETDUMP_THREAD_NAME_BPF_H
#define ETDUMP_THREAD_NAME_BPF_H

struct thread_comm {
	__u64 w[ETDUMP_THREAD_NAME_LEN / 8];
};

/* The name each thread last said in the ring. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct thread_comm);
} thread_comms SEC(".maps");

static __always_inline bool comm_same(const struct thread_comm *a,
				      const struct thread_comm *b)
{
	return a->w[0] == b->w[0] && a->w[1] == b->w[1];
}

/*
 * Before a record of the current thread's: its name, when never said or
 * (changed: a block or a flush, where looking costs nothing next to the
 * rest) changed. A name the ring had no room for is not a loss of the
 * run's: no flag, no count; the next record tries again.
 */
static __always_inline void say_thread_name(bool changed)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct etdump_rec_thread_name *r;
	struct thread_comm now = {}, *said;

	said = bpf_map_lookup_elem(&thread_comms, &tid);
	if (said && !changed)
		return;
	if (!is_target(id))
		return;
	bpf_get_current_comm(&now, sizeof(now));
	if (said && comm_same(said, &now))
		return;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r)
		return;
	r->hdr.type = ETDUMP_REC_THREAD_NAME;
	r->hdr.ncounters = 0;
	r->hdr.size = sizeof(*r);
	r->hdr.cpu = bpf_get_smp_processor_id();
	r->hdr.flags = 0;
	r->hdr.pid = id >> 32;
	r->hdr.tid = tid;
	r->hdr.ts = bpf_ktime_get_ns();
	__builtin_memcpy(r->name, &now, sizeof(r->name));
	submit(r);
	bpf_map_update_elem(&thread_comms, &tid, &now, BPF_ANY);
}

/* The thread is gone: its tid may name another thread next. */
static __always_inline void forget_thread_name(__u32 tid)
{
	bpf_map_delete_elem(&thread_comms, &tid);
}

#endif /* ETDUMP_THREAD_NAME_BPF_H */
