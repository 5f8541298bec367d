// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "lib/grow_array.h"
#include "write/etdump_ahead_thread.h"

/*
 * Chunks copied and not yet written: when all are, the taker waits (and
 * the ring holds what comes meanwhile). Four of 4096 events keep the
 * thread busy through a wakeup without holding more than ~1 MiB.
 */
#define AHEAD_SLOTS 4

struct ahead_chunk {
	struct run_view view;   /* its arrays the chunk's own, reused */
	size_t events_cap;
	size_t meta_cap;
};

struct etdump_ahead_thread {
	struct etdump_stream *es;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t queued;  /* to the thread: a chunk to write, or stop */
	pthread_cond_t written; /* to the taker: a slot free, or none queued */
	struct run_log *log;    /* its runs written before the next chunk */
	struct ahead_chunk slot[AHEAD_SLOTS];
	unsigned int head;      /* the next chunk to write */
	unsigned int n;         /* queued, the one being written included */
	bool stop;
	int err;                /* the first write's error */
};

static void *write_chunks(void *arg)
{
	struct etdump_ahead_thread *t = arg;
	struct ahead_chunk *c;
	int err;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		while (!t->n && !t->stop)
			pthread_cond_wait(&t->queued, &t->lock);
		if (!t->n)
			break;
		c = &t->slot[t->head];
		/* after an error the builder's sticks: nothing more to write */
		err = t->err;
		pthread_mutex_unlock(&t->lock);
		if (!err)
			err = etdump_stream_ahead(t->es, &c->view);
		pthread_mutex_lock(&t->lock);
		if (err && !t->err)
			t->err = err;
		t->head = (t->head + 1) % AHEAD_SLOTS;
		t->n--;
		pthread_cond_broadcast(&t->written);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* The slots' event arrays, touched once: their pages there before use. */
static int prepare_slots(struct etdump_ahead_thread *t, size_t every)
{
	struct ahead_chunk *c;
	unsigned int i;
	int err;

	for (i = 0; i < AHEAD_SLOTS; i++) {
		c = &t->slot[i];
		err = grow_array((void **)&c->view.events, &c->events_cap, 0,
				 every, sizeof(*c->view.events));
		if (err)
			return err;
		memset(c->view.events, 0, every * sizeof(*c->view.events));
	}
	return 0;
}

static void free_slots(struct etdump_ahead_thread *t)
{
	unsigned int i;

	for (i = 0; i < AHEAD_SLOTS; i++) {
		grow_array_free(t->slot[i].view.events, t->slot[i].events_cap,
				sizeof(*t->slot[i].view.events));
		grow_array_free(t->slot[i].view.meta, t->slot[i].meta_cap, 1);
	}
}

int etdump_ahead_thread_start(struct etdump_ahead_thread **out,
			      struct etdump_stream *es, size_t every)
{
	struct etdump_ahead_thread *t = calloc(1, sizeof(*t));
	sigset_t all, old;
	int err;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	err = prepare_slots(t, every);
	if (!err)
		err = etdump_stream_prepare(es);
	if (err) {
		free_slots(t);
		free(t);
		return err;
	}
	t->es = es;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->queued, NULL);
	pthread_cond_init(&t->written, NULL);
	/* the recorder's signals stay the main thread's: its poll() wakes */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t->thread, NULL, write_chunks, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&t->written);
		pthread_cond_destroy(&t->queued);
		pthread_mutex_destroy(&t->lock);
		free_slots(t);
		free(t);
		return -err;
	}
	*out = t;
	return 0;
}

static int copy_chunk(struct ahead_chunk *c, const struct run_view *r)
{
	struct run_view *v = &c->view;
	int err;

	err = grow_array((void **)&v->events, &c->events_cap, 0, r->nevents,
			 sizeof(*r->events));
	if (!err)
		err = grow_array((void **)&v->meta, &c->meta_cap, 0,
				 r->meta_len, 1);
	if (err)
		return err;
	memcpy(v->events, r->events, r->nevents * sizeof(*r->events));
	if (r->meta_len)
		memcpy(v->meta, r->meta, r->meta_len);
	v->name = r->name;
	v->tid = r->tid;
	v->open_time = r->open_time;
	v->nevents = r->nevents;
	v->meta_len = r->meta_len;
	v->lost_events = r->lost_events;
	return 0;
}

void etdump_ahead_thread_follow(struct etdump_ahead_thread *t,
				struct run_log *log)
{
	t->log = log;
}

int etdump_ahead_thread_take(void *ctx, struct run_view *r)
{
	struct etdump_ahead_thread *t = ctx;
	struct ahead_chunk *c;
	int err;

	/*
	 * The runs that ended before this chunk go into the file before it:
	 * the file's layout then follows the records' order alone, not when
	 * the recorder found time to drain, and convert builds the same.
	 */
	if (t->log && run_log_runs(t->log)) {
		err = etdump_ahead_thread_drain(t, t->log, true);
		if (err)
			return err;
	}
	/* full events are the collector's until this returns */
	if (r->nfull) {
		err = etdump_ahead_thread_wait(t);
		return err ? err : etdump_stream_ahead(t->es, r);
	}
	pthread_mutex_lock(&t->lock);
	while (t->n == AHEAD_SLOTS)
		pthread_cond_wait(&t->written, &t->lock);
	err = t->err;
	/* head + n moves only here: the slot is free until queued */
	c = &t->slot[(t->head + t->n) % AHEAD_SLOTS];
	pthread_mutex_unlock(&t->lock);
	if (err)
		return err;
	err = copy_chunk(c, r);
	if (err)
		return err;
	pthread_mutex_lock(&t->lock);
	t->n++;
	pthread_cond_signal(&t->queued);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

void etdump_ahead_thread_drop(void *ctx, const struct run_view *r)
{
	struct etdump_ahead_thread *t = ctx;

	etdump_ahead_thread_wait(t);
	etdump_stream_drop_ahead(t->es, r);
}

int etdump_ahead_thread_wait(struct etdump_ahead_thread *t)
{
	int err;

	pthread_mutex_lock(&t->lock);
	while (t->n)
		pthread_cond_wait(&t->written, &t->lock);
	err = t->err;
	pthread_mutex_unlock(&t->lock);
	return err;
}

int etdump_ahead_thread_drain(struct etdump_ahead_thread *t,
			      struct run_log *log, bool all)
{
	int err;

	/* no run ended: nothing to drain, and no need to stop the thread */
	if (!run_log_runs(log))
		return 0;
	/* a run's end takes the refs of its events that went ahead */
	err = etdump_ahead_thread_wait(t);
	return err ? err : etdump_stream_drain(t->es, log, all);
}

void etdump_ahead_thread_stop(struct etdump_ahead_thread *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->queued);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	free_slots(t);
	pthread_cond_destroy(&t->written);
	pthread_cond_destroy(&t->queued);
	pthread_mutex_destroy(&t->lock);
	free(t);
}
