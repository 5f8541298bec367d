/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_group.h - runs into event blocks, by the rules of ExecuTorch's
 * Inspector (EventBlock._gen_from_etdump, ExecuTorch's devtools/inspector/_inspector.py):
 *
 * - a run whose events vector is absent is skipped;
 * - its events are grouped into instruction groups by (instruction_id,
 *   chain_index, delegate_debug_id_int, delegate_debug_id_str) as stored;
 * - each profile event of a group gives one event signature (name,
 *   instruction_id, delegate ids, plus the group's first non-output debug
 *   event); a group with only debug events gives one signature of its own;
 *   chain_index is not part of a signature, and a signature seen twice in
 *   one run keeps its first place and its last event;
 * - runs with the same (name, signatures in order, bundled_input_index)
 *   merge into one block; blocks and events keep first-appearance order.
 *
 * Everything points into the etd_dump, which must outlive the blocks.
 */
#ifndef ETDUMP_REPORT_GROUP_H
#define ETDUMP_REPORT_GROUP_H

#include <stddef.h>
#include <stdint.h>
#include "model/etdump_model.h"

/* An event signature: what makes two events of two runs "the same". */
struct rg_sig {
	int32_t instr;                  /* its instruction group's id */
	const struct etd_event *pe;     /* profile part; NULL: debug only */
	const struct etd_event *de;     /* debug part; NULL: none */
};

struct rg_block {
	const struct etd_run *run;      /* the first run: name, bundled index */
	struct rg_sig *sigs;
	size_t nsigs;
	/*
	 * occ[r * nsigs + k]: the profile event of signature k in merged run
	 * r (NULL for a debug-only signature); run_index[r]: that run's place
	 * in etd_dump.runs.
	 */
	const struct etd_event **occ;
	size_t *run_index;
	size_t nruns;
	size_t cap;
	uint64_t hash;
};

struct rg_blocks {
	struct rg_block *b;
	size_t n;
	size_t cap;
};

/*
 * Group every run of dump. -EINVAL, with one sentence in err, for what
 * stops the Inspector before it has blocks: a run or allocator without a
 * name, a debug event without a debug_entry (its decoder's TypeError), an
 * allocation event ("Unable to find populated event"). -ENOMEM.
 */
int report_group(const struct etd_dump *dump, struct rg_blocks *out,
		 char *err, size_t errlen);
void report_group_free(struct rg_blocks *g);

/* A debug event that is a program output (not part of any signature). */
bool rg_is_output(const struct etd_event *ev);

#endif /* ETDUMP_REPORT_GROUP_H */
