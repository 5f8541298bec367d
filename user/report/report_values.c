// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/log.h"
#include "model/debug_buffer.h"
#include "read/etdump_reader.h"
#include "report/report_values.h"

/* One tensor or scalar of a DebugEvent, where it was logged. */
struct item {
	const char *block;
	size_t run;               /* ordinal of the run in the file, from 1 */
	int64_t chain;
	int32_t instr;
	const char *op;           /* whose output it is, or NULL */
	bool output;
	int sub;                  /* index in a tensor list, or -1 */
	const struct etd_value *v;
	const struct etd_tensor *t; /* NULL for a scalar */
};

struct recording {
	const char *name;
	struct etd_dump dump;
	uint8_t *buf;             /* the debug buffer, or NULL */
	size_t len;
	const uint8_t *cuts;      /* its trailer's entries */
	size_t ncuts;
	struct item *items;
	size_t n;
};

/* Numbers a tensor's element can be read as; 0 for a dtype we cannot. */
static size_t element_size(int8_t st)
{
	switch (st) {
	case 0: case 1: case 11:          /* BYTE, CHAR, BOOL */
		return 1;
	case 2: case 5: case 15: case 22: case 27: /* SHORT, HALF, BF16, BITS16, UINT16 */
		return 2;
	case 3: case 6: case 28:          /* INT, FLOAT, UINT32 */
		return 4;
	case 4: case 7: case 29:          /* LONG, DOUBLE, UINT64 */
		return 8;
	}
	return 0;
}

static const char *dtype_name(int8_t st)
{
	static const char *const names[] = {
		[0] = "BYTE", [1] = "CHAR", [2] = "SHORT", [3] = "INT",
		[4] = "LONG", [5] = "HALF", [6] = "FLOAT", [7] = "DOUBLE",
		[11] = "BOOL", [12] = "QINT8", [13] = "QUINT8", [14] = "QINT32",
		[15] = "BFLOAT16", [22] = "BITS16", [27] = "UINT16",
		[28] = "UINT32", [29] = "UINT64",
	};

	if (st >= 0 && (size_t)st < sizeof(names) / sizeof(names[0]) &&
	    names[st])
		return names[st];
	return "?";
}

static double half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v;

	if (e == 0x1f)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(m, -24);
	else
		v = ldexp(m + 1024, e - 25);
	return h & 0x8000 ? -v : v;
}

static double element(const uint8_t *p, int8_t st)
{
	union { uint8_t b[8]; int8_t i8; uint16_t u16; int16_t i16;
		int32_t i32; uint32_t u32; int64_t i64; uint64_t u64;
		float f; double d; } u;
	uint32_t bf;

	memcpy(u.b, p, element_size(st));
	switch (st) {
	case 0: case 11: return u.b[0];
	case 1: return u.i8;
	case 2: return u.i16;
	case 5: return half_to_double(u.u16);
	case 15:
		bf = (uint32_t)u.u16 << 16;
		memcpy(&u.f, &bf, 4);
		return u.f;
	case 22: case 27: return u.u16;
	case 3: return u.i32;
	case 6: return u.f;
	case 28: return u.u32;
	case 4: return (double)u.i64;
	case 7: return u.d;
	case 29: return (double)u.u64;
	}
	return NAN;
}

/* Elements, or -1 when the sizes make no tensor. */
static int64_t numel(const struct etd_tensor *t)
{
	int64_t n = 1;
	uint32_t i;

	for (i = 0; i < t->nsizes; i++) {
		if (t->sizes[i] < 0 || (t->sizes[i] && n > INT64_MAX / t->sizes[i]))
			return -1;
		n *= t->sizes[i];
	}
	return n;
}

/* The tensor's bytes in the buffer, or NULL (none, or out of it). */
static const uint8_t *tensor_data(const struct recording *r,
				  const struct etd_tensor *t, int64_t *count)
{
	size_t es = element_size(t->scalar_type);
	int64_t n = numel(t);

	*count = n;
	if (!r->buf || !es || n <= 0 || t->offset < 0 ||
	    (uint64_t)n > (r->len - (size_t)t->offset) / es ||
	    (size_t)t->offset > r->len)
		return NULL;
	return r->buf + t->offset;
}

/* The bytes of a cut tensor that are real; -1 when it is whole. */
static int64_t cut_at(const struct recording *r, const struct etd_tensor *t)
{
	uint64_t e[2];
	size_t i;

	for (i = 0; i < r->ncuts; i++) {
		memcpy(e, r->cuts + i * 16, 16);
		if ((int64_t)e[0] == t->offset)
			return (int64_t)e[1];
	}
	return -1;
}

