// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "collect/collector.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "model/etdump_model.h"
#include "schema/etdump_record.h"
#include "symbol/symbol_attach.h"
#include "symbol/func_batch.h"
#include "symbol/symbol_calibrate.h"
#include "symbol/symbol_sites.h"
#include "target/self_offset.h"

#define BATCHES 9
#define BATCH_CALLS 200
/*
 * What a probe costs holds steady over one attach's batches and differs
 * between attaches and processes by tens of ns, at times a hundred (an
 * Intel VM under load: 296 to 343 ns a scope, once 405). The target's
 * attach is one more draw: one attach's figure, taken out of every call,
 * left the shortest kernels lasting no time when it was a high one (2 of
 * 12 recordings of cnn.pte under load). The least of a few is taken.
 */
#define ATTACHES 3
/*
 * ... and it drifts by as much while the target runs (the target's raw
 * durations follow the figure measured beside them, not the one at
 * attach): measured again while recording, a batch at a time.
 */
#define RECALIBRATION_BATCHES 1
#define RING_BYTES (1 << 20)

/*
 * The recorder's own empty functions, one per kind of first instruction
 * (symbol_entry_emulated()): a push the kernel emulates, a mov it must
 * single-step. Elsewhere the compiler's prologue is what it is.
 */
#if defined(__x86_64__)
__asm__(".text\n"
	".globl etdump_calibrate_emulated\n"
	".type etdump_calibrate_emulated, @function\n"
	"etdump_calibrate_emulated:\n"
	"\tpush %rbp\n\tpop %rbp\n\tret\n"
	".size etdump_calibrate_emulated, .-etdump_calibrate_emulated\n"
	".globl etdump_calibrate_stepped\n"
	".type etdump_calibrate_stepped, @function\n"
	"etdump_calibrate_stepped:\n"
	"\tmov %rdi, %rax\n\tret\n"
	".size etdump_calibrate_stepped, .-etdump_calibrate_stepped\n");
void etdump_calibrate_emulated(void);
void etdump_calibrate_stepped(void);
#define KINDS_MEASURED SYMBOL_ENTRY_KINDS
#else
__attribute__((noinline)) void etdump_calibrate_emulated(void);
void etdump_calibrate_emulated(void)
{
	__asm__ volatile("" ::: "memory");
}
#define etdump_calibrate_stepped etdump_calibrate_emulated
#define KINDS_MEASURED 1
#endif

static void (*const functions[SYMBOL_ENTRY_KINDS])(void) = {
	[SYMBOL_ENTRY_EMULATED] = etdump_calibrate_emulated,
	[SYMBOL_ENTRY_STEPPED] = etdump_calibrate_stepped,
};

/*
 * The calls measured, inside one probed call as a runtime's kernels are
 * inside its execute: the probes keep a thread's hits until its
 * outermost call returns (bpf/hit_batch.bpf.h), and a batch into the ring
 * at every call is not what a kernel pays. Its own probes fall outside
 * the time taken; its id is none of the kinds'.
 */
#define OUTER_ID SYMBOL_ENTRY_KINDS

__attribute__((noinline)) void etdump_calibrate_outer(void (*fn)(void),
						      uint64_t *t0,
						      uint64_t *t1);
void etdump_calibrate_outer(void (*fn)(void), uint64_t *t0, uint64_t *t1)
{
	int i;

	*t0 = monotonic_ns();
	for (i = 0; i < BATCH_CALLS; i++)
		fn();
	*t1 = monotonic_ns();
}

/* The durations the probes recorded, per kind. */
struct scopes {
	uint64_t entry_ts[SYMBOL_ENTRY_KINDS];
	uint64_t *ns[SYMBOL_ENTRY_KINDS];
	size_t n[SYMBOL_ENTRY_KINDS];
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * What the probes take at least inside a scope: its 5th percentile. A
 * median leaves half the calls of a kernel that takes a few ns shorter
 * than what is taken out of them, and they would be written as lasting no
 * time; this leaves a few ns in the durations instead.
 */
static uint64_t low(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 20];
}

static int on_one_record(void *ctx, const void *data, size_t size)
{
	const struct etdump_rec_hdr *h = data;
	struct scopes *s = ctx;
	uint32_t kind;
	int err;

	if (func_batch_each(data, size, on_one_record, ctx, &err))
		return err;

	/* as the probe sends an entry: the site's id alone */
	if (h->type == ETDUMP_REC_FUNC_CALL &&
	    size >= sizeof(struct etdump_rec_func_call)) {
		kind = ((const struct etdump_rec_func_call *)data)->id;
		if (kind < SYMBOL_ENTRY_KINDS)
			s->entry_ts[kind] = h->ts;
	} else if (h->type == ETDUMP_REC_FUNC_EXIT &&
		   size >= sizeof(struct etdump_rec_func_exit)) {
		kind = ((const struct etdump_rec_func_exit *)data)->id;
		if (kind < SYMBOL_ENTRY_KINDS && s->entry_ts[kind] &&
		    h->ts >= s->entry_ts[kind] &&
		    s->n[kind] < BATCHES * BATCH_CALLS)
			s->ns[kind][s->n[kind]++] = h->ts - s->entry_ts[kind];
		if (kind < SYMBOL_ENTRY_KINDS)
			s->entry_ts[kind] = 0;
	}
	return 0;
}

