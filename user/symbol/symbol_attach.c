// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include "capture/capture.h"
#include "capture/iter_run.h"
#include "capture/kernel_features.h"
#include "lib/clock.h"
#include "lib/load_retry.h"
#include "lib/log.h"
#include "symbol/perf_uprobe.h"
#include "symbol/site_programs.h"
#include "symbol/symbol_attach.h"
#include "symbol/symbol_sites.h"
#include "schema/symbol_values.h" /* the skeleton's rodata holds its types */
#include "schema/symbol_xnnpack.h"
#include "symbols.skel.h"
#include "target/target.h"
#include "capture/uprobe_multi.h"

/* at most 64: a bit each in a mask */
#define DETACH_THREADS 32
/*
 * Without task storage: the threads whose hits are kept at once, 5.3 KiB
 * each in a preallocated map (2.7 MiB); one more sends each hit alone.
 */
#define BATCH_THREADS 512
/*
 * Room in the site table for the libraries the target loads later
 * (symbol_attach_add()): 140 bytes a site, preallocated.
 */
#define LATE_SITES 1024
/* bpf/value_copy.bpf.h's bound without bpf_loop: 128 chunks of 8 KiB */
#define VALUE_BOUNDED_KIB 1024u

/*
 * The programs a site's probes run: its entry's (an XNNPACK operator's
 * one of its own, symbols.bpf.c's on_xnn_call), its return's or exits'.
 */
enum site_prog { PROG_ENTRY, PROG_EXIT, PROG_XNN_CALL, SITE_PROGS };

/* Probes attached: uprobe_multi links or perf events, and libbpf's links. */
struct probe_links {
	int *fds;
	size_t nfds;
	struct bpf_link **links;
	size_t nlinks;
};

struct symbol_attach {
	struct symbols_bpf *skel;
	bool multi;             /* uprobe_multi links (Linux 6.6) */
	bool cookies;           /* BPF cookies (5.15): else site_programs */
	bool task_storage;      /* batches in task storage (5.11) */
	bool bounded;           /* values copied without bpf_loop (5.17) */
	/* without cookies, with --values: the exit's copies are stubs */
	bool stub;
	struct bpf_program *exit;  /* on_func_exit, or its bounded twin */
	/* without cookies: each program's copies per site */
	struct site_programs *copies[SITE_PROGS];
	struct probe_links probes;
	/* the returns of the kernels that end at the next event, until the
	   gaps are measured (symbol_attach_drop_gap_probes()) */
	struct probe_links gaps;
	bool gaps_dropped;
	/* taking the gap probes out, beside the recording (a grace period
	   per link without uprobe_multi: a second and more) */
	pthread_t gap_dropper;
	bool dropping;
	struct probe_links *into;  /* where attach_*() put their probes */
	/* each XNNPACK's xnn_delete_operator's probe, from open to close */
	struct bpf_link **forgets;
	size_t nforgets;
	/* an XNNPACK without it: every thread reads fields at every run */
	bool forget_missing;
	uint64_t attach_ns;     /* the last attach_all()'s time */
	size_t room;            /* the site table's entries */
	/* putting probes back: a target gone meanwhile is no error to say */
	bool resuming;
};

/* Hits kept per thread (symbols.bpf.c's BATCHING): the buffers are made. */
static bool batching(const struct symbol_sites *sites)
{
	return !sites->per_hit && !sites->values &&
	       !symbol_sites_count(sites, ETDUMP_FUNC_ALLOCATE);
}

/*
 * What the kernel lacks is done the next best way (kernel_features.h):
 * a link per probe without uprobe_multi, a program per site without
 * cookies, a hash map by thread without task storage.
 */
