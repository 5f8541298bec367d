/* SPDX-License-Identifier: BSD-3-Clause */
/* translate_stats.h - what symbol_translate.h counts as it translates. */
#ifndef ETDUMP_TRANSLATE_STATS_H
#define ETDUMP_TRANSLATE_STATS_H

#include <stdint.h>

struct symbol_translator_stats {
	uint64_t plan_matched;     /* calls given the plan's ids */
	uint64_t plan_unmatched;   /* calls the plan had no instruction for */
	uint64_t xnn_unnamed;      /* XNNPACK operators not named: not written */
	uint64_t time_kept;        /* calls that kept their measured time */
	/* kernels probed at their entry alone (ETDUMP_FUNC_ENDS_AT_NEXT) */
	uint64_t ended_at_next;    /* ended where the next event began */
	uint64_t gap_taken_ns;     /* the gaps taken out of them, in all */
	uint64_t gap_unmeasured;   /* ... of which with no gap measured */
	uint64_t gap_kept;         /* ... that lasted less than the gap */
	uint64_t outside_not_written;  /* on a thread in no probed call */
	/* ... in the rest of a run under way at an attach or a --duty gap */
	uint64_t cut_not_written;
	uint64_t gap_runs;         /* runs that measured gaps */
	uint64_t gap_samples;      /* the gaps measured */
};

#endif /* ETDUMP_TRANSLATE_STATS_H */
