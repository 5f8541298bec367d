// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/attach_at_exec.h"
#include "capture/capture.h"
#include "lib/log.h"
#include "target/every_word.h"
#include "target/exec_stop.h"
#include "target/probe_objects.h"
#include "target/target.h"

struct at_exec {
	struct capture *cap;
	const struct probe_objects *objs;
	uint32_t every;
	bool *attached, *done;  /* done: attached, and its word written */
	size_t left;
	int nattached;
	char *err;
	size_t errlen;
};

/* Whether path has an executable mapping in pid: libbpf's sites are there. */
static bool mapped(pid_t pid, const char *path)
{
	char maps[64], line[PATH_MAX + 128], perms[8];
	bool found = false;
	int at;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		at = 0;
		if (sscanf(line, "%*s %7s %*s %*s %*s %n", perms, &at) < 1 ||
		    !at || !strchr(perms, 'x'))
			continue;
		line[at + strcspn(line + at, "\n")] = '\0';
		found = !strcmp(line + at, path);
	}
	fclose(f);
	return found;
}

/*
 * One file alone, as capture_attach_pid() attaches a process's files, once
 * its code is mapped; its --every word once its data is (-ENOENT before:
 * the loader maps a library's segments one system call at a time).
 */
static int attach_file(struct at_exec *a, pid_t pid, size_t i)
{
	struct probe_objects one = { .v = &a->objs->v[i], .n = 1,
				     .etdump = a->objs->v[i].etdump };
	int n = 0, err;

	if (!a->attached[i]) {
		if (!mapped(pid, a->objs->v[i].path))
			return -ENOENT;
		err = capture_attach_pid(a->cap, &one, pid, &n);
		a->nattached += n;
		if (err) {
			snprintf(a->err, a->errlen, "%s: cannot attach at its exec: %s",
				 a->objs->v[i].path, strerror(-err));
			return err;
		}
		a->attached[i] = true;
	}
	if (a->every > 1)
		return every_word_set(pid, &a->objs->v[i], a->every, NULL,
				      a->err, a->errlen);
	return 0;
}

static int attach_mapped(void *ctx, pid_t pid)
{
	struct at_exec *a = ctx;
	size_t i;
	int err;

	for (i = 0; i < a->objs->n; i++) {
		if (a->done[i])
			continue;
		err = attach_file(a, pid, i);
		if (err == -ENOENT)
			continue;
		if (err)
			return err;
		a->done[i] = true;
		a->left--;
	}
	return !a->left;
}

int capture_attach_at_exec(struct capture *cap, struct target *t,
			   const struct probe_objects *objs, uint32_t every,
			   int *nattached, char *err, size_t errlen)
{
	struct at_exec a = { .cap = cap, .objs = objs, .every = every,
			     .err = err, .errlen = errlen };
	size_t i;
	int ret;

	*err = '\0';
	a.done = calloc(objs->n ? objs->n : 1, sizeof(*a.done));
	a.attached = calloc(objs->n ? objs->n : 1, sizeof(*a.attached));
	if (!a.done || !a.attached) {
		free(a.done);
		free(a.attached);
		return -ENOMEM;
	}
	for (i = 0; i < objs->n; i++) {
		a.done[i] = !objs->v[i].etdump;
		a.left += !a.done[i];
	}
	ret = exec_stop_release(t, attach_mapped, &a);
	/* the loader is done: what is mapped later is attached to now */
	if (ret == -EAGAIN)
		ret = 0;
	for (i = 0; !ret && a.left && i < objs->n; i++) {
		if (a.done[i])
			continue;
		p_warn("%s was not mapped while %s started: attached to now, its events before are lost",
		       objs->v[i].path, t->exe);
		ret = attach_file(&a, t->pid, i);
		if (ret == -ENOENT)
			snprintf(err, errlen, "%s: not mapped by %s", objs->v[i].path,
				 t->exe);
	}
	if (ret && ret != -ECHILD && !*err)
		snprintf(err, errlen, "%s: cannot hold it at its start: %s",
			 t->exe, strerror(-ret));
	*nattached = a.nattached;
	free(a.attached);
	free(a.done);
	return ret;
}
