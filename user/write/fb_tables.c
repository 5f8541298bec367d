// SPDX-License-Identifier: BSD-3-Clause
/*
 * fb_tables.c - a flatbuffer's tables (fb_builder.h): fields set by slot,
 * each table's vtable shared with an equal one made before, and typed
 * tables laid out once per type.
 */
#include <stdlib.h>
#include "write/fb_builder_state.h"

struct fb_vtable {
	fb_ref ref;
	uint8_t bytes[4 + 2 * FB_MAX_SLOTS];
};

int fb_table_start(struct fb_builder *b)
{
	int err;

	err = fb_object_start(b);
	if (err)
		return err;
	b->in_table = true;
	b->table_begin = b->size;
	/* past nslots every slot is still 0: two tables an event, 256 bytes each */
	memset(b->slots, 0, b->nslots * sizeof(b->slots[0]));
	b->nslots = 0;
	return 0;
}

static int field_check(struct fb_builder *b, unsigned int slot)
{
	if (b->err)
		return b->err;
	if (!b->in_table || slot >= FB_MAX_SLOTS || b->slots[slot])
		return fb_fail(b, -EINVAL);
	return 0;
}

/* Push a field of n bytes aligned to n and remember it in its slot. */
static int field_push(struct fb_builder *b, unsigned int slot, size_t n,
		      uint8_t **p)
{
	int err;

	err = fb_prep(b, n, n);
	if (err)
		return err;
	/*
	 * Padding before the first field is not the table's: equal layouts
	 * then give equal vtables, which are shared.
	 */
	if (!b->nslots)
		b->table_begin = b->size;
	*p = fb_push(b, n);
	b->slots[slot] = b->size;
	if (slot >= b->nslots)
		b->nslots = slot + 1;
	return 0;
}

static int add_scalar(struct fb_builder *b, unsigned int slot, uint64_t bits,
		      size_t n, bool omit)
{
	uint8_t *p;
	int err;

	err = field_check(b, slot);
	if (err || omit)
		return err;
	err = field_push(b, slot, n, &p);
	if (err)
		return err;
	fb_put_le(p, bits, n);
	return 0;
}

static uint64_t f32_bits(float v)
{
	uint32_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return bits;
}

static uint64_t f64_bits(double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return bits;
}

/* Floats compare by bits, so that -0.0 is kept apart from a 0.0 default. */
#define FB_DEFINE_ADD(name, type, to_bits)                                     \
	int fb_add_##name(struct fb_builder *b, unsigned int slot, type v,     \
			  type def)                                            \
	{                                                                      \
		return add_scalar(b, slot, to_bits(v), sizeof(type),           \
				  to_bits(v) == to_bits(def));                 \
	}

FB_DEFINE_ADD(bool, bool, (uint64_t))
FB_DEFINE_ADD(i8, int8_t, (uint64_t))
FB_DEFINE_ADD(u8, uint8_t, (uint64_t))
FB_DEFINE_ADD(i16, int16_t, (uint64_t))
FB_DEFINE_ADD(u16, uint16_t, (uint64_t))
FB_DEFINE_ADD(i32, int32_t, (uint64_t))
FB_DEFINE_ADD(u32, uint32_t, (uint64_t))
FB_DEFINE_ADD(i64, int64_t, (uint64_t))
FB_DEFINE_ADD(u64, uint64_t, (uint64_t))
FB_DEFINE_ADD(f32, float, f32_bits)
FB_DEFINE_ADD(f64, double, f64_bits)

int fb_add_ref(struct fb_builder *b, unsigned int slot, fb_ref ref)
{
	uint8_t *p;
	int err;

	err = field_check(b, slot);
	if (err || !ref)
		return err;
	/* only objects finished before this table started */
	if (ref > b->table_begin)
		return fb_fail(b, -EINVAL);
	err = field_push(b, slot, 4, &p);
	if (err)
		return err;
	fb_put_uoffset(b, b->size, ref);
	return 0;
}

/* An identical vtable written before, or 0. */
/*
 * Two vtables of len bytes (even, a few dozen at most), compared inline:
 * two compares for every event, where a call to memcmp cost more than
 * the compare.
 */