static int choose_ways(struct symbol_attach *a, struct symbols_bpf *skel,
		       const struct symbol_sites *sites)
{
	const struct kernel_features *kf = kernel_features();
	bool by_tid;
	int err;

	a->cookies = kf->bpf_cookie;
	/* a uprobe_multi link's probes tell one site from another by cookie */
	a->multi = kf->uprobe_multi && a->cookies;
	a->task_storage = kf->task_storage && kf->current_task_btf;
	/* the per-site copies cannot hold bpf_loop's callback (no BTF) */
	a->bounded = !kf->bpf_loop || !a->cookies;
	a->exit = a->bounded ? skel->progs.on_func_exit_bounded :
			       skel->progs.on_func_exit;
	err = bpf_program__set_autoload(a->bounded ? skel->progs.on_func_exit :
					skel->progs.on_func_exit_bounded, false);
	if (err)
		return err;
	a->stub = !a->cookies && sites->values;
	err = bpf_program__set_autoload(skel->progs.on_func_exit_stub, a->stub);
	if (!err)
		err = bpf_map__set_autocreate(skel->maps.exit_hits, a->stub);
	if (!err)
		err = bpf_map__set_autocreate(skel->maps.exit_program, a->stub);
	if (err)
		return err;
	skel->rodata->exit_by_stub = a->stub;
	skel->rodata->site_cookies = a->cookies;
	skel->rodata->batch_task_storage = a->task_storage;
	/* the way not taken: its maps are never made */
	by_tid = !a->task_storage && batching(sites);
	err = bpf_map__set_autocreate(skel->maps.hit_batches, a->task_storage);
	if (!err)
		err = bpf_map__set_autocreate(skel->maps.hit_batches_by_tid,
					      by_tid);
	if (!err)
		err = bpf_map__set_autocreate(skel->maps.empty_batch, by_tid);
	if (!err && by_tid)
		err = bpf_map__set_max_entries(skel->maps.hit_batches_by_tid,
					       BATCH_THREADS);
	return err;
}

/* What load_object() is handed through load_retry(). */
struct object_load {
	struct symbol_attach *a;
	const struct symbol_sites *sites;
	int ring_fd, drops_fd;
	pid_t pid;
};

/* The skeleton opened, set for the sites, and loaded; 0 or -errno. */
static int load_object(void *ctx, bool last)
{
	const struct object_load *l = ctx;
	const struct symbol_sites *sites = l->sites;
	struct symbol_attach *a = l->a;
	struct symbols_bpf *skel;
	uint64_t dev, ino;
	int err;

	(void)last;     /* load_said() says the error, after the last try */
	skel = a->skel = symbols_bpf__open();
	if (!skel)
		return -errno;
	skel->rodata->target_tgid = l->pid;
	target_pid_namespace(&dev, &ino);
	skel->rodata->pidns_dev = dev;
	skel->rodata->pidns_ino = ino;
	a->room = sites->n + LATE_SITES;
	err = bpf_map__set_max_entries(skel->maps.sites, a->room);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.site_outputs, sites->n);
	/* without record --values the reading of tensors goes at load */
	skel->rodata->read_outputs = sites->values;
	skel->rodata->allocate_sites = symbol_sites_count(sites,
							  ETDUMP_FUNC_ALLOCATE);
	skel->rodata->value_max = sites->value_max;
	skel->rodata->tensor_layout = sites->tensor;
	/* the one layout read: a library loaded later has it too */
	skel->rodata->xnn_layout.type = XNN_TYPE_OFF;
	skel->rodata->xnn_layout.sub = XNN_SUB_OFF;
	skel->rodata->xnn_layout.ukernel = XNN_UKERNEL_OFF;
	skel->rodata->batch_hits = !sites->per_hit;
	if (!err)
		err = choose_ways(a, skel, sites);
	/* capture.bpf.c's ring and drop counter: one stream, one count */
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.events, l->ring_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.drops, l->drops_fd);
	if (!err && a->multi)
		err = uprobe_multi_prepare(skel->progs.on_func_entry);
	if (!err && a->multi)
		err = uprobe_multi_prepare(a->exit);
	if (!err && a->multi)
		err = uprobe_multi_prepare(skel->progs.on_xnn_call);
	if (err)
		return err;
	/* as capture.c: wake the collector once a quarter of the ring is used */
	skel->rodata->wakeup_bytes =
		bpf_map__max_entries(skel->maps.events) / 4;
	return symbols_bpf__load(skel);
}

