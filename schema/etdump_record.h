/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etdump_record.h - the records the BPF programs push into the ring buffer,
 * read by the collector. Shared by bpf/ and user/; raw captures store these
 * same bytes, so a change here is a change of the raw capture format: bump
 * ETDUMP_RECORD_VERSION.
 *
 * Every record starts with struct etdump_rec_hdr; `size` is the whole record
 * in bytes, so a reader skips types it does not know. Records of one thread
 * arrive in the order the thread produced them.
 *
 * Counter samples (struct etdump_counter_sample), when the tracer reads any,
 * are the first `ncounters` entries of a scope begin/end record's counters[],
 * in the order the recording chose (its raw capture header names them).
 */
#ifndef ETDUMP_RECORD_H
#define ETDUMP_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define ETDUMP_RECORD_VERSION 1

/* Bounded copies of user memory; a longer name is cut, marked by name_len. */
#define ETDUMP_NAME_MAX 64
#define ETDUMP_META_MAX 64
#define ETDUMP_MAX_COUNTERS 4
/* name_len when the probe could not read the string (page not present) */
#define ETDUMP_NAME_UNREAD 0xffff

enum etdump_rec_type {
	ETDUMP_REC_BLOCK = 1,          /* struct etdump_rec_block */
	ETDUMP_REC_PROFILE_BEGIN = 2,  /* struct etdump_rec_begin */
	ETDUMP_REC_PROFILE_END = 3,    /* struct etdump_rec_end */
	ETDUMP_REC_INSTRUCTION = 4,    /* struct etdump_rec_instruction */
	ETDUMP_REC_DELEGATE_BEGIN = 5, /* struct etdump_rec_begin */
	ETDUMP_REC_DELEGATE_END = 6,   /* struct etdump_rec_end */
	ETDUMP_REC_DELEGATE_LOG = 7,   /* struct etdump_rec_delegate_log */
	ETDUMP_REC_VALUE = 8,          /* struct etdump_rec_value */
	ETDUMP_REC_ALLOCATION = 9,     /* struct etdump_rec_allocation */
	ETDUMP_REC_FUNC_ENTRY = 10,    /* struct etdump_rec_func_entry */
	ETDUMP_REC_FUNC_EXIT = 11,     /* struct etdump_rec_func_exit */
	ETDUMP_REC_BATCH = 12,         /* struct etdump_rec_batch */
	ETDUMP_REC_SCHED = 13,         /* struct etdump_rec_sched (--sched) */
	ETDUMP_REC_VALUE_DATA = 14,    /* struct etdump_rec_value_data */
	ETDUMP_REC_ALLOCATOR = 15,     /* struct etdump_rec_allocator */
	ETDUMP_REC_FUNC_ALLOC = 16,    /* struct etdump_rec_func_alloc */
	/* symbol mode's entry as the probe sends it: the recorder makes it a
	   FUNC_ENTRY before anything else reads it (entry_expand.h) */
	ETDUMP_REC_FUNC_CALL = 17,     /* struct etdump_rec_func_call */
	/* an XNNPACK operator's entry as the probe sends it: the fields it
	   read, named by the recorder (entry_expand.h) */
	ETDUMP_REC_XNN_CALL = 18,      /* struct etdump_rec_xnn_call */
	/* symbol mode's calls and returns as a thread's probes kept them:
	   the recorder hands out the records they stand for (func_batch.h) */
	ETDUMP_REC_FUNC_BATCH = 19,    /* struct etdump_rec_func_batch */
	/* the thread's name (comm), before its first record and after a
	   rename: for a raw capture's and an ETDump's thread names */
	ETDUMP_REC_THREAD_NAME = 20,   /* struct etdump_rec_thread_name */
	/* symbol mode's, made by the recorder, never by a probe */
	ETDUMP_REC_PROBE_TIME = 32,    /* struct etdump_rec_probe_time */
	/* record --every's, made by the recorder */
	ETDUMP_REC_KEPT_EVERY = 33,    /* struct etdump_rec_kept_every */
	/* made by the recorder at the end: a thread's last records lost */
	ETDUMP_REC_LOST_TAIL = 34,     /* struct etdump_rec_lost_tail */
	/* made by the recorder: the kernel's CLOCK_MONOTONIC as a line of
	   the counter batched stamps read, first and when it changes */
	ETDUMP_REC_CLOCK = 35,         /* struct etdump_rec_clock */
};

