// SPDX-License-Identifier: BSD-3-Clause
#include <signal.h>
#include "lib/background_write.h"
#include "lib/io_all.h"

static void *write_it(void *arg)
{
	struct background_write *w = arg;

	w->err = pwrite_all(w->fd, w->buf, w->len, w->off);
	return NULL;
}

int background_write_start(struct background_write *w, int fd,
			   const void *buf, size_t len, off_t off)
{
	sigset_t all, old;
	int err;

	*w = (struct background_write){ .fd = fd, .buf = buf, .len = len,
					.off = off };
	/* the caller's signals stay its own: its poll() wakes */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&w->thread, NULL, write_it, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return pwrite_all(fd, buf, len, off);
	w->running = true;
	return 0;
}

int background_write_wait(struct background_write *w)
{
	if (!w->running)
		return 0;
	pthread_join(w->thread, NULL);
	w->running = false;
	return w->err;
}
