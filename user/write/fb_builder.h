/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fb_builder.h - a small FlatBuffers builder, just what ETDump needs:
 * tables of scalars and offsets, strings, vectors of scalars and of
 * offsets, finished with a size prefix and a file identifier.
 *
 * Like the reference builders it writes back to front: children first, then
 * the table or vector that points at them. An object is named by an fb_ref,
 * its distance from the end of the buffer, which stays valid while the
 * buffer grows at the front. Because the finished length is a multiple of
 * 8, aligning distances from the end aligns file offsets too: every scalar
 * sits at a file offset that is a multiple of its size, counting from byte
 * 0 of the size prefix.
 *
 * Errors stick: after the first failure every call does nothing and returns
 * the same negative errno (and sets its *out ref to 0), so a caller may
 * check only the calls whose result it needs, and fb_finish() at the
 * latest.
 *   -ENOMEM  out of memory
 *   -EINVAL  misuse (object created inside a table, slot set twice, ...)
 *   -E2BIG   the buffer or a table outgrew FlatBuffers' offsets
 *
 * Made in fb_buffer.c (the memory, the end), fb_strings.c (strings and
 * vectors) and fb_tables.c (tables), which share fb_builder_state.h.
 */
#ifndef ETDUMP_FB_BUILDER_H
#define ETDUMP_FB_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where an object ends up, as a distance from the buffer end; 0 = none. */
typedef uint32_t fb_ref;

/* Highest field slot + 1 a table may use. */
#define FB_MAX_SLOTS 64
#define FB_VTABLE_LAST 16
#define FB_SHARED_HITS 64
#define FB_MAX_SPARES 16
#define FB_TYPE_FIELDS 8
#define FB_TABLE_TYPES 2

struct fb_builder {
	uint8_t *buf;           /* the data is the last `size` bytes */
	size_t cap;
	size_t size;
	int err;                /* first error, sticky */
	bool in_table;
	bool finished;
	size_t table_begin;     /* size when the open table started */
	/* field refs of the open table, 0 = unset */
	uint32_t slots[FB_MAX_SLOTS];
	unsigned int nslots;    /* highest set slot + 1 */
	struct fb_vtable *vtables; /* written so far, for sharing */
	size_t nvtables;
	size_t vtables_cap;
	bool mapped;            /* buf is a reserved mapping, never moved */
	size_t populated;       /* bytes at its end with their pages in */
	size_t vtable_last[FB_VTABLE_LAST]; /* by length: the last one matched */
	struct fb_shared_hit {
		const char *s;
		fb_ref ref;
	} shared_hits[FB_SHARED_HITS]; /* by address: the string made for it */
	fb_ref empty_u8;        /* the empty byte vector, made once */
	struct fb_shared *shared; /* strings made by fb_create_shared_string */
	size_t nshared;         /* used slots */
	size_t shared_cap;      /* slots: a power of two */
	struct fb_spare {
		void *mem;
		size_t len;
	} spares[FB_MAX_SPARES]; /* pages given, the next to grow into */
	unsigned int nspares;
	int spill_fd;           /* fb_builder_spill(); -1: none */
	size_t spilled;         /* bytes at the end now only in spill_fd */
	struct background_write *spill_write; /* the chunk being written */
	void *spill_mem;        /* its memory, NULL when none is */
	/*
	 * fb_table_typed: by type, size % 8 at the start (the padding between
	 * fields may differ with it) and fields present, the table's layout;
	 * made on first use
	 */
	struct fb_typed_layout *typed;
};

void fb_builder_init(struct fb_builder *b);
void fb_builder_free(struct fb_builder *b);

/*
 * Hand over a mapping the caller no longer needs (page-aligned, whole
 * pages, from mmap): the buffer grows into its pages, which are already
 * there, instead of fresh ones. It is unmapped when not used.
 */
void fb_builder_give_pages(struct fb_builder *b, void *mem, size_t len);

/*
 * Room for n bytes made now, its pages backed: a recorder's first events
 * then find the buffer ready instead of growing it while the ring fills.
 */
int fb_builder_prepare(struct fb_builder *b, size_t n);

/* Objects, created outside any table. A NULL string makes *out 0. */
int fb_create_string(struct fb_builder *b, const char *s, fb_ref *out);
int fb_create_string_len(struct fb_builder *b, const char *s, size_t len,
			 fb_ref *out);
/*
 * The same, but equal strings are written once and referred to by every
 * table naming them (FlatBuffers allows it: offsets only point forward,
 * and a string made earlier lies after every later table). A string
 * given must not change while the builder lives, or until
 * fb_builder_forget_addresses(): it is known by address.
 */
int fb_create_shared_string(struct fb_builder *b, const char *s, fb_ref *out);
/*
 * The strings given so far may change or be freed from now on: shared
 * strings are found by content again (a cache keyed by address forgets).
 */
void fb_builder_forget_addresses(struct fb_builder *b);
/* The same for one string given so far (NULL: none), the others kept. */
void fb_builder_forget_address(struct fb_builder *b, const char *s);
/* An empty one is made once, and referred to by every table naming one. */
int fb_create_vector_u8(struct fb_builder *b, const uint8_t *v, size_t count,
			fb_ref *out);