/* A try that the verifier gave up on: the object cannot be loaded again. */
static void unload_object(void *ctx)
{
	const struct object_load *l = ctx;

	symbols_bpf__destroy(l->a->skel);
	l->a->skel = NULL;
}

static int load(struct symbol_attach *a, const struct symbol_sites *sites,
		int ring_fd, int drops_fd, pid_t pid)
{
	struct object_load l = { .a = a, .sites = sites, .ring_fd = ring_fd,
				 .drops_fd = drops_fd, .pid = pid };
	int err = load_retry(load_object, unload_object, &l);
	struct symbols_bpf *skel = a->skel;

	if (!err && !a->cookies)
		err = site_programs_open(&a->copies[PROG_ENTRY],
					 skel->progs.on_func_entry);
	if (!err && !a->cookies)
		err = site_programs_open(&a->copies[PROG_EXIT], a->stub ?
					 skel->progs.on_func_exit_stub :
					 a->exit);
	if (!err && !a->cookies)
		err = site_programs_open(&a->copies[PROG_XNN_CALL],
					 skel->progs.on_xnn_call);
	if (!err && a->stub) {
		__u32 zero = 0;
		int fd = bpf_program__fd(a->exit);

		err = bpf_map__update_elem(skel->maps.exit_program, &zero,
					   sizeof(zero), &fd, sizeof(fd), 0);
	}
	/* the exit and the end's hand-over: the uprobes are attached below */
	return err ? err : symbols_bpf__attach(skel);
}

static int load_said(struct symbol_attach *a, const struct symbol_sites *sites,
		     int ring_fd, int drops_fd, pid_t pid)
{
	int err = load(a, sites, ring_fd, drops_fd, pid);

	if (err)
		p_err("cannot load the symbol-mode BPF programs: %s (run with -v for the verifier's log)",
		      strerror(-err));
	return err;
}

/* Sites from `first` on into the site table. */
static int fill_sites(struct symbol_attach *a, const struct symbol_sites *s,
		      size_t first)
{
	size_t i;
	int err = 0;

	for (i = first; i < s->n && !err; i++) {
		__u32 key = i;

		err = bpf_map__update_elem(a->skel->maps.sites, &key,
					   sizeof(key), &s->sites[i].desc,
					   sizeof(s->sites[i].desc), 0);
		if (!err && s->sites[i].outputs.n && i < bpf_map__max_entries(
				    a->skel->maps.site_outputs))
			err = bpf_map__update_elem(
				a->skel->maps.site_outputs, &key, sizeof(key),
				&s->sites[i].outputs,
				sizeof(s->sites[i].outputs), 0);
	}
	if (err)
		p_err("cannot fill the symbol-mode site table: %s",
		      strerror(-err));
	return err;
}

static struct bpf_program *prog_for(const struct symbol_attach *a,
				    enum site_prog p)
{
	return p == PROG_EXIT ? a->exit : p == PROG_XNN_CALL ?
	       a->skel->progs.on_xnn_call : a->skel->progs.on_func_entry;
}

/* What a probe of the site runs: at its exit, or at its entry. */
static enum site_prog site_prog(const struct symbol_site *s, bool exit)
{
	return exit ? PROG_EXIT : s->desc.kind == ETDUMP_FUNC_XNN_OP ?
	       PROG_XNN_CALL : PROG_ENTRY;
}

/* Room for one more fd in a->fds. */
static int more_fds(struct symbol_attach *a, size_t more)
{
	int *fds = realloc(a->into->fds, (a->into->nfds + more) * sizeof(*fds));

	if (!fds)
		return -ENOMEM;
	a->into->fds = fds;
	return 0;
}

/*
 * Without cookies: the site's own copy of the program, through a perf
 * event of its own.
 */
