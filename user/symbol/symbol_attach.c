// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "capture/capture.h"
#include "capture/iter_run.h"
#include "lib/log.h"
#include "symbol/symbol_attach.h"
#include "symbol/symbol_sites.h"
#include "schema/symbol_values.h" /* the skeleton's rodata holds its types */
#include "schema/symbol_xnnpack.h"
#include "symbols.skel.h"
#include "target/target.h"
#include "capture/uprobe_multi.h"

/* at most 64: a bit each in a mask */
#define DETACH_THREADS 32

struct symbol_attach {
	struct symbols_bpf *skel;
	bool multi;             /* uprobe_multi links: fds */
	int *fds;
	size_t nfds;
	struct bpf_link **links;
	size_t nlinks;
	/* xnn_delete_operator's probe: attached from open to close */
	struct bpf_link *forget;
};

static int load(struct symbol_attach *a, const struct symbol_sites *sites,
		int ring_fd, int drops_fd, pid_t pid, bool multi)
{
	struct symbols_bpf *skel;
	uint64_t dev, ino;
	int err;

	skel = a->skel = symbols_bpf__open();
	if (!skel)
		return -errno;
	skel->rodata->target_tgid = pid;
	target_pid_namespace(&dev, &ino);
	skel->rodata->pidns_dev = dev;
	skel->rodata->pidns_ino = ino;
	err = bpf_map__set_max_entries(skel->maps.sites, sites->n);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.site_outputs, sites->n);
	/* without record --values the reading of tensors goes at load */
	skel->rodata->read_outputs = sites->values;
	skel->rodata->allocate_sites = symbol_sites_count(sites,
							  ETDUMP_FUNC_ALLOCATE);
	skel->rodata->value_max = sites->value_max;
	skel->rodata->tensor_layout = sites->tensor;
	skel->rodata->xnn_sites = symbol_sites_count(sites, ETDUMP_FUNC_XNN_OP);
	skel->rodata->xnn_layout.type = sites->xnn.type_off;
	skel->rodata->xnn_layout.sub = sites->xnn.sub_off;
	skel->rodata->xnn_layout.ukernel = sites->xnn.ukernel_off;
	skel->rodata->batch_hits = !sites->per_hit;
	/* capture.bpf.c's ring and drop counter: one stream, one count */
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.events, ring_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.drops, drops_fd);
	if (!err && multi)
		err = uprobe_multi_prepare(skel->progs.on_func_entry);
	if (!err && multi)
		err = uprobe_multi_prepare(skel->progs.on_func_exit);
	if (err)
		return err;
	/* as capture.c: wake the collector once a quarter of the ring is used */
	skel->rodata->wakeup_bytes =
		bpf_map__max_entries(skel->maps.events) / 4;
	err = symbols_bpf__load(skel);
	/* the exit and the end's hand-over: the uprobes are attached below */
	return err ? err : symbols_bpf__attach(skel);
}

/* uprobe_multi where the kernel loads such programs, else per probe. */
static int load_any(struct symbol_attach *a, const struct symbol_sites *sites,
		    int ring_fd, int drops_fd, pid_t pid)
{
	libbpf_print_fn_t print;
	int err;

	/* an older kernel's refusal is expected: keep libbpf quiet */
	print = libbpf_set_print(NULL);
	err = load(a, sites, ring_fd, drops_fd, pid, true);
	libbpf_set_print(print);
	a->multi = !err;
	if (err) {
		symbols_bpf__destroy(a->skel);
		err = load(a, sites, ring_fd, drops_fd, pid, false);
	}
	if (err)
		p_err("cannot load the symbol-mode BPF programs: %s (run with -v for the verifier's log)",
		      strerror(-err));
	return err;
}

