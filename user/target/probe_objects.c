// SPDX-License-Identifier: BSD-3-Clause
/*
 * probe_objects.c - which of a process's files carry etdump probes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/log.h"
#include "target/probe_objects.h"
#include "target/process_objects.h"

static int add(struct probe_objects *objs, const char *path,
	       struct usdt_probe_list *probes)
{
	struct probe_object *v;
	char *copy = strdup(path);

	v = realloc(objs->v, (objs->n + 1) * sizeof(*v));
	if (!copy || !v) {
		free(copy);
		if (v)
			objs->v = v;
		return -ENOMEM;
	}
	objs->v = v;
	v[objs->n].path = copy;
	v[objs->n].probes = *probes;
	v[objs->n].etdump = usdt_notes_count(probes, "etdump");
	objs->etdump += v[objs->n].etdump;
	objs->n++;
	memset(probes, 0, sizeof(*probes));
	return 0;
}

int probe_objects_find(struct probe_objects *out, pid_t pid, const char *exe,
		       bool running, char *err, size_t errlen)
{
	struct usdt_probe_list probes = { 0 };
	struct path_list files = { 0 };
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = usdt_notes_read(exe, &probes, err, errlen);
	if (!ret)
		ret = add(out, exe, &probes);
	if (ret)
		goto out;
	ret = process_objects(pid, exe, running, &files);
	if (ret) {
		snprintf(err, errlen, "PID %d: cannot list its libraries: %s",
			 (int)pid, strerror(-ret));
		goto out;
	}
	/* files[0] is the executable, read above */
	for (i = 1; !ret && i < files.n; i++) {
		if (usdt_notes_read(files.paths[i], &probes, err, errlen)) {
			p_debug("%s", err);
			continue;
		}
		if (usdt_notes_count(&probes, "etdump"))
			ret = add(out, files.paths[i], &probes);
		usdt_notes_free(&probes);
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
out:
	usdt_notes_free(&probes);
	path_list_free(&files);
	if (ret)
		probe_objects_free(out);
	return ret;
}

int probe_objects_add_file(struct probe_objects *objs, const char *path)
{
	struct usdt_probe_list probes = { 0 };
	char err[PATH_MAX + 64];
	int ret = 0;

	if (usdt_notes_read(path, &probes, err, sizeof(err))) {
		p_debug("%s", err);
		return 0;
	}
	if (usdt_notes_count(&probes, "etdump"))
		ret = add(objs, path, &probes) ? -ENOMEM : 1;
	usdt_notes_free(&probes);
	return ret;
}

bool probe_object_has(const struct probe_object *obj, const char *probe)
{
	size_t i;

	for (i = 0; i < obj->probes.n; i++)
		if (!strcmp(obj->probes.probes[i].provider, "etdump") &&
		    !strcmp(obj->probes.probes[i].name, probe))
			return true;
	return false;
}

bool probe_objects_all_have(const struct probe_objects *objs,
			    const char *probe)
{
	size_t i;

	for (i = 0; i < objs->n; i++)
		if (objs->v[i].etdump && !probe_object_has(&objs->v[i], probe))
			return false;
	return objs->etdump > 0;
}

void probe_objects_free(struct probe_objects *objs)
{
	size_t i;

	for (i = 0; i < objs->n; i++) {
		free(objs->v[i].path);
		usdt_notes_free(&objs->v[i].probes);
	}
	free(objs->v);
	memset(objs, 0, sizeof(*objs));
}