static int attach_copy(struct symbol_attach *a, const struct symbol_site *s,
		       pid_t pid, bool exit, bool retprobe, uint64_t offset)
{
	int prog_fd, fd, err = more_fds(a, 1);

	if (err)
		return err;
	prog_fd = site_programs_fd(a->copies[site_prog(s, exit)], s->desc.id);
	if (prog_fd < 0)
		return prog_fd;
	fd = perf_uprobe_attach(prog_fd, pid, s->path, offset, retprobe);
	if (fd < 0)
		return fd;
	a->into->fds[a->into->nfds++] = fd;
	return 0;
}

/* One probe at offset, its own link; cookie = the site's id. */
static int attach_at(struct symbol_attach *a, const struct symbol_site *s,
		     pid_t pid, bool exit, bool retprobe, uint64_t offset)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = s->desc.id,
		    .retprobe = retprobe);
	struct bpf_link **links, *link;
	int err;

	if (!a->cookies) {
		err = attach_copy(a, s, pid, exit, retprobe, offset);
		goto out;
	}
	links = realloc(a->into->links,
			(a->into->nlinks + 1) * sizeof(*links));
	if (!links)
		return -ENOMEM;
	a->into->links = links;
	link = bpf_program__attach_uprobe_opts(prog_for(a, site_prog(s, exit)),
					       pid, s->path, offset, &opts);
	err = link ? 0 : -errno;
	if (link)
		a->into->links[a->into->nlinks++] = link;
out:
	if (err && err != -ENOMEM && !(a->resuming && err == -ESRCH))
		p_err("%s: cannot attach a %s to %s (offset 0x%llx): %s (run with -v for libbpf's log)",
		      s->path, retprobe ? "uretprobe" : "uprobe", s->function,
		      (unsigned long long)offset, strerror(-err));
	return err;
}

/*
 * A site's probes, a link each: its return's (a uretprobe, or a plain
 * uprobe at each exit of its own) before its entry's (see attach_all()).
 */
static int attach_site(struct symbol_attach *a, const struct symbol_site *s,
		       pid_t pid)
{
	size_t k;
	int err = 0;

	/* a gap probe once the gaps are measured: the entry alone */
	a->into = s->ends_at_next ? &a->gaps : &a->probes;
	if (s->ends_at_next && a->gaps_dropped)
		goto entry;
	if (!s->nexits)
		err = attach_at(a, s, pid, true, true, s->offset);
	for (k = 0; !err && k < s->nexits; k++)
		err = attach_at(a, s, pid, true, false, s->exit_offsets[k]);
entry:
	a->into = &a->probes;
	return err ? err : attach_at(a, s, pid, false, false, s->offset);
}

/* What the probes of a kind run. */
static enum site_prog kind_prog(enum symbol_probe_kind kind)
{
	if (kind == SYMBOL_PROBE_ENTRY)
		return PROG_ENTRY;
	return kind == SYMBOL_PROBE_XNN_CALL ? PROG_XNN_CALL : PROG_EXIT;
}

/*
 * One link for the probes of one kind of the n sites from `first` on, all
 * in one object; none when no site has such a probe.
 */
static int attach_kind(struct symbol_attach *a,
		       const struct symbol_site *first, size_t n, pid_t pid,
		       enum symbol_probe_kind kind, uint64_t *offsets,
		       uint64_t *cookies)
{
	static const char *const what[] = {
		[SYMBOL_PROBE_RETURN] = "uretprobes",
		[SYMBOL_PROBE_EXIT_AT] = "exit uprobes",
		[SYMBOL_PROBE_ENTRY] = "uprobes",
		[SYMBOL_PROBE_GAP_RETURN] = "kernels' uretprobes",
		[SYMBOL_PROBE_GAP_EXIT_AT] = "kernels' exit uprobes",
		[SYMBOL_PROBE_XNN_CALL] = "XNNPACK operators' uprobes",
	};
	bool gap = kind == SYMBOL_PROBE_GAP_RETURN ||
		   kind == SYMBOL_PROBE_GAP_EXIT_AT;
	size_t m = gap && a->gaps_dropped ? 0 :
		   symbol_sites_probes(first, n, kind, offsets, cookies);
	int fd, err;

	if (!m)
		return 0;
	a->into = gap ? &a->gaps : &a->probes;
	err = more_fds(a, 1);
	a->into = &a->probes;
	if (err)
		return err;
	fd = uprobe_multi_attach(prog_for(a, kind_prog(kind)), pid,
				 first->path, offsets, cookies, m,
				 kind == SYMBOL_PROBE_RETURN ||
				 kind == SYMBOL_PROBE_GAP_RETURN);
	if (fd < 0) {
		if (!(a->resuming && fd == -ESRCH))
			p_err("%s: cannot attach %zu %s: %s", first->path, m,
			      what[kind], strerror(-fd));
		return fd;
	}
	if (gap)
		a->gaps.fds[a->gaps.nfds++] = fd;
	else
		a->probes.fds[a->probes.nfds++] = fd;
	return 0;
}

