/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * process_files.h - a running process's files, reached from the recorder's
 * own view of the filesystem. A process in a container (another mount
 * namespace, another root) names its files in its own root, which the
 * host may not see at all; a process whose file was deleted or replaced on
 * disk since it mapped it runs an inode no name leads to any more. Each
 * file is reached by the first of: its name, when that leads to the inode
 * mapped (the recorder and the process share a root); the name under
 * /proc/PID/root, resolved in that root without following any symbolic
 * link, when it leads there; the process's own link to the mapping
 * (/proc/PID/map_files/START-END, /proc/PID/exe), which the kernel resolves
 * to the mapped inode itself and through which uprobes attach to it.
 */
#ifndef ETDUMP_PROCESS_FILES_H
#define ETDUMP_PROCESS_FILES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * How to reach the file that /proc/PID/maps names `name` (as the recorder
 * reads it) and `mapped` (the process's own link to it) leads to: into
 * out, 0 or -errno.
 */
int process_file_reach(pid_t pid, const char *name, const char *mapped,
		       char out[PATH_MAX]);
/* The name the process gives the file reached by `path`, for messages. */
void process_file_shown(const char *path, char out[PATH_MAX]);
/*
 * A file for messages: `path` itself when the recorder reaches it by its
 * name, else "NAME (PID N's, reached as PATH)", NAME as the process sees it.
 */
void process_file_label(const char *path, char *out, size_t len);
/* The name /proc/PID/maps gives the recorder for the file at `path`. */
void process_file_maps_name(const char *path, char out[PATH_MAX]);
/*
 * Is `path` the process's own link to a file that its name on disk no
 * longer leads to (deleted, or replaced by another file)?
 */
bool process_file_replaced(const char *path);
/*
 * Open `name` (absolute, in the process's root) of the process whose file
 * `object` was reached through /proc/PID/...: its symbolic links resolved
 * inside that root, never out of it. -ENOENT when `object` is not such a
 * path or the process shares the recorder's root (look on the host then);
 * else an fd or -errno.
 */
int process_root_open(const char *object, const char *name);

#endif /* ETDUMP_PROCESS_FILES_H */