static int fill_sites(struct symbol_attach *a, const struct symbol_sites *s)
{
	size_t i;
	int err = 0;

	for (i = 0; i < s->n && !err; i++) {
		__u32 key = i;

		err = bpf_map__update_elem(a->skel->maps.sites, &key,
					   sizeof(key), &s->sites[i].desc,
					   sizeof(s->sites[i].desc), 0);
		if (!err && s->sites[i].outputs.n)
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

static struct bpf_program *prog_for(const struct symbol_attach *a, bool ret)
{
	return ret ? a->skel->progs.on_func_exit : a->skel->progs.on_func_entry;
}

/* One probe at offset, its own link; cookie = the site's id. */
static int attach_at(struct symbol_attach *a, const struct symbol_site *s,
		     pid_t pid, bool exit, bool retprobe, uint64_t offset)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = s->desc.id,
		    .retprobe = retprobe);
	struct bpf_link **links, *link;
	int err;

	links = realloc(a->links, (a->nlinks + 1) * sizeof(*links));
	if (!links)
		return -ENOMEM;
	a->links = links;
	link = bpf_program__attach_uprobe_opts(prog_for(a, exit), pid, s->path,
					       offset, &opts);
	if (!link) {
		err = -errno;
		p_err("%s: cannot attach a %s to %s (offset 0x%llx): %s (run with -v for libbpf's log)",
		      s->path, retprobe ? "uretprobe" : "uprobe", s->function,
		      (unsigned long long)offset, strerror(-err));
		return err;
	}
	a->links[a->nlinks++] = link;
	return 0;
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

	if (!s->nexits)
		err = attach_at(a, s, pid, true, true, s->offset);
	for (k = 0; !err && k < s->nexits; k++)
		err = attach_at(a, s, pid, true, false, s->exit_offsets[k]);
	return err ? err : attach_at(a, s, pid, false, false, s->offset);
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
	static const char *const what[] = { "uretprobes", "exit uprobes",
					    "uprobes" };
	size_t m = symbol_sites_probes(first, n, kind, offsets, cookies);
	int fd;

	if (!m)
		return 0;
	fd = uprobe_multi_attach(prog_for(a, kind != SYMBOL_PROBE_ENTRY), pid,
				 first->path, offsets, cookies, m,
				 kind == SYMBOL_PROBE_RETURN);
	if (fd < 0) {
		p_err("%s: cannot attach %zu %s: %s", first->path, m,
		      what[kind], strerror(-fd));
		return fd;
	}
	a->fds[a->nfds++] = fd;
	return 0;
}

