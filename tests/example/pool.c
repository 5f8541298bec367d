// SPDX-License-Identifier: BSD-3-Clause
#include <pthread.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "pool.h"

static struct {
	pthread_t thread;
	bool started, stop;
	pthread_mutex_t lock;       /* one caller at a time */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void (*fn)(void *);         /* the job waiting, or NULL */
	void *arg;
	const struct tracer *caller;
	bool done;
	struct tracer tracer;
	struct timings *timings;
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
};

static void run_job(void (*fn)(void *), void *arg, const struct tracer *caller)
{
	struct tracer *tr = &pool.tracer;
	struct timing job;

	/* the timings row belongs to the caller's run */
	tr->run = caller->run;
	tracer_set_instruction(tr, caller->chain, caller->instr);
	job = tracer_begin(tr, POOL_JOB_NAME);
	fn(arg);
	tracer_end(tr, &job);
	tracer_set_instruction(tr, ETDUMP_UNSET_CHAIN,
			       ETDUMP_UNSET_DEBUG_HANDLE);
}

static void *worker(void *unused)
{
	(void)unused;
	if (pool.timings)
		pool.timings->tid = syscall(SYS_gettid);
	tracer_init(&pool.tracer, pool.timings);
	pthread_mutex_lock(&pool.mu);
	for (;;) {
		while (!pool.fn && !pool.stop)
			pthread_cond_wait(&pool.cv, &pool.mu);
		if (!pool.fn)
			break;
		pthread_mutex_unlock(&pool.mu);
		run_job(pool.fn, pool.arg, pool.caller);
		pthread_mutex_lock(&pool.mu);
		pool.fn = NULL;
		pool.done = true;
		pthread_cond_broadcast(&pool.cv);
	}
	pthread_mutex_unlock(&pool.mu);
	return NULL;
}

int pool_start(struct timings *timings)
{
	int err;

	pool.timings = timings;
	err = pthread_create(&pool.thread, NULL, worker, NULL);
	pool.started = !err;
	return err;
}

bool pool_started(void)
{
	return pool.started;
}

void pool_run(void (*fn)(void *), void *arg, const struct tracer *caller)
{
	pthread_mutex_lock(&pool.lock);
	pthread_mutex_lock(&pool.mu);
	pool.fn = fn;
	pool.arg = arg;
	pool.caller = caller;
	pool.done = false;
	pthread_cond_broadcast(&pool.cv);
	while (!pool.done)
		pthread_cond_wait(&pool.cv, &pool.mu);
	pthread_mutex_unlock(&pool.mu);
	pthread_mutex_unlock(&pool.lock);
}

void pool_stop(void)
{
	if (!pool.started)
		return;
	pthread_mutex_lock(&pool.mu);
	pool.stop = true;
	pthread_cond_broadcast(&pool.cv);
	pthread_mutex_unlock(&pool.mu);
	pthread_join(pool.thread, NULL);
	pool.started = false;
}
