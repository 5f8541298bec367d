/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gap_table.h - what lies between a kernel's return and the thread's next
 * probed event (the runtime's own work between two instructions: the
 * loop of Method::execute, the next instruction's arguments), measured
 * per pair of sites (this kernel, the next event's site and whether that
 * is an entry or a return) while the kernels' returns are still probed,
 * at the recording's start. A kernel probed at its entry alone
 * (ETDUMP_FUNC_ENDS_AT_NEXT) then ends that much before the next event.
 *
 * Measured probe stamp to probe stamp: the return's trap after its stamp,
 * the runtime's work, the next probe's trap before its own. Each pair
 * keeps its first GAP_SAMPLES measures and stands for their lower
 * quartile: the gap after an instruction is the same work each execution,
 * what differs is noise (an interrupt, a slowed vCPU), one-sided, and a
 * gap taken too large would leave a short kernel no time.
 */
#ifndef ETDUMP_GAP_TABLE_H
#define ETDUMP_GAP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GAP_SAMPLES 32

struct gap_pair {
	uint32_t from, to;      /* the kernel's site, the next event's */
	bool to_exit;           /* the next event is a return */
	uint32_t n;
	uint64_t ns[GAP_SAMPLES];
	uint64_t low;           /* their lower quartile, kept up to date */
};

struct gap_table {
	struct gap_pair *pairs;
	size_t npairs;
	uint64_t samples;       /* measures taken, all pairs */
};

/* One measure of the pair's gap: -ENOMEM. */
int gap_table_add(struct gap_table *g, uint32_t from, uint32_t to,
		  bool to_exit, uint64_t ns);
/*
 * The gap after kernel `from` when `to` comes next: the pair's, else the
 * least of from's pairs' (its return was seen before something else),
 * else the least of all pairs'; false when nothing was measured.
 */
bool gap_table_get(const struct gap_table *g, uint32_t from, uint32_t to,
		   bool to_exit, uint64_t *ns);
/* The pairs' gaps: least, median and most; false when none. */
bool gap_table_range(const struct gap_table *g, uint64_t *least,
		     uint64_t *median, uint64_t *most);
void gap_table_free(struct gap_table *g);

#endif /* ETDUMP_GAP_TABLE_H */
