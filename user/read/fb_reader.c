// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "read/fb_reader.h"

void fb_reader_init(struct fb_reader *r, const void *data, size_t len)
{
	r->data = data;
	r->len = len;
	r->error = 0;
	r->err[0] = 0;
}

int fb_reader_fail(struct fb_reader *r, const char *fmt, ...)
{
	va_list ap;

	/* the first failure is the one to report */
	if (r->error)
		return r->error;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->error = -EINVAL;
	return r->error;
}

/* Do n bytes at pos lie inside the buffer? Safe against overflow. */
static bool fits(const struct fb_reader *r, uint64_t pos, uint64_t n)
{
	return pos <= r->len && n <= r->len - pos;
}

/* Only after fits(). */
static uint64_t get_le(const struct fb_reader *r, size_t pos, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)r->data[pos + i] << (8 * i);
	return v;
}

/*
 * Follow the uoffset at byte `at` to a `what` whose first `min` bytes must
 * lie inside the buffer.
 */
static int follow(struct fb_reader *r, size_t at, const char *what,
		  size_t min, size_t *target)
{
	uint64_t to;

	if (!fits(r, at, 4))
		return fb_reader_fail(r, "the offset to a %s at byte %zu lies past the end of the data (%zu > %zu)",
				      what, at, at + 4, r->len);
	to = at + get_le(r, at, 4);
	if (!fits(r, to, min))
		return fb_reader_fail(r, "the offset at byte %zu to a %s points past the end of the data (%llu > %zu)",
				      at, what, (unsigned long long)(to + min),
				      r->len);
	*target = to;
	return 0;
}

static int table_at(struct fb_reader *r, size_t at, struct fb_table *t)
{
	int64_t vt;
	size_t pos;
	int err;

	err = follow(r, at, "table", 4, &pos);
	if (err)
		return err;
	vt = (int64_t)pos - (int32_t)(uint32_t)get_le(r, pos, 4);
	if (vt < 0 || !fits(r, vt, 4))
		return fb_reader_fail(r, "the table at byte %zu has its vtable at byte %lld, outside the data (0..%zu)",
				      pos, (long long)vt, r->len);
	t->r = r;
	t->pos = pos;
	t->vt = vt;
	t->vt_len = get_le(r, vt, 2);
	t->size = get_le(r, vt + 2, 2);
	if (t->vt_len < 4 || t->vt_len % 2 || !fits(r, vt, t->vt_len))
		return fb_reader_fail(r, "the vtable at byte %lld of the table at byte %zu is malformed (length %u, data ends at %zu)",
				      (long long)vt, pos, t->vt_len, r->len);
	if (t->size < 4)
		return fb_reader_fail(r, "the vtable at byte %lld gives the table at byte %zu a size of %u bytes, less than its own 4-byte soffset",
				      (long long)vt, pos, t->size);
	if (!fits(r, pos, t->size))
		return fb_reader_fail(r, "the table at byte %zu runs past the end of the data (%zu > %zu)",
				      pos, pos + t->size, r->len);
	return 0;
}

int fb_reader_root(struct fb_reader *r, size_t at, struct fb_table *root)
{
	return table_at(r, at, root);
}

/* Where field `slot` of n bytes is: 1 present, 0 absent, <0 corrupt. */
static int field_at(const struct fb_table *t, unsigned int slot, size_t n,
		    size_t *pos)
{
	size_t entry = 4 + 2 * (size_t)slot;
	unsigned int off;

	if (entry + 2 > t->vt_len)
		return 0;
	off = get_le(t->r, t->vt + entry, 2);
	if (!off)
		return 0;
	if (off < 4 || off + n > t->size)
		return fb_reader_fail(t->r, "field %u of the table at byte %zu lies outside the table (bytes %u..%zu of %u)",
				      slot, t->pos, off, off + n, t->size);
	*pos = t->pos + off;
	return 1;
}

size_t fb_field_pos(const struct fb_table *t, unsigned int slot)
{
	size_t pos;

	return field_at(t, slot, 1, &pos) > 0 ? pos : 0;
}

static float f32_from(uint64_t bits)
{
	uint32_t v = bits;
	float f;

	memcpy(&f, &v, sizeof(f));
	return f;
}

static double f64_from(uint64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

#define FB_DEFINE_READ(name, type, convert)                                    \
	int fb_read_##name(const struct fb_table *t, unsigned int slot,        \
			   type def, type *out)                                \
	{                                                                      \
		uint64_t bits;                                                 \
		size_t pos;                                                    \
		int ret;                                                       \
                                                                               \
		ret = field_at(t, slot, sizeof(type), &pos);                   \
		if (ret <= 0) {                                                \
			*out = def;                                            \
			return ret;                                            \
		}                                                              \
		bits = get_le(t->r, pos, sizeof(type));                        \
		*out = convert;                                                \
		return 0;                                                      \
	}

