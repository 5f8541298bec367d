// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * capture.bpf.c - one USDT program per etdump probe: stamp the event and
 * push it into the ring buffer as the record schema/etdump_record.h defines.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
/*
 * libbpf hands out USDT spec ids from 0 up; the sites armed before their
 * exec (user/capture/armed_binaries.c) take theirs from the top down.
 */
#define BPF_USDT_MAX_SPEC_CNT 1024
#include <bpf/usdt.bpf.h>
#include "bpf/ring.bpf.h"
#include "bpf/thread_name.bpf.h"
/* the batched buffer's head */
#define ETDUMP_USDT_DISABLE
#include "schema/etdump_usdt.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Counters read at scope begin/end: enum etdump_counter_kind each. */
const volatile __u32 ncounters = 0;
const volatile __u8 counter_kind[ETDUMP_MAX_COUNTERS] = {};
const volatile __u32 nr_cpus = 1;

/* Per-CPU perf events: counter i of CPU c at i * nr_cpus + c. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1); /* resized by the collector */
} perf_counters SEC(".maps");

/*
 * For task-clock: each target thread's CPU time, accounted on the probes'
 * own clock (switch-in to switch-out), and when it last went on CPU. The
 * kernel's sum_exec_runtime runs on the scheduler's clock, which is read
 * at other instants than ours: mixing the two let a scope's CPU time come
 * out microseconds above its wall time.
 *
 * A switch this program did not see (the task storage is busy on that CPU
 * when a preempted BPF program holds it, or cannot be allocated) would
 * leave a stale switch-in time, and the time off CPU would be counted: a
 * scope came out with more CPU time than wall time. The kernel's own
 * switch count tells: `switches` is the thread's count as of the last
 * switch seen, `gen` grows whenever the accounting had to start over, and
 * a scope whose begin and end were read in different generations has no
 * trustworthy CPU time.
 */
struct switch_in {
	__u64 ts;
	__u64 runtime;
	__u64 switches;
	__u32 gen;
	__u32 on_cpu;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct switch_in);
} switched_in SEC(".maps");

/*
 * What the kernel has (user/capture/kernel_features.h), set before load:
 * the branches a kernel lacks the helpers of are dead code the verifier
 * never checks. Without task storage (before 5.11) the recorder makes
 * switched_in an LRU hash keyed by thread id instead, and on_switch_exit
 * removes a thread's entry at its exit; without bpf_get_current_task_btf
 * (5.11 too) the current task's counts are read with BPF_CORE_READ and
 * its state is looked up the same way.
 */
const volatile bool has_task_storage = true;
const volatile bool has_current_task_btf = true;

