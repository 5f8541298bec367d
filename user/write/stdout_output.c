// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/io_all.h"
#include "write/etdump_log_writer.h"
#include "write/etdump_writer.h"
#include "write/stdout_output.h"

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

int stdout_output_write_log(int fd, struct run_log *log,
			    const struct etdump_log_meta *m)
{
	int err = etdump_write_log_fd(log, m, fd);

	if (close(fd) && !err)
		err = -errno;
	return err;
}

int stdout_output_write_stream(int fd, struct etdump_stream *es)
{
	int err = etdump_stream_write_fd(es, fd);

	if (close(fd) && !err)
		err = -errno;
	return err;
}

int stdout_output_write_dump(int fd, const struct etd_dump *dump)
{
	size_t len;
	void *buf;
	int err;

	err = etdump_write(dump, &buf, &len);
	if (!err) {
		err = write_all(fd, buf, len);
		free(buf);
	}
	if (close(fd) && !err)
		err = -errno;
	return err;
}
