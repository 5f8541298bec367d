// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collect/value_capture.h"
#include "lib/log.h"
#include "lib/utf8.h"
#include "model/debug_buffer.h"
#include "schema/etdump_usdt.h"

/* The record carries the runtime's descriptor as it is. */
#define SAME_FIELD(a, b)                                                       \
	_Static_assert(offsetof(struct etdump_value_desc, a) ==                \
			       offsetof(struct etdump_value_wire, b),          \
		       "value descriptor layout: " #a)
SAME_FIELD(type, type);
SAME_FIELD(flags, flags);
SAME_FIELD(index, index);
SAME_FIELD(count, count);
SAME_FIELD(scalar_type, scalar_type);
SAME_FIELD(dim, dim);
SAME_FIELD(sizes, sizes);
SAME_FIELD(strides, strides);
SAME_FIELD(data, data);
SAME_FIELD(nbytes, nbytes);
SAME_FIELD(int_val, int_val);
SAME_FIELD(double_val, double_bits);
SAME_FIELD(delegate_id_str, delegate_id_str);
SAME_FIELD(delegate_id_int, delegate_id_int);
_Static_assert(sizeof(struct etdump_value_desc) ==
		       sizeof(struct etdump_value_wire),
	       "value descriptor size");
_Static_assert(ETDUMP_VALUE_DIM_MAX == ETDUMP_VALUE_DIM_MAX_REC,
	       "value descriptor dimensions");

/* No tensor the runtime logs is this large; a descriptor saying so is bad. */
#define VALUE_NBYTES_MAX (1ull << 40)

struct value_thread {
	uint32_t tid;
	/* the chunks of the next value, as far as they run on from 0 */
	struct debug_buffer pending;
	/* a list of tensors being put together */
	struct etd_event list;
	uint32_t list_next;
	uint32_t list_count;
};

struct value_capture {
	struct value_thread *threads;
	size_t nthreads;
	struct debug_buffer buf;
	struct debug_buffer_cut *cuts;
	size_t ncuts;
	bool sealed;
	struct value_capture_stats stats;
};

struct value_capture *value_capture_new(void)
{
	return calloc(1, sizeof(struct value_capture));
}

void value_capture_free(struct value_capture *vc)
{
	size_t i;

	if (!vc)
		return;
	for (i = 0; i < vc->nthreads; i++) {
		debug_buffer_free(&vc->threads[i].pending);
		etd_event_free(&vc->threads[i].list);
	}
	free(vc->threads);
	free(vc->cuts);
	debug_buffer_free(&vc->buf);
	free(vc);
}

static struct value_thread *thread_get(struct value_capture *vc, uint32_t tid)
{
	struct value_thread *t;
	size_t i;

	for (i = 0; i < vc->nthreads; i++)
		if (vc->threads[i].tid == tid)
			return &vc->threads[i];
	t = realloc(vc->threads, (vc->nthreads + 1) * sizeof(*t));
	if (!t)
		return NULL;
	vc->threads = t;
	t = &vc->threads[vc->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	etd_event_init(&t->list, ETD_DEBUG);
	return t;
}

bool value_record_valid(const struct etdump_rec_hdr *h)
{
	const struct etdump_rec_value_data *d = (const void *)h;
	const struct etdump_rec_value *v = (const void *)h;

	if (h->type == ETDUMP_REC_VALUE_DATA)
		return h->size >= offsetof(struct etdump_rec_value_data, data) &&
		       d->len <= ETDUMP_VALUE_CHUNK &&
		       d->len <= h->size - offsetof(struct etdump_rec_value_data,
						    data);
	if (h->size < sizeof(*v) || v->desc.dim > ETDUMP_VALUE_DIM_MAX_REC ||
	    v->desc.nbytes > VALUE_NBYTES_MAX || v->copied > v->desc.nbytes)
		return false;
	switch (v->desc.type) {
	case ETDUMP_VALUE_NULL:
		return v->rec_flags & ETDUMP_VREC_UNREAD;
	case ETDUMP_VALUE_INT:
	case ETDUMP_VALUE_BOOL:
	case ETDUMP_VALUE_DOUBLE:
	case ETDUMP_VALUE_TENSOR:
		return true;
	case ETDUMP_VALUE_TENSOR_LIST:
		return !v->desc.count || v->desc.index < v->desc.count;
	}
	return false;
}

int value_capture_data(struct value_capture *vc,
		       const struct etdump_rec_value_data *r)
{
	struct value_thread *t = thread_get(vc, r->hdr.tid);
	struct debug_buffer *p;

	if (!t)
		return -ENOMEM;
	p = &t->pending;
	/* a value starts at 0; a gap (a chunk lost) ends what runs on */
	if (!r->offset)
		p->len = 0;
	/* nothing to add: the buffer may not even be there yet */
	if (r->offset != p->len || !r->len)
		return 0;
	if (debug_buffer_grow(p, p->len + r->len))
		return -ENOMEM;
	memcpy(p->data + p->len, r->data, r->len);
	p->len += r->len;
	return 0;
}

/* A tensor from its descriptor; its bytes into the debug buffer. */
static int make_tensor(struct value_capture *vc, struct value_thread *t,
		       const struct etdump_rec_value *r, struct etd_tensor *out)
{
	const struct etdump_value_wire *d = &r->desc;
	size_t have = t->pending.len < r->copied ? t->pending.len : r->copied, at;
	int err;

	memset(out, 0, sizeof(*out));
	out->scalar_type = (int8_t)d->scalar_type;
	out->nsizes = out->nstrides = d->dim;
	out->sizes = calloc(d->dim + 1, sizeof(int64_t));
	out->strides = calloc(d->dim + 1, sizeof(int64_t));
	if (!out->sizes || !out->strides)
		return -ENOMEM;
	memcpy(out->sizes, d->sizes, d->dim * sizeof(int64_t));
	memcpy(out->strides, d->strides, d->dim * sizeof(int64_t));
	t->pending.len = 0;
	vc->stats.tensors++;
	/* ETDumpGen: a tensor of no bytes has no place in the buffer */
	if (!d->nbytes) {
		out->offset = -1;
		return 0;
	}
	err = debug_buffer_reserve(&vc->buf, d->nbytes, &at);
	if (err)
		return err;
	if (have)
		memcpy(vc->buf.data + at, t->pending.data, have);
	out->offset = at;
	vc->stats.bytes += have;
	if (have < d->nbytes) {
		struct debug_buffer_cut *c;

		vc->stats.cut++;
		vc->stats.cut_bytes += d->nbytes - have;
		c = realloc(vc->cuts, (vc->ncuts + 1) * sizeof(*c));
		if (!c)
			return -ENOMEM;
		vc->cuts = c;
		c[vc->ncuts].offset = at;
		c[vc->ncuts++].copied = have;
	}
	return 0;
}

static void event_ids(struct value_capture *vc, const struct etdump_rec_value *r,
		      struct etd_event *ev)
{
	(void)vc;
	etd_event_init(ev, ETD_DEBUG);
	/* the schema's chain is a uint64: -1 outside instructions, as ETDumpGen */
	ev->debug_chain_index = (uint64_t)(int64_t)r->chain;
	ev->instruction_id = r->instr;
	ev->delegate_id_int = (int32_t)r->desc.delegate_id_int;
}

static int event_name(const struct etdump_rec_value *r, struct etd_event *ev)
{
	size_t len = r->name_len;

	if (!len || len == ETDUMP_NAME_UNREAD)
		return 0;
	if (len >= ETDUMP_NAME_MAX)
		len = ETDUMP_NAME_MAX - 1;
	ev->delegate_id_str = strndup(r->name, len);
	if (!ev->delegate_id_str)
		return -ENOMEM;
	utf8_sanitize(ev->delegate_id_str);
	ev->delegate_id_int = ETD_UNSET;
	return 0;
}

/* A member of a list: the list's event is ready with its last member. */
static int list_member(struct value_capture *vc, struct value_thread *t,
		       const struct etdump_rec_value *r, struct etd_event *ev,
		       bool *ready)
{
	struct etd_value *v;
	struct etd_tensor *ts;
	int err;

	if (r->desc.index == 0 || t->list_count != r->desc.count ||
	    t->list_next != r->desc.index) {
		if (t->list.debug_entry)
			vc->stats.lost++; /* a member went missing */
		etd_event_free(&t->list);
		if (r->desc.index != 0) {
			vc->stats.lost++;
			t->pending.len = 0;
			return 0;
		}
		event_ids(vc, r, &t->list);
		err = event_name(r, &t->list);
		if (err)
			return err;
		v = t->list.debug_entry = calloc(1, sizeof(*v));
		if (!v)
			return -ENOMEM;
		v->type = ETD_VALUE_TENSOR_LIST;
		v->has_output = v->output = r->desc.flags & ETDUMP_VALUE_OUTPUT;
		t->list_count = r->desc.count;
		t->list_next = 0;
	}
	v = t->list.debug_entry;
	if (r->desc.count) {
		ts = realloc(v->tensors, (v->ntensors + 1) * sizeof(*ts));
		if (!ts)
			return -ENOMEM;
		v->tensors = ts;
		err = make_tensor(vc, t, r, &v->tensors[v->ntensors]);
		v->ntensors++;
		if (err)
			return err;
		t->list_next++;
		if (t->list_next < t->list_count)
			return 0;
	}
	*ev = t->list;
	etd_event_init(&t->list, ETD_DEBUG);
	t->list_count = t->list_next = 0;
	*ready = true;
	vc->stats.values++;
	return 0;
}

int value_capture_value(struct value_capture *vc,
			const struct etdump_rec_value *r, struct etd_event *ev,
			bool *ready)
{
	struct value_thread *t = thread_get(vc, r->hdr.tid);
	struct etd_value *v;
	int err;

	*ready = false;
	if (!t)
		return -ENOMEM;
	if (r->rec_flags & ETDUMP_VREC_UNREAD) {
		vc->stats.lost++;
		t->pending.len = 0;
		return 0;
	}
	if (r->desc.type == ETDUMP_VALUE_TENSOR_LIST)
		return list_member(vc, t, r, ev, ready);

	event_ids(vc, r, ev);
	err = event_name(r, ev);
	v = ev->debug_entry = calloc(1, sizeof(*v));
	if (err || !v)
		goto nomem;
	switch (r->desc.type) {
	case ETDUMP_VALUE_TENSOR:
		v->type = ETD_VALUE_TENSOR;
		v->has_output = v->output = r->desc.flags & ETDUMP_VALUE_OUTPUT;
		if (make_tensor(vc, t, r, &v->tensor))
			goto nomem;
		break;
	case ETDUMP_VALUE_INT:
		v->type = ETD_VALUE_INT;
		v->int_val = r->desc.int_val;
		break;
	case ETDUMP_VALUE_BOOL:
		v->type = ETD_VALUE_BOOL;
		v->bool_val = r->desc.int_val != 0;
		break;
	case ETDUMP_VALUE_DOUBLE:
		v->type = ETD_VALUE_DOUBLE;
		memcpy(&v->double_val, &r->desc.double_bits, sizeof(double));
		break;
	}
	t->pending.len = 0;
	*ready = true;
	vc->stats.values++;
	return 0;
nomem:
	etd_event_free(ev);
	return -ENOMEM;
}

int value_capture_seal(struct value_capture *vc)
{
	if (vc->sealed)
		return 0;
	vc->sealed = true;
	return debug_buffer_seal(&vc->buf, vc->cuts, vc->ncuts);
}

const uint8_t *value_capture_buffer(const struct value_capture *vc,
				    size_t *len)
{
	*len = vc->buf.len;
	return vc->buf.data;
}

void value_capture_get_stats(const struct value_capture *vc,
			     struct value_capture_stats *st)
{
	*st = vc->stats;
}

void value_capture_summary(const struct value_capture *vc, const char *path,
			   uint64_t max)
{
	const struct value_capture_stats *st = &vc->stats;
	char bound[64] = "";

	p_info("values: %llu DebugEvents (%llu tensors, %llu bytes) in %s",
	       (unsigned long long)st->values,
	       (unsigned long long)st->tensors,
	       (unsigned long long)st->bytes, path ? path : "the ETDump");
	if (max)
		snprintf(bound, sizeof(bound), " (--values=%llu bytes a value, or the ring)",
			 (unsigned long long)max);
	if (st->cut)
		p_warn("%llu tensors cut short%s: %llu bytes missing, zeros in their place",
		       (unsigned long long)st->cut, bound,
		       (unsigned long long)st->cut_bytes);
	if (st->lost)
		p_warn("%llu values lost (unreadable, or a list missing a tensor)",
		       (unsigned long long)st->lost);
}
