/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * translate_state.h - symbol_translate.h's state, shared by its files:
 * the calls each thread has open, the run it holds back, and the
 * helpers that hand records on (symbol_translate.c); values and
 * allocations (translate_values.c).
 */
#ifndef ETDUMP_TRANSLATE_STATE_H
#define ETDUMP_TRANSLATE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capture/capture.h"
#include "schema/etdump_record.h"
#include "symbol/gap_table.h"
#include "symbol/plan_walk.h"
#include "symbol/symbol_calibrate.h"
#include "symbol/translate_stats.h"

struct open_call {
	uint32_t site;
	bool instruction;       /* a kernel or delegate call */
	bool sets_state;        /* it set the instruction state: reset it */
	bool operator_call;     /* inside an OPERATOR_CALL scope of its own */
	bool stepped;           /* its entry is single-stepped */
	bool xnn;               /* an XNNPACK operator object's run */
	bool block;             /* a run's: its return closes the run */
	bool ends_at_next;      /* ETDUMP_FUNC_ENDS_AT_NEXT */
	bool has_child;         /* a probed call ran inside it */
	uint64_t entry_ts;      /* its entry's stamp, as the probe took it */
	uint64_t entry_at;      /* ... and as handed on */
};

/*
 * An XNNPACK operator: one delegate event from its first object's call to
 * its last one's return (the profiler's, symbol_translate.h), written when
 * the next call shows it done.
 */
struct xnn_op {
	bool open, ended;
	uint32_t index;         /* in the runtime, mod 8192 */
	uint64_t start, end;
	uint64_t start_ts;      /* its first entry's stamp, as the probe took it */
	struct etdump_rec_hdr end_hdr;
	char name[ETDUMP_NAME_MAX];
};

/* an operator's name and its microkernel type's, before " #k" */
#define XNN_BASE_MAX (2 * ETDUMP_NAME_MAX + 2)

/* How many operators of a name the runtime ran so far: " #k". */
struct xnn_count {
	char name[XNN_BASE_MAX];
	uint32_t n;
};

struct thread {
	uint32_t tid;
	struct open_call *calls;
	size_t depth, cap;
	/*
	 * A run opened but not yet handed on (symbol_translate.h), and the
	 * records that must follow its BLOCK: 8-byte aligned, back to back.
	 */
	bool block_pending;
	struct etdump_rec_hdr block_hdr;
	char run[ETDUMP_NAME_MAX];
	uint8_t *held;
	size_t held_len, held_cap;
	uint32_t calls_in_run;
	struct plan_pos next;   /* where the plan walk goes on */
	/* the probes' own time so far in the outermost call, and the last
	   time handed on (symbol_translator_probe_time()) */
	uint64_t probe_ns, last_ts;
	/* the instruction state last handed on, for values */
	int32_t chain, instr;
	struct xnn_op xnn;
	struct xnn_count *xnn_counts;
	size_t xnn_ncounts;
	int64_t xnn_last;       /* the last operator's index, -1 none */
	/* a kernel's return seen (gap_table.h): the next event measures */
	bool gap_open, gap_in_run;
	uint32_t gap_from;
	uint64_t gap_from_at;   /* its return's stamp */
	/* added to probe_ns at a kernel's end no probe stamped */
	int64_t untrapped_ns;
	/*
	 * Seen first after a gap or an attach to a running process, no run
	 * begun since: its kernels in no probed call may be of a run under
	 * way (cut, once a run begins) or outside any (at the end).
	 */
	bool before_run;
	uint64_t before_run_kernels;
};

struct symbol_translator {
	const struct pte_plan *plan;
	capture_record_fn sink;
	void *sink_ctx;
	struct thread **threads;
	size_t nthreads;
	struct symbol_translator_stats stats;
	struct symbol_calibration cal;
	/* record --allocations: the allocator objects, id = index + 1 */
	uint64_t *allocators;
	size_t nallocators;
	struct gap_table gaps;
	uint64_t gap_runs;      /* runs closed that measured a gap */
	/* the sites seen with ETDUMP_FUNC_ENDS_AT_NEXT, by id */
	bool *ends_at_next;
	size_t nends;
	bool mid_run;           /* threads may be seen first mid-run */
};

/* The thread's state, if it has any. */
struct thread *translate_thread_found(struct symbol_translator *t,
				      uint32_t tid);
/* A record of `type` stamped like the symbol record it comes from. */
void translate_stamp(struct etdump_rec_hdr *h, const struct etdump_rec_hdr *from,
		     uint8_t type, size_t size);
uint16_t translate_copy_name(char *dst, const char *src, size_t len);
/* Hand a record on, or hold it while its run's BLOCK waits. */
int translate_emit(struct symbol_translator *t, struct thread *th,
		   const void *rec, size_t len);

/* A VALUE or VALUE_DATA record (record --values). */
int translate_value(struct symbol_translator *t, const void *rec, size_t len);
/* A FUNC_ALLOC record (record --allocations). */
int translate_alloc(struct symbol_translator *t, struct thread *th,
		    const struct etdump_rec_func_alloc *r);

#endif /* ETDUMP_TRANSLATE_STATE_H */
