// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/thread_names.h"

/* /proc/PID/task/TID/comm into name; false when it cannot be read. */
static bool read_comm(uint32_t pid, uint32_t tid, char *name)
{
	char path[64], buf[THREAD_NAME_LEN + 1];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	buf[THREAD_NAME_LEN - 1] = '\0';
	memcpy(name, buf, THREAD_NAME_LEN);
	return true;
}

int thread_names_see(struct thread_names *tn, uint32_t pid, uint32_t tid,
		     const struct thread_name **out)
{
	struct thread_name *v, t = { .pid = pid, .tid = tid };
	bool found;
	size_t i;

	if (tn->n && tn->v[tn->last].tid == tid)
		return 0;
	for (i = 0; i < tn->n; i++) {
		if (tn->v[i].tid == tid) {
			tn->last = i;
			return 0;
		}
	}
	if (tn->n == THREAD_NAMES_MAX)
		return 0;
	/* one gone already is kept nameless: never looked up again */
	found = read_comm(pid, tid, t.name);
	if (tn->n == tn->cap) {
		size_t cap = tn->cap ? 2 * tn->cap : 16;

		v = realloc(tn->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		tn->v = v;
		tn->cap = cap;
	}
	tn->last = tn->n;
	tn->v[tn->n++] = t;
	*out = &tn->v[tn->last];
	return found;
}

bool thread_names_reread(struct thread_names *tn, size_t i)
{
	char name[THREAD_NAME_LEN];

	if (!read_comm(tn->v[i].pid, tn->v[i].tid, name) ||
	    !strcmp(name, tn->v[i].name))
		return false;
	memcpy(tn->v[i].name, name, sizeof(name));
	return true;
}

void thread_names_free(struct thread_names *tn)
{
	free(tn->v);
	memset(tn, 0, sizeof(*tn));
}