static inline bool vt_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
	uint64_t x, y;
	uint16_t u, v;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	for (; i < len; i += 2) {
		memcpy(&u, a + i, 2);
		memcpy(&v, b + i, 2);
		if (u != v)
			return false;
	}
	return true;
}

static fb_ref find_vtable(struct fb_builder *b, const uint8_t *vt,
			  size_t len)
{
	const uint8_t *old;
	size_t i;

	/* tables of one kind come in runs: the last match of this length first */
	i = b->vtable_last[len % FB_VTABLE_LAST];
	if (i < b->nvtables) {
		old = b->vtables[i].bytes;
		if ((size_t)(old[0] | old[1] << 8) == len &&
		    vt_equal(old, vt, len))
			return b->vtables[i].ref;
	}
	for (i = 0; i < b->nvtables; i++) {
		/* its own length first: a shorter one would compare past it */
		old = b->vtables[i].bytes;
		if ((size_t)(old[0] | old[1] << 8) == len &&
		    vt_equal(old, vt, len)) {
			b->vtable_last[len % FB_VTABLE_LAST] = i;
			return b->vtables[i].ref;
		}
	}
	return 0;
}

static int push_vtable(struct fb_builder *b, const uint8_t *vt, size_t len,
		       fb_ref *out)
{
	struct fb_vtable *v;
	size_t cap;
	int err;

	if (b->nvtables == b->vtables_cap) {
		cap = b->vtables_cap ? 2 * b->vtables_cap : 16;
		v = realloc(b->vtables, cap * sizeof(*v));
		if (!v)
			return fb_fail(b, -ENOMEM);
		b->vtables = v;
		b->vtables_cap = cap;
	}
	err = fb_prep(b, 2, len);
	if (err)
		return err;
	memcpy(fb_push(b, len), vt, len);
	*out = b->size;
	v = &b->vtables[b->nvtables++];
	v->ref = *out;
	memcpy(v->bytes, vt, len);
	return 0;
}

/*
 * The soffset of the table just pushed (vtable = table - soffset), to an
 * equal vtable written before, which lies after it, or to a new one.
 */
static int table_vtable(struct fb_builder *b, fb_ref table, const uint8_t *vt,
			size_t len, fb_ref *vtable)
{
	int err;

	*vtable = find_vtable(b, vt, len);
	if (!*vtable) {
		err = push_vtable(b, vt, len, vtable);
		if (err)
			return err;
	}
	fb_put_le(fb_at(b, table), (uint64_t)((int64_t)*vtable - (int64_t)table), 4);
	return 0;
}

int fb_table_end(struct fb_builder *b, fb_ref *out)
{
	uint8_t vt[4 + 2 * FB_MAX_SLOTS];
	fb_ref table, vtable;
	size_t len, i;
	int err;

	*out = 0;
	if (b->err)
		return b->err;
	if (!b->in_table)
		return fb_fail(b, -EINVAL);
	/* the soffset to the vtable, filled in below */
	err = fb_prep(b, 4, 4);
	if (err)
		return err;
	if (!b->nslots)
		b->table_begin = b->size;
	fb_push(b, 4);
	b->in_table = false;
	table = b->size;
	if (table - b->table_begin > UINT16_MAX)
		return fb_fail(b, -E2BIG);

	len = 4 + 2 * b->nslots;
	fb_put_le(vt, len, 2);
	fb_put_le(vt + 2, table - b->table_begin, 2);
	for (i = 0; i < b->nslots; i++)
		fb_put_le(vt + 4 + 2 * i,
			  b->slots[i] ? table - b->slots[i] : 0, 2);

	err = table_vtable(b, table, vt, len, &vtable);
	if (!err)
		*out = table;
	return err;
}

/*
 * A table's padding, cleared before its fields go in: < 256 bytes. GCC
 * made a memset() of it `rep stos`, whose start-up alone was most of an
 * event's table here (~16% of the table's samples in perf); word stores
 * are not, and the empty asm keeps GCC from making them a memset() again.
 */
