/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_semaphores.h - what a running process's etdump semaphores say: the
 * kernel counts there every uprobe attached to its probes, ours or another
 * tracer's (schema/etdump_usdt.h: one count for the per-scope probes, one
 * for `flush`). A runtime batches while `flush` is held, so a per-scope
 * tracer beside a batched one sees nothing, and a batched one arriving
 * takes a per-scope one's events: record looks before it attaches.
 */
#ifndef ETDUMP_PROBE_SEMAPHORES_H
#define ETDUMP_PROBE_SEMAPHORES_H

#include <stdint.h>
#include <sys/types.h>

struct probe_object;

struct probe_holders {
	uint16_t per_scope;  /* uprobes on the per-scope probes */
	uint16_t batch;      /* uprobes on `flush` */
};

/*
 * The counts in obj's copy of the semaphores in process pid (obj must be
 * mapped there). 0, or negative errno with "PATH: why" in err.
 */
int probe_semaphores_read(pid_t pid, const struct probe_object *obj,
			  struct probe_holders *out, char *err, size_t errlen);

/* The semaphores' address in obj's file (its etdump notes name it), or 0. */
uint64_t probe_semaphores_vaddr(const struct probe_object *obj);
/*
 * Where `len` bytes from obj's semaphores lie in process pid: in the
 * private writable copy the kernel counts in. 0 with *addr 0 when obj's
 * probes have no semaphores; negative errno with "PATH: why" in err.
 */
int probe_semaphores_address(pid_t pid, const struct probe_object *obj,
			     uint64_t len, uint64_t *addr, char *err,
			     size_t errlen);

#endif /* ETDUMP_PROBE_SEMAPHORES_H */
