// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include "lib/io_all.h"

int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}

/* pread or pwrite until every byte is moved; an end of file is -EIO. */
static int pio_all(int fd, uint8_t *p, size_t len, off_t off, bool out)
{
	ssize_t n;

	while (len) {
		n = out ? pwrite(fd, p, len, off) : pread(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		/* 0 would loop for ever: the device took or had nothing */
		if (n == 0)
			return -EIO;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	return pio_all(fd, (uint8_t *)buf, len, off, true);
}

int pread_all(int fd, void *buf, size_t len, off_t off)
{
	return pio_all(fd, buf, len, off, false);
}
