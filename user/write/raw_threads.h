/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * raw_threads.h - record's thread names (thread_names.h) into the raw
 * capture's threads chunks, so that a timeline names each thread as perf
 * and uftrace do.
 */
#ifndef ETDUMP_RAW_THREADS_H
#define ETDUMP_RAW_THREADS_H

#include <stddef.h>
#include "capture/thread_names.h"
#include "write/raw_writer.h"

/* The thread of a ring-buffer record, named in w when first seen. */
int raw_name_thread(struct raw_writer *w, struct thread_names *tn,
		    const void *rec, size_t len);
/* At the end: the threads that renamed themselves, named again (w NULL: 0). */
int raw_rename_threads(struct raw_writer *w, struct thread_names *tn);

#endif /* ETDUMP_RAW_THREADS_H */