struct etdump_rec_hdr {
	__u8 type;       /* enum etdump_rec_type */
	__u8 ncounters;  /* counter samples at the end of the record */
	__u16 size;      /* whole record, bytes */
	__u16 cpu;
	__u16 flags;     /* ETDUMP_REC_F_* */
	__u32 pid;       /* tgid */
	__u32 tid;
	__u64 ts;        /* CLOCK_MONOTONIC ns, taken in the probe */
};

/*
 * The ring had no room for a record of this thread since its last one: the
 * run the thread was in lost events (or the block of the next run).
 */
#define ETDUMP_REC_F_LOST_BEFORE 0x1
/*
 * With LOST_BEFORE: a block was among the records lost, so this record
 * belongs to a run whose start the collector never saw.
 */
#define ETDUMP_REC_F_LOST_BLOCK 0x2
/* A batched buffer the recorder read from the process, not a flush. */
#define ETDUMP_REC_F_PULLED 0x4
/*
 * A batched buffer's head only: the thread's memory is shared with a vfork
 * child from now on (LENT: the recorder must not read it), or the child
 * left and the records the head counts are the child's (NOT_ITS_OWN).
 */
#define ETDUMP_REC_F_LENT 0x8
#define ETDUMP_REC_F_NOT_ITS_OWN 0x10
/*
 * With LOST_BEFORE and LOST_BLOCK: the first record lost was a block (or
 * the first batched buffer lost began with one), so the run open before
 * it lost nothing: it is whole once its scopes are closed.
 */
#define ETDUMP_REC_F_LOST_CLEAN 0x20
/*
 * Symbol mode's end of a call (the recorder's, never a probe's): taking
 * the probes' time out would have left the call no time, so it keeps the
 * time measured between its probes (user/symbol/symbol_translate.c).
 */
#define ETDUMP_REC_F_TIME_KEPT 0x40

/*
 * Where a counter's value comes from. The task's own counts are exact for
 * the thread whatever the scheduler did; a perf event is read on the CPU
 * the probe runs on, so its delta is the thread's only if the thread
 * neither switched out nor moved between begin and end (`switches` and the
 * header's cpu tell).
 */
enum etdump_counter_kind {
	ETDUMP_CTR_PERF = 0,             /* per-CPU perf event: value, enabled, running */
	ETDUMP_CTR_CONTEXT_SWITCHES = 1, /* task nvcsw + nivcsw */
	ETDUMP_CTR_PAGE_FAULTS = 2,      /* task min_flt + maj_flt */
	ETDUMP_CTR_MINOR_FAULTS = 3,     /* task min_flt */
	ETDUMP_CTR_MAJOR_FAULTS = 4,     /* task maj_flt */
	ETDUMP_CTR_MIGRATIONS = 5,       /* task se.nr_migrations */
	/*
	 * The thread's CPU time: its runtime when last switched in plus the
	 * time since; running 0 = no value; enabled = the generation of the
	 * accounting, which starts over when a switch went unseen: a begin
	 * and an end of different generations give no value.
	 */
	ETDUMP_CTR_TASK_CLOCK = 6,
};

struct etdump_counter_sample {
	__u64 value;
	__u64 enabled;  /* ETDUMP_CTR_PERF, ETDUMP_CTR_TASK_CLOCK */
	__u64 running;  /* ETDUMP_CTR_PERF, ETDUMP_CTR_TASK_CLOCK */
};

struct etdump_rec_block {
	struct etdump_rec_hdr hdr;
	__u16 name_len;        /* bytes of name, without NUL */
	__u16 pad[3];
	char name[ETDUMP_NAME_MAX];
};

/*
 * PROFILE_BEGIN: token = name pointer, chain/instr as passed.
 * DELEGATE_BEGIN: token = id_str pointer (0 when none), id_int, name holds
 * id_str.
 */
struct etdump_rec_begin {
	struct etdump_rec_hdr hdr;
	__u64 token;           /* pairs the begin with its end */
	__s32 chain;
	__s32 instr;
	__s64 id_int;
	__u16 name_len;
	__u16 pad[3];
	char name[ETDUMP_NAME_MAX];
	__u64 switches;        /* the thread's context switches, with counters */
	struct etdump_counter_sample counters[ETDUMP_MAX_COUNTERS];
};

/*
 * PROFILE_END: token = name pointer. DELEGATE_END: token 0, metadata copied.
 */
struct etdump_rec_end {
	struct etdump_rec_hdr hdr;
	__u64 token;
	__u32 meta_len;        /* bytes kept in meta */
	__u32 meta_len_orig;   /* bytes the runtime passed */
	__u8 meta[ETDUMP_META_MAX];
	__u64 switches;
	struct etdump_counter_sample counters[ETDUMP_MAX_COUNTERS];
};

