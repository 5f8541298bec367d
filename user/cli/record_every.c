// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include "cli/record.h"
#include "cli/record_every.h"
#include "lib/log.h"
#include "target/every_word.h"
#include "target/probe_objects.h"
#include "target/probe_semaphores.h"
#include "target/target.h"

/* Does another recorder hold the process's batched probes? */
static bool batch_held(const struct target *t,
		       const struct probe_objects *objs)
{
	struct probe_holders h;
	char err[512];
	size_t i;

	for (i = 0; i < objs->n; i++)
		if (objs->v[i].etdump &&
		    !probe_semaphores_read(t->pid, &objs->v[i], &h, err,
					   sizeof(err)) && h.batch)
			return true;
	return false;
}

int record_every_attach(uint32_t every, const struct target *t,
			const struct probe_objects *objs, bool *set)
{
	char err[512];
	int ret;

	*set = false;
	if (t->spawned || !objs->etdump)
		return 0;
	if (batch_held(t, objs)) {
		if (every <= 1)
			return 0;
		char by[96];

		record_holder_text(t->pid, true, " by another 'etdump-bpf record'",
				   by, sizeof(by));
		p_err("process %d is already recorded in batched mode%s, whose --every its runtime follows: stop that recorder to record with --every, or record without it to share its runs",
		      (int)t->pid, by);
		return -EBUSY;
	}
	ret = every_words_set(t->pid, objs, every, err, sizeof(err));
	if (ret && every > 1) {
		p_err("%s", err);
		return ret;
	}
	/* a word left by a recorder killed earlier thins this recording */
	if (ret)
		p_warn("%s; if an earlier recorder left --every there, this recording holds only its share of the runs",
		       err);
	*set = !ret;
	return 0;
}

void record_every_detach(struct target *t, const struct probe_objects *objs,
			 bool set)
{
	char err[512];

	if (set && !target_has_exited(t) &&
	    every_words_set(t->pid, objs, 0, err, sizeof(err)))
		p_warn("%s: left as it is (the next recorder to attach sets it)",
		       err);
}