/* The thread's switch_in, made when `create`; NULL when there is none. */
static __always_inline struct switch_in *
switch_state(struct task_struct *task, __u32 tid, bool create)
{
	struct switch_in zero = {}, *in;

	if (has_task_storage && has_current_task_btf)
		return bpf_task_storage_get(&switched_in, task, NULL,
					    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	in = bpf_map_lookup_elem(&switched_in, &tid);
	if (in || !create)
		return in;
	bpf_map_update_elem(&switched_in, &tid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&switched_in, &tid);
}

/* Without task storage: a thread's state goes with the thread. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_switch_exit, struct task_struct *p)
{
	__u32 tid = p->pid;

	bpf_map_delete_elem(&switched_in, &tid);
	return 0;
}

/*
 * Scope records end with room for the configured counters only: without
 * counters a begin/end pair takes 240 bytes of the ring instead of 432.
 */
#define SCOPE_RECORD_SIZE(type)                                               \
	(offsetof(type, counters) +                                            \
	 ncounters * sizeof(struct etdump_counter_sample))

/*
 * Bounded copy of a user string; its length without the NUL, or
 * ETDUMP_NAME_UNREAD when the page was not present (no faulting here).
 */
static __always_inline __u16 copy_name(char *dst, const char *src)
{
	long n;

	dst[0] = '\0';
	if (!src)
		return 0;
	n = bpf_probe_read_user_str(dst, ETDUMP_NAME_MAX, src);
	if (n <= 0) {
		dst[0] = '\0';
		return ETDUMP_NAME_UNREAD;
	}
	return n - 1;
}

static __always_inline __u32 copy_meta(__u8 *dst, const void *src, __u64 len)
{
	__u32 n = len > ETDUMP_META_MAX ? ETDUMP_META_MAX : len;

	if (!src || !n)
		return 0;
	if (bpf_probe_read_user(dst, n & (ETDUMP_META_MAX * 2 - 1), src))
		return 0;
	return n;
}

/*
 * A field of a task: through its BTF pointer, or read (a task from
 * bpf_get_current_task(), before 5.11, is a number to the verifier).
 */
#define TASK_FIELD(task, field)                                               \
	(has_current_task_btf ? (task)->field : BPF_CORE_READ(task, field))

/* The current thread's own count of a software event. */
static __always_inline __u64 task_count(struct task_struct *task, __u8 kind)
{
	switch (kind) {
	case ETDUMP_CTR_CONTEXT_SWITCHES:
		return TASK_FIELD(task, nvcsw) + TASK_FIELD(task, nivcsw);
	case ETDUMP_CTR_PAGE_FAULTS:
		return TASK_FIELD(task, min_flt) + TASK_FIELD(task, maj_flt);
	case ETDUMP_CTR_MINOR_FAULTS:
		return TASK_FIELD(task, min_flt);
	case ETDUMP_CTR_MAJOR_FAULTS:
		return TASK_FIELD(task, maj_flt);
	case ETDUMP_CTR_MIGRATIONS:
		return TASK_FIELD(task, se.nr_migrations);
	}
	return 0;
}

/* sched_switch's tasks are BTF pointers on every kernel. */
static __always_inline __u64 switch_count(struct task_struct *task)
{
	return task->nvcsw + task->nivcsw;
}

static __always_inline __u64 current_switch_count(struct task_struct *task)
{
	return TASK_FIELD(task, nvcsw) + TASK_FIELD(task, nivcsw);
}

/* record --sched: every switch of a target thread, out and in. */
const volatile bool sched_records = false;

static __always_inline void sched_record(struct task_struct *task, __u8 out,
					 __u8 preempted, __u64 now)
{
	struct etdump_rec_sched *r;

	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count_drops(1);
		return;
	}
	r->hdr.type = ETDUMP_REC_SCHED;
	r->hdr.ncounters = 0;
	r->hdr.size = sizeof(*r);
	r->hdr.cpu = bpf_get_smp_processor_id();
	r->hdr.pid = task->tgid;
	r->hdr.tid = task->pid;
	r->hdr.ts = now;
	r->out = out;
	r->preempted = preempted;
	__builtin_memset(r->pad, 0, sizeof(r->pad));
	submit(r);
}

/* The kernel counts a switch-out before this tracepoint fires. */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	struct switch_in *in;

	if (is_target_tgid(prev->tgid)) {
		if (sched_records)
			sched_record(prev, 1, preempt, now);
		in = switch_state(prev, prev->pid, false);
		if (in) {
			if (in->on_cpu)
				in->runtime += now - in->ts;
			else
				in->gen++;
			in->on_cpu = 0;
			in->switches = switch_count(prev);
		}
	}
	if (!is_target_tgid(next->tgid))
		return 0;
	if (sched_records)
		sched_record(next, 0, 0, now);
	in = switch_state(next, next->pid, true);
	if (in) {
		if (in->on_cpu || in->switches != switch_count(next))
			in->gen++;
		in->ts = now;
		in->on_cpu = 1;
		in->switches = switch_count(next);
	}
	return 0;
}

/*
 * `now` is the record's own stamp: one clock read per probe. A thread
 * first seen here, or whose last switch went unseen, is on CPU now, so its
 * accounting can start (over) now, in a new generation (`enabled` carries
 * it). A switch after `now`, while this program was preempted, leaves a
 * switch-in later than the stamp: that sample is not trusted (running 0).
 */
static __always_inline void read_task_clock(struct task_struct *task,
					    struct etdump_counter_sample *out,
					    __u64 now)
{
	__u64 switches = current_switch_count(task);
	struct switch_in *in;

	out->value = 0;
	in = switch_state(task, (__u32)bpf_get_current_pid_tgid(), true);
	if (!in)
		return;
	if (!in->on_cpu || in->switches != switches) {
		in->gen++;
		in->ts = now;
		in->on_cpu = 1;
		in->switches = switches;
	}
	out->enabled = in->gen;
	if (in->ts > now)
		return;
	out->value = in->runtime + (now - in->ts);
	out->running = 1;
}

/*
 * Read every configured counter; returns how many were read. A perf read
 * that fails leaves running at 0, which marks the value untrustworthy.
 */
