// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "lib/huge_pages.h"
#include "model/run_log.h"

/*
 * Slabs are mapped, not malloc'd: a slab written and unmapped gives its
 * pages back at once, so the ETDump being built reuses the memory the runs
 * held instead of adding to it.
 */
#define SLAB_BYTES (4u << 20)
/*
 * Slabs kept for reuse once drained: a read of a full ring can fill ~3
 * (8 MiB of records, ~48 bytes an event here), and one mapped afresh each
 * time measured ~1/4 of the recorder's CPU in this VM.
 */
#define SLAB_SPARES 4

struct slab {
	struct slab *next;
	size_t used;
	size_t cap;           /* the mapping's size */
	size_t nruns;
	uint8_t data[] __attribute__((aligned(8)));
};

/* A run in a slab: this, its events, then its metadata bytes. */
struct log_run {
	struct run_view v;
};

struct run_log {
	struct slab *first;
	struct slab *last;
	/* drained by run_log_drain_slab(), kept warm: a list by ->next */
	struct slab *spare;
	unsigned int nspare;
	size_t nruns;
	size_t nevents;
	size_t bytes;
};

void packed_event_profile(const struct run_view *r,
			  const struct packed_event *p, struct etd_profile *out)
{
	bool delegate = p->flags & PACKED_DELEGATE;
	bool meta = p->flags & (PACKED_DELEGATE | PACKED_NOTE);

	out->name = delegate ? NULL : p->str;
	out->delegate_id_str = delegate ? p->str : NULL;
	out->instruction_id = p->instr;
	out->delegate_id_int = delegate && !p->str ? p->id_int : ETD_UNSET;
	out->chain_index = p->chain;
	/* an empty vector is still one: a pointer, even to nothing */
	out->metadata = !meta ? NULL :
			r->meta ? r->meta + p->aux : (const uint8_t *)"";
	out->metadata_len = meta ? p->meta_len : 0;
	out->has_metadata = meta;
	out->start_time = p->start;
	out->end_time = p->end;
}

void packed_event_view(const struct run_view *r, const struct packed_event *p,
		       struct etd_event *out)
{
	struct etd_profile v;

	if (p->flags & PACKED_FULL) {
		*out = r->full[p->aux];
		return;
	}
	packed_event_profile(r, p, &v);
	/* not a compound literal: that clears with `rep stos`, slow at this size */
	etd_event_init(out, ETD_PROFILE);
	out->name = (char *)v.name;
	out->delegate_id_str = (char *)v.delegate_id_str;
	out->instruction_id = v.instruction_id;
	out->delegate_id_int = v.delegate_id_int;
	out->chain_index = v.chain_index;
	out->metadata = (uint8_t *)v.metadata;
	out->metadata_len = v.metadata_len;
	out->has_metadata = v.has_metadata;
	out->start_time = v.start_time;
	out->end_time = v.end_time;
}

uint64_t run_view_span(const struct run_view *r)
{
	uint64_t first = UINT64_MAX, last = 0;
	struct etd_event ev;
	size_t i;

	for (i = 0; i < r->nevents; i++) {
		packed_event_view(r, &r->events[i], &ev);
		if (ev.start_time < first)
			first = ev.start_time;
		if (ev.end_time > last)
			last = ev.end_time;
	}
	return last > first ? last - first : 0;
}

struct run_log *run_log_new(void)
{
	return calloc(1, sizeof(struct run_log));
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static struct slab *slab_new(size_t need)
{
	size_t cap = sizeof(struct slab) + need;
	struct slab *s;

	cap = cap > SLAB_BYTES ? (cap + 4095) & ~(size_t)4095 : SLAB_BYTES;
	s = huge_pages_map(cap);
	if (!s)
		return NULL;
	s->next = NULL;
	s->used = 0;
	s->nruns = 0;
	s->cap = cap;
	return s;
}

static size_t slab_room(const struct slab *s)
{
	return s->cap - sizeof(*s) - s->used;
}

/* s, a slab not in the log, as its last: runs go in in append order */
static void link_last(struct run_log *l, struct slab *s)
{
	if (l->last)
		l->last->next = s;
	else
		l->first = s;
	l->last = s;
	l->bytes += s->cap;
}

int run_log_append(struct run_log *l, struct run_view *r)
{
	size_t evbytes = r->nevents * sizeof(*r->events);
	size_t need = align8(sizeof(struct log_run) + evbytes + r->meta_len);
	struct log_run *lr;
	struct slab *s = l->last;
	struct etd_event *full = NULL;

	if (r->nfull) {
		/* the run's array may be reused by the caller: a copy of it */
		full = malloc(r->nfull * sizeof(*full));
		if (!full)
			return -ENOMEM;
		memcpy(full, r->full, r->nfull * sizeof(*full));
	}
	if (!s || slab_room(s) < need) {
		if (l->spare && slab_room(l->spare) >= need) {
			s = l->spare;
			l->spare = s->next;
			l->nspare--;
			s->next = NULL;
		} else {
			s = slab_new(need);
		}
		if (!s) {
			free(full);
			return -ENOMEM;
		}
		link_last(l, s);
	}
	lr = (struct log_run *)(s->data + s->used);
	lr->v = *r;
	lr->v.events = (struct packed_event *)(lr + 1);
	if (evbytes)
		memcpy(lr->v.events, r->events, evbytes);
	lr->v.meta = (uint8_t *)lr->v.events + evbytes;
	if (r->meta_len)
		memcpy(lr->v.meta, r->meta, r->meta_len);
	lr->v.full = full;
	/* taken: the caller's array is left for its next run */
	r->nfull = 0;
	s->used += need;
	s->nruns++;
	l->nruns++;
	l->nevents += r->nevents;
	return 0;
}

/*
 * A slab of one run whose events are the pages of their own mapping, moved
 * in at the first huge page boundary: the header and the run's view before
 * it (4 KiB pages, as that one page is all they touch), the metadata after.
 * NULL if it cannot be had: the run is copied then.
 */
static struct slab *slab_taking(struct run_view *r, size_t mapped)
{
	size_t head = HUGE_PAGE_BYTES;
	size_t cap = head + mapped + ((r->meta_len + 4095) & ~(size_t)4095);
	struct log_run *lr;
	uint8_t *m;
	struct slab *s;