/* libbpf's ring callback */
static int on_record(void *ctx, void *data, size_t size)
{
	return on_one_record(ctx, data, size);
}

/*
 * Time per call of fn, and (traced) the low end of the scopes recorded, in
 * the least disturbed of BATCHES loops (a warm-up first), the ring emptied
 * after each: a loop a busy machine slowed says what the machine did, not
 * what the probes cost.
 */
static void loop_ns(void (*fn)(void), struct ring_buffer *rb,
		    struct scopes *s, int kind, int batches, uint64_t *call,
		    uint64_t *scope)
{
	void (*volatile outer)(void (*)(void), uint64_t *, uint64_t *) =
		etdump_calibrate_outer;
	uint64_t per_call, t0, t1, m;
	size_t from;
	int b;

	*call = *scope = UINT64_MAX;
	for (b = -1; b < batches; b++) {
		from = s ? s->n[kind] : 0;
		outer(fn, &t0, &t1);
		per_call = (t1 - t0) / BATCH_CALLS;
		if (rb)
			ring_buffer__consume(rb);
		if (b < 0)
			continue;
		if (per_call < *call)
			*call = per_call;
		if (!s || s->n[kind] == from)
			continue;
		m = low(s->ns[kind] + from, s->n[kind] - from);
		if (m < *scope)
			*scope = m;
	}
}

/*
 * The sites: each of the first n calibration functions, as symbol mode
 * would attach, and the outer call they are made in (OUTER_ID) after
 * them: n + 1 sites.
 */
static int calibration_sites(struct symbol_site *site, size_t n,
			     char paths[][PATH_MAX])
{
	static char name[] = "probe calibration";
	size_t k;
	int err;

	memset(site, 0, (n + 1) * sizeof(*site));
	for (k = 0; k <= n; k++) {
		err = self_offset(k < n ? (const void *)functions[k] :
				  (const void *)etdump_calibrate_outer,
				  paths[k], PATH_MAX, &site[k].offset);
		if (err)
			return err;
		site[k].path = paths[k];
		site[k].function = name;
		site[k].single_step = k < n && k == SYMBOL_ENTRY_STEPPED;
		site[k].desc.flags = site[k].single_step ? ETDUMP_FUNC_STEPPED :
							   0;
		site[k].desc.id = k < n ? k : OUTER_ID;
		site[k].desc.kind = ETDUMP_FUNC_EVENT;
		/* its return a gap probe, to measure the entry alone after */
		site[k].ends_at_next = k < n;
		site[k].desc.name_len = strlen(name);
		memcpy(site[k].desc.name, name, site[k].desc.name_len);
	}
	/* one object: attached with one link per direction */
	for (k = 1; k <= n; k++)
		if (!strcmp(paths[k], paths[0]))
			site[k].path = paths[0];
	return 0;
}

static int measure(struct symbol_calibration *out, struct scopes *s,
		   int ring_fd, int drops_fd)
{
	struct symbol_site site[SYMBOL_ENTRY_KINDS + 1];
	static char paths[SYMBOL_ENTRY_KINDS + 1][PATH_MAX];
	struct symbol_sites sites = { .sites = site, .n = KINDS_MEASURED + 1 };
	uint64_t bare[SYMBOL_ENTRY_KINDS], traced, unused;
	struct symbol_attach *a = NULL;
	struct ring_buffer *rb;
	int k, err, nprobes;

	err = calibration_sites(site, KINDS_MEASURED, paths);
	if (err)
		return err;
	for (k = 0; k < KINDS_MEASURED; k++)
		loop_ns(functions[k], NULL, NULL, k, BATCHES, &bare[k],
			&unused);
	rb = ring_buffer__new(ring_fd, on_record, s, NULL);
	if (!rb)
		return -errno;
	err = symbol_attach_to_ring(&a, &sites, ring_fd, drops_fd, getpid(),
				    &nprobes);
	for (k = 0; !err && k < KINDS_MEASURED; k++) {
		loop_ns(functions[k], rb, s, k, BATCHES, &traced,
			&out->scope_ns[k]);
		if (!s->n[k]) {
			err = -ENODATA;
			break;
		}
		out->call_ns[k] = symbol_call_ns(
			traced > bare[k] ? traced - bare[k] : 0,
			out->scope_ns[k]);
	}
	/* the entries alone: the returns are the gap probes */
	if (!err)
		symbol_attach_drop_gap_probes(a, GAP_DROP_NOW);
	for (k = 0; !err && k < KINDS_MEASURED; k++) {
		loop_ns(functions[k], rb, NULL, k, BATCHES, &traced, &unused);
		out->entry_call_ns[k] = traced > bare[k] ? traced - bare[k] : 1;
	}
	symbol_attach_close(a);
	ring_buffer__free(rb);
	for (k = KINDS_MEASURED; k < SYMBOL_ENTRY_KINDS; k++) {
		out->scope_ns[k] = out->scope_ns[0];
		out->call_ns[k] = out->call_ns[0];
		out->entry_call_ns[k] = out->entry_call_ns[0];
	}
	return err;
}

