/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * process_objects.h - the ELF files a process runs code from: its
 * executable, then its shared libraries. A running process's come from
 * /proc/PID/maps. A command still held at the gate has not exec'd yet, so
 * its executable's DT_NEEDED libraries are found the way the dynamic
 * loader finds them (DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH with $ORIGIN,
 * then the default folders; not /etc/ld.so.cache); what it will dlopen()
 * cannot be known then.
 */
#ifndef ETDUMP_PROCESS_OBJECTS_H
#define ETDUMP_PROCESS_OBJECTS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct path_list {
	char **paths;
	struct stat *ids;       /* each file's, to list it once */
	size_t n;
};

/*
 * The file a process runs (/proc/PID/exe), as the recorder reaches it
 * (process_files.h), into out: 0 or -errno.
 */
int process_exe(pid_t pid, char out[PATH_MAX]);
/* exe first; running: read the maps, else follow DT_NEEDED. */
int process_objects(pid_t pid, const char *exe, bool running,
		    struct path_list *out);
/*
 * One more file, once by inode (a /proc/PID/... path kept as it is, any
 * other resolved): 1 added, 0 listed already or gone, -ENOMEM.
 */
int path_list_add(struct path_list *l, const char *path);
void path_list_free(struct path_list *l);

#endif /* ETDUMP_PROCESS_OBJECTS_H */