/*
 * record --sched: a target thread switched out (hdr: its pid and tid, the
 * CPU it left, when) or in (the CPU it runs on). For the timeline only:
 * record and convert keep it from the collector.
 */
struct etdump_rec_sched {
	struct etdump_rec_hdr hdr;
	__u8 out;              /* 1 switched out, 0 switched in */
	__u8 preempted;        /* out: still runnable; 0: it blocked */
	__u8 pad[6];
};

/* TASK_COMM_LEN, the NUL included */
#define ETDUMP_THREAD_NAME_LEN 16

/*
 * The thread's comm as the kernel had it when the record was made (the
 * name a thread gives itself with pthread_setname_np, else its
 * process's), NUL-padded.
 */
struct etdump_rec_thread_name {
	struct etdump_rec_hdr hdr;
	char name[ETDUMP_THREAD_NAME_LEN];
};

struct etdump_rec_instruction {
	struct etdump_rec_hdr hdr;
	__s32 chain;
	__s32 instr;
};

struct etdump_rec_delegate_log {
	struct etdump_rec_hdr hdr;
	__u64 start;           /* the delegate's own times */
	__u64 end;
	__s64 id_int;
	__u16 name_len;
	__u16 pad;
	__u32 meta_len;
	__u32 meta_len_orig;
	__u32 pad2;
	char name[ETDUMP_NAME_MAX];
	__u8 meta[ETDUMP_META_MAX];
};

/*
 * Symbol mode: uprobes on the functions a rules file names, for runtimes
 * without etdump probes. Each entry record carries its site's whole
 * description, so a raw capture converts without the recording's rules;
 * user/symbol/symbol_translate.c turns these into the records above.
 */
enum etdump_func_kind {
	ETDUMP_FUNC_EVENT = 0,    /* a scope, named `name` */
	ETDUMP_FUNC_BLOCK = 1,    /* opens a run named `arg`, then a scope */
	ETDUMP_FUNC_KERNEL = 2,   /* a kernel call instruction's scope */
	ETDUMP_FUNC_DELEGATE = 3, /* a delegate call instruction's scope */
	/*
	 * an allocator's allocate(this, size, ...) (record --allocations):
	 * no scope, a FUNC_ALLOC record at its return when it handed out
	 * memory; named by `name` (the allocator's kind)
	 */
	ETDUMP_FUNC_ALLOCATE = 4,
	/*
	 * an XNNPACK operator object run (schema/symbol_xnnpack.h): the
	 * entry is the call of xnn_run_operator_with_index, its `name` the
	 * operator's (none when the probe could not name it), `arg` its
	 * microkernel type's when not the default, `part` which object of
	 * which operator; the exit is the instruction the call returns to
	 */
	ETDUMP_FUNC_XNN_OP = 5,
};

struct etdump_func_site {
	__u32 id;              /* the attach point; an exit names it too */
	__u8 kind;             /* enum etdump_func_kind */
	__u8 flags;            /* ETDUMP_FUNC_STEPPED */
	__u16 name_len;
	__u16 arg_len;
	/* ETDUMP_FUNC_XNN_OP: the object's index in its operator (bits
	   0-2) and the operator's index in the runtime (bits 3-15, mod
	   8192); else 0 */
	__u16 part;
	char name[ETDUMP_NAME_MAX];
	char arg[ETDUMP_NAME_MAX];
};

/* The kernel single-steps the probed first instruction (dearer). */
#define ETDUMP_FUNC_STEPPED 0x1
/*
 * A kernel probed at its entry alone: it ends where the thread's next
 * probed event begins, less the gap measured between the two while its
 * return was still probed (an exit record then), at the recording's start
 * (user/symbol/gap_table.h).
 */
#define ETDUMP_FUNC_ENDS_AT_NEXT 0x2

struct etdump_rec_func_entry {
	struct etdump_rec_hdr hdr;
	struct etdump_func_site site;
};

struct etdump_rec_func_exit {
	struct etdump_rec_hdr hdr;
	__u32 id;
	__u32 pad;
};

/*
 * An entry of a site whose description the recorder holds: 32 bytes where
 * a FUNC_ENTRY takes 168, a probe's ring write that much cheaper (the
 * traced thread pays for every cache line it writes there). Never in a
 * raw capture: the recorder writes the FUNC_ENTRY it stands for.
 */
struct etdump_rec_func_call {
	struct etdump_rec_hdr hdr;
	__u32 id;
	__u32 pad;
};

