// SPDX-License-Identifier: BSD-3-Clause
/*
 * direct_write_all: every byte back, whatever the length (small ones
 * buffered, large ones through O_DIRECT with the last block cut to size),
 * on a disk file system and on tmpfs, from a buffer at any alignment.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib/direct_write.h"
#include "testlib.h"

/* Write len bytes from buf into a new file in dir, read them back. */
static void round_trip(const char *dir, const uint8_t *buf, size_t len)
{
	char path[256];
	struct stat st;
	uint8_t *back;
	int fd;

	snprintf(path, sizeof(path), "%s/test_direct_write.%d", dir,
		 (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_EQ_INT(direct_write_all(fd, buf, len), 0);
	CHECK_EQ_INT(fstat(fd, &st), 0);
	CHECK_EQ_INT(st.st_size, len);
	/* O_DIRECT is left on the descriptor: the caller only syncs it */
	CHECK_EQ_INT(fsync(fd), 0);
	close(fd);
	back = malloc(len + 1);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(back && fd >= 0);
	if (back && fd >= 0) {
		CHECK_EQ_INT(read(fd, back, len + 1), len);
		CHECK(!memcmp(back, buf, len));
	}
	if (fd >= 0)
		close(fd);
	free(back);
	unlink(path);
}

TEST(every_byte_back_whatever_the_length)
{
	/* below the threshold, a chunk and a bit, not a block multiple */
	static const size_t lens[] = { 0, 1, 4097, DIRECT_WRITE_MIN,
				       (4u << 20) + 8, (9u << 20) + 4100 };
	static const char *dirs[] = { ".", "/dev/shm" };
	size_t i, d, max = (9u << 20) + 4100 + 3;
	uint8_t *buf = malloc(max);
	uint32_t x = 2463534242u;

	CHECK(buf != NULL);
	if (!buf)
		return;
	for (i = 0; i < max; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
	for (d = 0; d < 2; d++)
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
			/* from an address no block boundary */
			round_trip(dirs[d], buf + 3, lens[i]);
	free(buf);
}

int main(void)
{
	RUN(every_byte_back_whatever_the_length);
	return TEST_SUMMARY();
}
