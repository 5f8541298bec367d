// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture/armed_binaries.h"
#include "capture/follow_children.h"
#include "lib/log.h"
#include "schema/etdump_follow.h"
#include "target/probe_objects.h"
#include "target/process_objects.h"
#include "target/usdt_notes.h"

/* The summary names this many followed processes, then counts the rest. */
#define SUMMARY_NAMED 8

/* A process attached to, and the executable file it was attached for. */
struct attached {
	pid_t pid;
	dev_t dev;
	ino_t ino;
	char *exe;
	int pidfd;              /* -1: a target (target.h waits for it) */
	bool exited;
	bool followed;          /* attached here, not by record at start */
	bool events;            /* marked recorded in the map (hold()) */
	struct armed_events anchor;  /* an armed file's: its own events */
};

struct follow_children {
	struct ring_buffer *rb;
	struct capture *cap;
	const pid_t *roots;
	size_t nroots;
	struct attached *v;
	size_t n, cap_n;
	size_t followed;        /* attached here, not by record at start */
	size_t missed;          /* had probes, gone before attached */
	int err;                /* -ENOMEM met in the ring's callback */
	char *first_note;       /* said before the first attach */
	__u64 execs_read;       /* records the ring gave, whole or not */
	struct armed_binaries armed;  /* recorded from their exec by the kernel */
	/* told of each exec seen (follow_children_on_exec()) */
	follow_exec_fn on_exec;
	void *exec_ctx;
};

static bool is_root(const struct follow_children *fc, pid_t pid)
{
	size_t i;

	for (i = 0; i < fc->nroots; i++)
		if (fc->roots[i] == pid)
			return true;
	return false;
}

static const struct attached *find(const struct follow_children *fc,
				   pid_t pid, const struct stat *st)
{
	size_t i;

	for (i = 0; i < fc->n; i++)
		if (fc->v[i].pid == pid && fc->v[i].dev == st->st_dev &&
		    fc->v[i].ino == st->st_ino && !fc->v[i].exited)
			return &fc->v[i];
	return NULL;
}

