// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture/capture.h"
#include "capture.skel.h"
#include "capture/counters.h"
#include "capture/kernel_features.h"
#include "lib/load_retry.h"
#include "lib/log.h"
#include "target/probe_objects.h"
#include "target/target.h"
#include "capture/tracefs_leftovers.h"
#include "capture/tracefs_uprobes.h"
#include "capture/usdt_arg_spec.h"

struct capture {
	struct capture_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link **links;
	size_t nlinks;
	const char *link_probes[16];  /* the probes attached, each once */
	size_t nprobes;
	struct bpf_link *switch_link;
	struct bpf_link *switch_exit_link; /* without task storage */
	/* batched: buffers left at a thread's exit or an exec, or lent */
	struct bpf_link *exit_link, *exec_link, *vfork_link;
	struct bpf_link *follow_links[3]; /* fork, exec, exit */
	/* events of armed_binaries.h: removed once their links are gone */
	struct tracefs_uprobes *tracefs;
	bool batched;
	bool values;             /* attach `value` (record --values) */
	bool allocations;        /* attach `allocation`, `allocator` */
	bool child_gone_quiet;   /* capture_attach_child(): its exit is no error */
	capture_record_fn on_record;
	void *ctx;
	uint32_t taken;          /* records handed over in this consume */
};

/*
 * Records one consume hands over at most: a target whose probes fill the
 * ring faster than the recorder reads it would otherwise keep libbpf's
 * consume going for as long as it runs, and the recorder's loop (a stop
 * signal, --duration, the raw capture's flush) would never come round.
 */
#define CONSUME_MAX 65536
/* what the callback returns to end a consume there (never a record's) */
#define CONSUME_PAUSE (-ECANCELED)

/*
 * A batched buffer comes in a ring record of the largest size; its header
 * says how much of it is used, and only that goes on.
 */
static int handle_record(void *ctx, void *data, size_t len)
{
	const struct etdump_rec_hdr *h = data;
	struct capture *cap = ctx;

	int err;

	if (len >= sizeof(*h) && h->size < len)
		len = h->size;
	err = cap->on_record(cap->ctx, data, len);
	/* libbpf has moved past the record: the next consume goes on */
	if (!err && ++cap->taken >= CONSUME_MAX)
		return CONSUME_PAUSE;
	return err;
}

/* Before load: what to read, and room for every CPU's perf event. */
static int configure_counters(struct capture_bpf *skel,
			      const struct counter_set *set)
{
	uint32_t i;

	if (!set || !set->n)
		return 0;
	skel->rodata->ncounters = set->n;
	skel->rodata->nr_cpus = set->ncpus;
	for (i = 0; i < set->n; i++)
		skel->rodata->counter_kind[i] = set->spec[i].kind;
	return bpf_map__set_max_entries(skel->maps.perf_counters,
					set->n * set->ncpus);
}

static bool needs_task_clock(const struct counter_set *set)
{
	uint32_t i;

	for (i = 0; set && i < set->n; i++)
		if (set->spec[i].kind == ETDUMP_CTR_TASK_CLOCK)
			return true;
	return false;
}

/*
 * Per-thread state in task storage, looked up by the task's BTF pointer,
 * or (before 5.11) in a hash map keyed by thread id.
 */
static bool per_task_storage(void)
{
	const struct kernel_features *kf = kernel_features();

	return kf->task_storage && kf->current_task_btf;
}

/* Threads whose switch state the hash holds at once (without task storage). */
#define SWITCH_STATE_THREADS 4096
/*
 * Without bpf_loop a value is copied by a loop the verifier walks to its
 * bound: bpf/value_copy.bpf.h's VALUE_COPY_BOUNDED_CHUNKS of 8 KiB.
 */
#define VALUE_BOUNDED_MIB 1u

