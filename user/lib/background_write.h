/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * background_write.h - one write at a time on a thread of its own: the
 * caller goes on with its work while the device takes the bytes (an
 * O_DIRECT write waits for the device: 1-3 ms a 2 MiB chunk here), and
 * waits only when it needs the memory back or the next write to start.
 * The bytes must stay as they are until the wait.
 */
#ifndef ETDUMP_BACKGROUND_WRITE_H
#define ETDUMP_BACKGROUND_WRITE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct background_write {
	pthread_t thread;
	bool running;
	int fd;
	const void *buf;
	size_t len;
	off_t off;
	int err;
};

/*
 * Start writing len bytes of buf at off of fd (pwrite_all); with no thread
 * to be had, written here and now. 0, or that write's -errno.
 */
int background_write_start(struct background_write *w, int fd,
			   const void *buf, size_t len, off_t off);
/* Wait for the write started, if any: 0 or its -errno. */
int background_write_wait(struct background_write *w);

#endif /* ETDUMP_BACKGROUND_WRITE_H */
