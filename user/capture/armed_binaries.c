// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "capture/armed_binaries.h"
#include "capture/capture.h"
#include "capture/kernel_features.h"
#include "capture/tracefs_uprobes.h"
#include "capture/usdt_arg_spec.h"
#include "lib/log.h"
#include "schema/etdump_follow.h"
#include "target/command_words.h"
#include "target/usdt_sites.h"

/* What arming needs across files: the events' tracefs, the specs set. */
struct arming {
	struct capture *cap;
	struct armed_binaries *out;
	pid_t root;
	struct tracefs_uprobes *tracefs;   /* the capture's once it is open */
	int tracefs_err;
	struct usdt_spec *specs;           /* specs[i] has id slots - 1 - i */
	uint32_t nspecs, slots;
};

/* The id of this spec: one already set, or the next from the top. */
static int spec_id(struct arming *a, const struct usdt_spec *spec,
		   uint32_t *id)
{
	struct usdt_spec *v;
	uint32_t i;
	int err;

	for (i = 0; i < a->nspecs; i++)
		if (!memcmp(&a->specs[i], spec, sizeof(*spec)))
			goto found;
	/* the lower half is libbpf's, for the children attached after exec */
	if (a->nspecs >= a->slots / 2)
		return -E2BIG;
	v = realloc(a->specs, (a->nspecs + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	a->specs = v;
	err = capture_set_usdt_spec(a->cap, a->slots - 1 - a->nspecs, spec);
	if (err)
		return err;
	a->specs[a->nspecs++] = *spec;
found:
	*id = a->slots - 1 - i;
	return 0;
}

/*
 * An inherited event sampling its reads (it never samples: disabled)
 * keeps every context holding a copy from being swapped with a clone
 * at a context switch (kernel 6.12 on): a worker thread swapped with
 * its main thread took the main thread's events along when it exited,
 * and with them the process's breakpoints, while the main thread ran on.
 */
#define NO_SWAP_SAMPLE (PERF_SAMPLE_READ | PERF_SAMPLE_TID)

static int perf_event_open_fd(struct perf_event_attr *attr, pid_t pid)
{
	int fd = syscall(SYS_perf_event_open, attr, pid, -1, -1,
			 PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * A uprobe event of pid's, disabled: one that takes no sample. Inherited,
 * it is in every process pid forks from now on, and the filter places the
 * breakpoints there; not inherited, it holds them in pid alone.
 */
static int open_uprobe_event(uint64_t id, pid_t pid, bool inherit)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = id,
		.sample_period = 1,
		.sample_type = inherit ? NO_SWAP_SAMPLE : 0,
		.inherit = inherit,
		.disabled = 1,
	};
	int fd = perf_event_open_fd(&attr, pid);

	/* before 6.12 an inherited event cannot sample its reads */
	if (fd == -EINVAL && inherit) {
		attr.sample_type = 0;
		fd = perf_event_open_fd(&attr, pid);
	}
	return fd;
}

static int events_add(struct armed_events *e, int fd)
{
	int *v = realloc(e->fds, (e->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	e->fds = v;
	e->fds[e->n++] = fd;
	return 0;
}

/* Those after the first n closed. */
static void events_close_from(struct armed_events *e, size_t n)
{
	while (e->n > n)
		close(e->fds[--e->n]);
}

/* armed_binaries.h: the program on the root's own event, the tree's apart */
static int arm_site(struct arming *a, int fd, const struct usdt_site *s,
		    const struct usdt_spec *spec, uint64_t *event)
{
	uint32_t id;
	int err, tree_fd, own_fd;

	err = spec_id(a, spec, &id);
	if (!err)
		err = tracefs_uprobes_add(a->tracefs, fd, s->offset,
					  s->sema_offset, event);
	if (err)
		return err;
	tree_fd = open_uprobe_event(*event, a->root, true);
	if (tree_fd < 0)
		return tree_fd;
	err = events_add(&a->out->held, tree_fd);
	if (err) {
		close(tree_fd);
		return err;
	}
	own_fd = open_uprobe_event(*event, a->root, false);
	if (own_fd < 0)
		return own_fd;
	err = capture_attach_event(a->cap, s->name, own_fd, id);
	if (err)
		close(own_fd);
	return err;
}

/* How many distinct probe names of the sites this recording attaches. */
static int count_names(struct capture *cap, const struct usdt_sites *sites)
{
	size_t i, j;
	int n = 0;

	for (i = 0; i < sites->n; i++) {
		if (!capture_wants_probe(cap, sites->v[i].name))
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(sites->v[j].name, sites->v[i].name))
				break;
		n += j == i;
	}
	return n;
}

static int open_tracefs(struct arming *a)
{
	if (a->tracefs || a->tracefs_err)
		return a->tracefs_err;
	a->tracefs_err = tracefs_uprobes_open(&a->tracefs);
	if (a->tracefs_err) {
		p_debug("no tracefs to arm the command's runtimes with (%s): they are attached to after their exec",
			strerror(-a->tracefs_err));
		return a->tracefs_err;
	}
	capture_own_tracefs(a->cap, a->tracefs);
	return 0;
}

/*
 * Every site this recording attaches, once each spec is known to parse
 * (else none: the file is left to the attach after exec).
 */
static int arm_sites(struct arming *a, int fd, const char *name,
		     const struct usdt_sites *sites, uint64_t *events,
		     size_t *armed)
{
	size_t i, nlinks = capture_nlinks(a->cap), nheld = a->out->held.n;
	struct usdt_spec *specs;
	int err = 0;

	*armed = 0;
	specs = calloc(sites->n, sizeof(*specs));
	if (!specs)
		return -ENOMEM;
	for (i = 0; i < sites->n; i++) {
		if (!capture_wants_probe(a->cap, sites->v[i].name))
			continue;
		if (usdt_arg_spec_parse(sites->v[i].args, &specs[i])) {
			p_debug("%s: etdump:%s's arguments \"%s\" are not read here: attached to after its exec",
				name, sites->v[i].name, sites->v[i].args);
			goto out;
		}
	}
	if (open_tracefs(a))
		goto out;
	for (i = 0; i < sites->n; i++) {
		if (!capture_wants_probe(a->cap, sites->v[i].name))
			continue;
		err = arm_site(a, fd, &sites->v[i], &specs[i],
			       &events[*armed]);
		if (err)
			break;
		(*armed)++;
	}
	/*
	 * None of it then (a kernel without BPF cookies, say): its sites
	 * would fire beside the attach after exec. Its events, unused, go
	 * at the end with the others.
	 */
	if (err && err != -ENOMEM) {
		p_debug("%s: cannot arm etdump:%s (%s): attached to after its exec",
			name, sites->v[i].name, strerror(-err));
		capture_detach_since(a->cap, nlinks);
		events_close_from(&a->out->held, nheld);
		*armed = 0;
		err = 0;
	}
out:
	free(specs);
	return err;
}

/* The device of the folder name is in (armed_file.dir_dev). */
static dev_t folder_dev(const char *name, dev_t dev)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(name, '/');
	struct stat st;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - name + 1), name);
	return stat(dir, &st) ? dev : st.st_dev;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a && a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * A file the user named to arm (--follow-binary) that cannot be: said,
 * and the recording refused. A word of the command line is only a guess:
 * left quietly.
 */
static int not_armed(bool named, const char *name, const char *why)
{
	if (!named)
		return 0;
	p_err("--follow-binary %s: %s", name, why);
	return -EINVAL;
}

/* One name: a regular ELF file with etdump probes, not armed yet. */
static int arm_file(struct arming *a, struct armed_binaries *out,
		    const char *name, const struct stat *skip, bool named)
{
	struct usdt_sites sites = { 0 };
	uint64_t *events = NULL;
	struct armed_file *v;
	char err[512];
	struct stat st;
	size_t armed;
	int fd, ret = 0, nprobes;

	/* no symbolic link followed: record is root */
	fd = open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return not_armed(named, name, errno == ELOOP ?
				 "a symbolic link: give the file it names" :
				 strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ret = not_armed(named, name, "not a regular file");
		goto out;
	}
	if (same_file(skip, &st) ||
	    armed_binaries_find(out, st.st_dev, st.st_ino))
		goto out;
	/* the armed map is full: the others are attached after exec */
	if (out->n == FOLLOW_MAX_ARMED) {
		ret = not_armed(named, name, "more files armed than "
				"bpf/follow_children.bpf.h holds");
		goto out;
	}
	/* not an ELF file (a script), or no etdump probes in it */
	ret = usdt_sites_read(fd, name, "etdump", &sites, err, sizeof(err));
	if (ret) {
		if (named && ret != -ENOMEM)
			p_err("--follow-binary %s", err);
		ret = named || ret == -ENOMEM ? ret : 0;
		goto out;
	}
	if (!sites.n) {
		ret = not_armed(named, name, "no 'etdump' USDT probes");
		goto out;
	}
	/* none this recording attaches (batched, and no flush): said after exec */
	nprobes = count_names(a->cap, &sites);
	if (!nprobes)
		goto out;
	v = realloc(out->v, (out->n + 1) * sizeof(*v));
	if (!v) {
		ret = -ENOMEM;
		goto out;
	}
	out->v = v;
	events = calloc(sites.n, sizeof(*events));
	if (!events) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * Without BPF cookies no program can run on the events before the
	 * exec: the file is armed with none, and a process that execs it is
	 * stopped there until attached (follow_children.bpf.h).
	 */
	if (kernel_features()->bpf_cookie) {
		ret = arm_sites(a, fd, name, &sites, events, &armed);
	} else {
		kernel_features_note("BPF cookies need Linux %s: a child that execs a runtime the command names is stopped at its exec until its probes are attached",
				     "5.15");
		ret = 0;
		armed = 0;
	}
	if (!ret && !armed && named && kernel_features()->bpf_cookie)
		p_warn("--follow-binary %s: cannot be armed here (-v says why): its processes are attached to after their exec",
		       name);
	if (ret || (!armed && kernel_features()->bpf_cookie))
		goto out;
	v[out->n] = (struct armed_file){ .dev = st.st_dev, .ino = st.st_ino,
					 .dir_dev = folder_dev(name, st.st_dev),
					 .nprobes = nprobes, .events = events,
					 .nevents = armed };
	v[out->n].path = strdup(name);
	if (!v[out->n].path) {
		ret = -ENOMEM;
		goto out;
	}
	events = NULL;
	out->n++;
	p_debug("armed %s: %d probe(s) at %zu site(s)", name, nprobes, armed);
out:
	free(events);
	usdt_sites_free(&sites);
	close(fd);
	return ret;
}

int armed_binaries_arm(struct armed_binaries *out, struct capture *cap,
		       pid_t root, char *const argv[],
		       char *const extra[], size_t nextra,
		       const struct stat *skip)
{
	struct arming a = { .cap = cap, .out = out, .root = root };
	struct command_files files;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	a.slots = capture_usdt_spec_slots(cap);
	err = command_words_files(argv, getenv("PATH"), &files);
	if (err)
		return err;
	for (i = 0; !err && i < nextra; i++)
		err = arm_file(&a, out, extra[i], skip, true);
	for (i = 0; !err && i < files.n; i++)
		err = arm_file(&a, out, files.v[i], skip, false);
	command_files_free(&files);
	free(a.specs);
	return err;
}

int armed_binaries_anchor(const struct armed_file *f, pid_t pid,
			  struct armed_events *out)
{
	size_t i;
	int fd, err;

	for (i = 0; i < f->nevents; i++) {
		fd = open_uprobe_event(f->events[i], pid, false);
		if (fd < 0) {
			armed_events_close(out);
			return fd;
		}
		err = events_add(out, fd);
		if (err) {
			close(fd);
			armed_events_close(out);
			return err;
		}
	}
	return 0;
}

void armed_events_close(struct armed_events *e)
{
	events_close_from(e, 0);
	free(e->fds);
	e->fds = NULL;
}

const struct armed_file *armed_binaries_find(const struct armed_binaries *a,
					     dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->v[i].dev == dev && a->v[i].ino == ino)
			return &a->v[i];
	return NULL;
}

void armed_binaries_free(struct armed_binaries *a)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		free(a->v[i].path);
		free(a->v[i].events);
	}
	armed_events_close(&a->held);
	free(a->v);
	memset(a, 0, sizeof(*a));
}
