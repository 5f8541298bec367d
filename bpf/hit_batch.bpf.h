/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * hit_batch.bpf.h - symbol mode's hits kept per thread (struct
 * etdump_rec_func_batch of schema/etdump_record.h) and put in the ring a
 * batch at a time. Measured on a 2-CPU KVM guest (bpf_stats, cnn.pte): a
 * ring record per hit took 78-91 ns of program time against 56-59 for
 * the stamp alone, and a task-storage slot 62; what symbol mode adds to
 * xnn_mlp.pte's runner beyond count-only programs fell from 1.29x theirs
 * to 1.15x (docs/benchmark.md).
 *
 * A thread's buffer is its task storage: no other thread writes it, and
 * a preempted or migrated probe finds it as it left it, which a per-CPU
 * buffer would not. It goes into the ring when the thread's outermost
 * probed call returns (a run ends there: its records come together, none
 * held into the next), when it is full, and when the thread exits; the
 * recording's end hands over the rest (hand_over_kept, symbols.bpf.c).
 *
 * Who flushes a buffer: its thread's own probes, and at the recording's
 * end, once its probes are out and a grace period has passed (no
 * program that saw the recording on runs then), hand_over_kept and the
 * exit of a thread that comes after. Only those two can meet on one
 * buffer, so they alone claim it first (batch_flush_claimed); the probes
 * in a run pay nothing for it. The claim is a map's entry, not a
 * compare-and-swap: BPF atomics arrived in 5.12, and a 5.10 kernel
 * refuses a program that holds one anywhere.
 *
 * Where there is no task storage (5.11: the map and
 * bpf_get_current_task_btf), the buffers are a hash map's by thread id.
 * Include after ring.bpf.h.
 */
#ifndef ETDUMP_HIT_BATCH_BPF_H
#define ETDUMP_HIT_BATCH_BPF_H

#define SLOT_MASK (ETDUMP_FUNC_BATCH_SLOTS - 1)

/* XNNPACK operators' fields as the thread read them (symbols.bpf.c) */
#define XNN_KEPT 32 /* a power of two */

struct xnn_kept {
	__u64 op;              /* the operator; 0: none */
	__u32 forgets;         /* operators deleted before the read */
	__u32 type;
	__u32 sub;
	__u32 ukernel;
	__u64 pad;
};

struct hit_batch {
	struct etdump_rec_func_batch rec;
	__u32 depth;           /* probed calls open on the thread */
	__u32 tgid;            /* in the hash map: the thread's process */
	struct xnn_kept kept[XNN_KEPT];
};

/* Cleared by the recorder on a kernel that lacks them (see above). */
const volatile bool batch_task_storage = true;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct hit_batch);
} hit_batches SEC(".maps");

/*
 * Without task storage: preallocated (a map allocated at run time warns
 * at load in tracing programs before 5.13); its size, the threads
 * batched at once, is the recorder's. A thread beyond it sends each hit
 * to the ring alone.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hit_batch);
} hit_batches_by_tid SEC(".maps");

/* A new thread's buffer in the hash map, copied from here: never written */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hit_batch);
} empty_batch SEC(".maps");

static __always_inline struct hit_batch *tid_batch(__u32 tgid, __u32 tid,
						   bool create)
{
	struct hit_batch *b, *empty;
	__u32 zero = 0;

	b = bpf_map_lookup_elem(&hit_batches_by_tid, &tid);
	if (b || !create)
		return b;
	empty = bpf_map_lookup_elem(&empty_batch, &zero);
	if (!empty ||
	    bpf_map_update_elem(&hit_batches_by_tid, &tid, empty, BPF_NOEXIST))
		return NULL;
	b = bpf_map_lookup_elem(&hit_batches_by_tid, &tid);
	if (b)
		b->tgid = tgid;
	return b;
}

/*
 * The thread's buffer, made on its first hit; NULL when none could be
 * (no memory, the hash map full): the hit then goes to the ring alone,
 * which keeps the thread's order since nothing of it is held.
 */