int fb_create_vector_i64(struct fb_builder *b, const int64_t *v, size_t count,
			 fb_ref *out);
/* Tables or strings: every ref must be set. */
int fb_create_vector_refs(struct fb_builder *b, const fb_ref *refs,
			  size_t count, fb_ref *out);

/*
 * A table: fb_table_start(), then fields by slot (declaration order in the
 * schema), then fb_table_end(). A scalar equal to its default is left out,
 * as flatcc and flatc do; readers get the default back. Adding the larger
 * fields first avoids padding.
 */
int fb_table_start(struct fb_builder *b);
int fb_add_bool(struct fb_builder *b, unsigned int slot, bool v, bool def);
int fb_add_i8(struct fb_builder *b, unsigned int slot, int8_t v, int8_t def);
int fb_add_u8(struct fb_builder *b, unsigned int slot, uint8_t v, uint8_t def);
int fb_add_i16(struct fb_builder *b, unsigned int slot, int16_t v, int16_t def);
int fb_add_u16(struct fb_builder *b, unsigned int slot, uint16_t v,
	       uint16_t def);
int fb_add_i32(struct fb_builder *b, unsigned int slot, int32_t v, int32_t def);
int fb_add_u32(struct fb_builder *b, unsigned int slot, uint32_t v,
	       uint32_t def);
int fb_add_i64(struct fb_builder *b, unsigned int slot, int64_t v, int64_t def);
int fb_add_u64(struct fb_builder *b, unsigned int slot, uint64_t v,
	       uint64_t def);
int fb_add_f32(struct fb_builder *b, unsigned int slot, float v, float def);
int fb_add_f64(struct fb_builder *b, unsigned int slot, double v, double def);
/* A string, vector or table made earlier; ref 0 leaves the field out. */
int fb_add_ref(struct fb_builder *b, unsigned int slot, fb_ref ref);
int fb_table_end(struct fb_builder *b, fb_ref *out);
/*
 * A table type written many times (an ETDump's events), its fields fixed
 * once in the order they are added. fb_table_typed() writes one holding
 * the fields `present` names (bit i: field i; a ref of 0 is left out
 * too), v[i] the value of field i: the bytes fb_table_start(), fb_add_*
 * in field order and fb_table_end() would write, without a call and a
 * check per field or a vtable looked up. The layout of each set of fields
 * (with where the table starts mod 8) is worked out once and kept in the
 * builder, in the place `id` names: one per type, below FB_TABLE_TYPES.
 * Adding the larger fields first avoids padding.
 */
struct fb_table_type {
	uint8_t id;
	uint8_t n;                      /* fields, at most FB_TYPE_FIELDS */
	uint8_t refs;                   /* bit i: field i is a ref */
	uint8_t slot[FB_TYPE_FIELDS];
	uint8_t size[FB_TYPE_FIELDS];   /* 1, 2, 4 or 8; a ref is 4 */
};

int fb_table_typed(struct fb_builder *b, const struct fb_table_type *t,
		   unsigned int present, const uint64_t *v, fb_ref *out);
/* A whole table whose one field is the reference `ref` in `slot`. */
int fb_create_ref_table(struct fb_builder *b, unsigned int slot, fb_ref ref,
			fb_ref *out);

/*
 * Keep only the newest part of a large buffer in memory: the oldest goes
 * to fd (the caller's: empty, read and written at offsets; O_DIRECT is
 * welcome) in chunks, and only fb_output() gives the finished bytes, or
 * fb_output_in_place() makes them in fd itself.
 */
void fb_builder_spill(struct fb_builder *b, int fd);
/* What a spilling builder holds before it spills (then, what it keeps). */
#define FB_SPILL_HELD (4u << 20)

/*
 * Finish with root table `root`: size prefix (bytes after it), root offset,
 * the 4-byte identifier. Nothing may be added afterwards.
 */
int fb_finish(struct fb_builder *b, fb_ref root, const char ident[4]);
/*
 * The finished bytes, in order, a piece at a time, each valid during its
 * call: fn's first error, or the builder's, or a read's.
 */
typedef int (*fb_output_fn)(void *ctx, const void *data, size_t len);
int fb_output(struct fb_builder *b, fb_output_fn fn, void *ctx);
/*
 * A spilled builder's file made in its spill file itself: the part in
 * memory written below the chunks there, and the sparse space before it
 * cut away (fallocate's FALLOC_FL_COLLAPSE_RANGE), so the file holds the
 * finished bytes from offset 0, none read back or written again. (The
 * padding fb_finish() puts after a spilled file's identifier makes it
 * whole pages, as that takes.) 0; -EOPNOTSUPP when the builder did not
 * spill or the file system cannot, its chunks left for fb_output().
 */
int fb_output_in_place(struct fb_builder *b);
/* The finished bytes, owned by the builder; NULL once spilled. */
const void *fb_data(const struct fb_builder *b, size_t *len);
/*
 * The finished bytes as a malloc'd block, the builder left empty (not
 * once spilled).
 */
int fb_detach(struct fb_builder *b, void **buf, size_t *len);

#endif /* ETDUMP_FB_BUILDER_H */
