// SPDX-License-Identifier: BSD-3-Clause
/*
 * record_late.c - a stock runtime (no etdump probes) loaded after the
 * attach, recorded in symbol mode (record.h: struct record_late).
 */
#include <errno.h>
#include "capture/kernel_features.h"
#include "cli/record.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "target/process_objects.h"

/*
 * The first library rules name in a process recorded for its runtime to
 * come: symbol mode attached to the process as it runs now (its maps),
 * as -p attaches to one that carries it already.
 */
static int adopt(struct record_late *rl, struct symbol_mode *sm, pid_t pid,
		 const char *path, const char *label)
{
	struct target now = *rl->t;
	int n, err;

	n = symbol_mode_names(sm, path);
	if (n <= 0)
		return n == -ENOMEM ? n : 0;
	/* batched mode's alone: symbol mode keeps no word to count runs */
	if (rl->sink->every) {
		p_warn("PID %d loaded %s, whose %d function(s) rules name, after the attach: not recorded (--every needs batched mode, and symbol mode has none)",
		       (int)pid, label, n);
		return 0;
	}
	/* its maps, and the file it runs now (a shim may have exec'd); a
	   followed child's, when it is the one that loaded it */
	now.spawned = false;
	now.pid = pid;
	if (process_exe(pid, now.exe))
		return 0;
	n = symbol_mode_find(sm, &now);
	if (n <= 0)
		return n == -ENOMEM ? n : 0;
	/* a child: waited for, its events symbol mode's programs' alone */
	err = rl->fc ? follow_children_record(rl->fc, pid, false) : 0;
	if (!err)
		err = symbol_mode_attach(sm, rl->cap, &now, &n);
	if (err)
		return err == -ENOMEM ? err : 0;
	if (symbol_mode_annotate(sm, rl->sink->col))
		return -ENOMEM;
	symbol_mode_set_start(sm, monotonic_ns());
	rl->sink->sm = sm;
	*rl->waiting = NULL;
	kernel_features_print_notes();
	p_info("PID %d loaded %s after the attach: attached %d probe(s) to %zu function(s) in symbol mode",
	       (int)pid, label, n, symbol_mode_sites(sm));
	return 1;
}

int record_late_stock(void *ctx, pid_t pid, const char *path,
		      const char *label)
{
	struct record_late *rl = ctx;
	int n;

	if (rl->sink->sm)
		return symbol_mode_add_library(rl->sink->sm, pid, path, label,
					       &n);
	return *rl->waiting ? adopt(rl, *rl->waiting, pid, path, label) : 0;
}
