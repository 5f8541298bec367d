/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tracer.h - the runtime's event tracer hooks, where ExecuTorch's
 * event_tracer_hooks.h has them. Each is one probe of etdump_usdt.h (free
 * while no tracer is attached) plus, only with --timings, the runtime's own
 * clock reads around it. The instruction state is mirrored here so that a
 * timings row carries the chain and instruction ETDumpGen would record.
 */
#ifndef EXAMPLE_TRACER_H
#define EXAMPLE_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include "etdump_usdt.h"
#include "timings.h"

/* only a probe reads it, and -DETDUMP_USDT_DISABLE compiles probes out */
#define PROBE_ONLY __attribute__((unused))

/* one per thread, as the tracer keeps its state per thread */
struct tracer {
	struct timings *timings;	/* NULL unless --timings */
	int run;
	long long chain, instr;
	/* --mark-ids: this thread's chain index (see method.h), else -1 */
	long long mark;
};

static inline void tracer_init(struct tracer *tr, struct timings *timings)
{
	tr->timings = timings;
	tr->run = 0;
	tr->chain = ETDUMP_UNSET_CHAIN;
	tr->instr = ETDUMP_UNSET_DEBUG_HANDLE;
	tr->mark = -1;
}

/* create_event_block; `run` only numbers the timings rows */
static inline void tracer_block(struct tracer *tr, PROBE_ONLY const char *name,
				int run)
{
	ETDUMP_BLOCK(name);
	tr->run = run;
}

/* set_chain_debug_handle */
static inline void tracer_set_instruction(struct tracer *tr, long long chain,
					  long long instr)
{
	ETDUMP_INSTRUCTION(chain, instr);
	tr->chain = chain;
	tr->instr = instr;
}

/* An open scope is the timings row it will become. */
static inline struct timing tracer_row(const struct tracer *tr,
				       const char *name, long long id)
{
	return (struct timing){ .name = name, .id = id, .run = tr->run,
				.chain = tr->chain, .instr = tr->instr };
}

static inline uint64_t tracer_now(const struct tracer *tr)
{
	return tr->timings ? timings_now() : 0;
}

static inline void tracer_record(struct tracer *tr, struct timing *row,
				 uint64_t start_ns, uint64_t end_ns)
{
	if (!tr->timings)
		return;
	row->start_ns = start_ns;
	row->end_ns = end_ns;
	timings_add(tr->timings, row);
}

/*
 * start_profiling with its default chain and debug handle, i.e. "use the
 * instruction state". `name` must stay the same pointer until the end:
 * the tracer pairs scopes by it.
 */
static inline struct timing tracer_begin(struct tracer *tr, const char *name)
{
	struct timing s = tracer_row(tr, name, -1);

	s.start_ns = tracer_now(tr);
	ETDUMP_PROFILE_BEGIN(name, ETDUMP_UNSET_CHAIN,
			     ETDUMP_UNSET_DEBUG_HANDLE);
	return s;
}

/* end_profiling */
static inline void tracer_end(struct tracer *tr, struct timing *s)
{
	ETDUMP_PROFILE_END(s->name);
	tracer_record(tr, s, s->start_ns, tracer_now(tr));
}

/* start_profiling_delegate: a string id, or NULL and an int id */
static inline struct timing tracer_delegate_begin(struct tracer *tr,
						  const char *id_str,
						  long long id_int)
{
	struct timing s = tracer_row(tr, id_str, id_int);

	s.start_ns = tracer_now(tr);
	ETDUMP_DELEGATE_BEGIN(id_str, id_int);
	return s;
}

/* end_profiling_delegate */
static inline void tracer_delegate_end(struct tracer *tr, struct timing *s,
				       PROBE_ONLY const void *metadata,
				       PROBE_ONLY size_t len)
{
	ETDUMP_DELEGATE_END(metadata, len);
	tracer_record(tr, s, s->start_ns, tracer_now(tr));
}

/*
 * Whether a delegate should time its own ops: only while a tracer listens
 * or --timings asked, so that a detached run reads no clock.
 */
static inline bool tracer_delegate_timed(const struct tracer *tr)
{
	return ETDUMP_ENABLED(delegate_log) || tr->timings;
}

/* log_profiling_delegate: times are the delegate's CLOCK_MONOTONIC ns */
static inline void tracer_delegate_log(struct tracer *tr, const char *id_str,
				       long long id_int, uint64_t start_ns,
				       uint64_t end_ns,
				       PROBE_ONLY const void *metadata,
				       PROBE_ONLY size_t len)
{
	struct timing row = tracer_row(tr, id_str, id_int);

	ETDUMP_DELEGATE_LOG(id_str, id_int, start_ns, end_ns, metadata, len);
	tracer_record(tr, &row, start_ns, end_ns);
}

#endif /* EXAMPLE_TRACER_H */