/* After load: the perf event fds, at i * ncpus + cpu. */
static int install_counters(struct capture_bpf *skel,
			    const struct counter_set *set)
{
	int map = bpf_map__fd(skel->maps.perf_counters);
	uint32_t key, n;

	if (!set)
		return 0;
	n = set->n * set->ncpus;
	for (key = 0; key < n; key++) {
		if (set->spec[key / set->ncpus].kind != ETDUMP_CTR_PERF ||
		    set->fds[key] < 0)
			continue;
		if (bpf_map_update_elem(map, &key, &set->fds[key], BPF_ANY))
			return -errno;
	}
	return 0;
}

/*
 * The probes we capture, each with its program, in attach order: what
 * closes a scope before what opens one, so that a scope whose begin is
 * seen has its end seen (one begun between the two would stay open to the
 * end of the capture, and its run with it), and runs open last.
 */
static const struct {
	const char *probe;
	size_t offset;
} probe_programs[] = {
#define PROG(name) { #name, offsetof(struct capture_bpf, progs.on_##name) }
	PROG(profile_end),
	PROG(delegate_end),
	PROG(instruction),
	PROG(delegate_log),
	PROG(flush),
	PROG(profile_begin),
	PROG(delegate_begin),
	PROG(block),
	PROG(value),
	PROG(allocator),
	PROG(allocation),
#undef PROG
};
_Static_assert(sizeof(probe_programs) / sizeof(probe_programs[0]) <=
	       sizeof(((struct capture *)0)->link_probes) / sizeof(char *),
	       "room for every probe's name");

/* Whether the capture's mode uses the probe: only those are loaded. */
static bool probe_wanted(const struct capture *cap, const char *name)
{
	/* batched: the runtime buffers everything behind its flush */
	if (cap->batched != !strcmp(name, "flush"))
		return false;
	/* values only when asked: record --values */
	if (!cap->values && !strcmp(name, "value"))
		return false;
	/* allocations only when asked: record --allocations */
	if (!cap->allocations && !strncmp(name, "allocat", 7))
		return false;
	return true;
}

static struct bpf_program *probe_program(const struct capture *cap,
					 size_t i)
{
	/* a kernel without bpf_loop: the value program with a bounded loop */
	if (!strcmp(probe_programs[i].probe, "value") &&
	    !kernel_features()->bpf_loop)
		return cap->skel->progs.on_value_bounded;
	return *(struct bpf_program **)((char *)cap->skel +
					probe_programs[i].offset);
}

/*
 * Only the programs the mode uses are loaded (the verifier's time is most
 * of a load): the probes' of the mode, sched_switch for task-clock or
 * --sched, the children's for following them.
 */
static void choose_programs(struct capture *cap,
			    const struct capture_opts *opts)
{
	struct capture_bpf *sk = cap->skel;
	bool switches = needs_task_clock(opts->counters) || opts->sched;
	size_t i;

	/* of the two value programs, the one probe_program() does not give */
	bpf_program__set_autoload(sk->progs.on_value, false);
	bpf_program__set_autoload(sk->progs.on_value_bounded, false);
	for (i = 0; i < sizeof(probe_programs) / sizeof(probe_programs[0]); i++)
		bpf_program__set_autoload(probe_program(cap, i),
					  probe_wanted(cap,
						       probe_programs[i].probe));
	bpf_program__set_autoload(sk->progs.on_sched_switch, switches);
	bpf_program__set_autoload(sk->progs.on_switch_exit,
				  switches && !per_task_storage());
	bpf_program__set_autoload(sk->progs.on_thread_exit, cap->batched);
	bpf_program__set_autoload(sk->progs.on_sys_enter, cap->batched);
	bpf_program__set_autoload(sk->progs.on_vfork, cap->batched);
	bpf_program__set_autoload(sk->progs.on_fork, opts->follow_children);
	bpf_program__set_autoload(sk->progs.on_exec, opts->follow_children);
	bpf_program__set_autoload(sk->progs.on_exit, opts->follow_children);
}


/*
 * What the kernel lacks, made up for before load: each way taken said in
 * one line of the summary, only when the recording uses it.
 */