static __always_inline __u8 read_counters(struct etdump_counter_sample *out,
					  __u64 *switches, __u64 now)
{
	struct task_struct *task = has_current_task_btf ?
		bpf_get_current_task_btf() :
		(struct task_struct *)bpf_get_current_task();
	struct bpf_perf_event_value v;
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 i;

	*switches = current_switch_count(task);
	for (i = 0; i < ETDUMP_MAX_COUNTERS; i++) {
		if (i >= ncounters)
			break;
		out[i].enabled = 0;
		out[i].running = 0;
		if (counter_kind[i] == ETDUMP_CTR_TASK_CLOCK) {
			read_task_clock(task, &out[i], now);
			continue;
		}
		if (counter_kind[i] != ETDUMP_CTR_PERF) {
			out[i].value = task_count(task, counter_kind[i]);
			continue;
		}
		if (bpf_perf_event_read_value(&perf_counters, i * nr_cpus + cpu,
					      &v, sizeof(v))) {
			out[i].value = 0;
			continue;
		}
		out[i].value = v.counter;
		out[i].enabled = v.enabled;
		out[i].running = v.running;
	}
	return i;
}

SEC("usdt")
int BPF_USDT(on_block, const char *name)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	/* the thread lost nothing since its last record in the ring */
	bool first = !any_lost || !bpf_map_lookup_elem(&lost_threads, &tid);
	struct etdump_rec_block *r;
	__u8 *flags;

	say_thread_name(true);
	r = reserve(sizeof(*r), ETDUMP_REC_BLOCK);
	if (!r) {
		/* no entry unless a target's record was just counted lost */
		mark_block_lost();
		/* lost first: the run before lost nothing of its own */
		flags = first ? bpf_map_lookup_elem(&lost_threads, &tid) : NULL;
		if (flags)
			*flags |= ETDUMP_REC_F_LOST_CLEAN;
		return 0;
	}
	r->name_len = copy_name(r->name, name);
	submit(r);
	return 0;
}

static __always_inline int emit_begin(__u8 type, const char *name, long chain,
				      long instr, long id_int)
{
	struct etdump_rec_begin *r;

	/* a worker of a pool opens no block: named at its first scope */
	say_thread_name(false);
	r = reserve(SCOPE_RECORD_SIZE(struct etdump_rec_begin), type);
	if (!r)
		return 0;
	if (ncounters)
		r->hdr.ncounters = read_counters(r->counters, &r->switches,
						 r->hdr.ts);
	r->token = (__u64)name;
	r->chain = chain;
	r->instr = instr;
	r->id_int = id_int;
	r->name_len = copy_name(r->name, name);
	submit(r);
	return 0;
}

static __always_inline int emit_end(__u8 type, __u64 token, const void *meta,
				    __u64 meta_len)
{
	struct etdump_counter_sample counters[ETDUMP_MAX_COUNTERS] = {};
	__u64 switches = 0, now = bpf_ktime_get_ns();
	struct etdump_rec_end *r;
	__u32 i;
	__u8 n = 0;

	if (ncounters)
		n = read_counters(counters, &switches, now);
	r = reserve_at(SCOPE_RECORD_SIZE(struct etdump_rec_end), type, now);
	if (!r)
		return 0;
	r->hdr.ncounters = n;
	r->switches = switches;
	for (i = 0; i < ETDUMP_MAX_COUNTERS && i < n; i++) {
		r->counters[i].value = counters[i].value;
		r->counters[i].enabled = counters[i].enabled;
		r->counters[i].running = counters[i].running;
	}
	r->token = token;
	r->meta_len_orig = meta_len;
	r->meta_len = copy_meta(r->meta, meta, meta_len);
	submit(r);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_profile_begin, const char *name, long chain, long instr)
{
	return emit_begin(ETDUMP_REC_PROFILE_BEGIN, name, chain, instr, -1);
}

SEC("usdt")
int BPF_USDT(on_profile_end, const char *name)
{
	return emit_end(ETDUMP_REC_PROFILE_END, (__u64)name, NULL, 0);
}

SEC("usdt")
int BPF_USDT(on_instruction, long chain, long instr)
{
	struct etdump_rec_instruction *r;

	r = reserve(sizeof(*r), ETDUMP_REC_INSTRUCTION);
	if (!r)
		return 0;
	r->chain = chain;
	r->instr = instr;
	submit(r);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_delegate_begin, const char *id_str, long id_int)
{
	return emit_begin(ETDUMP_REC_DELEGATE_BEGIN, id_str, -1, 0, id_int);
}

