/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * func_batch.h - a thread's batched hits (ETDUMP_REC_FUNC_BATCH of
 * schema/etdump_record.h) handed out as the records the probes used to
 * send one at a time: what reads symbol mode's ring sees no batch.
 */
#ifndef ETDUMP_FUNC_BATCH_H
#define ETDUMP_FUNC_BATCH_H

#include <stdbool.h>
#include <stddef.h>

typedef int (*func_batch_fn)(void *ctx, const void *rec, size_t len);

/*
 * When rec (len bytes) is a FUNC_BATCH: each FUNC_CALL, XNN_CALL and
 * FUNC_EXIT it holds to fn in order, stopping at fn's first error, kept
 * in *err (else 0), and true. A batch whose slots run past its size is
 * cut there, its last XNN_CALL dropped when its fields are cut. Else false.
 */
bool func_batch_each(const void *rec, size_t len, func_batch_fn fn,
		     void *ctx, int *err);

#endif /* ETDUMP_FUNC_BATCH_H */