/* The n sites from `first` on, all in one object: a link per kind. */
static int attach_object(struct symbol_attach *a,
			 const struct symbol_site *first, size_t n, pid_t pid)
{
	/* the most probes of one kind: an entry, or exits, per site */
	static const enum symbol_probe_kind order[] = {
		SYMBOL_PROBE_GAP_RETURN, SYMBOL_PROBE_GAP_EXIT_AT,
		SYMBOL_PROBE_RETURN, SYMBOL_PROBE_EXIT_AT, SYMBOL_PROBE_ENTRY,
		SYMBOL_PROBE_XNN_CALL,
	};
	size_t most = n + symbol_sites_probes(first, n, SYMBOL_PROBE_EXIT_AT,
					      NULL, NULL) +
		      symbol_sites_probes(first, n, SYMBOL_PROBE_GAP_EXIT_AT,
					  NULL, NULL);
	uint64_t *offsets = calloc(most, sizeof(*offsets));
	uint64_t *cookies = calloc(most, sizeof(*cookies));
	int err = 0;
	size_t k;

	if (!offsets || !cookies)
		err = -ENOMEM;
	/* returns and exits first: see attach_all() */
	for (k = 0; !err && k < sizeof(order) / sizeof(order[0]); k++)
		err = attach_kind(a, first, n, pid, order[k], offsets, cookies);
	free(offsets);
	free(cookies);
	return err;
}

/*
 * Sites come grouped by object (symbol_sites.h finds them so). Return
 * probes go in before entry probes: a call whose entry is seen then always
 * has its exit seen. The other way round, a call entered between the two
 * stayed open in the translator for good, and every kernel after it looked
 * nested in it (no instruction ids).
 */
static int attach_from(struct symbol_attach *a, const struct symbol_sites *s,
		       size_t first, pid_t pid)
{
	uint64_t t0 = monotonic_ns();
	size_t i, n;
	int err = 0;

	a->into = &a->probes;
	for (i = first; !err && i < s->n; i += n) {
		n = 1;
		if (!a->multi) {
			err = attach_site(a, &s->sites[i], pid);
			continue;
		}
		while (i + n < s->n && s->sites[i + n].path == s->sites[i].path)
			n++;
		err = attach_object(a, &s->sites[i], n, pid);
	}
	a->attach_ns = monotonic_ns() - t0;
	return err;
}

static int attach_all(struct symbol_attach *a, const struct symbol_sites *s,
		      pid_t pid)
{
	return attach_from(a, s, 0, pid);
}

/*
 * XNNPACK operators' fields kept per thread, once the probes that forget
 * them are in, one on each XNNPACK's xnn_delete_operator (the sites from
 * `first` on: a library loaded later brings its own): without one (no
 * xnn_delete_operator called where expected, or no attach) each run
 * reads them, as before, for every XNNPACK (a thread keeps one set of
 * them, and a deletion in that one would go unseen).
 */
