// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "direct_write.h"
#include "file_io.h"

/*
 * Memory, file offsets and lengths of O_DIRECT must be multiples of the
 * device's block: 4 KiB covers 512-byte and 4 KiB ones. The data is copied
 * into an aligned buffer a chunk at a time (memory already backed, reused:
 * far cheaper than the page cache's fresh pages).
 */
#define DIRECT_ALIGN 4096u
#define DIRECT_CHUNK (4u << 20)

static int pwrite_all(int fd, const uint8_t *p, size_t len, off_t off)
{
	ssize_t n;

	while (len) {
		n = pwrite(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		/* 0 would loop for ever: the device took nothing */
		if (n == 0)
			return -EIO;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

static int set_direct(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = on ? fl | O_DIRECT : fl & ~O_DIRECT;
	return fcntl(fd, F_SETFL, fl) ? -errno : 0;
}

/* The rest from off, through the page cache. */
static int buffered_from(int fd, const uint8_t *buf, size_t len, size_t off)
{
	int err = set_direct(fd, 0);

	return err ? err : pwrite_all(fd, buf + off, len - off, (off_t)off);
}

int direct_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *data = buf;
	size_t off = 0, n, padded;
	uint8_t *chunk;
	int err;

	if (len < DIRECT_WRITE_MIN || set_direct(fd, 1))
		return write_all(fd, buf, len);
	chunk = mmap(NULL, DIRECT_CHUNK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (chunk == MAP_FAILED)
		return buffered_from(fd, data, len, 0);
	for (err = 0; !err && off < len; off += n) {
		n = len - off < DIRECT_CHUNK ? len - off : DIRECT_CHUNK;
		memcpy(chunk, data + off, n);
		/* the last block padded with zeros, cut off below */
		padded = (n + DIRECT_ALIGN - 1) & ~(size_t)(DIRECT_ALIGN - 1);
		memset(chunk + n, 0, padded - n);
		err = pwrite_all(fd, chunk, padded, (off_t)off);
		/* a file system or device that takes no O_DIRECT write */
		if (err == -EINVAL) {
			err = buffered_from(fd, data, len, off);
			off = len;
			break;
		}
	}
	munmap(chunk, DIRECT_CHUNK);
	if (!err && ftruncate(fd, (off_t)len))
		err = -errno;
	return err;
}