	_Static_assert(sizeof(struct slab) + sizeof(struct log_run) <= 4096,
		       "the header takes one page");
	m = huge_pages_reserve(cap);
	if (!m)
		return NULL;
	madvise(m, head, MADV_NOHUGEPAGE);
	if (mremap(r->events, mapped, mapped, MREMAP_MAYMOVE | MREMAP_FIXED,
		   m + head) == MAP_FAILED) {
		munmap(m, cap);
		return NULL;
	}
	s = (struct slab *)m;
	s->next = NULL;
	s->cap = cap;
	s->used = cap - sizeof(*s); /* full: no other run goes in */
	s->nruns = 1;
	lr = (struct log_run *)s->data;
	lr->v = *r;
	lr->v.events = (struct packed_event *)(m + head);
	lr->v.meta = m + head + mapped;
	if (r->meta_len)
		memcpy(lr->v.meta, r->meta, r->meta_len);
	r->events = NULL;
	return s;
}

int run_log_append_taking(struct run_log *l, struct run_view *r,
			  size_t mapped)
{
	struct slab *s;

	if (mapped < SLAB_BYTES || r->nfull)
		return run_log_append(l, r);
	s = slab_taking(r, mapped);
	if (!s)
		return run_log_append(l, r);
	/* full: the next run starts a slab after it */
	link_last(l, s);
	l->nruns++;
	l->nevents += r->nevents;
	return 0;
}

size_t run_log_runs(const struct run_log *l)
{
	return l->nruns;
}

size_t run_log_events(const struct run_log *l)
{
	return l->nevents;
}

size_t run_log_bytes(const struct run_log *l)
{
	return l->bytes;
}

/* The full events its runs still own. */
static void slab_free_events(struct slab *s)
{
	struct log_run *lr;
	size_t off, i, n;

	for (off = 0, n = 0; n < s->nruns; n++) {
		lr = (struct log_run *)(s->data + off);
		for (i = 0; i < lr->v.nfull; i++)
			etd_event_free(&lr->v.full[i]);
		free(lr->v.full);
		off += align8(sizeof(*lr) + lr->v.nevents * sizeof(*lr->v.events) +
			      lr->v.meta_len);
	}
}

static void slab_free(struct slab *s, bool free_full, run_log_pages_fn give,
		      void *ctx)
{
	if (free_full)
		slab_free_events(s);
	if (give)
		give(ctx, s, s->cap);
	else
		munmap(s, s->cap);
}

int run_log_each(struct run_log *l, bool drain, run_log_fn fn, void *ctx)
{
	return run_log_drain_to(l, drain, fn, ctx, NULL);
}

int run_log_drain_to(struct run_log *l, bool drain, run_log_fn fn, void *ctx,
		     run_log_pages_fn give)
{
	struct slab *s, *next;
	struct log_run *lr;
	size_t off, n;
	int err = 0;

	for (s = l->first; s; s = next) {
		next = s->next;
		for (off = 0, n = 0; !err && n < s->nruns; n++) {
			lr = (struct log_run *)(s->data + off);
			off += align8(sizeof(*lr) +
				      lr->v.nevents * sizeof(*lr->v.events) +
				      lr->v.meta_len);
			err = fn(ctx, &lr->v);
		}
		if (drain) {
			l->bytes -= s->cap;
			l->first = next;
			if (!next)
				l->last = NULL;
			slab_free(s, true, give, ctx);
		}
		if (err)
			break;
	}
	if (drain && !err) {
		l->nruns = 0;
		l->nevents = 0;
	}
	return err;
}

int run_log_drain_slab(struct run_log *l, bool last_too, run_log_fn fn,
		       void *ctx, run_log_pages_fn give)
{
	struct slab *s = l->first;
	struct log_run *lr;
	size_t off, n;
	int err = 0;

	/* the last slab is still being filled */
	if (!s || (s == l->last && !last_too))
		return 0;
	for (off = 0, n = 0; !err && n < s->nruns; n++) {
		lr = (struct log_run *)(s->data + off);
		off += align8(sizeof(*lr) + lr->v.nevents * sizeof(*lr->v.events) +
			      lr->v.meta_len);
		l->nevents -= lr->v.nevents;
		err = fn(ctx, &lr->v);
	}
	l->nruns -= s->nruns;
	l->bytes -= s->cap;
	l->first = s->next;
	if (!l->first)
		l->last = NULL;
	/*
	 * Without a taker for its pages the slab is kept for the next runs:
	 * pages already there cost nothing, fresh ones a clearing each.
	 */
	if (!give && l->nspare < SLAB_SPARES && s->cap == SLAB_BYTES) {
		slab_free_events(s);
		s->used = 0;
		s->nruns = 0;
		s->next = l->spare;
		l->spare = s;
		l->nspare++;
	} else {
		slab_free(s, true, give, ctx);
	}
	return err ? err : 1;
}

void run_log_free(struct run_log *l)
{
	struct slab *s, *next;

	if (!l)
		return;
	for (s = l->first; s; s = next) {
		next = s->next;
		slab_free(s, true, NULL, NULL);
	}
	while (l->spare) {
		s = l->spare;
		l->spare = s->next;
		munmap(s, s->cap);
	}
	free(l);
}