/*
 * The same for an XNNPACK operator run (ETDUMP_FUNC_XNN_OP): the fields of
 * the operator the probe read (schema/symbol_xnnpack.h), which the
 * recorder names as the binary's own tables do, and which of its objects
 * of which operator (etdump_func_site.part). Never in a raw capture.
 */
struct etdump_rec_xnn_call {
	struct etdump_rec_hdr hdr;
	__u32 id;
	__u16 part;
	__u16 pad;
	__u32 type;
	__u32 sub;
	__u32 ukernel;
	__u32 pad2;
};

/*
 * Symbol mode without --values, --allocations or --duty: a thread's probes
 * keep its hits in a buffer of the thread's own (bpf/hit_batch.bpf.h) and
 * put it in the ring when the thread's outermost probed call returns, when
 * it is full, or when the thread exits. A ring record each hit cost the
 * probe a reserve and a submit, and a write to fresh ring memory, about as
 * much as the rest of its work. Never in a raw capture: the recorder hands
 * out the FUNC_CALL, XNN_CALL and FUNC_EXIT records the slots stand for,
 * stamped each with its slot's time and CPU, the batch's flags on the
 * first. When the ring has no room the batch's `nrecords` are counted lost.
 */
#define ETDUMP_FUNC_BATCH_SLOTS 256 /* a power of two */

enum etdump_func_slot_kind {
	ETDUMP_SLOT_CALL = 0,   /* a FUNC_CALL */
	ETDUMP_SLOT_EXIT = 1,   /* a FUNC_EXIT */
	ETDUMP_SLOT_XNN = 2,    /* an XNN_CALL: its fields in the next slot */
};

struct etdump_func_slot {
	__u64 ts;
	__u32 id;              /* the site */
	__u16 kind;            /* enum etdump_func_slot_kind */
	__u16 cpu;
};

/* The slot after an ETDUMP_SLOT_XNN's: etdump_rec_xnn_call's fields. */
struct etdump_xnn_slot {
	__u32 type;
	__u32 sub;
	__u32 ukernel;
	__u16 part;
	__u16 pad;
};

struct etdump_rec_func_batch {
	struct etdump_rec_hdr hdr;   /* ts: the last slot's */
	__u32 nslots;          /* slots that follow; the record ends there */
	__u32 nrecords;        /* records they stand for */
	struct etdump_func_slot slots[ETDUMP_FUNC_BATCH_SLOTS];
};

/*
 * An allocate function (ETDUMP_FUNC_ALLOCATE) returned `ptr`, not NULL,
 * for `size` bytes asked of the allocator object at `self`: the
 * translator numbers the allocators by `self` and makes the ALLOCATOR and
 * ALLOCATION records the runtime's track_allocator/track_allocation
 * would have. Carries the site's name, as an entry record does.
 */
struct etdump_rec_func_alloc {
	struct etdump_rec_hdr hdr;
	__u32 id;              /* the site */
	__u16 name_len;
	__u16 flags;           /* the site's: ETDUMP_FUNC_STEPPED */
	__u64 self;
	__u64 size;
	__u64 ptr;
	char name[ETDUMP_NAME_MAX];
};

/*
 * What symbol mode's probes add, measured when they were attached
 * (user/symbol/symbol_calibrate.h), [0] for emulated entries, [1] for
 * single-stepped ones: first in a capture, so that a raw capture converts
 * to the same times.
 */
struct etdump_rec_probe_time {
	struct etdump_rec_hdr hdr;
	__u64 scope_ns[2];
	__u64 call_ns[2];
	/* a call with its entry alone probed, whole; not in older captures
	   (hdr.size tells) */
	__u64 entry_call_ns[2];
};
/* the record's size before entry_call_ns */
#define ETDUMP_REC_PROBE_TIME_V1 (sizeof(struct etdump_rec_hdr) + 32)

/*
 * record --every N: the runtime keeps one run in `every` and leaves the
 * others out. First in a capture, before any run, so that the ETDump
 * record writes and the one convert makes of the raw capture both say
 * which share of the runs they hold.
 */
struct etdump_rec_kept_every {
	struct etdump_rec_hdr hdr;
	__u32 every;
	__u32 reserved;  /* 0 */
};

/*
 * The ring lost records of hdr.tid after the last of its that arrived,
 * and no later record of the thread's said so (it exited, or recording
 * stopped): hdr.flags are the LOST_* flags that record would have had.
 * The recorder writes one for each such thread once the ring is read for
 * the last time, into the raw capture too, so that convert leaves out
 * the same runs: the thread's open run is whole only when LOST_CLEAN says
 * the first record lost began the next run.
 */
