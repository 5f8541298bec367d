// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "lib/abstract_name.h"

int abstract_name_bind(const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd;

	len = offsetof(struct sockaddr_un, sun_path) + 1 +
	      snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "%s", name);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, len)) {
		close(fd);
		return -errno;
	}
	return fd;
}
