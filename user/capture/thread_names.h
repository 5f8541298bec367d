/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * thread_names.h - the name (comm) of each thread a recording sees, as
 * perf and uftrace name theirs: as the probes read it at the thread's
 * first record (a THREAD_NAME record before it), else from /proc when its
 * first record arrives, and again at the end for those still alive (a
 * thread may rename itself). Bounded: at most THREAD_NAMES_MAX threads are kept.
 */
#ifndef ETDUMP_THREAD_NAMES_H
#define ETDUMP_THREAD_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define THREAD_NAMES_MAX 65536
#define THREAD_NAME_LEN 16      /* TASK_COMM_LEN, the NUL included */

struct thread_name {
	uint32_t pid, tid;
	char name[THREAD_NAME_LEN];
};

struct thread_names {
	struct thread_name *v;
	size_t n, cap;
	size_t last;                /* where the latest lookup hit */
};

/*
 * Note a record of tid (in process pid): 1 when the thread is new and its
 * name was read (then *out is it), 0 when known (or past the bound, or
 * gone before its name could be read: kept with an empty name), -ENOMEM.
 */
int thread_names_see(struct thread_names *tn, uint32_t pid, uint32_t tid,
		     const struct thread_name **out);
/*
 * The name the probes read for tid: 1 when it is new or changed (then
 * *out is it), 0 when the same, -ENOMEM.
 */
int thread_names_set(struct thread_names *tn, uint32_t pid, uint32_t tid,
		     const char *name, const struct thread_name **out);
/* Read the name of a known thread again: true when it changed. */
bool thread_names_reread(struct thread_names *tn, size_t i);
void thread_names_free(struct thread_names *tn);

#endif /* ETDUMP_THREAD_NAMES_H */