SEC("usdt")
int BPF_USDT(on_delegate_end, const void *meta, __u64 meta_len)
{
	return emit_end(ETDUMP_REC_DELEGATE_END, 0, meta, meta_len);
}

SEC("usdt")
int BPF_USDT(on_delegate_log, const char *id_str, long id_int, __u64 start,
	     __u64 end, const void *meta, __u64 meta_len)
{
	struct etdump_rec_delegate_log *r;

	say_thread_name(false);
	r = reserve(sizeof(*r), ETDUMP_REC_DELEGATE_LOG);
	if (!r)
		return 0;
	r->start = start;
	r->end = end;
	r->id_int = id_int;
	r->name_len = copy_name(r->name, id_str);
	r->meta_len_orig = meta_len;
	r->meta_len = copy_meta(r->meta, meta, meta_len);
	submit(r);
	return 0;
}

/* Batched mode: the runtime's buffer, copied whole or counted as lost. */
#define BATCH_MASK (ETDUMP_REC_BATCH_MAX * 2 - 1)

/*
 * Each thread's batched buffers, from its flushes, one in each copy of the
 * runtime it runs (two libraries carrying the probes keep one each): what
 * they hold when it exits or execs without a flush (killed, _exit, exec)
 * is read there.
 */
#define BATCH_COPIES 4

struct thread_buffers {
	__u32 ns_tid;  /* the thread's tid as its buffers' heads say it */
	__u32 n;
	__u64 addr[BATCH_COPIES];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct thread_buffers);
} batch_buffers SEC(".maps");

/*
 * A ring record for `n` bytes of buffer, of the smallest of three sizes
 * that holds them: a worker's flush of one scope or a thread's last few
 * runs takes no more of the ring than a few KiB, a full buffer 16.
 */
#define BATCH_REC_BYTES(cap) (offsetof(struct etdump_rec_batch, data) + (cap))
#define BATCH_CAP_SMALL 1024
#define BATCH_CAP_MEDIUM 4096

/*
 * A record of `cap` data bytes (a constant: the verifier sizes the
 * reservation by it) holding the buffer's `n`; NULL when the ring is full,
 * or, with *unread set, when the buffer could not be read.
 */
static __always_inline struct etdump_rec_batch *
batch_record(const void *buf, __u64 n, __u32 cap, bool *unread)
{
	struct etdump_rec_batch *r;

	/*
	 * The caller chose cap from n, so the compiler drops the test below
	 * as implied, and the verifier is left with a bound it learnt on
	 * another register (n + the head's size: 6.1's does not carry it
	 * over; 6.12's does). Made opaque here (64 bits wide, so that no
	 * zero-extended copy of it is tested instead), n is tested in the
	 * register the read is handed.
	 */
	barrier_var(n);
	r = bpf_ringbuf_reserve(&events, BATCH_REC_BYTES(cap), 0);
	if (r && (n > cap || bpf_probe_read_user(r->data, n, buf))) {
		bpf_ringbuf_discard(r, BPF_RB_NO_WAKEUP);
		*unread = true;
		return NULL;
	}
	return r;
}

/*
 * `len` bytes of a buffer at `buf` into the ring, or counted as lost:
 * copied straight into the record (the record says how much of it is
 * used), so the buffer is copied once.
 */