static int adapt_to_kernel(struct capture *cap, const struct capture_opts *opts)
{
	const struct kernel_features *kf = kernel_features();
	struct capture_bpf *sk = cap->skel;
	bool switches = needs_task_clock(opts->counters) || opts->sched;
	int err;

	sk->rodata->has_task_storage = kf->task_storage;
	sk->rodata->has_current_task_btf = kf->current_task_btf;
	if (!per_task_storage()) {
		/* prealloc'd LRU: never full, and no allocation in sched_switch */
		err = bpf_map__set_type(sk->maps.switched_in, BPF_MAP_TYPE_LRU_HASH);
		if (!err)
			err = bpf_map__set_map_flags(sk->maps.switched_in, 0);
		if (!err)
			err = bpf_map__set_max_entries(sk->maps.switched_in,
						       SWITCH_STATE_THREADS);
		if (err)
			return err;
	}
	if (!kf->task_storage && switches)
		kernel_features_note("task storage needs Linux %s: each thread's %s state in a hash map keyed by thread, removed at its exit",
				     "5.11", opts->sched ? "switch" : "task-clock");
	if (!kf->current_task_btf && opts->counters && opts->counters->n)
		kernel_features_note("bpf_get_current_task_btf needs Linux %s: the thread's counts read with bpf_probe_read_kernel",
				     "5.11");
	if (!kf->bpf_loop && opts->values)
		kernel_features_note("bpf_loop needs Linux %s: values copied by a bounded loop, at most %u MiB of each",
				     "5.17", VALUE_BOUNDED_MIB);
	return 0;
}

/* What load_skeleton() is handed through load_retry(). */
struct skeleton_load {
	struct capture *cap;
	const struct capture_opts *opts;
};

/*
 * The skeleton opened, set for opts, and loaded: 0 or -errno, said (an
 * -EAGAIN only at the last try: load_retry.h).
 */
