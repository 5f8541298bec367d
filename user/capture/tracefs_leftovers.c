// SPDX-License-Identifier: BSD-3-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/tracefs_leftovers.h"
#include "capture/tracefs_uprobes.h"
#include "lib/log.h"
#include "target/target.h"

#define GROUP_PREFIX "etdump_bpf_"
/*
 * A dead process's uprobes are let go one after the other, each behind an
 * RCU grace period (capture.c): seconds for a dozen on a loaded machine.
 */
#define SETTLE_TRIES 100
#define SETTLE_US 100000
/* uprobe_events of a busy machine: far beyond, and never read whole */
#define MAX_EVENTS_FILE (16u << 20)

/* uprobe_events, whole, NUL-terminated; negative errno. */
static int read_events(int mnt, char **out)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *p;
	ssize_t n;
	int fd, err = 0;

	fd = openat(mnt, "uprobe_events", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			p = cap <= MAX_EVENTS_FILE ? realloc(buf, cap) : NULL;
			if (!p) {
				err = -ENOMEM;
				break;
			}
			buf = p;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		len += n;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* A decimal number of 1 to 9 digits at *p, which moves past it. */
static bool number(const char **p, long *v)
{
	const char *s = *p;

	*v = 0;
	while (*s >= '0' && *s <= '9' && s - *p < 9)
		*v = *v * 10 + (*s++ - '0');
	if (s == *p || (*s >= '0' && *s <= '9'))
		return false;
	*p = s;
	return true;
}

/* Past "etdump_bpf_PID[_N]" at p, its PID in *pid; NULL for another name. */
static const char *group_end(const char *p, int *pid)
{
	long v;

	if (strncmp(p, GROUP_PREFIX, strlen(GROUP_PREFIX)))
		return NULL;
	p += strlen(GROUP_PREFIX);
	if (!number(&p, &v) || v <= 0)
		return NULL;
	*pid = (int)v;
	if (*p == '_' && (p++, !number(&p, &v)))
		return NULL;
	return p;
}

/*
 * "p:etdump_bpf_PID[_N]/siteK ...": the group and PID of one of ours, the
 * event's name; false for every other line (anyone else's event).
 */
static bool our_event(const char *line, char *group, size_t glen,
		      char *event, size_t elen, int *pid)
{
	const char *g, *p;
	long v;

	if ((line[0] != 'p' && line[0] != 'r') || line[1] != ':')
		return false;
	g = line + 2;
	p = group_end(g, pid);
	if (!p || *p != '/' || (size_t)(p - g) >= glen)
		return false;
	snprintf(group, glen, "%.*s", (int)(p - g), g);
	g = ++p;
	if (strncmp(p, "site", 4))
		return false;
	p += 4;
	if (!number(&p, &v) || (*p != ' ' && *p != '\0' && *p != '\n') ||
	    (size_t)(p - g) >= elen)
		return false;
	snprintf(event, elen, "%.*s", (int)(p - g), g);
	return true;
}

/*
 * Its pid gone and its name free: neither the recorder nor its closer
 * lives (a recorder older than the name sees to its pid alone).
 */
static bool owner_gone(const char *group, int pid)
{
	int fd;

	if (!kill(pid, 0) || errno != ESRCH)
		return false;
	fd = tracefs_group_bind(group);
	if (fd < 0)
		return fd != -EADDRINUSE;
	close(fd);
	return true;
}

/* The group's entry, made on its first event. */
static struct tracefs_leftover *group_entry(struct tracefs_leftovers *l,
					     const char *group, int pid)
{
	struct tracefs_leftover *v, fresh = { .pid = pid };
	size_t i = 0;

	while (i < l->n && strcmp(l->v[i].group, group))
		i++;
	if (i < l->n)
		return l->v + i;
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	snprintf(fresh.group, sizeof(fresh.group), "%s", group);
	v[l->n] = fresh;
	l->v = v;
	return v + l->n++;
}

/* Never O_TRUNC (tracefs_uprobes.c): "-:" takes out the one event named. */
static bool remove_event(int events, const char *group, const char *event)
{
	char cmd[96];
	int n;

	n = snprintf(cmd, sizeof(cmd), "-:%s/%s\n", group, event);
	return write(events, cmd, n) == n;
}

/*
 * Whether events/ holds a group of ours whose owner is gone (true when
 * events/ cannot be read). uprobe_events is read under the kernel's
 * event_mutex, which a perf event's uprobe takes to come in and holds over
 * two RCU grace periods to go out (another recorder's closer, perf,
 * bpftrace): a second at a recorder's start on a busy machine, for a file
 * nearly always free of ours. The directory is read without it.
 */
static bool dead_group_listed(int mnt)
{
	const char *end;
	struct dirent *d;
	bool found = false;
	DIR *dir;
	int fd, pid;

	fd = openat(mnt, "events", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return true;
	}
	while (!found && (d = readdir(dir))) {
		end = group_end(d->d_name, &pid);
		found = end && !*end && owner_gone(d->d_name, pid);
	}
	closedir(dir);
	return found;
}

static int scan(int mnt, struct tracefs_leftovers *out, bool remove)
{
	char group[32], event[32], *buf = NULL, *line, *next;
	struct tracefs_leftover *g;
	int err, pid, events = -1;

	if (!dead_group_listed(mnt))
		return 0;
	err = read_events(mnt, &buf);
	if (err)
		return err;
	if (remove) {
		events = openat(mnt, "uprobe_events",
				O_WRONLY | O_APPEND | O_CLOEXEC);
		if (events < 0) {
			free(buf);
			return -errno;
		}
	}
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!our_event(line, group, sizeof(group), event,
			       sizeof(event), &pid) || !owner_gone(group, pid))
			continue;
		g = group_entry(out, group, pid);
		if (!g) {
			err = -ENOMEM;
			break;
		}
		g->events++;
		g->removed += remove && remove_event(events, group, event);
	}
	if (events >= 0)
		close(events);
	free(buf);
	return err;
}

