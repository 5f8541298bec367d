// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "file_io.h"
#include "log.h"

int output_check(const char *path, bool force)
{
	char *copy, *dir;
	int ret = 0;

	if (!force && !access(path, F_OK)) {
		p_err("%s: file exists (use --force to overwrite)", path);
		return -EEXIST;
	}
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (access(dir, W_OK)) {
		ret = -errno;
		p_err("%s: cannot write in %s: %s", path, dir, strerror(errno));
	}
	free(copy);
	return ret;
}

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

/* A new file next to path: path.tmp.<pid>.<n>, mode 0666 & ~umask. */
static int create_temp(const char *path, char **tmp)
{
	int fd = -EEXIST;
	unsigned int n;

	for (n = 0; n < 100 && fd == -EEXIST; n++) {
		if (asprintf(tmp, "%s.tmp.%d.%u", path, (int)getpid(), n) < 0) {
			*tmp = NULL;
			return -ENOMEM;
		}
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0) {
			fd = -errno;
			free(*tmp);
			*tmp = NULL;
		}
	}
	return fd;
}

int file_replace(const char *path, const void *buf, size_t len)
{
	char *tmp = NULL;
	int fd, err;

	fd = create_temp(path, &tmp);
	if (fd < 0)
		return fd;
	err = write_all(fd, buf, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
