// SPDX-License-Identifier: BSD-3-Clause
/*
 * record_replaced.c - a -p target running a file that is no longer on disk
 * under its name (deleted, or replaced by an upgrade or a deploy by
 * rename): it is recorded through the file it maps, and the user is told
 * at the attach and again in the summary that the file on disk is not the
 * one that ran.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "cli/record.h"
#include "lib/log.h"
#include "target/process_files.h"

static char replaced[PATH_MAX + 64];

void record_note_replaced(const struct target *t,
			  const struct probe_objects *objs)
{
	char shown[PATH_MAX];
	size_t i, n = 0;

	for (i = 0; !t->spawned && i < objs->n; i++) {
		if (!process_file_replaced(objs->v[i].path))
			continue;
		process_file_shown(objs->v[i].path, shown);
		p_info("PID %d runs %s: the file on disk is not the one running (deleted or replaced since it was mapped); recorded through %s, the file the process maps",
		       (int)t->pid, shown, objs->v[i].path);
		if (!n++)
			snprintf(replaced, sizeof(replaced), "%s", shown);
	}
	if (n > 1)
		snprintf(replaced + strlen(replaced),
			 sizeof(replaced) - strlen(replaced), " and %zu more",
			 n - 1);
}

void record_say_replaced(void)
{
	if (replaced[0])
		p_info("the file on disk is not the one running: %s was recorded as the process maps it",
		       replaced);
}
