// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include "lib/log.h"
#include "target/process_files.h"

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The pid of a /proc/PID/... path, and where the rest of it starts. */
static pid_t proc_pid(const char *path, const char **rest)
{
	int pid, n = 0;

	if (sscanf(path, "/proc/%d/%n", &pid, &n) != 1 || !n || pid <= 0)
		return 0;
	*rest = path + n;
	return pid;
}

static bool shares_root(pid_t pid)
{
	struct stat ours, theirs;
	char root[64];

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	return !stat("/", &ours) && !stat(root, &theirs) &&
	       same_inode(&ours, &theirs);
}

/*
 * The name in the process's root of a file its maps name `name` to the
 * recorder: a root the recorder cannot reach still prints as the path of
 * its mount point in the process's mount namespace (/proc/PID/root's
 * link), which the names in its maps start with. NULL when name is not
 * under it.
 */
static const char *name_in_root(pid_t pid, const char *name)
{
	char link[64], root[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/root", (int)pid);
	n = readlink(link, root, sizeof(root) - 1);
	if (n <= 0)
		return NULL;
	root[n] = '\0';
	if (!strcmp(root, "/"))
		return name;
	if (strncmp(name, root, n) || name[n] != '/')
		return NULL;
	return name + n;
}

/* openat2(2) from dirfd; -ENOSYS where the kernel (< 5.6) has none. */
static int open_resolved(int dirfd, const char *rel, int flags,
			 __u64 resolve)
{
	struct open_how how = { .flags = flags | O_CLOEXEC, .resolve = resolve };
	static bool said;
	int fd;

	fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	if (fd >= 0)
		return fd;
	if (errno == ENOSYS && !said) {
		said = true;
		p_info("no openat2() in this kernel (< 5.6): a traced process's files in another root are reached through /proc/PID/map_files only, and its debug files are looked for on the host only");
	}
	return -errno;
}

static int open_root(pid_t pid)
{
	char root[64];
	int fd;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * name under /proc/PID/root into out when, resolved there without any
 * symbolic link (so that the kernel's own walk of that path when a uprobe
 * attaches goes the same way), it is the inode `want`.
 */
static bool reach_in_root(pid_t pid, const char *name,
			  const struct stat *want, char out[PATH_MAX])
{
	const char *in_root = name_in_root(pid, name);
	bool found = false;
	struct stat st;
	int root, fd;

	if (!in_root || (root = open_root(pid)) < 0)
		return false;
	fd = open_resolved(root, in_root + 1, O_PATH,
			   RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS);
	if (fd >= 0) {
		found = !fstat(fd, &st) && same_inode(&st, want) &&
			snprintf(out, PATH_MAX, "/proc/%d/root%s", (int)pid,
				 in_root) < PATH_MAX;
		close(fd);
	}
	close(root);
	return found;
}

int process_file_reach(pid_t pid, const char *name, const char *mapped,
		       char out[PATH_MAX])
{
	struct stat want, st;

	/* no way to the mapping (its links need CAP_SYS_ADMIN): the name */
	if (stat(mapped, &want)) {
		if (stat(name, &st))
			return -errno;
		snprintf(out, PATH_MAX, "%s", name);
		return 0;
	}
	if (shares_root(pid) && !stat(name, &st) && same_inode(&st, &want)) {
		snprintf(out, PATH_MAX, "%s", name);
		return 0;
	}
	if (!reach_in_root(pid, name, &want, out))
		snprintf(out, PATH_MAX, "%s", mapped);
	return 0;
}

/* The process's own link to a mapped file (exe, map_files/S-E)? */
static pid_t mapped_link(const char *path, const char **rest)
{
	pid_t pid = proc_pid(path, rest);

	if (pid && (!strcmp(*rest, "exe") || !strncmp(*rest, "map_files/", 10)))
		return pid;
	return 0;
}

void process_file_maps_name(const char *path, char out[PATH_MAX])
{
	char link[64], root[PATH_MAX];
	const char *rest;
	pid_t pid = proc_pid(path, &rest);
	ssize_t n;

	if (pid && !strncmp(rest, "root/", 5)) {
		snprintf(link, sizeof(link), "/proc/%d/root", (int)pid);
		n = readlink(link, root, sizeof(root) - 1);
		root[n > 0 ? n : 0] = '\0';
		snprintf(out, PATH_MAX, "%s%s", strcmp(root, "/") ? root : "",
			 rest + 4);
		return;
	}
	n = mapped_link(path, &rest) ? readlink(path, out, PATH_MAX - 1) : -1;
	if (n > 0)
		out[n] = '\0';
	else
		snprintf(out, PATH_MAX, "%s", path);
}

void process_file_shown(const char *path, char out[PATH_MAX])
{
	char name[PATH_MAX];
	const char *rest, *in_root;
	pid_t pid = proc_pid(path, &rest);

	if (pid && !strncmp(rest, "root/", 5)) {
		snprintf(out, PATH_MAX, "%s", rest + 4);
		return;
	}
	process_file_maps_name(path, name);
	in_root = pid ? name_in_root(pid, name) : NULL;
	snprintf(out, PATH_MAX, "%s", in_root ? in_root : name);
}

void process_file_label(const char *path, char *out, size_t len)
{
	char shown[PATH_MAX];
	const char *rest;
	pid_t pid = proc_pid(path, &rest);

	if (!pid || (strncmp(rest, "root/", 5) && !mapped_link(path, &rest))) {
		snprintf(out, len, "%s", path);
		return;
	}
	process_file_shown(path, shown);
	snprintf(out, len, "%s (PID %d's, reached as %s)", shown, (int)pid, path);
}

bool process_file_replaced(const char *path)
{
	char name[PATH_MAX], in_root[PATH_MAX];
	struct stat want, st;
	const char *rest;
	pid_t pid = mapped_link(path, &rest);
	size_t len;

	if (!pid || stat(path, &want))
		return false;
	process_file_maps_name(path, name);
	len = strlen(name);
	if (len > 10 && !strcmp(name + len - 10, " (deleted)"))
		return true;
	if (shares_root(pid))
		return stat(name, &st) || !same_inode(&st, &want);
	return !reach_in_root(pid, name, &want, in_root);
}

int process_root_open(const char *object, const char *name)
{
	const char *rest;
	pid_t pid = proc_pid(object, &rest);
	struct stat st;
	int root, fd;

	if (!pid || shares_root(pid) || name[0] != '/')
		return -ENOENT;
	root = open_root(pid);
	if (root < 0)
		return root;
	/* a FIFO left there must not hang the recorder */
	fd = open_resolved(root, name + 1, O_RDONLY | O_NONBLOCK,
			   RESOLVE_IN_ROOT);
	close(root);
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -EINVAL;
	}
	return fd;
}
