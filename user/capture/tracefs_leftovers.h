/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tracefs_leftovers.h - the uprobe events a recorder killed before its
 * cleanup left in tracefs (tracefs_uprobes.h: group etdump_bpf_PID or
 * etdump_bpf_PID_N, events siteK). The kernel releases a dead process's
 * BPF links and perf events with its fds; these it keeps for good. Only
 * groups of that name whose PID no longer runs are touched, and only
 * their siteK events: a live recorder's never are. The kernel refuses to
 * remove an event still in use: the dead recorder's perf events are
 * released after its death, one by one, which can take seconds.
 */
#ifndef ETDUMP_TRACEFS_LEFTOVERS_H
#define ETDUMP_TRACEFS_LEFTOVERS_H

#include <stdbool.h>
#include <stddef.h>

struct tracefs_leftover {
	char group[32];
	int pid;                 /* the dead recorder's */
	unsigned int events;     /* found */
	unsigned int removed;    /* of them, removed now */
};

struct tracefs_leftovers {
	struct tracefs_leftover *v;
	size_t n;
};

/*
 * Find the groups of dead recorders, and with remove take their events
 * out. Negative errno when tracefs cannot be read (no privileges, no
 * tracefs) or -EXDEV inside a PID namespace, whose PIDs are not the ones
 * the groups are named after.
 */
int tracefs_leftovers_scan(struct tracefs_leftovers *out, bool remove);
void tracefs_leftovers_free(struct tracefs_leftovers *l);
/*
 * At a recorder's start: remove what dead recorders left, one line a
 * group; silent when there is none or tracefs cannot be read (-v says).
 */
void tracefs_leftovers_clean(void);
/*
 * When the start found events the kernel still held: remove them once
 * released, waiting up to 10 s. For the recorder's background closer,
 * which no one waits for.
 */
void tracefs_leftovers_settle(void);

#endif /* ETDUMP_TRACEFS_LEFTOVERS_H */