static int load_skeleton(void *ctx, bool last)
{
	struct skeleton_load *l = ctx;
	struct capture *cap = l->cap;
	const struct capture_opts *opts = l->opts;
	uint64_t dev, ino;
	int err;

	cap->skel = capture_bpf__open();
	if (!cap->skel) {
		err = -errno;
		p_err("cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	cap->skel->rodata->target_tgid = opts->pid;
	target_pid_namespace(&dev, &ino);
	cap->skel->rodata->pidns_dev = dev;
	cap->skel->rodata->pidns_ino = ino;
	if (opts->nmore > CAPTURE_MAX_MORE || (opts->nmore && ino)) {
		p_err("several processes: at most %d more, and not from inside a PID namespace",
		      CAPTURE_MAX_MORE);
		return -EINVAL;
	}
	for (size_t i = 0; i < opts->nmore; i++)
		cap->skel->rodata->more_tgids[i] = opts->more_pids[i];
	cap->skel->rodata->nmore_tgids = opts->nmore;
	/* wake the collector early once a quarter of the ring is used */
	cap->skel->rodata->wakeup_bytes = opts->ring_bytes / 4;
	cap->skel->rodata->sched_records = opts->sched;
	cap->skel->rodata->follow_children = opts->follow_children;
	/* follow_children.bpf.h: armed files without cookies */
	cap->skel->rodata->stop_armed_at_exec = opts->follow_children &&
		!kernel_features()->bpf_cookie;
	cap->skel->rodata->value_max = opts->value_max;
	cap->values = opts->values;
	cap->allocations = opts->allocations;
	err = bpf_map__set_max_entries(cap->skel->maps.events, opts->ring_bytes);
	if (!err)
		err = configure_counters(cap->skel, opts->counters);
	if (!err)
		err = adapt_to_kernel(cap, opts);
	if (err)
		return err;
	choose_programs(cap, opts);
	err = capture_bpf__load(cap->skel);
	if (err && (err != -EAGAIN || last))
		p_err("cannot load the BPF programs: %s (run with -v for the verifier's log)",
		      strerror(-err));
	return err;
}

/* A try that the verifier gave up on: the object cannot be loaded again. */
static void unload_skeleton(void *ctx)
{
	struct skeleton_load *l = ctx;

	capture_bpf__destroy(l->cap->skel);
	l->cap->skel = NULL;
}

int capture_open(struct capture **out, const struct capture_opts *opts)
{
	struct skeleton_load load;
	struct capture *cap;
	int err;

	cap = calloc(1, sizeof(*cap));
	if (!cap)
		return -ENOMEM;
	cap->on_record = opts->on_record;
	cap->ctx = opts->ctx;
	cap->batched = opts->batched;
	load = (struct skeleton_load){ .cap = cap, .opts = opts };
	err = load_retry(load_skeleton, unload_skeleton, &load);
	if (err)
		goto fail;
	err = install_counters(cap->skel, opts->counters);
	if (err) {
		p_err("cannot hand the perf counters to BPF: %s", strerror(-err));
		goto fail;
	}
	if (needs_task_clock(opts->counters) || opts->sched) {
		cap->switch_link = bpf_program__attach(cap->skel->progs.on_sched_switch);
		if (cap->switch_link && !per_task_storage())
			cap->switch_exit_link =
				bpf_program__attach(cap->skel->progs.on_switch_exit);
		if (!cap->switch_link ||
		    (!per_task_storage() && !cap->switch_exit_link)) {
			err = -errno;
			p_err("cannot attach to sched_switch for %s: %s",
			      opts->sched ? "--sched" : "task-clock",
			      strerror(-err));
			goto fail;
		}
	}
	if (cap->batched) {
		cap->exit_link = bpf_program__attach(cap->skel->progs.on_thread_exit);
		cap->exec_link = cap->exit_link ?
			bpf_program__attach(cap->skel->progs.on_sys_enter) : NULL;
		cap->vfork_link = cap->exec_link ?
			bpf_program__attach(cap->skel->progs.on_vfork) : NULL;
		if (!cap->vfork_link) {
			err = -errno;
			p_err("cannot attach to a thread's exit, exec or vfork, where what a batched thread holds is read: %s",
			      strerror(-err));
			goto fail;
		}
	}
	cap->rb = ring_buffer__new(bpf_map__fd(cap->skel->maps.events),
				   handle_record, cap, NULL);
	if (!cap->rb) {
		err = -errno;
		p_err("cannot map the ring buffer: %s", strerror(-err));
		goto fail;
	}
	*out = cap;
	return 0;
fail:
	capture_close(cap);
	return err;
}

/* The name of each probe attached, once, in attach order. */
static void note_probe(struct capture *cap, const char *name)
{
	size_t i;

	for (i = 0; i < cap->nprobes; i++)
		if (cap->link_probes[i] == name)
			return;
	cap->link_probes[cap->nprobes++] = name;
}

/* Room for one more link, made before the link so that none is lost. */
static int reserve_link(struct capture *cap)
{
	struct bpf_link **links;

	links = realloc(cap->links, (cap->nlinks + 1) * sizeof(*links));
	if (!links)
		return -ENOMEM;
	cap->links = links;
	return 0;
}

static void keep_link(struct capture *cap, struct bpf_link *link,
		      const char *name)
{
	cap->links[cap->nlinks++] = link;
	note_probe(cap, name);
}

static int attach_one(struct capture *cap, struct bpf_program *prog,
		      pid_t pid, const char *path, const char *name)
{
	struct bpf_link *link;
	int err;

	if (reserve_link(cap))
		return -ENOMEM;
	/* one attach per probe name covers every site of that name */
	link = bpf_program__attach_usdt(prog, pid, path, "etdump", name, NULL);
	if (!link) {
		err = -errno;
		if (err == -ESRCH && cap->child_gone_quiet)
			return err;
		p_err("%s: cannot attach to etdump:%s: %s (run with -v for libbpf's log)",
		      path, name, strerror(-err));
		return err;
	}
	keep_link(cap, link, name);
	return 0;
}

int capture_attach(struct capture *cap, const struct probe_objects *objs,
		   int *nattached)
{
	return capture_attach_pid(cap, objs, cap->skel->rodata->target_tgid,
				  nattached);
}

/* Probe i's program, or NULL when this recording leaves that probe. */
static struct bpf_program *program_of(const struct capture *cap, size_t i)
{
	return probe_wanted(cap, probe_programs[i].probe) ?
		       probe_program(cap, i) : NULL;
}

/* The index in probe_programs of a probe this recording attaches, or -1. */
static int probe_index(const struct capture *cap, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(probe_programs) / sizeof(probe_programs[0]); i++)
		if (!strcmp(probe_programs[i].probe, name))
			return program_of(cap, i) ? (int)i : -1;
	return -1;
}

bool capture_wants_probe(const struct capture *cap, const char *name)
{
	return probe_index(cap, name) >= 0;
}

int capture_attach_event(struct capture *cap, const char *name, int perf_fd,
			 uint32_t spec_id)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = spec_id);
	struct bpf_link *link;
	int i = probe_index(cap, name);

	if (i < 0)
		return -EINVAL;
	/* the spec is found by the cookie alone: libbpf refuses it too */
	if (!kernel_features()->bpf_cookie)
		return -EOPNOTSUPP;
	if (reserve_link(cap))
		return -ENOMEM;
	link = bpf_program__attach_perf_event_opts(program_of(cap, i), perf_fd,
						   &opts);
	if (!link)
		return -errno;
	keep_link(cap, link, probe_programs[i].probe);
	return 0;
}