static int attach_forgets(struct symbol_attach *a,
			  const struct symbol_sites *s, size_t first,
			  pid_t pid)
{
	struct bpf_link **links, *link;
	const struct symbol_site *xnn;
	size_t i;

	for (i = first; i < s->n; i++) {
		xnn = &s->sites[i];
		if (xnn->desc.kind != ETDUMP_FUNC_XNN_OP || !xnn->xnn)
			continue;
		link = NULL;
		if (xnn->xnn->forget_offset)
			link = bpf_program__attach_uprobe(
				a->skel->progs.on_xnn_forget, false, pid,
				xnn->path, xnn->xnn->forget_offset);
		if (!link) {
			p_debug("symbol mode: %s: no probe on xnn_delete_operator (%s): XNNPACK operators' fields read at every run",
				xnn->path, xnn->xnn->forget_offset ?
				strerror(errno) : "not seen called");
			a->forget_missing = true;
			continue;
		}
		links = realloc(a->forgets, (a->nforgets + 1) * sizeof(*links));
		if (!links) {
			bpf_link__destroy(link);
			return -ENOMEM;
		}
		a->forgets = links;
		a->forgets[a->nforgets++] = link;
		p_debug("symbol mode: %s: XNNPACK operators' fields kept per thread, read again after xnn_delete_operator (+0x%llx) runs",
			xnn->path, (unsigned long long)xnn->xnn->forget_offset);
	}
	a->skel->bss->xnn_keep_fields = a->nforgets && !a->forget_missing;
	return 0;
}

/* The first kernel with a feature, as kernel_features.h names it. */
static const char *since(const char *name)
{
	size_t i;

	for (i = 0; i < kernel_feature_count; i++)
		if (!strcmp(kernel_feature_table[i].name, name))
			return kernel_feature_table[i].since;
	return "?";
}

/* The record summary's line for each way the kernel made us take. */
static void note_ways(const struct symbol_attach *a,
		      const struct symbol_sites *sites)
{
	uint64_t ns = 0, one;
	size_t n = 0, k;

	if (!a->multi)
		kernel_features_note("uprobe_multi links need Linux %s: a link per probe instead (%zu links, made in %.0f ms; each waits for a grace period of its own to come out)",
				     since("uprobe_multi"),
				     a->probes.nfds + a->probes.nlinks +
				     a->gaps.nfds + a->gaps.nlinks,
				     a->attach_ns / 1e6);
	if (!a->cookies) {
		for (k = 0; k < SITE_PROGS; k++) {
			n += site_programs_loaded(a->copies[k], &one);
			ns += one;
		}
		kernel_features_note("BPF cookies need Linux %s: loaded the entry and exit programs once per site (%zu copies, verified in %.0f ms)",
				     since("bpf_cookie"), n, ns / 1e6);
	}
	if (a->bounded && sites->values)
		kernel_features_note("bpf_loop needs Linux %s: values copied by a bounded loop, at most %u KiB of each",
				     since("bpf_loop"), VALUE_BOUNDED_KIB);
	if (!a->task_storage && batching(sites))
		kernel_features_note("task storage needs Linux %s: each thread's hits kept in a hash map by thread id (%d threads at once; a thread beyond sends each hit alone)",
				     since("task_storage"), BATCH_THREADS);
}

int symbol_attach_open(struct symbol_attach **out,
		       const struct symbol_sites *sites, struct capture *cap,
		       pid_t pid, int *nprobes)
{
	int err = symbol_attach_to_ring(out, sites, capture_ring_map_fd(cap),
					capture_drops_map_fd(cap), pid,
					nprobes);

	if (!err)
		note_ways(*out, sites);
	return err;
}

/* The probes of the sites from `first` on, the gap probes dropped aside. */
static int count_probes(const struct symbol_attach *a,
			const struct symbol_sites *sites, size_t first)
{
	int kind, n = 0;

	for (kind = SYMBOL_PROBE_RETURN; kind < SYMBOL_PROBE_KINDS; kind++)
		if (!a->gaps_dropped || (kind != SYMBOL_PROBE_GAP_RETURN &&
					 kind != SYMBOL_PROBE_GAP_EXIT_AT))
			n += (int)symbol_sites_probes(sites->sites + first,
						      sites->n - first, kind,
						      NULL, NULL);
	return n;
}

