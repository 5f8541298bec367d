// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "etdump_writer.h"
#include "file_io.h"
#include "stdout_output.h"

bool stdout_output_is(const char *path)
{
	return path && !strcmp(path, "-");
}

int stdout_output_begin(void)
{
	int fd;

	if (isatty(STDOUT_FILENO))
		return -ENOTTY;
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int stdout_output_write(int fd, const struct etd_dump *dump)
{
	size_t len;
	void *buf;
	int err;

	err = etdump_write(dump, &buf, &len);
	if (err)
		return err;
	err = write_all(fd, buf, len);
	free(buf);
	if (!err && close(fd))
		err = -errno;
	return err;
}