struct etdump_rec_lost_tail {
	struct etdump_rec_hdr hdr;
};

/*
 * The kernel's CLOCK_MONOTONIC as it computes it from the counter batched
 * stamps read (x86-64's TSC, arm64's CNTVCT_EL0), read from its vDSO data
 * while the recorder runs: at counter c,
 *   sec * 10^9 + ((nsec_shifted + ((c - cycle_last) & mask) * mult) >> shift)
 * with a counter before cycle_last taken back along the same line. Any
 * point of one line gives the clock to the ns, as the kernel's own reads
 * do, for as long as the kernel keeps that rate (mult): a new record
 * follows each change the recorder sees.
 */
struct etdump_rec_clock {
	struct etdump_rec_hdr hdr;
	__u64 cycle_last;
	__u64 mask;
	__u64 sec;
	__u64 nsec_shifted;
	__u32 mult;
	__u32 shift;
};

/*
 * Batched mode: one buffer of a thread's, copied as it was: a struct
 * etdump_batch_head (schema/etdump_usdt.h) and its records, stamped in the
 * head's clock. The header's ts is the flush's; `addr` is where the buffer
 * lives in the process, for the recorder to read what an idle thread holds
 * (a record it made so has ETDUMP_REC_F_PULLED and the recorder's own
 * anchor as the head's `to`). When the ring has no room the whole flush is
 * dropped and the `nevents` ETDump events it held are counted as lost.
 */
#define ETDUMP_REC_BATCH_MAX 16384 /* = ETDUMP_BATCH_BYTES */

struct etdump_rec_batch {
	struct etdump_rec_hdr hdr;
	__u32 len;             /* bytes of data copied */
	__u32 nevents;         /* ETDump events they hold (ends and logs) */
	__u64 addr;            /* the buffer, in the process */
	__u8 data[ETDUMP_REC_BATCH_MAX];
};

/*
 * A value the runtime logged (the `value` probe, record --values): the
 * descriptor it passed (struct etdump_value_desc of schema/etdump_usdt.h,
 * same layout), then `copied` bytes of the tensor's data in VALUE_DATA
 * records that follow on the same thread, in order. copied < desc.nbytes
 * when the recording's bound or the ring cut it: the value is marked cut.
 */
#define ETDUMP_VALUE_DIM_MAX_REC 16

struct etdump_value_wire {
	__u32 type;
	__u32 flags;
	__u32 index;
	__u32 count;
	__s32 scalar_type;
	__u32 dim;
	__s64 sizes[ETDUMP_VALUE_DIM_MAX_REC];
	__s64 strides[ETDUMP_VALUE_DIM_MAX_REC];
	__u64 data;
	__u64 nbytes;
	__s64 int_val;
	__u64 double_bits;
	__u64 delegate_id_str;
	__s64 delegate_id_int;
};

enum etdump_value_rec_flags {
	ETDUMP_VREC_UNREAD = 1,      /* the descriptor could not be read */
	ETDUMP_VREC_DATA_UNREAD = 2, /* the data could not be read (not present) */
	/*
	 * symbol mode: read at a kernel's return, chain and instruction not
	 * known to the probe (the translator gives the call's)
	 */
	ETDUMP_VREC_AT_RETURN = 4,
};

struct etdump_rec_value {
	struct etdump_rec_hdr hdr;
	__u32 kind;            /* as the probe passed it */
	__u32 rec_flags;       /* enum etdump_value_rec_flags */
	__s32 chain;
	__s32 instr;
	__u64 copied;          /* data bytes that follow, in VALUE_DATA records */
	__u16 name_len;        /* delegate_id_str's copy */
	__u16 pad[3];
	char name[ETDUMP_NAME_MAX];
	struct etdump_value_wire desc;
};

#define ETDUMP_VALUE_CHUNK 8192

struct etdump_rec_value_data {
	struct etdump_rec_hdr hdr;
	__u64 offset;          /* of these bytes in the value's data */
	__u32 len;
	__u32 pad;
	__u8 data[ETDUMP_VALUE_CHUNK];
};

/* track_allocation: an allocator (its 1-based id) handed out size bytes */
struct etdump_rec_allocation {
	struct etdump_rec_hdr hdr;
	__s32 allocator_id;
	__u32 pad;
	__u64 size;
};

/* track_allocator: the name of the allocator with that id */
struct etdump_rec_allocator {
	struct etdump_rec_hdr hdr;
	__s32 allocator_id;
	__u16 name_len;
	__u16 pad;
	char name[ETDUMP_NAME_MAX];
};

#endif /* ETDUMP_RECORD_H */
