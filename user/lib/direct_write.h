/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * direct_write.h - a large output written around the page cache.
 *
 * Every file the commands write is synced before it replaces the old one
 * (file_io.h), so the page cache holds it only on its way to the disk, and
 * filling it is most of what writing costs: a page allocated and copied
 * into for every 4 KiB (in a VM, pages the host must back first). With
 * O_DIRECT the device reads the data from a small buffer that is reused.
 */
#ifndef ETDUMP_DIRECT_WRITE_H
#define ETDUMP_DIRECT_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Below this, a buffered write: nothing worth saving. */
#define DIRECT_WRITE_MIN (1u << 20)

/*
 * All of buf into fd, a new empty regular file, from offset 0: with
 * O_DIRECT when the file system takes it, buffered from the first write
 * it refuses on. 0 or a negative errno.
 */
int direct_write_all(int fd, const void *buf, size_t len);

/*
 * The same in pieces: begin (total: the bytes to come, which decide
 * whether O_DIRECT is worth it), add each piece in order, end. Errors
 * stick; end returns the first, or 0.
 */
struct direct_write {
	int fd;
	uint8_t *chunk;         /* NULL: straight through the page cache */
	size_t fill;
	off_t off;              /* where chunk[0] goes */
	int err;
};

void direct_write_begin(struct direct_write *d, int fd, size_t total);
int direct_write_add(struct direct_write *d, const void *buf, size_t len);
int direct_write_end(struct direct_write *d);

#endif /* ETDUMP_DIRECT_WRITE_H */