static int add(struct follow_children *fc, pid_t pid, const struct stat *st,
	       const char *exe, int pidfd)
{
	struct attached *v = fc->v;

	if (fc->n == fc->cap_n) {
		fc->cap_n = fc->cap_n ? 2 * fc->cap_n : 8;
		v = realloc(fc->v, fc->cap_n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		fc->v = v;
	}
	v[fc->n] = (struct attached){ .pid = pid, .dev = st->st_dev,
				      .ino = st->st_ino, .pidfd = pidfd };
	v[fc->n].exe = strdup(exe);
	if (!v[fc->n].exe)
		return -ENOMEM;
	fc->n++;
	return 0;
}

/*
 * The file the process runs now, and its name. record is root: it opens
 * nothing by a name that is not that very file. stat() of /proc/PID/exe
 * follows the kernel's own link to the file exec'd; the name it reads
 * (bounded) must still be that file, and no symbolic link, because
 * probe_objects_find() opens it by name. -ESTALE when it is not (replaced,
 * deleted); -ENOENT, -ESRCH when the process is gone.
 */
static int exec_file(pid_t pid, char name[PATH_MAX], struct stat *st)
{
	char link[64];
	struct stat at;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if (stat(link, st))
		return -errno;
	n = readlink(link, name, PATH_MAX - 1);
	if (n < 0)
		return -errno;
	name[n] = '\0';
	if (lstat(name, &at) || !S_ISREG(at.st_mode) ||
	    at.st_dev != st->st_dev || at.st_ino != st->st_ino)
		return -ESTALE;
	return 0;
}

/* The line record keeps for the first child recorded, said once. */
static void said_first(struct follow_children *fc)
{
	if (fc->first_note) {
		p_info("%s", fc->first_note);
		free(fc->first_note);
		fc->first_note = NULL;
	}
}

static int pidfd_open(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

/*
 * A descendant's pidfd, held: -1 when it is gone. With events, it is
 * marked recorded in the map (its probes' events count), only once its
 * pidfd is held and while the map still follows it: the exit program has
 * removed it otherwise, and the pid may be another's.
 */
static int hold(struct follow_children *fc, pid_t pid, bool events)
{
	__u8 recorded = FOLLOW_TRACKED | FOLLOW_RECORDED | FOLLOW_EXECED;
	int pidfd = pidfd_open(pid);

	if (pidfd < 0 || !events)
		return pidfd;
	if (bpf_map_update_elem(capture_followed_map_fd(fc->cap), &pid,
				&recorded, BPF_EXIST)) {
		close(pidfd);
		return -1;
	}
	return pidfd;
}

/* Attach to pid, which exec'd. */
static int attach(struct follow_children *fc, pid_t pid, const char *exe,
		  const struct stat *st, const struct probe_objects *objs)
{
	int n, err, pidfd = -1;

	if (!is_root(fc, pid)) {
		pidfd = hold(fc, pid, true);
		if (pidfd < 0)
			return 0; /* gone already */
	}
	err = capture_attach_child(fc->cap, objs, pid, &n);
	/* exited before its probes were in: it ran untraced */
	if (err == -ENOMEM || err == -ESRCH) {
		if (pidfd >= 0)
			close(pidfd);
		fc->missed += err == -ESRCH; /* it had probes */
		return err == -ENOMEM ? err : 0;
	}
	if (err) {
		/* said, naming the probe; what is attached stays */
		p_warn("PID %d (%s): not every probe attached; its runs may be incomplete",
		       (int)pid, exe);
	}
	err = add(fc, pid, st, exe, pidfd);
	if (err) {
		if (pidfd >= 0)
			close(pidfd);
		return err;
	}
	fc->v[fc->n - 1].followed = true;
	fc->v[fc->n - 1].events = pidfd >= 0;
	fc->followed++;
	said_first(fc);
	p_info("following PID %d (%s): attached %d probe(s)", (int)pid, exe,
	       n);
	return 0;
}

/*
 * A process that exec'd and is gone: whether the file it ran (by its name
 * as exec'd, relative to our directory, which a command inherits; and only
 * if that is still the inode the kernel saw) carries etdump probes.
 */
static bool gone_carried_probes(const struct follow_exec *e)
{
	struct usdt_probe_list probes;
	char name[FOLLOW_FILENAME_MAX], err[256];
	bool carried = false;
	struct stat st;
	int fd;

	memcpy(name, e->filename, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	if (!name[0])
		return false;
	fd = open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_ino == e->ino &&
	    major(st.st_dev) == e->dev >> 20 &&
	    minor(st.st_dev) == (e->dev & 0xfffff) &&
	    !usdt_notes_read_fd(fd, name, &probes, err, sizeof(err))) {
		carried = usdt_notes_count(&probes, "etdump") > 0;
		usdt_notes_free(&probes);
	}
	close(fd);
	return carried;
}

/* dev_t as the kernel keeps it (major << 20 | minor), as bpf/ sees it. */
static __u32 kernel_dev(dev_t dev)
{
	return (__u32)major(dev) << 20 | minor(dev);
}

static const struct armed_file *armed_exec(const struct follow_children *fc,
					   const struct follow_exec *e)
{
	size_t i;

	for (i = 0; i < fc->armed.n; i++)
		if ((kernel_dev(fc->armed.v[i].dev) == e->dev ||
		     kernel_dev(fc->armed.v[i].dir_dev) == e->dev) &&
		    fc->armed.v[i].ino == e->ino)
			return &fc->armed.v[i];
	return NULL;
}

bool follow_children_is_armed(const struct follow_children *fc,
			      const struct stat *st)
{
	size_t i;

	for (i = 0; fc && i < fc->armed.n; i++)
		if ((fc->armed.v[i].dev == st->st_dev ||
		     fc->armed.v[i].dir_dev == st->st_dev) &&
		    fc->armed.v[i].ino == st->st_ino && fc->armed.v[i].nevents)
			return true;
	return false;
}

/*
 * A followed process exec'd an armed file: the kernel records it from its
 * first instruction already (bpf/follow_children.bpf.h marked it); it is counted,
 * named, and waited for. Gone already, it is recorded all the same.
 */
static int armed_seen(struct follow_children *fc, const struct follow_exec *e,
		      const struct armed_file *f)
{
	struct stat st = { .st_dev = f->dev, .st_ino = f->ino };
	pid_t pid = (pid_t)e->tgid;
	int err, pidfd = pidfd_open(pid);

	err = add(fc, pid, &st, f->path, pidfd);
	if (err) {
		if (pidfd >= 0)
			close(pidfd);
		return err;
	}
	fc->v[fc->n - 1].followed = true;
	fc->v[fc->n - 1].events = true;  /* the kernel marked it at its exec */
	fc->v[fc->n - 1].exited = pidfd < 0;
	fc->followed++;
	said_first(fc);
	/*
	 * Its breakpoints no longer hang on its parents' events
	 * (armed_binaries.h): before it is said followed, so that whoever
	 * waits for that line knows them held.
	 */
	err = pidfd < 0 ? 0 : armed_binaries_anchor(f, pid,
						     &fc->v[fc->n - 1].anchor);
	if (err == -ENOMEM)
		return err;
	if (err && err != -ESRCH)
		p_warn("PID %d (%s): cannot open its own perf events (%s): its probes hang on its parents'",
		       (int)pid, f->path, strerror(-err));
	p_info("following PID %d (%s): attached %d probe(s) before its exec",
	       (int)pid, f->path, f->nprobes);
	return 0;
}

static int exec_seen(struct follow_children *fc, const struct follow_exec *e)
{
	pid_t pid = (pid_t)e->tgid;
	struct probe_objects objs = { 0 };
	const struct armed_file *armed = armed_exec(fc, e);
	char exe[PATH_MAX], err[512];
	struct stat st;
	int ret;

	/* without events it is stopped at its exec: attached as any other */
	if (armed && armed->nevents)
		return armed_seen(fc, e, armed);
	ret = exec_file(pid, exe, &st);
	/*
	 * It has exec'd again since (a script's interpreter, then what the
	 * script execs; env, then the runtime): that exec's own event comes
	 * next and says whether it is armed, recorded by the kernel already.
	 */
	if (!ret && st.st_ino != e->ino)
		return 0;
	/* gone before it was looked at: was it a runtime? */
	if (ret == -ENOENT || ret == -ESRCH)
		fc->missed += gone_carried_probes(e);
	if (ret == -ESTALE)
		p_warn("PID %d: %s is no longer the file it runs (replaced, deleted or a symbolic link now): not followed",
		       (int)pid, exe);
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	/* the same file again: its probes are attached for this process */
	if (find(fc, pid, &st))
		return 0;
	ret = probe_objects_find(&objs, pid, exe, false, err, sizeof(err));
	if (ret) {
		/* gone since, or a file we cannot read: it runs untraced */
		if (ret == -ENOENT || ret == -ESRCH)
			fc->missed += gone_carried_probes(e);
		else
			p_warn("PID %d: %s; its own runs are not recorded",
			       (int)pid, err);
		return ret == -ENOMEM ? ret : 0;
	}
	if (!objs.etdump)
		goto out; /* followed for its own children only */
	if (capture_batched(fc->cap) && !probe_objects_all_have(&objs, "flush")) {
		p_warn("PID %d (%s): no flush probe, and this recording is batched: not recorded (record with --precise)",
		       (int)pid, exe);
		goto out;
	}
	ret = attach(fc, pid, exe, &st, &objs);
out:
	probe_objects_free(&objs);
	return ret;
}

static int on_exec(void *ctx, void *data, size_t len)
{
	struct follow_children *fc = ctx;
	const struct follow_exec *e = data;

	const struct armed_file *armed;

	fc->execs_read++;
	if (len < sizeof(*e))
		return 0;
	armed = armed_exec(fc, e);
	p_debug("PID %u exec'd %.*s (device %u, inode %llu)%s", e->tgid,
		(int)sizeof(e->filename), e->filename, e->dev,
		(unsigned long long)e->ino, armed ? ": armed" : "");
	if (!fc->err)
		fc->err = exec_seen(fc, e);
	/* a descendant's (the targets' own are record's to watch) */
	if (!fc->err && fc->on_exec && !is_root(fc, (pid_t)e->tgid))
		fc->err = fc->on_exec(fc->exec_ctx, (pid_t)e->tgid);
	/* stopped at its exec (follow_children.bpf.h), attached now or never */
	if (armed && !armed->nevents)
		kill((pid_t)e->tgid, SIGCONT);
	return 0;
}

int follow_children_open(struct follow_children **out, struct capture *cap,
			 const pid_t *roots, size_t nroots)
{
	struct follow_children *fc;
	__u8 tracked = FOLLOW_TRACKED;
	int err, map = capture_followed_map_fd(cap);
	size_t i;
	__u32 key;

	fc = calloc(1, sizeof(*fc));
	if (!fc)
		return -ENOMEM;
	fc->cap = cap;
	fc->roots = roots;
	fc->nroots = nroots;
	for (i = 0, err = 0; !err && i < nroots; i++) {
		key = roots[i];
		if (bpf_map_update_elem(map, &key, &tracked, BPF_ANY))
			err = -errno;
	}
	if (!err)
		err = capture_follow_attach(cap);
	if (err) {
		p_err("cannot follow the target's children: %s (--no-inherit records the target alone; -v for libbpf's log)",
		      strerror(-err));
		goto fail;
	}
	fc->rb = ring_buffer__new(capture_execs_map_fd(cap), on_exec,
				  fc, NULL);
	if (!fc->rb) {
		err = -errno;
		p_err("cannot map the ring of exec'd children: %s",
		      strerror(-err));
		goto fail;
	}
	*out = fc;
	return 0;
fail:
	follow_children_free(fc);
	return err;
}

int follow_children_arm(struct follow_children *fc, char *const argv[],
			char *const extra[], size_t nextra, const char *skip_exe)
{
	struct follow_armed_key key = { 0 };
	struct stat skip;
	__u8 one = 1;
	size_t i;
	int err, map;

	if (skip_exe && stat(skip_exe, &skip))
		skip_exe = NULL;
	err = armed_binaries_arm(&fc->armed, fc->cap, fc->roots[0], argv,
				 extra, nextra, skip_exe ? &skip : NULL);
	if (err)
		return err;
	map = capture_follow_armed_map_fd(fc->cap);
	/* by the device stat says, and by its folder's (armed_file.dir_dev) */
	for (i = 0; i < 2 * fc->armed.n; i++) {
		key.dev = kernel_dev(i % 2 ? fc->armed.v[i / 2].dir_dev :
				     fc->armed.v[i / 2].dev);
		key.ino = fc->armed.v[i / 2].ino;
		if (bpf_map_update_elem(map, &key, &one, BPF_ANY)) {
			err = -errno;
			p_err("cannot mark %s armed: %s", fc->armed.v[i / 2].path,
			      strerror(-err));
			return err;
		}
	}
	return 0;
}

int follow_children_attached(struct follow_children *fc, pid_t pid,
			     const char *exe)
{
	struct stat st;

	if (stat(exe, &st))
		return 0; /* then its exec is looked at as any other */
	return add(fc, pid, &st, exe, -1);
}

void follow_children_on_exec(struct follow_children *fc, follow_exec_fn fn,
			     void *ctx)
{
	fc->on_exec = fn;
	fc->exec_ctx = ctx;
}

int follow_children_record(struct follow_children *fc, pid_t pid,
			   bool events)
{
	char exe[PATH_MAX];
	struct attached *v;
	size_t i;
	int pidfd, err;

	if (is_root(fc, pid))
		return 0;
	for (i = 0; i < fc->n; i++) {
		v = &fc->v[i];
		if (v->pid != pid || v->exited || !v->followed)
			continue;
		/* listed: its events count already, or from now on */
		if (!events || v->events)
			return 0;
		pidfd = hold(fc, pid, true);
		if (pidfd < 0)
			return -ESRCH;
		close(pidfd);
		v->events = true;
		return 0;
	}
	pidfd = hold(fc, pid, events);
	if (pidfd < 0 || process_exe(pid, exe)) {
		if (pidfd >= 0)
			close(pidfd);
		return -ESRCH;
	}
	/* named as it runs; no file of its own (find() never takes it for
	   an exec it attached to) */
	err = add(fc, pid, &(struct stat){ 0 }, exe, pidfd);
	if (err) {
		close(pidfd);
		return err;
	}
	v = &fc->v[fc->n - 1];
	v->followed = true;
	v->events = events;
	fc->followed++;
	said_first(fc);
	return 0;
}

int follow_children_first_note(struct follow_children *fc, const char *line)
{
	free(fc->first_note);
	fc->first_note = strdup(line);
	return fc->first_note ? 0 : -ENOMEM;
}

size_t follow_children_count(const struct follow_children *fc)
{
	return fc->followed;
}

size_t follow_children_missed(const struct follow_children *fc)
{
	return fc ? fc->missed : 0;
}

int follow_children_fd(const struct follow_children *fc)
{
	return ring_buffer__epoll_fd(fc->rb);
}

int follow_children_consume(struct follow_children *fc)
{
	int n = ring_buffer__consume(fc->rb);

	if (fc->err)
		return fc->err;
	return n < 0 ? n : 0;
}

/*
 * A descendant forked and not exec'd since: a subshell that may start a
 * runtime yet, or a fork on its way to exec one (the command may exit
 * first). The map is the kernel's word: its exit program removes the dead.
 */
static bool subshell_running(const struct follow_children *fc)
{
	int map = capture_followed_map_fd(fc->cap);
	/*
	 * From key 0, no process's tgid: a hash map's next key after one it
	 * does not hold is its first (a NULL key, the same, is a bad pointer
	 * to valgrind's syscall check).
	 */
	__u32 key = 0, next;
	__u8 flags;

	while (!bpf_map_get_next_key(map, &key, &next)) {
		key = next;
		if (is_root(fc, (pid_t)key) ||
		    bpf_map_lookup_elem(map, &key, &flags))
			continue;
		if (!(flags & FOLLOW_EXECED))
			return true;
	}
	return false;
}

bool follow_children_exited(struct follow_children *fc)
{
	struct pollfd pfd = { .events = POLLIN };
	uint64_t forks_lost, execs_lost;
	bool all = true;
	size_t i;

	if (subshell_running(fc))
		return false;
	/*
	 * The exec of a child forked by a command that has exited (a shell's
	 * `runtime &`) may not be in the list yet: its record is read now,
	 * and one still on its way into the ring (bpf/follow_children.bpf.h
	 * counts an exec before it flags it) is waited for. An error is the
	 * next follow_children_consume()'s to return.
	 */
	if (follow_children_consume(fc))
		return false;
	capture_follow_lost(fc->cap, &forks_lost, &execs_lost);
	if (fc->execs_read + execs_lost < capture_follow_execs_begun(fc->cap))
		return false;
	for (i = 0; i < fc->n; i++) {
		if (fc->v[i].pidfd < 0 || fc->v[i].exited)
			continue;
		pfd.fd = fc->v[i].pidfd;
		fc->v[i].exited = poll(&pfd, 1, 0) > 0;
		if (fc->v[i].exited)
			armed_events_close(&fc->v[i].anchor);
		all = all && fc->v[i].exited;
	}
	return all;
}

void follow_children_summary(const struct follow_children *fc)
{
	char list[SUMMARY_NAMED * (PATH_MAX / 8)] = "";
	size_t i, named = 0, len = 0;
	uint64_t forks_lost, execs_lost;

	for (i = 0; i < fc->n && named < SUMMARY_NAMED; i++) {
		if (!fc->v[i].followed)
			continue;
		len += snprintf(list + len, len < sizeof(list) ?
				sizeof(list) - len : 0, "%sPID %d (%s)",
				named ? ", " : "", (int)fc->v[i].pid,
				fc->v[i].exe);
		if (len >= sizeof(list))
			len = sizeof(list) - 1;
		named++;
	}
	if (fc->followed)
		p_info("followed %zu process(es), each in its own runs: %s%s",
		       fc->followed, list,
		       fc->followed > named ? ", ..." : "");
	/* with none recorded, record's refusal says it */
	if (fc->missed && fc->followed)
		p_warn("%zu child process(es) with etdump probes exited before they could be attached: a child is attached after its exec, so one that ends sooner is not recorded (README: Following children)",
		       fc->missed);
	capture_follow_lost(fc->cap, &forks_lost, &execs_lost);
	if (forks_lost)
		p_warn("%llu child process(es) not followed: more than %d at once",
		       (unsigned long long)forks_lost, FOLLOW_MAX_PROCESSES);
	if (execs_lost)
		p_warn("%llu exec(s) of followed processes not seen (their ring was full)",
		       (unsigned long long)execs_lost);
}

void follow_children_free(struct follow_children *fc)
{
	size_t i;

	if (!fc)
		return;
	/*
	 * Execs not read yet: a process stopped at one (no BPF cookies) is
	 * let go, not attached (on_exec() skips that after an error).
	 */
	if (!fc->err)
		fc->err = -ECANCELED;
	if (fc->rb)
		ring_buffer__consume(fc->rb);
	for (i = 0; i < fc->n; i++) {
		if (fc->v[i].pidfd >= 0)
			close(fc->v[i].pidfd);
		armed_events_close(&fc->v[i].anchor);
		free(fc->v[i].exe);
	}
	free(fc->v);
	free(fc->first_note);
	armed_binaries_free(&fc->armed);
	ring_buffer__free(fc->rb);
	free(fc);
}