/* The least of ATTACHES attaches' figures, each kind's own. */
static int measure_least(struct symbol_calibration *out, struct scopes *s,
			 int ring_fd, int drops_fd)
{
	struct symbol_calibration one;
	int a, k, err = 0;

	for (a = 0; !err && a < ATTACHES; a++) {
		memset(&one, 0, sizeof(one));
		memset(s->n, 0, sizeof(s->n));
		memset(s->entry_ts, 0, sizeof(s->entry_ts));
		err = measure(&one, s, ring_fd, drops_fd);
		for (k = 0; !err && k < SYMBOL_ENTRY_KINDS; k++) {
			if (!a || one.scope_ns[k] < out->scope_ns[k])
				out->scope_ns[k] = one.scope_ns[k];
			if (!a || one.call_ns[k] < out->call_ns[k])
				out->call_ns[k] = one.call_ns[k];
			if (!a || one.entry_call_ns[k] < out->entry_call_ns[k])
				out->entry_call_ns[k] = one.entry_call_ns[k];
		}
	}
	for (k = 0; !err && k < SYMBOL_ENTRY_KINDS; k++)
		out->call_ns[k] = symbol_call_ns(out->call_ns[k],
						 out->scope_ns[k]);
	return err;
}

int symbol_calibrate(struct symbol_calibration *out)
{
	struct scopes s;
	int ring_fd, drops_fd, k, err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "calib_ring", 0, 0,
				 RING_BYTES, NULL);
	drops_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "calib_drops",
				  sizeof(__u32), sizeof(__u64), 1, NULL);
	for (k = 0; k < SYMBOL_ENTRY_KINDS; k++)
		s.ns[k] = calloc(BATCHES * BATCH_CALLS, sizeof(uint64_t));
	if (ring_fd < 0 || drops_fd < 0)
		err = ring_fd < 0 ? ring_fd : drops_fd;
	else if (s.ns[0] && s.ns[1])
		err = measure_least(out, &s, ring_fd, drops_fd);
	for (k = 0; k < SYMBOL_ENTRY_KINDS; k++)
		free(s.ns[k]);
	if (ring_fd >= 0)
		close(ring_fd);
	if (drops_fd >= 0)
		close(drops_fd);
	out->done = !err;
	if (err)
		p_warn("cannot measure what the probes add to a scope (%s): durations are not corrected",
		       err == -ENODATA ? "its probes on functions of its own never fired" :
					 strerror(-err));
	return err;
}

struct symbol_recalibration {
	int ring_fd, drops_fd;
	struct ring_buffer *rb;
	struct symbol_attach *a;
	struct scopes s;
	uint64_t bare;          /* the emulated function bare, a call */
	struct symbol_site site[2];   /* the emulated kind's, the outer */
	char paths[2][PATH_MAX];
};

void symbol_recalibration_close(struct symbol_recalibration *r)
{
	if (!r)
		return;
	symbol_attach_close(r->a);
	ring_buffer__free(r->rb);
	if (r->ring_fd >= 0)
		close(r->ring_fd);
	if (r->drops_fd >= 0)
		close(r->drops_fd);
	free(r->s.ns[SYMBOL_ENTRY_EMULATED]);
	free(r);
}

int symbol_recalibration_open(struct symbol_recalibration **out)
{
	struct symbol_recalibration *r = calloc(1, sizeof(*r));
	struct symbol_sites sites;
	uint64_t unused;
	int err, nprobes;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "recalib_ring", 0, 0,
				    RING_BYTES, NULL);
	r->drops_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY,
				     "recalib_drops", sizeof(__u32),
				     sizeof(__u64), 1, NULL);
	r->s.ns[SYMBOL_ENTRY_EMULATED] = calloc(BATCHES * BATCH_CALLS,
						sizeof(uint64_t));
	err = r->ring_fd < 0 ? r->ring_fd : r->drops_fd < 0 ? r->drops_fd :
	      !r->s.ns[SYMBOL_ENTRY_EMULATED] ? -ENOMEM : 0;
	if (!err)
		err = calibration_sites(r->site, 1, r->paths);
	if (!err) {
		r->rb = ring_buffer__new(r->ring_fd, on_record, &r->s, NULL);
		err = r->rb ? 0 : -errno;
	}
	if (!err) {
		loop_ns(functions[SYMBOL_ENTRY_EMULATED], NULL, NULL,
			SYMBOL_ENTRY_EMULATED, BATCHES, &r->bare, &unused);
		sites = (struct symbol_sites){ .sites = r->site, .n = 2 };
		err = symbol_attach_to_ring(&r->a, &sites, r->ring_fd,
					    r->drops_fd, getpid(), &nprobes);
	}
	if (err) {
		symbol_recalibration_close(r);
		return err;
	}
	*out = r;
	return 0;
}