size_t capture_nlinks(const struct capture *cap)
{
	return cap->nlinks;
}

void capture_detach_since(struct capture *cap, size_t n)
{
	while (cap->nlinks > n)
		bpf_link__destroy(cap->links[--cap->nlinks]);
}

uint32_t capture_usdt_spec_slots(const struct capture *cap)
{
	return bpf_map__max_entries(cap->skel->maps.__bpf_usdt_specs);
}

int capture_set_usdt_spec(struct capture *cap, uint32_t id,
			  const struct usdt_spec *spec)
{
	int map = bpf_map__fd(cap->skel->maps.__bpf_usdt_specs);

	return bpf_map_update_elem(map, &id, spec, BPF_ANY) ? -errno : 0;
}

void capture_own_tracefs(struct capture *cap, struct tracefs_uprobes *t)
{
	cap->tracefs = t;
}

/* Probe by probe, in probe_programs' order, in every file carrying it. */
int capture_attach_pid(struct capture *cap, const struct probe_objects *objs,
		       pid_t pid, int *nattached)
{
	struct bpf_program *prog;
	const char *name;
	size_t i, j;
	int err;

	*nattached = 0;
	for (i = 0; i < sizeof(probe_programs) / sizeof(probe_programs[0]); i++) {
		name = probe_programs[i].probe;
		prog = program_of(cap, i);
		if (!prog)
			continue;
		for (j = 0; j < objs->n; j++) {
			if (!probe_object_has(&objs->v[j], name))
				continue;
			err = attach_one(cap, prog, pid, objs->v[j].path,
					 name);
			if (err)
				return err;
			(*nattached)++;
		}
	}
	return 0;
}

int capture_attach_child(struct capture *cap, const struct probe_objects *objs,
			 pid_t pid, int *nattached)
{
	int err;

	cap->child_gone_quiet = true;
	err = capture_attach_pid(cap, objs, pid, nattached);
	cap->child_gone_quiet = false;
	return err;
}

const char *const *capture_probe_names(const struct capture *cap, size_t *n)
{
	*n = cap->nprobes;
	return cap->link_probes;
}

int capture_fd(const struct capture *cap)
{
	return ring_buffer__epoll_fd(cap->rb);
}

int capture_consume(struct capture *cap)
{
	int n;

	cap->taken = 0;
	n = ring_buffer__consume(cap->rb);
	return n == CONSUME_PAUSE ? (int)cap->taken : n;
}

int capture_ring_map_fd(const struct capture *cap)
{
	return bpf_map__fd(cap->skel->maps.events);
}

int capture_drops_map_fd(const struct capture *cap)
{
	return bpf_map__fd(cap->skel->maps.drops);
}