static inline void zero_small(uint8_t *p, size_t n)
{
	const uint64_t zero = 0;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(p + i, &zero, 8);
		__asm__("" : : : "memory");
	}
	for (; i < n; i++)
		p[i] = 0;
}

/*
 * A typed table's layout for one set of fields and one start mod 8: its
 * bytes (the padding before it included), each field present and where it
 * ends, counted from the start, and its vtable.
 */
struct fb_typed_layout {
	fb_ref vtable;          /* 0: not made yet */
	uint8_t delta;
	uint8_t n;
	/*
	 * n8 fields of 8 bytes, then only 4-byte ones (an ETDump's tables):
	 * each stored at its size, no switch; FB_TYPE_FIELDS + 1: other sizes
	 */
	uint8_t n8;
	uint8_t field[FB_TYPE_FIELDS];
	uint8_t off[FB_TYPE_FIELDS];
};

/* a layout whose fields take fb_put_le()'s switch */
#define FB_TYPED_MIXED (FB_TYPE_FIELDS + 1)
/* the bytes cleared before a table of at most this many is written */
#define FB_TYPED_CLEAR 64

#define FB_TYPED_LAYOUTS (FB_TABLE_TYPES * 8 * (1u << FB_TYPE_FIELDS))

/* The vtable of a typed table just laid out: found or written once. */
static int typed_vtable(struct fb_builder *b, const struct fb_table_type *t,
			unsigned int present, fb_ref table, fb_ref begin,
			const fb_ref *pos, fb_ref *vtable)
{
	uint8_t vt[4 + 2 * FB_MAX_SLOTS];
	unsigned int i, nslots = 0;

	for (i = 0; i < t->n; i++)
		if ((present >> i & 1) && t->slot[i] >= nslots)
			nslots = t->slot[i] + 1u;
	memset(vt, 0, 4 + 2 * nslots);
	fb_put_le(vt, 4 + 2 * nslots, 2);
	fb_put_le(vt + 2, table - begin, 2);
	for (i = 0; i < t->n; i++)
		if (present >> i & 1)
			fb_put_le(vt + 4 + 2 * t->slot[i], table - pos[i], 2);
	return table_vtable(b, table, vt, 4 + 2 * nslots, vtable);
}

/*
 * A layout not known yet: where fb_add_* put each field (aligned to its
 * size, the padding before the first not the table's; then the soffset),
 * the table written so, its vtable found, the layout kept.
 */
static int typed_first(struct fb_builder *b, const struct fb_table_type *t,
		       unsigned int present, const uint64_t *v,
		       struct fb_typed_layout *l, fb_ref *out)
{
	fb_ref pos[FB_TYPE_FIELDS], start, at_pos, begin = 0, table, vtable;
	unsigned int i, n = 0;
	uint8_t size;
	bool any = false;
	int err;

	start = at_pos = (fb_ref)b->size;
	for (i = 0; i < t->n; i++) {
		if (!(present >> i & 1))
			continue;
		size = t->size[i];
		if (!size || size > 8 || (size & (size - 1)) ||
		    t->slot[i] >= FB_MAX_SLOTS)
			return fb_fail(b, -EINVAL);
		at_pos += (0 - (at_pos + size)) & (size - 1u);
		if (!any)
			begin = at_pos;
		any = true;
		at_pos += size;
		pos[i] = at_pos;
	}
	at_pos += (0 - (at_pos + 4)) & 3u;
	if (!any)
		begin = at_pos;
	table = at_pos + 4;
	err = fb_reserve(b, table - start);
	if (err)
		return err;
	zero_small(fb_at(b, table), table - start);
	for (i = 0; i < t->n; i++) {
		if (!(present >> i & 1))
			continue;
		fb_put_le(fb_at(b, pos[i]),
			  (t->refs >> i & 1) ? pos[i] - v[i] : v[i],
			  t->size[i]);
		l->field[n] = (uint8_t)i;
		l->off[n++] = (uint8_t)(pos[i] - start);
	}
	b->size = table;
	err = typed_vtable(b, t, present, table, begin, pos, &vtable);
	if (err)
		return err;
	/* at most 8 fields of 8 bytes, the padding and the soffset: < 256 */
	l->delta = (uint8_t)(table - start);
	l->n = (uint8_t)n;
	for (l->n8 = 0; l->n8 < n && t->size[l->field[l->n8]] == 8; l->n8++)
		;
	for (i = l->n8; i < n; i++)
		if (t->size[l->field[i]] != 4)
			l->n8 = FB_TYPED_MIXED;
	l->vtable = vtable;
	*out = table;
	return 0;
}

