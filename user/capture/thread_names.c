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

/* Where tid is, or -1. */
static ssize_t thread_find(struct thread_names *tn, uint32_t tid)
{
	size_t i;

	if (tn->n && tn->v[tn->last].tid == tid)
		return tn->last;
	for (i = 0; i < tn->n; i++) {
		if (tn->v[i].tid == tid) {
			tn->last = i;
			return i;
		}
	}
	return -1;
}

/* A new thread's place, or NULL (past the bound: -ENOSPC, or -ENOMEM). */
static struct thread_name *thread_add(struct thread_names *tn, int *err)
{
	struct thread_name *v;

	*err = -ENOSPC;
	if (tn->n == THREAD_NAMES_MAX)
		return NULL;
	if (tn->n == tn->cap) {
		size_t cap = tn->cap ? 2 * tn->cap : 16;

		*err = -ENOMEM;
		v = realloc(tn->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		tn->v = v;
		tn->cap = cap;
	}
	tn->last = tn->n;
	return &tn->v[tn->n++];
}

int thread_names_see(struct thread_names *tn, uint32_t pid, uint32_t tid,
		     const struct thread_name **out)
{
	struct thread_name *t;
	bool found;
	int err;

	if (thread_find(tn, tid) >= 0)
		return 0;
	t = thread_add(tn, &err);
	if (!t)
		return err == -ENOSPC ? 0 : err;
	*t = (struct thread_name){ .pid = pid, .tid = tid };
	/* one gone already is kept nameless: never looked up again */
	found = read_comm(pid, tid, t->name);
	*out = t;
	return found;
}

int thread_names_set(struct thread_names *tn, uint32_t pid, uint32_t tid,
		     const char *name, const struct thread_name **out)
{
	ssize_t i = thread_find(tn, tid);
	struct thread_name *t;
	int err;

	if (i >= 0) {
		t = &tn->v[i];
		if (!strncmp(t->name, name, THREAD_NAME_LEN - 1))
			return 0;
	} else {
		t = thread_add(tn, &err);
		if (!t)
			return err == -ENOSPC ? 0 : err;
		*t = (struct thread_name){ .pid = pid, .tid = tid };
	}
	strncpy(t->name, name, THREAD_NAME_LEN - 1);
	t->name[THREAD_NAME_LEN - 1] = '\0';
	*out = t;
	return 1;
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