void capture_lost_threads(const struct capture *cap,
			  void (*fn)(void *ctx, uint32_t tid, uint16_t flags),
			  void *ctx)
{
	int fd = bpf_map__fd(cap->skel->maps.lost_threads);
	/* no thread has id 0: a key not in the map gives the first */
	uint32_t key = 0, next;
	uint8_t flags;

	while (!bpf_map_get_next_key(fd, &key, &next)) {
		/* gone meanwhile (LRU): still lost, its flags unknown */
		if (bpf_map_lookup_elem(fd, &next, &flags))
			flags = ETDUMP_REC_F_LOST_BEFORE;
		fn(ctx, next, flags);
		key = next;
	}
}

int capture_followed_map_fd(const struct capture *cap)
{
	return bpf_map__fd(cap->skel->maps.followed);
}

int capture_follow_attach(struct capture *cap)
{
	struct bpf_program *progs[] = { cap->skel->progs.on_fork,
					cap->skel->progs.on_exec,
					cap->skel->progs.on_exit };
	size_t i;

	if (!cap->skel->rodata->follow_children)
		return -EINVAL;
	for (i = 0; i < 3; i++) {
		if (cap->follow_links[i])
			continue;
		cap->follow_links[i] = bpf_program__attach(progs[i]);
		if (!cap->follow_links[i])
			return -errno;
	}
	return 0;
}

int capture_execs_map_fd(const struct capture *cap)
{
	return bpf_map__fd(cap->skel->maps.execs);
}

int capture_follow_armed_map_fd(const struct capture *cap)
{
	return bpf_map__fd(cap->skel->maps.armed);
}

uint64_t capture_follow_execs_begun(const struct capture *cap)
{
	return cap->skel->bss->execs_begun;
}

void capture_follow_lost(const struct capture *cap, uint64_t *forks,
			 uint64_t *execs)
{
	*forks = cap->skel->bss->forks_lost;
	*execs = cap->skel->bss->execs_lost;
}

bool capture_batched(const struct capture *cap)
{
	return cap->batched;
}

uint64_t capture_drops(const struct capture *cap)
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t total = 0;
	uint64_t *values;
	__u32 zero = 0;
	int i;

	if (ncpus <= 0)
		return 0;
	values = calloc(ncpus, sizeof(*values));
	if (!values)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(cap->skel->maps.drops), &zero,
				 values))
		for (i = 0; i < ncpus; i++)
			total += values[i];
	free(values);
	return total;
}

/*
 * Each uprobe detaches behind its own RCU grace period, ~0.13 s here, one
 * after the other: seconds for a runtime with a dozen sites, after the
 * capture is complete. Whoever drops the last reference to a probe pays, so
 * a grandchild holds copies of the fds until we have closed ours (it waits
 * for EOF on `done`), then detaches them while the recorder exits.
 */
void capture_close_in_background(struct capture *cap)
{
	int done[2], null;
	pid_t child;
	char c;

	if (!cap)
		return;
	if (pipe2(done, O_CLOEXEC)) {
		capture_close(cap);
		return;
	}
	child = fork();
	if (child == 0) {
		if (fork() == 0) {
			/* whoever reads our output must not wait for this one */
			null = open("/dev/null", O_RDWR);
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
			close(done[1]);
			while (read(done[0], &c, 1) > 0)
				;
			capture_close(cap);
			tracefs_leftovers_settle();
			_exit(0);
		}
		_exit(0);
	}
	close(done[0]);
	if (child > 0)
		waitpid(child, NULL, 0);
	capture_close(cap);
	close(done[1]);
}

void capture_close(struct capture *cap)
{
	size_t i;

	if (!cap)
		return;
	for (i = 0; i < cap->nlinks; i++)
		bpf_link__destroy(cap->links[i]);
	bpf_link__destroy(cap->switch_link);
	bpf_link__destroy(cap->switch_exit_link);
	bpf_link__destroy(cap->exit_link);
	bpf_link__destroy(cap->exec_link);
	bpf_link__destroy(cap->vfork_link);
	for (i = 0; i < 3; i++)
		bpf_link__destroy(cap->follow_links[i]);
	free(cap->links);
	/* once no perf event holds them (the kernel refuses otherwise) */
	tracefs_uprobes_free(cap->tracefs);
	ring_buffer__free(cap->rb);
	capture_bpf__destroy(cap->skel);
	free(cap);
}
