/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fb_reader.h - read a FlatBuffer that may be truncated or hostile.
 *
 * Every offset, vtable, table, string and vector is checked against the
 * buffer before it is used, so a corrupt input gives -EINVAL, never a read
 * outside [data, data + len). The first failure sticks in r->error with a
 * sentence in r->err saying what is wrong at which byte; a caller may read
 * several fields and check r->error once (failed reads give the default or
 * "absent"). Scalars are read
 * byte by byte (little-endian), so misaligned buffers are read correctly.
 * Fields must also lie inside their table's inline size, as the flatcc
 * verifier requires. Uoffsets only point forward, so no input can make a
 * reader loop.
 */
#ifndef ETDUMP_FB_READER_H
#define ETDUMP_FB_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fb_reader {
	const uint8_t *data;
	size_t len;             /* nothing at or after this is read */
	int error;              /* first failure, 0 or -EINVAL */
	char err[160];          /* what it found, and where */
};

struct fb_table {
	struct fb_reader *r;
	size_t pos;             /* the table's first byte (its soffset) */
	size_t vt;              /* its vtable */
	uint16_t vt_len;        /* vtable bytes */
	uint16_t size;          /* table inline bytes, soffset included */
};

struct fb_vector {
	struct fb_reader *r;
	size_t pos;             /* element 0 */
	uint32_t count;
	size_t elem_size;
};

void fb_reader_init(struct fb_reader *r, const void *data, size_t len);

/* Record a failure the caller found (a broken schema rule): -EINVAL. */
int fb_reader_fail(struct fb_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The root table, through the uoffset at byte `at` (4 after a size prefix). */
int fb_reader_root(struct fb_reader *r, size_t at, struct fb_table *root);

/*
 * Scalar fields by slot (declaration order in the schema): an absent field
 * reads as def. 0, or -EINVAL when the field lies outside its table.
 */
int fb_read_bool(const struct fb_table *t, unsigned int slot, bool def,
		 bool *out);
int fb_read_i8(const struct fb_table *t, unsigned int slot, int8_t def,
	       int8_t *out);
int fb_read_u8(const struct fb_table *t, unsigned int slot, uint8_t def,
	       uint8_t *out);
int fb_read_i16(const struct fb_table *t, unsigned int slot, int16_t def,
		int16_t *out);
int fb_read_u16(const struct fb_table *t, unsigned int slot, uint16_t def,
		uint16_t *out);
int fb_read_i32(const struct fb_table *t, unsigned int slot, int32_t def,
		int32_t *out);
int fb_read_u32(const struct fb_table *t, unsigned int slot, uint32_t def,
		uint32_t *out);
int fb_read_i64(const struct fb_table *t, unsigned int slot, int64_t def,
		int64_t *out);
int fb_read_u64(const struct fb_table *t, unsigned int slot, uint64_t def,
		uint64_t *out);
int fb_read_f32(const struct fb_table *t, unsigned int slot, float def,
		float *out);
int fb_read_f64(const struct fb_table *t, unsigned int slot, double def,
		double *out);

/* Byte offset of a field in the buffer, 0 when absent (or outside). */
size_t fb_field_pos(const struct fb_table *t, unsigned int slot);

/*
 * Offset fields: 1 when present (and valid), 0 when absent, -EINVAL when
 * corrupt. A string is NUL-terminated inside the buffer; *len excludes the
 * NUL.
 */
int fb_read_table(const struct fb_table *t, unsigned int slot,
		  struct fb_table *out);
int fb_read_string(const struct fb_table *t, unsigned int slot,
		   const char **s, uint32_t *len);
/* All count * elem_size bytes are checked here, once. */
int fb_read_vector(const struct fb_table *t, unsigned int slot,
		   size_t elem_size, struct fb_vector *out);

/* Elements of a vector read above; i < v->count. 0 or -EINVAL. */
int fb_vector_table(const struct fb_vector *v, uint32_t i,
		    struct fb_table *out);
int fb_vector_string(const struct fb_vector *v, uint32_t i, const char **s,
		     uint32_t *len);
/* Scalar elements, unsigned, little-endian; sign-extend as needed. */
uint64_t fb_vector_scalar(const struct fb_vector *v, uint32_t i);
const uint8_t *fb_vector_bytes(const struct fb_vector *v);

#endif /* ETDUMP_FB_READER_H */
