/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * more_targets.h - the processes `record -p PID,PID...` records after the
 * first: each running process with its own files and etdump probes, all
 * captured into one ring (capture_opts.more_pids), each thread's runs its
 * own. Symbol mode records one process; a process without etdump probes
 * among several is refused.
 */
#ifndef ETDUMP_MORE_TARGETS_H
#define ETDUMP_MORE_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "capture/capture.h"
#include "target/probe_objects.h"
#include "target/target.h"

struct more_targets {
	struct target t[CAPTURE_MAX_MORE];
	struct probe_objects objs[CAPTURE_MAX_MORE];
	pid_t pids[CAPTURE_MAX_MORE];
	size_t n;
};

/* Open each of pids (n of them): 0, or a negative errno said with p_err(). */
int more_targets_open(struct more_targets *m, const pid_t *pids, size_t n);
/* Whether every one carries this probe (batched mode needs `flush`). */
bool more_targets_all_have(const struct more_targets *m, const char *probe);
int more_targets_attach(struct more_targets *m, struct capture *cap,
			int *nattached);
/* Whether every one has exited (each checked, so that each is reaped). */
bool more_targets_exited(struct more_targets *m);
void more_targets_close(struct more_targets *m);

#endif /* ETDUMP_MORE_TARGETS_H */
