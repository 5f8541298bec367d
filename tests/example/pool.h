/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pool.h - one worker thread that runs jobs for the executing threads, as
 * a backend's thread pool does. The worker never opens a block of its
 * own: it profiles each job as a scope under the instruction its caller
 * was executing, which only the caller's run can hold.
 */
#ifndef EXAMPLE_POOL_H
#define EXAMPLE_POOL_H

#include <stdbool.h>
#include "timings.h"
#include "tracer.h"

/* the job's scope name on the worker thread */
#define POOL_JOB_NAME "pool_job"

/* timings: the worker's rows (--timings), or NULL; 0 or an errno */
int pool_start(struct timings *timings);
bool pool_started(void);
/* Run fn(arg) on the worker and wait for it; one job at a time. */
void pool_run(void (*fn)(void *), void *arg, const struct tracer *caller);
void pool_stop(void);

#endif /* EXAMPLE_POOL_H */
