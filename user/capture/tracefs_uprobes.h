/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tracefs_uprobes.h - uprobe events made through the kernel's tracefs
 * (uprobe_events), each a tracepoint perf_event_open() takes by id, so
 * that an event opened for one process is inherited by every process it
 * forks later (armed_binaries.h). tracefs is mounted privately, detached
 * (fsopen/fsmount): no mount point in any namespace, nothing to unmount.
 * The events are in a group of their own, named after the recorder's pid
 * (etdump_bpf_PID, or etdump_bpf_PID_N when a recorder of that pid killed
 * before its cleanup left that one); only the events made here are
 * removed, at free. A recorder killed before then leaves them: the next
 * one removes them (tracefs_leftovers.h).
 */
#ifndef ETDUMP_TRACEFS_UPROBES_H
#define ETDUMP_TRACEFS_UPROBES_H

#include <stdint.h>

struct tracefs_uprobes;

/* A tracefs of our own, reachable through its fd alone; negative errno. */
int tracefs_mount(void);
/*
 * The group's name, bound as an abstract unix socket for as long as the
 * recorder or the background closer it forks (capture.h) holds the fd:
 * the kernel lets it go when both are gone, killed or not. Its fd, or
 * -EADDRINUSE while a live one holds it.
 */
int tracefs_group_bind(const char *group);

/* Negative errno (-ENOSYS, -EPERM, -ENODEV: no tracefs to make events in). */
int tracefs_uprobes_open(struct tracefs_uprobes **out);
/*
 * A uprobe event at offset of the file open at file_fd, with the kernel's
 * reference counter (the USDT semaphore) at sema_offset (0: none); its
 * tracepoint id in *id. Negative errno.
 */
int tracefs_uprobes_add(struct tracefs_uprobes *t, int file_fd,
			uint64_t offset, uint64_t sema_offset, uint64_t *id);
/*
 * Remove the events made here (each perf event opened on them closed by
 * then: the kernel refuses to remove one in use, and it is left), unmount.
 */
void tracefs_uprobes_free(struct tracefs_uprobes *t);

#endif /* ETDUMP_TRACEFS_UPROBES_H */
