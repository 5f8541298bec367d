// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/mount.h>
#include "capture/tracefs_uprobes.h"
#include "lib/abstract_name.h"

struct tracefs_uprobes {
	int mnt;                 /* the detached tracefs */
	int alive;               /* the group's name bound: tracefs_group_bind */
	int events;              /* its uprobe_events, opened to append */
	char group[32];
	unsigned int n;          /* events made: site0 .. site<n-1> */
};

int tracefs_mount(void)
{
	int fs, mnt;

	fs = syscall(SYS_fsopen, "tracefs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		mnt = -errno;
		close(fs);
		return mnt;
	}
	mnt = syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0)
		mnt = -errno;
	close(fs);
	return mnt;
}

int tracefs_group_bind(const char *group)
{
	char name[64];

	snprintf(name, sizeof(name), "etdump-bpf/%s", group);
	return abstract_name_bind(name);
}

/*
 * A group no event is in and no one holds the name of: a recorder killed
 * before its cleanup leaves its group, and a later one may get its pid.
 */
static int choose_group(struct tracefs_uprobes *t)
{
	char dir[64];
	unsigned int i;

	for (i = 0; i < 100; i++) {
		snprintf(t->group, sizeof(t->group), i ? "etdump_bpf_%d_%u" :
			 "etdump_bpf_%d", (int)getpid(), i);
		snprintf(dir, sizeof(dir), "events/%s", t->group);
		if (!faccessat(t->mnt, dir, F_OK, 0) || errno != ENOENT)
			continue;
		t->alive = tracefs_group_bind(t->group);
		if (t->alive >= 0)
			return 0;
	}
	return -EEXIST;
}

int tracefs_uprobes_open(struct tracefs_uprobes **out)
{
	struct tracefs_uprobes *t;
	int err;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->events = t->alive = -1;
	t->mnt = tracefs_mount();
	if (t->mnt < 0) {
		err = t->mnt;
		free(t);
		return err;
	}
	/* never O_TRUNC: that would remove every uprobe event there is */
	t->events = openat(t->mnt, "uprobe_events",
			   O_WRONLY | O_APPEND | O_CLOEXEC);
	if (t->events < 0) {
		err = -errno;
		tracefs_uprobes_free(t);
		return err;
	}
	err = choose_group(t);
	if (err) {
		tracefs_uprobes_free(t);
		return err;
	}
	*out = t;
	return 0;
}

/* One command to uprobe_events, whole. */
static int command(struct tracefs_uprobes *t, const char *cmd)
{
	ssize_t n = write(t->events, cmd, strlen(cmd));

	if (n < 0)
		return -errno;
	return (size_t)n == strlen(cmd) ? 0 : -EIO;
}

static int read_id(struct tracefs_uprobes *t, unsigned int i, uint64_t *id)
{
	char name[96], buf[32];
	ssize_t n;
	char *end;
	int fd;

	snprintf(name, sizeof(name), "events/%s/site%u/id", t->group, i);
	fd = openat(t->mnt, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	*id = strtoull(buf, &end, 10);
	return end != buf && (*end == '\n' || !*end) ? 0 : -EIO;
}

int tracefs_uprobes_add(struct tracefs_uprobes *t, int file_fd,
			uint64_t offset, uint64_t sema_offset, uint64_t *id)
{
	char cmd[160], sema[32] = "";
	int err;

	if (sema_offset)
		snprintf(sema, sizeof(sema), "(0x%" PRIx64 ")", sema_offset);
	/*
	 * The kernel looks the file up by name, in our own context: our fd's
	 * link is the very file we read, whatever its name is meanwhile.
	 */
	snprintf(cmd, sizeof(cmd), "p:%s/site%u /proc/self/fd/%d:0x%" PRIx64 "%s\n",
		 t->group, t->n, file_fd, offset, sema);
	err = command(t, cmd);
	if (err)
		return err;
	t->n++;
	return read_id(t, t->n - 1, id);
}

void tracefs_uprobes_free(struct tracefs_uprobes *t)
{
	char cmd[96];
	unsigned int i;

	if (!t)
		return;
	for (i = 0; t->events >= 0 && i < t->n; i++) {
		snprintf(cmd, sizeof(cmd), "-:%s/site%u\n", t->group, i);
		command(t, cmd);
	}
	if (t->events >= 0)
		close(t->events);
	if (t->mnt >= 0)
		close(t->mnt);
	if (t->alive >= 0)
		close(t->alive);
	free(t);
}
