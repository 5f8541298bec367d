// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "lib/direct_write.h"
#include "lib/huge_pages.h"
#include "lib/io_all.h"

/*
 * Memory, file offsets and lengths of O_DIRECT must be multiples of the
 * device's block: 4 KiB covers 512-byte and 4 KiB ones. The data is copied
 * into an aligned buffer a chunk at a time (memory already backed, reused:
 * far cheaper than the page cache's fresh pages).
 */
#define DIRECT_ALIGN 4096u
#define DIRECT_CHUNK (4u << 20)

static int set_direct(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = on ? fl | O_DIRECT : fl & ~O_DIRECT;
	return fcntl(fd, F_SETFL, fl) ? -errno : 0;
}

void direct_write_begin(struct direct_write *d, int fd, size_t total)
{
	memset(d, 0, sizeof(*d));
	d->fd = fd;
	if (total < DIRECT_WRITE_MIN || set_direct(fd, 1))
		return;
	d->chunk = huge_pages_map(DIRECT_CHUNK);
	if (!d->chunk)
		d->err = set_direct(fd, 0);
}

/*
 * The chunk's bytes to the file at d->off, the last block padded with
 * zeros (direct_write_end() cuts them off); a file system or device that
 * takes no O_DIRECT write gets them, and the rest, through the page cache.
 */
static int flush_chunk(struct direct_write *d)
{
	size_t padded = (d->fill + DIRECT_ALIGN - 1) & ~(size_t)(DIRECT_ALIGN - 1);
	int err;

	memset(d->chunk + d->fill, 0, padded - d->fill);
	err = pwrite_all(d->fd, d->chunk, padded, d->off);
	if (err == -EINVAL) {
		err = set_direct(d->fd, 0);
		if (!err)
			err = pwrite_all(d->fd, d->chunk, d->fill, d->off);
		munmap(d->chunk, DIRECT_CHUNK);
		d->chunk = NULL;
	}
	d->off += d->fill;
	d->fill = 0;
	return err;
}

int direct_write_add(struct direct_write *d, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t n;

	if (!d->err && !d->chunk) {
		d->err = pwrite_all(d->fd, p, len, d->off);
		d->off += len;
		return d->err;
	}
	while (!d->err && len) {
		n = DIRECT_CHUNK - d->fill < len ? DIRECT_CHUNK - d->fill : len;
		memcpy(d->chunk + d->fill, p, n);
		d->fill += n;
		p += n;
		len -= n;
		if (d->fill == DIRECT_CHUNK)
			d->err = flush_chunk(d);
		if (!d->err && !d->chunk && len)
			return direct_write_add(d, p, len);
	}
	return d->err;
}

int direct_write_end(struct direct_write *d)
{
	bool padded = d->chunk != NULL;

	if (!d->err && d->chunk && d->fill)
		d->err = flush_chunk(d);
	if (d->chunk)
		munmap(d->chunk, DIRECT_CHUNK);
	d->chunk = NULL;
	if (!d->err && padded && ftruncate(d->fd, d->off))
		d->err = -errno;
	return d->err;
}

int direct_write_all(int fd, const void *buf, size_t len)
{
	struct direct_write d;

	direct_write_begin(&d, fd, len);
	direct_write_add(&d, buf, len);
	return direct_write_end(&d);
}