static __always_inline void emit_buffer(__u64 id, const void *buf, __u64 len,
					__u64 nevents, __u16 flags)
{
	struct etdump_batch_head head;
	struct etdump_rec_batch *r = NULL;
	__u32 n = len & BATCH_MASK;
	__u32 cap = n <= BATCH_CAP_SMALL ? BATCH_CAP_SMALL :
		    n <= BATCH_CAP_MEDIUM ? BATCH_CAP_MEDIUM :
					    ETDUMP_REC_BATCH_MAX;
	bool fits = len <= ETDUMP_REC_BATCH_MAX, unread = false;

	if (fits && cap == BATCH_CAP_SMALL)
		r = batch_record(buf, n, BATCH_CAP_SMALL, &unread);
	else if (fits && cap == BATCH_CAP_MEDIUM)
		r = batch_record(buf, n, BATCH_CAP_MEDIUM, &unread);
	else if (fits)
		r = batch_record(buf, n, ETDUMP_REC_BATCH_MAX, &unread);
	if (unread) {
		count_drops(nevents);
		return;
	}
	if (!r) {
		__u32 tid = (__u32)id;
		bool first = !bpf_map_lookup_elem(&lost_threads, &tid);
		__u8 *flags;

		count_drops(nevents);
		/* the buffer held a run's start: what follows is that run's */
		if (bpf_probe_read_user(&head, sizeof(head), buf) ||
		    !head.blocks)
			return;
		mark_block_lost();
		/* ... and, when it began with it, the run before is whole */
		flags = first && !head.lead ?
			bpf_map_lookup_elem(&lost_threads, &tid) : NULL;
		if (flags)
			*flags |= ETDUMP_REC_F_LOST_CLEAN;
		return;
	}
	r->hdr.type = ETDUMP_REC_BATCH;
	r->hdr.ncounters = 0;
	r->hdr.size = offsetof(struct etdump_rec_batch, data) + n;
	r->hdr.cpu = bpf_get_smp_processor_id();
	r->hdr.flags = take_lost_flag((__u32)id) | flags;
	r->hdr.pid = id >> 32;
	r->hdr.tid = (__u32)id;
	r->hdr.ts = bpf_ktime_get_ns();
	r->len = n;
	r->nevents = nevents;
	r->addr = (__u64)buf;
	bpf_ringbuf_submit(r, wakeup_flags(bpf_ringbuf_query(
		&events, BPF_RB_PROD_POS), BATCH_REC_BYTES(cap)));
}

/*
 * A buffer the thread flushes, among its own: the first is, and another
 * whose head says the same tid (a runtime of an older header handed over
 * the other threads' buffers at exit too).
 */
static __always_inline void remember_buffer(__u32 tid, const void *buf)
{
	struct thread_buffers first = { .n = 1, .addr = { (__u64)buf } };
	struct thread_buffers *known;
	__u32 head_tid, i;

	if (bpf_probe_read_user(&head_tid, sizeof(head_tid),
				buf + offsetof(struct etdump_batch_head, tid)))
		return;
	known = bpf_map_lookup_elem(&batch_buffers, &tid);
	if (!known) {
		first.ns_tid = head_tid;
		bpf_map_update_elem(&batch_buffers, &tid, &first, BPF_NOEXIST);
		return;
	}
	for (i = 0; i < BATCH_COPIES; i++)
		if (i < known->n && known->addr[i] == (__u64)buf)
			return;
	if (known->n < BATCH_COPIES && head_tid == known->ns_tid)
		known->addr[known->n++ & (BATCH_COPIES - 1)] = (__u64)buf;
}

SEC("usdt")
int BPF_USDT(on_flush, const void *buf, __u64 len, __u64 nevents)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (!is_target(id))
		return 0;
	remember_buffer((__u32)id, buf);
	say_thread_name(true);
	emit_buffer(id, buf, len, nevents, 0);
	return 0;
}

/*
 * What thread `id`'s buffers hold, as a flush would hand each over (flags
 * 0), or only their heads (ETDUMP_REC_F_NOT_ITS_OWN). Its memory must be
 * the current task's.
 */
static __always_inline void flush_left(__u64 id, __u16 flags)
{
	struct etdump_batch_head head;
	struct thread_buffers *known;
	__u32 tid = (__u32)id, i;
	const void *addr;

	known = bpf_map_lookup_elem(&batch_buffers, &tid);
	if (!known)
		return;
	for (i = 0; i < BATCH_COPIES && i < known->n; i++) {
		/*
		 * The address is this thread's own, from its flush (the
		 * head's tid is the thread's in its PID namespace, not the
		 * kernel's).
		 */
		addr = (const void *)known->addr[i];
		if (bpf_probe_read_user(&head, sizeof(head), addr) ||
		    !ETDUMP_BATCH_MAGIC_READ(head.magic) ||
		    head.len > ETDUMP_REC_BATCH_MAX - sizeof(head))
			continue;
		if (flags)
			emit_buffer(id, addr, sizeof(head), 0, flags);
		else if (head.len)
			emit_buffer(id, addr, sizeof(head) + head.len,
				    head.nevents, 0);
	}
}