/* The n sites from `first` on, all in one object: a link per kind. */
static int attach_object(struct symbol_attach *a,
			 const struct symbol_site *first, size_t n, pid_t pid)
{
	/* the most probes of one kind: an entry, or exits, per site */
	size_t most = n + symbol_sites_probes(first, n, SYMBOL_PROBE_EXIT_AT,
					      NULL, NULL);
	uint64_t *offsets = calloc(most, sizeof(*offsets));
	uint64_t *cookies = calloc(most, sizeof(*cookies));
	int err = 0, *fds, kind;

	fds = realloc(a->fds, (a->nfds + 3) * sizeof(*fds));
	if (fds)
		a->fds = fds;
	if (!offsets || !cookies || !fds)
		err = -ENOMEM;
	/* returns and exits first: see attach_all() */
	for (kind = SYMBOL_PROBE_RETURN; !err && kind <= SYMBOL_PROBE_ENTRY;
	     kind++)
		err = attach_kind(a, first, n, pid, kind, offsets, cookies);
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
static int attach_all(struct symbol_attach *a, const struct symbol_sites *s,
		      pid_t pid)
{
	size_t i, n;
	int err = 0;

	for (i = 0; !err && i < s->n; i += n) {
		n = 1;
		if (!a->multi) {
			err = attach_site(a, &s->sites[i], pid);
			continue;
		}
		while (i + n < s->n && s->sites[i + n].path == s->sites[i].path)
			n++;
		err = attach_object(a, &s->sites[i], n, pid);
	}
	return err;
}

/*
 * XNNPACK operators' fields kept per thread, once the probe that forgets
 * them is in: without it (no xnn_delete_operator called where expected,
 * or no attach) each run reads them, as before.
 */
static void attach_forget(struct symbol_attach *a,
			  const struct symbol_sites *s, pid_t pid)
{
	const struct symbol_site *xnn = NULL;
	size_t i;

	for (i = 0; i < s->n && !xnn; i++)
		if (s->sites[i].desc.kind == ETDUMP_FUNC_XNN_OP)
			xnn = &s->sites[i];
	if (!xnn || !s->xnn_forget_offset)
		return;
	a->forget = bpf_program__attach_uprobe(a->skel->progs.on_xnn_forget,
					       false, pid, xnn->path,
					       s->xnn_forget_offset);
	if (!a->forget) {
		p_debug("symbol mode: %s: no probe on xnn_delete_operator (%s): XNNPACK operators' fields read at every run",
			xnn->path, strerror(errno));
		return;
	}
	a->skel->bss->xnn_keep_fields = true;
	p_debug("symbol mode: %s: XNNPACK operators' fields kept per thread, read again after xnn_delete_operator (+0x%llx) runs",
		xnn->path, (unsigned long long)s->xnn_forget_offset);
}

int symbol_attach_open(struct symbol_attach **out,
		       const struct symbol_sites *sites, struct capture *cap,
		       pid_t pid, int *nprobes)
{
	return symbol_attach_to_ring(out, sites, capture_ring_map_fd(cap),
				     capture_drops_map_fd(cap), pid, nprobes);
}

int symbol_attach_to_ring(struct symbol_attach **out,
			  const struct symbol_sites *sites, int ring_fd,
			  int drops_fd, pid_t pid, int *nprobes)
{
	struct symbol_attach *a = calloc(1, sizeof(*a));
	int err, kind;

	if (!a)
		return -ENOMEM;
	err = load_any(a, sites, ring_fd, drops_fd, pid);
	if (!err)
		err = fill_sites(a, sites);
	if (!err)
		err = attach_all(a, sites, pid);
	if (!err)
		attach_forget(a, sites, pid);
	if (err) {
		symbol_attach_close(a);
		return err;
	}
	p_debug("symbol mode: %zu sites attached with %s", sites->n,
		a->multi ? "uprobe_multi links" : "a link per probe");
	*nprobes = 0;
	for (kind = SYMBOL_PROBE_RETURN; kind <= SYMBOL_PROBE_ENTRY; kind++)
		*nprobes += (int)symbol_sites_probes(sites->sites, sites->n,
						     kind, NULL, NULL);
	*out = a;
	return 0;
}

struct detacher {
	pthread_t thread;
	struct bpf_link **links;
	size_t n;
};

static void *detach_links(void *arg)
{
	struct detacher *d = arg;
	size_t i;

	for (i = 0; i < d->n; i++)
		bpf_link__destroy(d->links[i]);
	return NULL;
}

/*
 * A link per probe (kernels before 6.6): each removal waits for a grace
 * period; removals side by side share some of them.
 */
static void detach_links_in_parallel(struct bpf_link **links, size_t n)
{
	struct detacher d[DETACH_THREADS];
	size_t i, per = (n + DETACH_THREADS - 1) / DETACH_THREADS;
	uint64_t started = 0;

	for (i = 0; i < DETACH_THREADS && i * per < n; i++) {
		d[i].links = links + i * per;
		d[i].n = n - i * per < per ? n - i * per : per;
		/* a thread that cannot start: its share is done here */
		if (pthread_create(&d[i].thread, NULL, detach_links, &d[i]))
			detach_links(&d[i]);
		else
			started |= 1ull << i;
	}
	for (i = 0; i < DETACH_THREADS; i++)
		if (started & (1ull << i))
			pthread_join(d[i].thread, NULL);
}

/* Every probe taken out; the programs stay loaded. */
static void detach_all(struct symbol_attach *a)
{
	size_t i;

	for (i = 0; i < a->nfds; i++)
		close(a->fds[i]);
	a->nfds = 0;
	detach_links_in_parallel(a->links, a->nlinks);
	a->nlinks = 0;
}

/* One fd's close: a uprobe_multi link's removal waits for a grace period. */
static void *close_fd(void *arg)
{
	close(*(int *)arg);
	return NULL;
}

/*
 * Each link's removal waits for its own grace period, ~50 ms here: side
 * by side they share it. Which probe goes first does not matter: record
 * --duty leaves out every run not whole before the removal began.
 */
void symbol_attach_pause(struct symbol_attach *a)
{
	pthread_t threads[DETACH_THREADS];
	uint64_t started = 0;
	size_t i;

	for (i = 0; i < a->nfds; i++) {
		if (i >= DETACH_THREADS ||
		    pthread_create(&threads[i], NULL, close_fd, &a->fds[i]))
			close(a->fds[i]);
		else
			started |= 1ull << i;
	}
	for (i = 0; i < a->nfds && i < DETACH_THREADS; i++)
		if (started & (1ull << i))
			pthread_join(threads[i], NULL);
	a->nfds = 0;
	detach_links_in_parallel(a->links, a->nlinks);
	a->nlinks = 0;
}

int symbol_attach_resume(struct symbol_attach *a,
			 const struct symbol_sites *sites, pid_t pid)
{
	int err = attach_all(a, sites, pid);

	if (err)
		detach_all(a);
	return err;
}

int symbol_attach_hand_over(struct symbol_attach *a)
{
	if (!a)
		return 0;
	a->skel->bss->hits_stopped = true;
	symbol_attach_pause(a);
	return iter_run(a->skel->links.hand_over_kept);
}

void symbol_attach_close(struct symbol_attach *a)
{
	if (!a)
		return;
	detach_all(a);
	if (a->forget)
		p_debug("symbol mode: xnn_delete_operator ran %u time(s) while recording",
			a->skel->bss->xnn_forgets);
	bpf_link__destroy(a->forget);
	free(a->fds);
	free(a->links);
	symbols_bpf__destroy(a->skel);
	free(a);
}
