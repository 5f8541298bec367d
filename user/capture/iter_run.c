// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "capture/iter_run.h"

int iter_run(const struct bpf_link *link)
{
	char buf[256];
	ssize_t n;
	int fd;

	if (!link)
		return -ENOENT;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		return -errno;
	/* the program runs as the iterator is read */
	while ((n = read(fd, buf, sizeof(buf))) > 0 ||
	       (n < 0 && errno == EINTR))
		;
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}