/*
 * A table of a known layout whose fields are 8 bytes then 4 (every table
 * of an ETDump's events), small: the FB_TYPED_CLEAR bytes before its start
 * cleared by a few wide stores of a constant size (what lies beyond the
 * table there is room not yet claimed), each field stored at its size.
 */
static int typed_again(struct fb_builder *b, const struct fb_table_type *t,
		       const uint64_t *v, const struct fb_typed_layout *l,
		       fb_ref start, fb_ref *out)
{
	fb_ref table = start + l->delta;
	unsigned int k, i;
	uint8_t *end;
	uint32_t w;
	int err;

	err = fb_reserve(b, FB_TYPED_CLEAR);
	if (err)
		return err;
	end = fb_at(b, start);
	memset(end - FB_TYPED_CLEAR, 0, FB_TYPED_CLEAR);
	for (k = 0; k < l->n8; k++)
		memcpy(end - l->off[k], &v[l->field[k]], 8);
	for (; k < l->n; k++) {
		i = l->field[k];
		w = (uint32_t)((t->refs >> i & 1) ? start + l->off[k] - v[i] :
						    v[i]);
		memcpy(end - l->off[k], &w, 4);
	}
	w = (uint32_t)((int64_t)l->vtable - (int64_t)table);
	memcpy(end - l->delta, &w, 4);
	b->size = table;
	*out = table;
	return 0;
}

int fb_table_typed(struct fb_builder *b, const struct fb_table_type *t,
		   unsigned int present, const uint64_t *v, fb_ref *out)
{
	struct fb_typed_layout *l;
	fb_ref start, pos, table;
	unsigned int i, k, refs;
	int err;

	*out = 0;
	err = fb_object_start(b);
	if (err)
		return err;
	if (t->id >= FB_TABLE_TYPES || t->n > FB_TYPE_FIELDS)
		return fb_fail(b, -EINVAL);
	if (!b->typed) {
		b->typed = calloc(FB_TYPED_LAYOUTS, sizeof(*b->typed));
		if (!b->typed)
			return fb_fail(b, -ENOMEM);
	}
	start = (fb_ref)b->size;
	present &= (1u << t->n) - 1;
	/* a ref of 0 is left out; others only to objects made before */
	for (refs = present & t->refs; refs; refs &= refs - 1) {
		i = (unsigned int)__builtin_ctz(refs);
		if (!v[i])
			present &= ~(1u << i);
		else if (v[i] > start)
			return fb_fail(b, -EINVAL);
	}
	l = &b->typed[(t->id * 8u + (start & 7)) << FB_TYPE_FIELDS | present];
	if (!l->vtable)
		return typed_first(b, t, present, v, l, out);
	/* the stores below are little-endian ones */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
	    l->n8 != FB_TYPED_MIXED && l->delta <= FB_TYPED_CLEAR)
		return typed_again(b, t, v, l, start, out);
	err = fb_reserve(b, l->delta);
	if (err)
		return err;
	table = start + l->delta;
	zero_small(fb_at(b, table), l->delta);
	for (k = 0; k < l->n; k++) {
		i = l->field[k];
		pos = start + l->off[k];
		fb_put_le(fb_at(b, pos), (t->refs >> i & 1) ? pos - v[i] : v[i],
			  t->size[i]);
	}
	fb_put_le(fb_at(b, table),
		  (uint64_t)((int64_t)l->vtable - (int64_t)table), 4);
	b->size = table;
	*out = table;
	return 0;
}

int fb_create_ref_table(struct fb_builder *b, unsigned int slot, fb_ref ref,
			fb_ref *out)
{
	fb_table_start(b);
	fb_add_ref(b, slot, ref);
	return fb_table_end(b, out);
}
