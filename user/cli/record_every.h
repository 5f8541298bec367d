/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * record_every.h - record --every N at a running target: its runtime's word
 * (every_word.h) set before the probes are attached, 0 without --every,
 * and 0 again at the end if the target lives on. A command record starts
 * has its word set at its start instead (every_words_at_start()).
 */
#ifndef ETDUMP_RECORD_EVERY_H
#define ETDUMP_RECORD_EVERY_H

#include <stdbool.h>
#include <stdint.h>

struct probe_objects;
struct target;

/*
 * *set: whether the word is ours to reset. Another batched recorder on the
 * process owns it: left alone, and --every N refused. 0, or negative
 * errno said with p_err().
 */
int record_every_attach(uint32_t every, const struct target *t,
			const struct probe_objects *objs, bool *set);
/* The word back to 0 when set and the target lives on. */
void record_every_detach(struct target *t, const struct probe_objects *objs,
			 bool set);

#endif /* ETDUMP_RECORD_EVERY_H */