int symbol_attach_to_ring(struct symbol_attach **out,
			  const struct symbol_sites *sites, int ring_fd,
			  int drops_fd, pid_t pid, int *nprobes)
{
	struct symbol_attach *a = calloc(1, sizeof(*a));
	int err;

	if (!a)
		return -ENOMEM;
	err = load_said(a, sites, ring_fd, drops_fd, pid);
	if (!err)
		err = fill_sites(a, sites, 0);
	if (!err)
		err = attach_all(a, sites, pid);
	if (!err)
		err = attach_forgets(a, sites, 0, pid);
	if (err) {
		symbol_attach_close(a);
		return err;
	}
	p_debug("symbol mode: %zu sites attached with %s%s in %.1f ms",
		sites->n, a->multi ? "uprobe_multi links" : "a link per probe",
		a->cookies ? "" : ", a program per site",
		a->attach_ns / 1e6);
	*nprobes = count_probes(a, sites, 0);
	*out = a;
	return 0;
}

int symbol_attach_add(struct symbol_attach *a,
		      const struct symbol_sites *sites, size_t first,
		      pid_t pid, int *nprobes)
{
	int err;

	*nprobes = 0;
	if (sites->n > a->room)
		return -ENOSPC;
	err = fill_sites(a, sites, first);
	if (!err)
		err = attach_from(a, sites, first, pid);
	if (!err)
		err = attach_forgets(a, sites, first, pid);
	if (!err)
		*nprobes = count_probes(a, sites, first);
	return err;
}

/*
 * A link per probe (kernels before 6.6): each removal waits for a grace
 * period; removals side by side share some of them. One share of the
 * links and fds a thread.
 */
struct detacher {
	pthread_t thread;
	struct bpf_link **links;
	size_t nlinks;
	int *fds;
	size_t nfds;
};

static void *detach_share(void *arg)
{
	struct detacher *d = arg;
	size_t i;

	for (i = 0; i < d->nlinks; i++)
		bpf_link__destroy(d->links[i]);
	for (i = 0; i < d->nfds; i++)
		close(d->fds[i]);
	return NULL;
}

/* The i-th of DETACH_THREADS shares of n things: where it starts, *len. */
static size_t share(size_t n, size_t i, size_t *len)
{
	size_t per = (n + DETACH_THREADS - 1) / DETACH_THREADS, at = i * per;

	*len = at >= n ? 0 : n - at < per ? n - at : per;
	return at;
}

/*
 * Every probe taken out, side by side (one uprobe_multi link's removal
 * waits for a grace period, ~50 ms here, as does each of the links per
 * probe); the programs stay loaded. Which probe goes first does not
 * matter: record --duty leaves out every run not whole before the
 * removal began.
 */
static void detach_links(struct probe_links *p)
{
	struct detacher d[DETACH_THREADS];
	uint64_t started = 0;
	size_t i;

	for (i = 0; i < DETACH_THREADS; i++) {
		d[i].links = p->links + share(p->nlinks, i, &d[i].nlinks);
		d[i].fds = p->fds + share(p->nfds, i, &d[i].nfds);
		if (!d[i].nlinks && !d[i].nfds)
			continue;
		/* a thread that cannot start: its share is done here */
		if (pthread_create(&d[i].thread, NULL, detach_share, &d[i]))
			detach_share(&d[i]);
		else
			started |= 1ull << i;
	}
	for (i = 0; i < DETACH_THREADS; i++)
		if (started & (1ull << i))
			pthread_join(d[i].thread, NULL);
	p->nfds = 0;
	p->nlinks = 0;
}

/*
 * The gap probes go with the others: put back only while the gaps are
 * still being measured.
 */
static void *drop_gaps(void *arg)
{
	detach_links(arg);
	return NULL;
}

