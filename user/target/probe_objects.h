/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_objects.h - the files of a process that carry etdump probes: its
 * executable, the shared libraries it has mapped (a running process) or
 * will map (a command held at the gate, process_objects.h). A runtime
 * built as a library carries its probes there, not in the executable.
 */
#ifndef ETDUMP_PROBE_OBJECTS_H
#define ETDUMP_PROBE_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "target/usdt_notes.h"

struct probe_object {
	char *path;
	struct usdt_probe_list probes;  /* every provider's */
	size_t etdump;                  /* how many of them are etdump's */
};

struct probe_objects {
	struct probe_object *v;
	size_t n;
	size_t etdump;                  /* etdump probes in all of them */
};

/*
 * The executable, always first, then each library with etdump probes. The
 * executable must be readable; a library that is not only loses its own
 * probes. Negative errno, message in err.
 */
int probe_objects_find(struct probe_objects *out, pid_t pid, const char *exe,
		       bool running, char *err, size_t errlen);
/* One more file, when it carries etdump probes: 1, 0 (none), -ENOMEM. */
int probe_objects_add_file(struct probe_objects *objs, const char *path);
/* Does every file with etdump probes carry this one? */
bool probe_objects_all_have(const struct probe_objects *objs,
			    const char *probe);
bool probe_object_has(const struct probe_object *obj, const char *probe);
void probe_objects_free(struct probe_objects *objs);

#endif /* ETDUMP_PROBE_OBJECTS_H */