int symbol_recalibrate(struct symbol_recalibration *r,
		       struct symbol_calibration *c)
{
	const int k = SYMBOL_ENTRY_EMULATED;
	uint64_t traced, scope;

	r->s.n[k] = 0;
	r->s.entry_ts[k] = 0;
	loop_ns(functions[k], r->rb, &r->s, k, RECALIBRATION_BATCHES, &traced,
		&scope);
	if (!r->s.n[k])
		return -ENODATA;
	c->scope_ns[k] = scope;
	c->call_ns[k] = symbol_call_ns(traced > r->bare ? traced - r->bare : 0,
				       scope);
	return 0;
}

void symbol_calibration_text(const struct symbol_calibration *c, char *buf,
			     size_t len)
{
	snprintf(buf, len,
		 SYMBOL_CALIBRATION_MAGIC ";scope_ns=%llu;call_ns=%llu;stepped_scope_ns=%llu;stepped_call_ns=%llu",
		 (unsigned long long)c->scope_ns[SYMBOL_ENTRY_EMULATED],
		 (unsigned long long)c->call_ns[SYMBOL_ENTRY_EMULATED],
		 (unsigned long long)c->scope_ns[SYMBOL_ENTRY_STEPPED],
		 (unsigned long long)c->call_ns[SYMBOL_ENTRY_STEPPED]);
}

void symbol_calibration_record(const struct symbol_calibration *c,
			       const struct etdump_rec_hdr *like,
			       struct etdump_rec_probe_time *r)
{
	int k;

	memset(r, 0, sizeof(*r));
	r->hdr = *like;
	r->hdr.type = ETDUMP_REC_PROBE_TIME;
	r->hdr.ncounters = 0;
	r->hdr.size = sizeof(*r);
	for (k = 0; k < SYMBOL_ENTRY_KINDS; k++) {
		r->scope_ns[k] = c->scope_ns[k];
		r->call_ns[k] = c->call_ns[k];
		r->entry_call_ns[k] = c->entry_call_ns[k];
	}
}

void symbol_calibration_from_record(struct symbol_calibration *c,
				    const struct etdump_rec_probe_time *r,
				    size_t len)
{
	bool entry_call = len >= sizeof(*r) && r->hdr.size >= sizeof(*r);
	int k;

	for (k = 0; k < SYMBOL_ENTRY_KINDS; k++) {
		c->scope_ns[k] = r->scope_ns[k];
		c->call_ns[k] = symbol_call_ns(r->call_ns[k], r->scope_ns[k]);
		c->entry_call_ns[k] = entry_call ? r->entry_call_ns[k] : 0;
	}
	c->done = true;
}

int symbol_calibration_note(const struct symbol_calibration *c,
			    bool call_order, struct collector *col)
{
	char text[224];
	size_t n;

	if (!c->done && !call_order)
		return 0;
	if (c->done)
		symbol_calibration_text(c, text, sizeof(text) -
					sizeof(SYMBOL_NOTE_CALL_ORDER));
	else
		snprintf(text, sizeof(text), "%s", SYMBOL_NOTE_MAGIC);
	n = strlen(text);
	if (call_order)
		snprintf(text + n, sizeof(text) - n, "%s",
			 SYMBOL_NOTE_CALL_ORDER);
	return collector_set_run_note(col, text);
}

void symbol_calibration_say(const struct symbol_calibration *c,
			    const char *when)
{
	if (!c->done) {
		p_info("symbol mode: durations include the probes' own time (not measured)");
		return;
	}
	p_info("symbol mode: durations %s less the probes' own time, measured at attach: %llu ns per probed scope and %llu ns per probed call within one (single-stepped entries: %llu and %llu ns)",
	       when,
	       (unsigned long long)c->scope_ns[SYMBOL_ENTRY_EMULATED],
	       (unsigned long long)c->call_ns[SYMBOL_ENTRY_EMULATED],
	       (unsigned long long)c->scope_ns[SYMBOL_ENTRY_STEPPED],
	       (unsigned long long)c->call_ns[SYMBOL_ENTRY_STEPPED]);
}