/*
 * A vfork child (or any other process sharing a target thread's memory)
 * runs on that thread's stack and TLS: its sites write into the thread's
 * buffer. What the thread held is handed over when the child is made,
 * and when the child leaves (exit, exec) the recorder is told how far
 * the buffer now holds the child's, not the thread's: value = the
 * thread's pid << 32 | tid.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} memory_lent SEC(".maps");

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_vfork, struct task_struct *parent, struct task_struct *child)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 cpid = child->pid;

	if (child->mm != parent->mm || child->tgid == parent->tgid ||
	    !is_target(id))
		return 0;
	flush_left(id, 0);
	flush_left(id, ETDUMP_REC_F_LENT);
	bpf_map_update_elem(&memory_lent, &cpid, &id, BPF_ANY);
	return 0;
}

/* A vfork child leaves: what it wrote is not its parent thread's. */
static __always_inline void lent_back(void)
{
	__u32 pid = (__u32)bpf_get_current_pid_tgid();
	__u64 *owner = bpf_map_lookup_elem(&memory_lent, &pid);

	if (!owner)
		return;
	flush_left(*owner, ETDUMP_REC_F_NOT_ITS_OWN);
	bpf_map_delete_elem(&memory_lent, &pid);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_thread_exit, struct task_struct *p)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;

	if (!is_target(id)) {
		lent_back();
		return 0;
	}
	flush_left(id, 0);
	bpf_map_delete_elem(&batch_buffers, &tid);
	forget_thread_name(tid);
	return 0;
}

#if defined(__TARGET_ARCH_x86)
#define NR_EXECVE 59
#define NR_EXECVEAT 322
#elif defined(__TARGET_ARCH_arm64)
#define NR_EXECVE 221
#define NR_EXECVEAT 281
#endif

/* An exec replaces the memory the buffer is in: read it first. */
SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long nr)
{
	__u64 id;

	if (nr != NR_EXECVE && nr != NR_EXECVEAT)
		return 0;
	id = bpf_get_current_pid_tgid();
	if (is_target(id))
		flush_left(id, 0);
	else
		lent_back();
	return 0;
}

#include "bpf/value_copy.bpf.h"

/* bounded: copy_value_data_bounded(), for a kernel without bpf_loop */
static __always_inline int value(long kind, const void *desc, long chain,
				 long instr, bool bounded)
{
	struct value_copy c = { .ts = bpf_ktime_get_ns() };
	struct etdump_rec_value *r;
	__u32 zero = 0;

	c.id = bpf_get_current_pid_tgid();
	if (!is_target(c.id))
		return 0;
	c.stage = bpf_map_lookup_elem(&value_stage, &zero);
	if (!c.stage)
		return 0;
	if (bpf_probe_read_user(&c.stage->desc, sizeof(c.stage->desc), desc)) {
		__builtin_memset(&c.stage->desc, 0, sizeof(c.stage->desc));
		c.rec_flags = ETDUMP_VREC_UNREAD;
	} else if (c.stage->desc.type == 5 || c.stage->desc.type == 6) {
		/* tensor, tensor list: ETDUMP_VALUE_TENSOR{,_LIST} */
		if (bounded)
			copy_value_data_bounded(&c);
		else
			copy_value_data(&c);
	}
	r = reserve_at(sizeof(*r), ETDUMP_REC_VALUE, c.ts);
	if (!r)
		return 0;
	r->kind = kind;
	r->rec_flags = c.rec_flags;
	r->chain = chain;
	r->instr = instr;
	r->copied = c.copied;
	r->desc = c.stage->desc;
	r->name_len = copy_name(r->name, (const char *)c.stage->desc.delegate_id_str);
	submit(r);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_value, long kind, const void *desc, long chain, long instr)
{
	return value(kind, desc, chain, instr, false);
}

/* The same before 5.17: the recorder loads one of the two. */
SEC("usdt")
int BPF_USDT(on_value_bounded, long kind, const void *desc, long chain,
	     long instr)
{
	return value(kind, desc, chain, instr, true);
}

SEC("usdt")
int BPF_USDT(on_allocation, long allocator_id, __u64 size)
{
	struct etdump_rec_allocation *r;

	r = reserve(sizeof(*r), ETDUMP_REC_ALLOCATION);
	if (!r)
		return 0;
	r->allocator_id = allocator_id;
	r->size = size;
	submit(r);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_allocator, long allocator_id, const char *name)
{
	struct etdump_rec_allocator *r;

	r = reserve(sizeof(*r), ETDUMP_REC_ALLOCATOR);
	if (!r)
		return 0;
	r->allocator_id = allocator_id;
	r->name_len = copy_name(r->name, name);
	submit(r);
	return 0;
}

/* record without --no-inherit: its programs load only then */
#include "bpf/follow_children.bpf.h"