/* The operator a value belongs to: the next named scope of its instruction. */
static const char *owner(const struct etd_run *run, size_t at, int64_t chain,
			 int32_t instr)
{
	size_t i;

	for (i = at + 1; i < run->nevents; i++) {
		const struct etd_event *e = &run->events[i];

		if (e->kind != ETD_PROFILE || e->chain_index != chain ||
		    e->instruction_id != instr)
			continue;
		if (e->delegate_id_str)
			return e->delegate_id_str;
		if (e->name && !strstr(e->name, "OPERATOR_CALL"))
			return e->name;
	}
	return NULL;
}

static int add_item(struct recording *r, const struct item *it)
{
	struct item *p = realloc(r->items, (r->n + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	r->items = p;
	r->items[r->n++] = *it;
	return 0;
}

static int flatten(struct recording *r)
{
	size_t i, j;
	uint32_t k;

	for (i = 0; i < r->dump.nruns; i++) {
		const struct etd_run *run = &r->dump.runs[i];

		for (j = 0; j < run->nevents; j++) {
			const struct etd_event *e = &run->events[j];
			struct item it = { 0 };

			if (e->kind != ETD_DEBUG || !e->debug_entry)
				continue;
			it.block = run->name ? run->name : "";
			it.run = i + 1;
			it.chain = (int64_t)e->debug_chain_index;
			it.instr = e->instruction_id;
			it.v = e->debug_entry;
			it.output = it.v->has_output && it.v->output;
			it.op = it.output ? "(program output)" :
				owner(run, j, it.chain, it.instr);
			it.sub = -1;
			if (it.v->type == ETD_VALUE_TENSOR) {
				it.t = &it.v->tensor;
			} else if (it.v->type == ETD_VALUE_TENSOR_LIST) {
				for (k = 0; k < it.v->ntensors; k++) {
					it.t = &it.v->tensors[k];
					it.sub = k;
					if (add_item(r, &it))
						return -ENOMEM;
				}
				continue;
			}
			if (add_item(r, &it))
				return -ENOMEM;
		}
	}
	return 0;
}

static int load(struct recording *r, const struct report_values_input *in)
{
	char err[512], *path = NULL;
	void *buf = NULL;
	int ret;

	r->name = in->etdump;
	ret = etdump_read_file(in->etdump, &r->dump, err, sizeof(err));
	if (ret) {
		p_err("%s: %s", in->etdump, err);
		return ret;
	}
	if (!in->debug_buffer) {
		path = debug_buffer_path_for(in->etdump);
		if (!path)
			return -ENOMEM;
	}
	ret = etdump_load_file(in->debug_buffer ? in->debug_buffer : path, &buf,
			       &r->len);
	if (ret == -ENOENT && !in->debug_buffer) {
		p_warn("%s: no debug buffer (%s): tensor values unknown",
		       in->etdump, path);
		ret = 0;
	} else if (ret) {
		p_err("%s: cannot read: %s",
		      in->debug_buffer ? in->debug_buffer : path, strerror(-ret));
	}
	free(path);
	if (ret)
		return ret;
	r->buf = buf;
	if (r->buf)
		r->ncuts = debug_buffer_cuts(r->buf, r->len, &r->cuts);
	return flatten(r);
}

static void unload(struct recording *r)
{
	etd_dump_free(&r->dump);
	free(r->buf);
	free(r->items);
}

static void shape(const struct item *it, char *s, size_t len)
{
	size_t at = 0;
	uint32_t i;

	if (!it->t) {
		snprintf(s, len, "-");
		return;
	}
	at += snprintf(s + at, len - at, "[");
	for (i = 0; i < it->t->nsizes && at < len; i++)
		at += snprintf(s + at, len - at, "%s%lld", i ? "," : "",
			       (long long)it->t->sizes[i]);
	if (at < len)
		snprintf(s + at, len - at, "]");
}

static const char *type_name(const struct item *it)
{
	switch (it->v->type) {
	case ETD_VALUE_INT: return "Int";
	case ETD_VALUE_BOOL: return "Bool";
	case ETD_VALUE_FLOAT: return "Float";
	case ETD_VALUE_DOUBLE: return "Double";
	case ETD_VALUE_TENSOR:
	case ETD_VALUE_TENSOR_LIST: return dtype_name(it->t->scalar_type);
	default: return "None";
	}
}

static double scalar(const struct etd_value *v)
{
	switch (v->type) {
	case ETD_VALUE_INT: return (double)v->int_val;
	case ETD_VALUE_BOOL: return v->bool_val;
	case ETD_VALUE_FLOAT: return v->float_val;
	case ETD_VALUE_DOUBLE: return v->double_val;
	default: return NAN;
	}
}

static void where(FILE *f, const struct item *it)
{
	char sub[16] = "";

	if (it->sub >= 0)
		snprintf(sub, sizeof(sub), "[%d]", it->sub);
	fprintf(f, "%-8s %4zu %5lld %5d  %-40s%-4s ", it->block, it->run,
		(long long)it->chain, it->instr, it->op ? it->op : "-", sub);
}

static void print_one(FILE *f, const struct recording *r, const struct item *it)
{
	double mn = INFINITY, mx = -INFINITY, sum = 0, x;
	uint64_t nan = 0, inf = 0, finite = 0;
	const uint8_t *p;
	char s[128], note[64] = "";
	int64_t n, i, cut;
	size_t es;

	where(f, it);
	shape(it, s, sizeof(s));
	fprintf(f, "%-8s %-14s ", type_name(it), s);
	if (!it->t) {
		x = scalar(it->v);
		fprintf(f, "%12.6g %12.6g %12.6g %5d %5d\n", x, x, x,
			isnan(x) ? 1 : 0, isinf(x) ? 1 : 0);
		return;
	}
	p = tensor_data(r, it->t, &n);
	if (!p) {
		fprintf(f, "%12s %12s %12s %5s %5s  %s\n", "-", "-", "-", "-", "-",
			n == 0 ? "empty" : r->buf ? "not in the buffer" :
			"no buffer");
		return;
	}
	es = element_size(it->t->scalar_type);
	for (i = 0; i < n; i++) {
		x = element(p + i * es, it->t->scalar_type);
		if (isnan(x)) {
			nan++;
		} else if (isinf(x)) {
			inf++;
		} else {
			finite++;
			sum += x;
			mn = x < mn ? x : mn;
			mx = x > mx ? x : mx;
		}
	}
	cut = cut_at(r, it->t);
	if (cut >= 0)
		snprintf(note, sizeof(note), "cut: %lld of %lld bytes",
			 (long long)cut, (long long)(n * (int64_t)es));
	if (finite)
		fprintf(f, "%12.6g %12.6g %12.6g", mn, mx, sum / finite);
	else
		fprintf(f, "%12s %12s %12s", "-", "-", "-");
	fprintf(f, " %5llu %5llu  %s\n", (unsigned long long)nan,
		(unsigned long long)inf, note);
}

static void header(FILE *f, const char *last)
{
	fprintf(f, "%-8s %4s %5s %5s  %-40s%-4s %-8s %-14s %s\n", "block",
		"run", "chain", "instr", "operator", "", "dtype", "shape", last);
}

struct diff {
	int64_t differ;    /* elements; -1: not comparable */
	int64_t total;
	double max_abs;
	double max_rel;
	int64_t first;     /* first differing element */
	const char *why;   /* when not comparable */
};

static bool same_place(const struct item *a, const struct item *b)
{
	return a->run == b->run && a->chain == b->chain &&
	       a->instr == b->instr && a->sub == b->sub;
}

static void compare_one(const struct recording *ra, const struct item *a,
			const struct recording *rb, const struct item *b,
			double atol, struct diff *d)
{
	const uint8_t *pa, *pb;
	int64_t n, nb, i;
	size_t es;
	double x, y, abs_d, rel;

	memset(d, 0, sizeof(*d));
	d->first = -1;
	if (!same_place(a, b)) {
		d->differ = -1;
		d->why = "logged elsewhere in B";
		return;
	}
	if ((a->t == NULL) != (b->t == NULL) || a->v->type != b->v->type) {
		d->differ = -1;
		d->why = "different types";
		return;
	}
	if (!a->t) {
		x = scalar(a->v);
		y = scalar(b->v);
		d->total = 1;
		pa = pb = NULL;
		n = 1;
		es = 0;
	} else {
		if (a->t->scalar_type != b->t->scalar_type ||
		    a->t->nsizes != b->t->nsizes ||
		    memcmp(a->t->sizes, b->t->sizes,
			   a->t->nsizes * sizeof(int64_t))) {
			d->differ = -1;
			d->why = "different dtype or shape";
			return;
		}
		pa = tensor_data(ra, a->t, &n);
		pb = tensor_data(rb, b->t, &nb);
		d->total = n;
		if (n > 0 && (!pa || !pb)) {
			d->differ = -1;
			d->why = "bytes not in a buffer";
			return;
		}
		es = element_size(a->t->scalar_type);
		x = y = 0;
	}
	for (i = 0; i < n; i++) {
		if (pa) {
			x = element(pa + i * es, a->t->scalar_type);
			y = element(pb + i * es, b->t->scalar_type);
		}
		if ((isnan(x) && isnan(y)) || x == y)
			continue;
		abs_d = isnan(x) || isnan(y) ? INFINITY : fabs(x - y);
		if (isinf(x) && isinf(y))
			abs_d = INFINITY; /* of opposite signs: x != y */
		if (abs_d <= atol)
			continue;
		rel = fabs(x) > 0 ? abs_d / fabs(x) : INFINITY;
		if (d->first < 0)
			d->first = i;
		d->differ++;
		d->max_abs = abs_d > d->max_abs ? abs_d : d->max_abs;
		d->max_rel = rel > d->max_rel ? rel : d->max_rel;
	}
}

static int compare(FILE *f, const struct recording *a,
		   const struct recording *b, double atol)
{
	const struct item *first = NULL;
	struct diff d, first_d = { 0 };
	size_t i, n = a->n < b->n ? a->n : b->n, differing = 0;
	char s[128];

	fprintf(f, "A: %s\nB: %s\n", a->name, b->name);
	header(f, "   differ / total      max |A-B|  max |A-B|/|A|");
	for (i = 0; i < n; i++) {
		compare_one(a, &a->items[i], b, &b->items[i], atol, &d);
		where(f, &a->items[i]);
		shape(&a->items[i], s, sizeof(s));
		fprintf(f, "%-8s %-14s ", type_name(&a->items[i]), s);
		if (d.differ < 0)
			fprintf(f, "%s", d.why);
		else
			fprintf(f, "%8lld / %-8lld %12.6g %12.6g",
				(long long)d.differ, (long long)d.total,
				d.max_abs, d.max_rel);
		fprintf(f, "%s%s\n",
			a->items[i].t && cut_at(a, a->items[i].t) >= 0 ?
				"  A cut" : "",
			b->items[i].t && cut_at(b, b->items[i].t) >= 0 ?
				"  B cut" : "");
		if (d.differ) {
			differing++;
			if (!first) {
				first = &a->items[i];
				first_d = d;
			}
		}
	}
	if (a->n != b->n)
		fprintf(f, "A holds %zu values, B %zu: only the first %zu are paired\n",
			a->n, b->n, n);
	if (!first) {
		fprintf(f, "no difference: %zu values equal%s\n", n,
			atol > 0 ? " within the tolerance" : "");
		return 0;
	}
	fprintf(f, "first difference: %s run %zu, chain %lld, instruction %d, %s",
		first->block, first->run, (long long)first->chain, first->instr,
		first->op ? first->op : "-");
	if (first->sub >= 0)
		fprintf(f, " [%d]", first->sub);
	if (first_d.differ < 0)
		fprintf(f, ": %s", first_d.why);
	else
		fprintf(f, ": %lld of %lld elements differ (first at %lld), max |A-B| %.6g",
			(long long)first_d.differ, (long long)first_d.total,
			(long long)first_d.first, first_d.max_abs);
	fprintf(f, "; %zu of %zu values differ\n", differing, n);
	return 0;
}

int report_values(FILE *out, const struct report_values_input *a,
		  const struct report_values_input *b, double atol)
{
	struct recording ra = { 0 }, rb = { 0 };
	int ret = 1;
	size_t i;

	if (load(&ra, a) || (b && load(&rb, b)))
		goto out;
	if (b) {
		compare(out, &ra, &rb, atol);
	} else {
		header(out, "         min          max         mean   nan   inf");
		for (i = 0; i < ra.n; i++)
			print_one(out, &ra, &ra.items[i]);
		if (!ra.n)
			fprintf(out, "no values in %s (record --values, with the runtime logging them)\n",
				ra.name);
	}
	ret = fflush(out) || ferror(out) ? 1 : 0;
	if (ret)
		p_err("cannot write the report: %s", strerror(errno));
out:
	unload(&ra);
	unload(&rb);
	return ret;
}