static __always_inline struct hit_batch *thread_batch(bool create)
{
	__u64 id;

	if (batch_task_storage)
		return bpf_task_storage_get(&hit_batches,
					    bpf_get_current_task_btf(), 0,
					    create ?
					    BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	id = bpf_get_current_pid_tgid();
	return tid_batch(id >> 32, (__u32)id, create);
}

/*
 * The recording's end and the threads that exit after it: whoever comes
 * second to a thread's buffer finds it emptied. One entry per thread
 * flushing at that moment.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} flush_claims SEC(".maps");

/*
 * The buffer of thread tid of process pid into the ring, emptied. The
 * thread's next record says when the ring had no room (take_lost_flag).
 */
static __always_inline void batch_flush(struct hit_batch *b, __u32 pid,
					__u32 tid)
{
	__u32 n = b->rec.nslots, size;
	__u64 end;

	if (!n)
		return;
	if (n > ETDUMP_FUNC_BATCH_SLOTS)
		n = ETDUMP_FUNC_BATCH_SLOTS;
	size = sizeof(b->rec) - sizeof(b->rec.slots) +
	       n * sizeof(b->rec.slots[0]);
	b->rec.hdr.type = ETDUMP_REC_FUNC_BATCH;
	b->rec.hdr.ncounters = 0;
	b->rec.hdr.size = size;
	b->rec.hdr.cpu = bpf_get_smp_processor_id();
	b->rec.hdr.flags = take_lost_flag(tid);
	b->rec.hdr.pid = pid;
	b->rec.hdr.tid = tid;
	b->rec.hdr.ts = b->rec.slots[(n - 1) & SLOT_MASK].ts;
	/* where the ring's producer will be after it (see wakeup_flags) */
	end = bpf_ringbuf_query(&events, BPF_RB_PROD_POS) + size + 8;
	if (bpf_ringbuf_output(&events, &b->rec, size, wakeup_flags(end, size)))
		count_drops_of(tid, b->rec.nrecords);
	b->rec.nslots = 0;
	b->rec.nrecords = 0;
}

/*
 * The same at the recording's end (see above): left when another flush
 * has it, which empties it.
 */
static __always_inline void batch_flush_claimed(struct hit_batch *b,
						__u32 pid, __u32 tid)
{
	__u8 one = 1;

	if (!b->rec.nslots ||
	    bpf_map_update_elem(&flush_claims, &tid, &one, BPF_NOEXIST))
		return;
	batch_flush(b, pid, tid);
	bpf_map_delete_elem(&flush_claims, &tid);
}

/*
 * A thread that exited before the recording's end: its entry in the hash
 * map goes (task storage goes with the task).
 */
static __always_inline void batch_forget(__u32 tid)
{
	if (!batch_task_storage)
		bpf_map_delete_elem(&hit_batches_by_tid, &tid);
}

/* The current thread's buffer into the ring. */
static __always_inline void batch_flush_current(struct hit_batch *b)
{
	__u64 id = bpf_get_current_pid_tgid();

	batch_flush(b, id >> 32, (__u32)id);
}

/*
 * A free slot with room for `need` (1, or 2 for an XNNPACK call), the
 * buffer flushed first when full: its index; false, the hit counted lost,
 * should the flush have left it full.
 */
static __always_inline bool batch_room(struct hit_batch *b, __u32 need,
				       __u32 *i)
{
	if (b->rec.nslots + need > ETDUMP_FUNC_BATCH_SLOTS)
		batch_flush_current(b);
	*i = b->rec.nslots;
	if (*i + need <= ETDUMP_FUNC_BATCH_SLOTS)
		return true;
	count_drops(1);
	return false;
}

static __always_inline void batch_put(struct hit_batch *b, __u32 i, __u64 ts,
				      __u32 id, __u16 kind)
{
	struct etdump_func_slot *s = &b->rec.slots[i & SLOT_MASK];

	s->ts = ts;
	s->id = id;
	s->kind = kind;
	s->cpu = bpf_get_smp_processor_id();
}

/* A call's entry kept: stamped last, the probe's work before its scope. */
static __always_inline void batch_call(struct hit_batch *b, __u32 id)
{
	__u32 i;

	if (!batch_room(b, 1, &i))
		return;
	batch_put(b, i, bpf_ktime_get_ns(), id, ETDUMP_SLOT_CALL);
	b->rec.nslots = i + 1;
	b->rec.nrecords++;
	b->depth++;
}

/* An XNNPACK operator's entry kept: its fields in the slot after. */
static __always_inline void batch_xnn_call(struct hit_batch *b, __u32 id,
					   const struct etdump_xnn_slot *x)
{
	struct etdump_xnn_slot *s;
	__u32 i;

	if (!batch_room(b, 2, &i))
		return;
	s = (void *)&b->rec.slots[(i + 1) & SLOT_MASK];
	*s = *x;
	batch_put(b, i, bpf_ktime_get_ns(), id, ETDUMP_SLOT_XNN);
	b->rec.nslots = i + 2;
	b->rec.nrecords++;
	b->depth++;
}

/*
 * A call's return kept, stamped by the caller before anything else; the
 * outermost's (or one whose entry came before the attach) flushes.
 */
static __always_inline void batch_exit(struct hit_batch *b, __u32 id,
				       __u64 ts)
{
	__u32 i;

	if (!batch_room(b, 1, &i))
		return;
	batch_put(b, i, ts, id, ETDUMP_SLOT_EXIT);
	b->rec.nslots = i + 1;
	b->rec.nrecords++;
	if (b->depth)
		b->depth--;
	if (!b->depth)
		batch_flush_current(b);
}

#endif /* ETDUMP_HIT_BATCH_BPF_H */