/* any non-zero byte is true, as in flatc; never copy it into a bool */
FB_DEFINE_READ(bool, bool, bits != 0)
FB_DEFINE_READ(i8, int8_t, (int8_t)bits)
FB_DEFINE_READ(u8, uint8_t, (uint8_t)bits)
FB_DEFINE_READ(i16, int16_t, (int16_t)bits)
FB_DEFINE_READ(u16, uint16_t, (uint16_t)bits)
FB_DEFINE_READ(i32, int32_t, (int32_t)bits)
FB_DEFINE_READ(u32, uint32_t, (uint32_t)bits)
FB_DEFINE_READ(i64, int64_t, (int64_t)bits)
FB_DEFINE_READ(u64, uint64_t, bits)
FB_DEFINE_READ(f32, float, f32_from(bits))
FB_DEFINE_READ(f64, double, f64_from(bits))

int fb_read_table(const struct fb_table *t, unsigned int slot,
		  struct fb_table *out)
{
	size_t pos;
	int ret;

	ret = field_at(t, slot, 4, &pos);
	if (ret <= 0)
		return ret;
	ret = table_at(t->r, pos, out);
	return ret < 0 ? ret : 1;
}

/* The string the uoffset at byte `at` points to. */
static int string_at(struct fb_reader *r, size_t at, const char **s,
		     uint32_t *len)
{
	size_t pos;
	uint32_t n;
	int err;

	err = follow(r, at, "string", 4, &pos);
	if (err)
		return err;
	n = get_le(r, pos, 4);
	if (!fits(r, pos + 4, (uint64_t)n + 1))
		return fb_reader_fail(r, "the string at byte %zu (%u bytes) runs past the end of the data (%llu > %zu)",
				      pos, n, (unsigned long long)pos + 4 + n + 1,
				      r->len);
	if (r->data[pos + 4 + n])
		return fb_reader_fail(r, "the string at byte %zu (%u bytes) is not NUL-terminated",
				      pos, n);
	*s = (const char *)r->data + pos + 4;
	*len = n;
	return 0;
}

int fb_read_string(const struct fb_table *t, unsigned int slot,
		   const char **s, uint32_t *len)
{
	size_t pos;
	int ret;

	ret = field_at(t, slot, 4, &pos);
	if (ret <= 0)
		return ret;
	ret = string_at(t->r, pos, s, len);
	return ret < 0 ? ret : 1;
}

int fb_read_vector(const struct fb_table *t, unsigned int slot,
		   size_t elem_size, struct fb_vector *out)
{
	struct fb_reader *r = t->r;
	size_t pos;
	uint32_t n;
	int ret;

	ret = field_at(t, slot, 4, &pos);
	if (ret <= 0)
		return ret;
	ret = follow(r, pos, "vector", 4, &pos);
	if (ret)
		return ret;
	n = get_le(r, pos, 4);
	if (!fits(r, pos + 4, (uint64_t)n * elem_size))
		return fb_reader_fail(r, "the vector at byte %zu (%u elements of %zu bytes) runs past the end of the data (%llu > %zu)",
				      pos, n, elem_size,
				      (unsigned long long)pos + 4 +
					      (uint64_t)n * elem_size,
				      r->len);
	out->r = r;
	out->pos = pos + 4;
	out->count = n;
	out->elem_size = elem_size;
	return 1;
}

/* Elements are inside the buffer (fb_read_vector); check only the index. */
static int element_at(const struct fb_vector *v, uint32_t i, size_t *pos)
{
	*pos = v->pos + (size_t)i * v->elem_size;
	if (i >= v->count)
		return fb_reader_fail(v->r, "element %u of the vector at byte %zu does not exist (%u elements)",
				      i, v->pos - 4, v->count);
	return 0;
}

int fb_vector_table(const struct fb_vector *v, uint32_t i,
		    struct fb_table *out)
{
	size_t pos;
	int err;

	err = element_at(v, i, &pos);
	if (err)
		return err;
	return table_at(v->r, pos, out);
}

int fb_vector_string(const struct fb_vector *v, uint32_t i, const char **s,
		     uint32_t *len)
{
	size_t pos;
	int err;

	err = element_at(v, i, &pos);
	if (err)
		return err;
	return string_at(v->r, pos, s, len);
}

uint64_t fb_vector_scalar(const struct fb_vector *v, uint32_t i)
{
	size_t pos;

	if (element_at(v, i, &pos))
		return 0;
	return get_le(v->r, pos, v->elem_size);
}

const uint8_t *fb_vector_bytes(const struct fb_vector *v)
{
	return v->r->data + v->pos;
}