/* The gap probes' removal, if one is under way, done. */
static void gaps_dropped(struct symbol_attach *a)
{
	if (!a->dropping)
		return;
	pthread_join(a->gap_dropper, NULL);
	a->dropping = false;
}

/* memcpy() of a set that may have none yet (NULL) */
static void copy_some(void *dst, const void *src, size_t bytes)
{
	if (bytes)
		memcpy(dst, src, bytes);
}

static void detach_all(struct symbol_attach *a)
{
	struct probe_links both = { 0 };
	size_t nfds, nlinks;

	gaps_dropped(a);
	nfds = a->probes.nfds + a->gaps.nfds;
	nlinks = a->probes.nlinks + a->gaps.nlinks;
	both.fds = malloc((nfds + 1) * sizeof(*both.fds));
	both.links = malloc((nlinks + 1) * sizeof(*both.links));
	if (!both.fds || !both.links) {
		free(both.fds);
		free(both.links);
		detach_links(&a->gaps);
		detach_links(&a->probes);
		return;
	}
	/* side by side: each removal waits for a grace period */
	copy_some(both.fds, a->probes.fds, a->probes.nfds * sizeof(*both.fds));
	copy_some(both.fds + a->probes.nfds, a->gaps.fds,
		  a->gaps.nfds * sizeof(*both.fds));
	copy_some(both.links, a->probes.links,
		  a->probes.nlinks * sizeof(*both.links));
	copy_some(both.links + a->probes.nlinks, a->gaps.links,
		  a->gaps.nlinks * sizeof(*both.links));
	both.nfds = nfds;
	both.nlinks = nlinks;
	detach_links(&both);
	free(both.fds);
	free(both.links);
	a->probes.nfds = a->probes.nlinks = 0;
	a->gaps.nfds = a->gaps.nlinks = 0;
}

size_t symbol_attach_drop_gap_probes(struct symbol_attach *a,
				     enum gap_drop when)
{
	size_t n = a->gaps.nfds + a->gaps.nlinks;

	a->gaps_dropped = true;
	if (when == GAP_DROP_AT_PAUSE)
		return n;
	/* a thread that cannot start: done here */
	if (when == GAP_DROP_NOW ||
	    pthread_create(&a->gap_dropper, NULL, drop_gaps, &a->gaps))
		detach_links(&a->gaps);
	else
		a->dropping = true;
	return n;
}

void symbol_attach_pause(struct symbol_attach *a)
{
	detach_all(a);
}

int symbol_attach_resume(struct symbol_attach *a,
			 const struct symbol_sites *sites, pid_t pid)
{
	int err;

	a->resuming = true;
	err = attach_all(a, sites, pid);
	a->resuming = false;
	if (err)
		detach_all(a);
	return err;
}

/*
 * A grace period: a program that saw hits_stopped false, the thread
 * exits' among them (the uprobes' are out with their links), has
 * returned after it (bpf/hit_batch.bpf.h). membarrier's global command
 * is synchronize_rcu().
 */
static void wait_grace_period(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		p_debug("symbol mode: membarrier: %s: the hand-over does not wait for a grace period",
			strerror(errno));
}

int symbol_attach_hand_over(struct symbol_attach *a)
{
	if (!a)
		return 0;
	a->skel->bss->hits_stopped = true;
	symbol_attach_pause(a);
	wait_grace_period();
	return iter_run(a->skel->links.hand_over_kept);
}

void symbol_attach_close(struct symbol_attach *a)
{
	size_t i;

	if (!a)
		return;
	detach_all(a);
	if (a->nforgets)
		p_debug("symbol mode: xnn_delete_operator ran %u time(s) while recording",
			a->skel->bss->xnn_forgets);
	for (i = 0; i < a->nforgets; i++)
		bpf_link__destroy(a->forgets[i]);
	free(a->forgets);
	free(a->probes.fds);
	free(a->probes.links);
	free(a->gaps.fds);
	free(a->gaps.links);
	for (i = 0; i < SITE_PROGS; i++)
		site_programs_free(a->copies[i]);
	symbols_bpf__destroy(a->skel);
	free(a);
}