int tracefs_leftovers_scan(struct tracefs_leftovers *out, bool remove)
{
	uint64_t ns_dev, ns_ino;
	int mnt, err;

	out->v = NULL;
	out->n = 0;
	target_pid_namespace(&ns_dev, &ns_ino);
	if (ns_ino)
		return -EXDEV;
	mnt = tracefs_mount();
	if (mnt < 0)
		return mnt;
	err = scan(mnt, out, remove);
	close(mnt);
	if (err)
		tracefs_leftovers_free(out);
	return err;
}

void tracefs_leftovers_free(struct tracefs_leftovers *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* set at start when some were still held: tracefs_leftovers_settle() */
static bool held;

void tracefs_leftovers_clean(void)
{
	struct tracefs_leftovers l;
	size_t i;
	int err;

	err = tracefs_leftovers_scan(&l, true);
	if (err) {
		p_debug("uprobe events of killed recorders not looked for: %s",
			strerror(-err));
		return;
	}
	for (i = 0; i < l.n; i++) {
		if (l.v[i].removed == l.v[i].events) {
			p_debug("removed %u uprobe event(s) of a killed recorder (PID %d, tracefs group %s)",
			       l.v[i].removed, l.v[i].pid, l.v[i].group);
			continue;
		}
		held = true;
		p_debug("removed %u of %u uprobe event(s) of a killed recorder (PID %d, tracefs group %s): the kernel still releases the rest, removed when this recording ends",
		       l.v[i].removed, l.v[i].events, l.v[i].pid,
		       l.v[i].group);
	}
	tracefs_leftovers_free(&l);
}

void tracefs_leftovers_settle(void)
{
	struct tracefs_leftovers l;
	unsigned int tries;
	size_t i, left;

	for (tries = 0; held && tries < SETTLE_TRIES; tries++) {
		if (tries)
			usleep(SETTLE_US);
		if (tracefs_leftovers_scan(&l, true))
			return;
		for (i = left = 0; i < l.n; i++)
			left += l.v[i].events - l.v[i].removed;
		tracefs_leftovers_free(&l);
		held = left;
	}
}
