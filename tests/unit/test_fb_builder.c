// SPDX-License-Identifier: BSD-3-Clause
/*
 * The FlatBuffers builder and reader against each other: every scalar
 * width, strings, vectors, nested tables, shared vtables, the alignment
 * rule from byte 0 of a size-prefixed file, misuse, and hand-made corrupt
 * buffers the reader must refuse with a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "write/fb_builder.h"
#include "read/fb_reader.h"
#include "testlib.h"

#define IDENT "TEST"

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Finish with root and copy out; the builder is freed. */
static void *finish(struct fb_builder *b, fb_ref root, size_t *len)
{
	void *buf = NULL;

	CHECK_EQ_INT(fb_finish(b, root, IDENT), 0);
	CHECK_EQ_INT(fb_detach(b, &buf, len), 0);
	fb_builder_free(b);
	return buf;
}

static void open_root(struct fb_reader *r, const void *buf, size_t len,
		      struct fb_table *root)
{
	fb_reader_init(r, buf, len);
	CHECK_EQ_INT(fb_reader_root(r, 4, root), 0);
}

/* slots 0..10: bool, i8, u8, i16, u16, i32, u32, i64, u64, f32, f64 */
static fb_ref every_width(struct fb_builder *b, int k)
{
	fb_ref t = 0;

	fb_table_start(b);
	fb_add_bool(b, 0, true, false);
	fb_add_i8(b, 1, -3 - k, 0);
	fb_add_u8(b, 2, 250, 0);
	fb_add_i16(b, 3, -300, 0);
	fb_add_u16(b, 4, 65000, 0);
	fb_add_i32(b, 5, -70000 - k, -1);
	fb_add_u32(b, 6, 4000000000u, 0);
	fb_add_i64(b, 7, INT64_MIN + k, 0);
	fb_add_u64(b, 8, UINT64_MAX - k, 0);
	fb_add_f32(b, 9, 1.5f, 0);
	fb_add_f64(b, 10, -2.25, 0);
	CHECK_EQ_INT(fb_table_end(b, &t), 0);
	return t;
}

static void check_every_width(const struct fb_table *t, int k)
{
	int8_t i8;
	uint8_t u8;
	int16_t i16;
	uint16_t u16;
	int32_t i32;
	uint32_t u32;
	int64_t i64;
	uint64_t u64;
	float f32;
	double f64;
	bool b;

	CHECK(!fb_read_bool(t, 0, false, &b) && b);
	CHECK(!fb_read_i8(t, 1, 0, &i8) && i8 == -3 - k);
	CHECK(!fb_read_u8(t, 2, 0, &u8) && u8 == 250);
	CHECK(!fb_read_i16(t, 3, 0, &i16) && i16 == -300);
	CHECK(!fb_read_u16(t, 4, 0, &u16) && u16 == 65000);
	CHECK(!fb_read_i32(t, 5, -1, &i32) && i32 == -70000 - k);
	CHECK(!fb_read_u32(t, 6, 0, &u32) && u32 == 4000000000u);
	CHECK(!fb_read_i64(t, 7, 0, &i64) && i64 == INT64_MIN + k);
	CHECK(!fb_read_u64(t, 8, 0, &u64) && u64 == UINT64_MAX - k);
	CHECK(!fb_read_f32(t, 9, 0, &f32) && f32 == 1.5f);
	CHECK(!fb_read_f64(t, 10, 0, &f64) && f64 == -2.25);
}

TEST(scalars_of_every_width_read_back)
{
	struct fb_builder b;
	struct fb_reader r;
	struct fb_table root, t;
	fb_ref inner;
	size_t len;
	void *buf;

	fb_builder_init(&b);
	inner = every_width(&b, 1);
	fb_table_start(&b);
	fb_add_ref(&b, 0, inner);
	fb_table_end(&b, &inner);
	buf = finish(&b, inner, &len);
	open_root(&r, buf, len, &root);
	CHECK_EQ_INT(fb_read_table(&root, 0, &t), 1);
	check_every_width(&t, 1);
	CHECK_EQ_INT(r.error, 0);
	free(buf);
}

TEST(defaults_are_left_out)
{
	struct fb_builder b;
	struct fb_reader r;
	struct fb_table root;
	int32_t i32;
	double f64;
	fb_ref t;
	size_t len;
	void *buf;

	fb_builder_init(&b);
	fb_table_start(&b);
	fb_add_i32(&b, 0, -1, -1);
	fb_add_u64(&b, 1, 0, 0);
	fb_add_f64(&b, 2, 0.0, 0.0);
	fb_add_ref(&b, 3, 0);
	fb_table_end(&b, &t);
	buf = finish(&b, t, &len);
	open_root(&r, buf, len, &root);
	/* nothing stored, so even the vtable's slot list is empty */
	CHECK_EQ_INT(root.vt_len, 4);
	CHECK_EQ_INT(root.size, 4);
	CHECK_EQ_INT(fb_field_pos(&root, 0), 0);
	CHECK(!fb_read_i32(&root, 0, -1, &i32) && i32 == -1);
	CHECK(!fb_read_f64(&root, 2, 7.0, &f64) && f64 == 7.0);
	free(buf);
}

TEST(negative_zero_is_not_the_default)
{
	struct fb_builder b;
	struct fb_reader r;
	struct fb_table root;
	fb_ref t;
	size_t len;
	void *buf;

	fb_builder_init(&b);
	fb_table_start(&b);
	fb_add_f32(&b, 0, -0.0f, 0.0f);
	fb_table_end(&b, &t);
	buf = finish(&b, t, &len);
	open_root(&r, buf, len, &root);
	CHECK(fb_field_pos(&root, 0) != 0);
	free(buf);
}

TEST(strings_vectors_and_nested_tables)
{
	static const int64_t longs[] = { -1, 0, INT64_MAX, 42 };
	static const uint8_t bytes[] = { 0, 1, 255 };
	fb_ref s_empty, s_hello, v_bytes, v_none, v_none2, v_longs, v_strs;
	fb_ref inner, mid;
	fb_ref refs[2], t;
	struct fb_table root, tm, ti;
	struct fb_vector v;
	struct fb_builder b;
	struct fb_reader r;
	const char *s;
	uint32_t n;
	size_t len;
	void *buf;

	fb_builder_init(&b);
	fb_create_string(&b, "", &s_empty);
	fb_create_string(&b, "hello", &s_hello);
	fb_create_vector_u8(&b, bytes, 3, &v_bytes);
	fb_create_vector_u8(&b, NULL, 0, &v_none);
	fb_create_vector_i64(&b, longs, 4, &v_longs);
	/* an empty byte vector is made once: its place, for every table */
	fb_create_vector_u8(&b, bytes, 0, &v_none2);
	CHECK(v_none != 0 && v_none2 == v_none);
	refs[0] = s_hello;
	refs[1] = s_empty;
	fb_create_vector_refs(&b, refs, 2, &v_strs);
	inner = every_width(&b, 2);
	fb_table_start(&b);
	fb_add_ref(&b, 1, inner);
	fb_table_end(&b, &mid);
	refs[0] = mid;
	refs[1] = mid;
	fb_create_vector_refs(&b, refs, 2, &refs[0]);
	fb_table_start(&b);
	fb_add_ref(&b, 0, s_hello);
	fb_add_ref(&b, 1, s_empty);
	fb_add_ref(&b, 2, v_bytes);
	fb_add_ref(&b, 3, v_none);
	fb_add_ref(&b, 4, v_longs);
	fb_add_ref(&b, 5, v_strs);
	fb_add_ref(&b, 6, refs[0]);
	fb_add_ref(&b, 7, v_none2);
	CHECK_EQ_INT(fb_table_end(&b, &t), 0);
	buf = finish(&b, t, &len);
	open_root(&r, buf, len, &root);

	CHECK(fb_read_string(&root, 0, &s, &n) == 1 && n == 5);
	CHECK_EQ_STR(s, "hello");
	CHECK(fb_read_string(&root, 1, &s, &n) == 1 && n == 0 && !*s);
	CHECK_EQ_INT(fb_read_string(&root, 9, &s, &n), 0);
	CHECK(fb_read_vector(&root, 2, 1, &v) == 1 && v.count == 3);
	CHECK(!memcmp(fb_vector_bytes(&v), bytes, 3));
	CHECK(fb_read_vector(&root, 3, 1, &v) == 1 && v.count == 0);
	CHECK(fb_read_vector(&root, 7, 1, &v) == 1 && v.count == 0);
	CHECK(fb_read_vector(&root, 4, 8, &v) == 1 && v.count == 4);
	CHECK_EQ_INT((int64_t)fb_vector_scalar(&v, 0), -1);
	CHECK((int64_t)fb_vector_scalar(&v, 2) == INT64_MAX);
	CHECK_EQ_INT((int64_t)fb_vector_scalar(&v, 3), 42);
	CHECK(fb_read_vector(&root, 5, 4, &v) == 1 && v.count == 2);
	CHECK(!fb_vector_string(&v, 0, &s, &n) && !strcmp(s, "hello"));
	CHECK(!fb_vector_string(&v, 1, &s, &n) && n == 0);
	CHECK(fb_read_vector(&root, 6, 4, &v) == 1 && v.count == 2);
	CHECK_EQ_INT(fb_vector_table(&v, 1, &tm), 0);
	CHECK_EQ_INT(fb_read_table(&tm, 0, &ti), 0);
	CHECK_EQ_INT(fb_read_table(&tm, 1, &ti), 1);
	check_every_width(&ti, 2);
	/* an index past the end is refused, not read */
	CHECK_EQ_INT(fb_vector_table(&v, 2, &tm), -EINVAL);
	free(buf);
}

static fb_ref two_ints(struct fb_builder *b, int32_t x, int32_t y)
{
	fb_ref t;

	fb_table_start(b);
	fb_add_i32(b, 0, x, 0);
	fb_add_i32(b, 2, y, 0);
	fb_table_end(b, &t);
	return t;
}

TEST(equal_vtables_are_shared)
{
	struct fb_table root, t0, t1, t2;
	struct fb_builder b;
	struct fb_reader r;
	struct fb_vector v;
	fb_ref refs[3], vec;
	int32_t x;
	size_t len;
	void *buf;

	/* 4-byte fields only: no padding, so the layouts are equal */
	fb_builder_init(&b);
	refs[0] = two_ints(&b, 1, 2);
	refs[1] = two_ints(&b, 3, 4);
	refs[2] = two_ints(&b, 5, 0);
	fb_create_vector_refs(&b, refs, 3, &vec);
	fb_table_start(&b);
	fb_add_ref(&b, 0, vec);
	fb_table_end(&b, &vec);
	buf = finish(&b, vec, &len);
	open_root(&r, buf, len, &root);
	CHECK_EQ_INT(fb_read_vector(&root, 0, 4, &v), 1);
	CHECK_EQ_INT(fb_vector_table(&v, 0, &t0), 0);
	CHECK_EQ_INT(fb_vector_table(&v, 1, &t1), 0);
	CHECK_EQ_INT(fb_vector_table(&v, 2, &t2), 0);
	CHECK_EQ_INT(t0.vt, t1.vt);
	CHECK(t2.vt != t1.vt);
	CHECK(!fb_read_i32(&t1, 2, 0, &x) && x == 4);
	CHECK(!fb_read_i32(&t0, 0, 0, &x) && x == 1);
	free(buf);
}

/* Every scalar of table t at an offset that is a multiple of its size. */
static void check_table_aligned(const struct fb_table *t)
{
	static const size_t width[] = { 1, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8 };
	size_t slot, pos;

	CHECK_EQ_INT(t->pos % 4, 0);
	CHECK_EQ_INT(t->vt % 2, 0);
	for (slot = 0; slot < sizeof(width) / sizeof(width[0]); slot++) {
		pos = fb_field_pos(t, slot);
		CHECK(pos != 0);
		CHECK_EQ_INT(pos % width[slot], 0);
	}
}

TEST(alignment_counts_from_byte_zero)
{
	static const int64_t longs[] = { 1, 2, 3 };
	static const uint8_t odd[] = { 1, 2, 3, 4, 5 };
	struct fb_table root, t;
	struct fb_builder b;
	struct fb_reader r;
	struct fb_vector v;
	fb_ref refs[3], s, lv, bv, tv;
	size_t shift, len;
	uint8_t *buf;

	/* odd-sized objects in front shift everything by every residue */
	for (shift = 0; shift < 16; shift++) {
		fb_builder_init(&b);
		fb_create_string_len(&b, "0123456789abcdef", shift, &s);
		fb_create_vector_u8(&b, odd, shift % 6, &bv);
		fb_create_vector_i64(&b, longs, 1 + shift % 3, &lv);
		refs[0] = every_width(&b, 0);
		fb_create_vector_u8(&b, odd, 5, &bv);
		refs[1] = every_width(&b, 1);
		refs[2] = every_width(&b, 2);
		fb_create_vector_refs(&b, refs, 3, &tv);
		fb_table_start(&b);
		fb_add_bool(&b, 0, true, false);
		fb_add_ref(&b, 1, s);
		fb_add_ref(&b, 2, lv);
		fb_add_ref(&b, 3, tv);
		fb_add_u64(&b, 4, 77, 0);
		fb_table_end(&b, &tv);
		buf = finish(&b, tv, &len);

		CHECK_EQ_INT(len % 8, 0);
		CHECK_EQ_INT(le32(buf), len - 4);
		CHECK(!memcmp(buf + 8, IDENT, 4));
		open_root(&r, buf, len, &root);
		CHECK_EQ_INT(fb_field_pos(&root, 4) % 8, 0);
		CHECK_EQ_INT(fb_read_vector(&root, 2, 8, &v), 1);
		CHECK_EQ_INT(v.pos % 8, 0);
		CHECK_EQ_INT((v.pos - 4) % 4, 0);
		CHECK_EQ_INT(fb_read_vector(&root, 3, 4, &v), 1);
		for (uint32_t i = 0; i < v.count; i++) {
			CHECK_EQ_INT(fb_vector_table(&v, i, &t), 0);
			check_table_aligned(&t);
		}
		CHECK_EQ_INT(r.error, 0);
		free(buf);
	}
}

TEST(misuse_is_refused_and_sticks)
{
	struct fb_builder b;
	fb_ref ref;
	void *buf;
	size_t len;

	fb_builder_init(&b);
	CHECK_EQ_INT(fb_add_u32(&b, 0, 1, 0), -EINVAL);
	/* sticky: a valid call now fails the same way */
	CHECK_EQ_INT(fb_create_string(&b, "x", &ref), -EINVAL);
	CHECK_EQ_INT(fb_detach(&b, &buf, &len), -EINVAL);
	fb_builder_free(&b);

	fb_builder_init(&b);
	fb_table_start(&b);
	fb_add_u32(&b, 3, 1, 0);
	CHECK_EQ_INT(fb_add_u32(&b, 3, 2, 0), -EINVAL);
	fb_builder_free(&b);

	fb_builder_init(&b);
	fb_table_start(&b);
	CHECK_EQ_INT(fb_create_string(&b, "inside", &ref), -EINVAL);
	fb_builder_free(&b);

	fb_builder_init(&b);
	fb_table_start(&b);
	CHECK_EQ_INT(fb_add_bool(&b, FB_MAX_SLOTS, true, false), -EINVAL);
	fb_builder_free(&b);

	fb_builder_init(&b);
	ref = 0;
	CHECK_EQ_INT(fb_create_vector_refs(&b, &ref, 1, &ref), -EINVAL);
	fb_builder_free(&b);

	fb_builder_init(&b);
	CHECK_EQ_INT(fb_create_vector_i64(&b, NULL, 2, &ref), -EINVAL);
	fb_builder_free(&b);

	fb_builder_init(&b);
	fb_table_start(&b);
	fb_table_end(&b, &ref);
	CHECK_EQ_INT(fb_detach(&b, &buf, &len), -EINVAL);
	fb_builder_free(&b);

	fb_builder_init(&b);
	fb_table_start(&b);
	fb_table_end(&b, &ref);
	CHECK_EQ_INT(fb_finish(&b, ref, IDENT), 0);
	CHECK_EQ_INT(fb_finish(&b, ref, IDENT), -EINVAL);
	fb_builder_free(&b);
}

/*
 * A hand-made size-prefixed buffer: a root table at 20 (8 bytes, its vtable
 * at 12) whose slot 0 is a uoffset at 24 to byte 24 + field. Tests poke
 * bytes to break one thing at a time.
 */
static void make_table(uint8_t buf[40], uint32_t field)
{
	memset(buf, 0, 40);
	buf[0] = 36;                    /* size prefix */
	buf[4] = 16;                    /* root: 4 + 16 = 20 */
	memcpy(buf + 8, IDENT, 4);
	buf[12] = 6;                    /* vtable at 12: 6 bytes */
	buf[14] = 8;                    /* table: 8 bytes */
	buf[16] = 4;                    /* slot 0 at table + 4 */
	buf[20] = 8;                    /* soffset: vtable at 20 - 8 = 12 */
	memcpy(buf + 24, &field, 4);    /* slot 0: uoffset (LE host) */
}

static void expect_bad(const uint8_t *buf, size_t len, const char *needle)
{
	struct fb_table root, t;
	struct fb_reader r;
	struct fb_vector v;
	const char *s;
	uint32_t n;
	int ret;

	fb_reader_init(&r, buf, len);
	ret = fb_reader_root(&r, 4, &root);
	if (!ret) {
		/* slot 0 tried as each kind of reference */
		ret = fb_read_string(&root, 0, &s, &n);
		if (ret >= 0)
			ret = fb_read_table(&root, 0, &t);
		if (ret >= 0)
			ret = fb_read_vector(&root, 0, 8, &v);
	}
	CHECK_EQ_INT(ret, -EINVAL);
	CHECK_EQ_INT(r.error, -EINVAL);
	if (!strstr(r.err, needle))
		printf("    message: %s\n", r.err);
	CHECK(strstr(r.err, needle) != NULL);
}

TEST(reader_refuses_bad_offsets_with_a_message)
{
	static const struct {
		size_t at;
		uint8_t value;
		const char *needle;
	} pokes[] = {
		{ 4, 200, "past the end" },             /* root offset */
		{ 20, 100, "outside the data" },        /* vtable before byte 0 */
		{ 12, 5, "malformed" },                 /* odd vtable length */
		{ 14, 2, "less than its own 4-byte soffset" },
		{ 14, 40, "runs past the end" },        /* table size */
		{ 16, 6, "outside the table" },         /* field offset */
		{ 28, 100, "string at byte 28 (100 bytes)" },
		/* length 7 then 'x' to the end: no NUL at byte 39 */
		{ 28, 7, "not NUL-terminated" },
	};
	uint8_t buf[40];
	size_t i;

	for (i = 0; i < sizeof(pokes) / sizeof(pokes[0]); i++) {
		make_table(buf, 4);
		memset(buf + 32, 'x', 8);
		buf[pokes[i].at] = pokes[i].value;
		expect_bad(buf, 40, pokes[i].needle);
	}
}

TEST(reader_refuses_long_vectors_and_keeps_the_first_error)
{
	struct fb_table root;
	struct fb_reader r;
	struct fb_vector v;
	uint8_t buf[40];

	/* a vector of 3 longs needs 24 bytes after byte 32: only 8 are there */
	make_table(buf, 4);
	buf[28] = 3;
	fb_reader_init(&r, buf, 40);
	CHECK_EQ_INT(fb_reader_root(&r, 4, &root), 0);
	CHECK_EQ_INT(fb_read_vector(&root, 0, 8, &v), -EINVAL);
	CHECK(strstr(r.err, "vector at byte 28 (3 elements of 8 bytes)") != NULL);
	/* the same bytes hold a valid vector of 2 ubytes... */
	buf[28] = 2;
	CHECK_EQ_INT(fb_read_vector(&root, 0, 1, &v), 1);
	/* ...but the first failure is what r remembers */
	CHECK_EQ_INT(r.error, -EINVAL);
	CHECK(strstr(r.err, "3 elements") != NULL);
}

/*
 * Tables of mixed fields between strings of every length mod 8, either
 * way: fb_add_* calls, or fb_table_typed with the same fields into pages
 * given to the builder.
 */
enum table_way { BY_FIELD, TYPED };
/* Pages full of junk, as a run log's slabs are when handed over. */
static void give_junk_pages(struct fb_builder *b, size_t len)
{
	void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(mem != MAP_FAILED);
	if (mem == MAP_FAILED)
		return;
	memset(mem, 0xab, len);
	fb_builder_give_pages(b, mem, len);
}

static void *mixed_tables(enum table_way way, size_t ntables, size_t *len)
{
	static const uint8_t sizes[] = { 8, 8, 4, 4, 4, 4, 2, 1 };
	static const struct fb_table_type type = {
		.id = 1, .n = 8, .refs = 1u << 5,
		.slot = { 0, 1, 2, 3, 4, 5, 6, 7 },
		.size = { 8, 8, 4, 4, 4, 4, 2, 1 },
	};
	struct fb_builder b;
	uint64_t v[8];
	unsigned int present;
	fb_ref str = 0, t = 0;
	uint64_t x = 88172645463325252ull;
	char text[16] = "abcdefghijklmno";
	size_t i, k;

	fb_builder_init(&b);
	/* the typed builds grow into given pages: 3 MiB, 1 MiB, a page */
	if (way == TYPED) {
		give_junk_pages(&b, 3u << 20);
		give_junk_pages(&b, 1u << 20);
		give_junk_pages(&b, 4096);
	}
	for (i = 0; i < ntables; i++) {
		if (i % 3 == 0)
			fb_create_string_len(&b, text, i % 11, &str);
		present = 0;
		for (k = 0; k < 8; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[k] = k == 5 ? str : x;
			/* some fields left out, as a scalar at its default */
			if (x % 4)
				present |= 1u << k;
		}
		if (way == TYPED) {
			CHECK_EQ_INT(fb_table_typed(&b, &type, present, v, &t),
				     0);
			continue;
		}
		/* field k in slot k, in order */
		fb_table_start(&b);
		for (k = 0; k < 8; k++) {
			if (!(present >> k & 1))
				continue;
			if (k == 5)
				fb_add_ref(&b, k, (fb_ref)v[k]);
			else if (sizes[k] == 8)
				fb_add_u64(&b, k, v[k], 0);
			else if (sizes[k] == 4)
				fb_add_u32(&b, k, (uint32_t)v[k], 0);
			else if (sizes[k] == 2)
				fb_add_u16(&b, k, (uint16_t)v[k], 0);
			else
				fb_add_u8(&b, k, (uint8_t)v[k], 0);
		}
		CHECK_EQ_INT(fb_table_end(&b, &t), 0);
	}
	return finish(&b, t, len);
}

TEST(typed_tables_are_the_same_bytes)
{
	/*
	 * 40k tables: past 1 MiB, where the buffer moves into its mapping;
	 * 200k: past the pages given
	 */
	static const size_t counts[] = { 1, 7, 300, 40000, 200000 };
	size_t i, len_a, len_c;
	void *a, *c;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		a = mixed_tables(BY_FIELD, counts[i], &len_a);
		c = mixed_tables(TYPED, counts[i], &len_c);
		CHECK_EQ_INT(len_a, len_c);
		CHECK(a && c && len_a == len_c && !memcmp(a, c, len_a));
		free(a);
		free(c);
	}
}

/*
 * Fields smallest first: the padding between them depends on where the
 * table starts mod 8, so a table of one shape (a layout fb_table_typed
 * keeps) is written at every start mod 8, between strings, both ways.
 */
static void *rising_tables(enum table_way way, size_t *len)
{
	static const struct fb_table_type type = {
		.id = 0, .n = 4, .slot = { 3, 2, 1, 0 }, .size = { 1, 2, 4, 8 },
	};
	uint64_t v[4];
	struct fb_builder b;
	fb_ref str, t = 0;
	size_t i, k;

	fb_builder_init(&b);
	for (i = 0; i < 64; i++) {
		fb_create_string_len(&b, "abcdefghijklmno", i % 13, &str);
		for (k = 0; k < 4; k++)
			v[k] = 0x0102030405060708ull + i;
		if (way == TYPED) {
			CHECK_EQ_INT(fb_table_typed(&b, &type, 15, v, &t), 0);
			continue;
		}
		fb_table_start(&b);
		fb_add_u8(&b, 3, (uint8_t)v[0], 0);
		fb_add_u16(&b, 2, (uint16_t)v[1], 0);
		fb_add_u32(&b, 1, (uint32_t)v[2], 0);
		fb_add_u64(&b, 0, v[3], 0);
		CHECK_EQ_INT(fb_table_end(&b, &t), 0);
	}
	return finish(&b, t, len);
}

TEST(typed_tables_of_one_shape_at_every_alignment)
{
	size_t len_a, len_c;
	void *a = rising_tables(BY_FIELD, &len_a);
	void *c = rising_tables(TYPED, &len_c);

	CHECK_EQ_INT(len_a, len_c);
	CHECK(a && c && len_a == len_c && !memcmp(a, c, len_a));
	free(a);
	free(c);
}

TEST(typed_table_misuse_is_refused)
{
	static const struct fb_table_type bad_id = {
		.id = FB_TABLE_TYPES, .n = 1, .size = { 4 },
	};
	static const struct fb_table_type odd = { .n = 1, .size = { 3 } };
	static const struct fb_table_type one_ref = {
		.n = 1, .refs = 1, .size = { 4 },
	};
	uint64_t v[1] = { 1 };
	struct fb_builder b;
	fb_ref t = 1, s;

	fb_builder_init(&b);
	CHECK_EQ_INT(fb_table_typed(&b, &bad_id, 1, v, &t), -EINVAL);
	CHECK_EQ_INT(t, 0);
	fb_builder_free(&b);

	fb_builder_init(&b);
	CHECK_EQ_INT(fb_table_typed(&b, &odd, 1, v, &t), -EINVAL);
	fb_builder_free(&b);

	/* a ref to an object not yet made; a ref of 0 is left out */
	fb_builder_init(&b);
	fb_create_string(&b, "x", &s);
	v[0] = 0;
	CHECK_EQ_INT(fb_table_typed(&b, &one_ref, 1, v, &t), 0);
	CHECK(t != 0);
	v[0] = s + 64;
	CHECK_EQ_INT(fb_table_typed(&b, &one_ref, 1, v, &t), -EINVAL);
	/* errors stick */
	v[0] = s;
	CHECK_EQ_INT(fb_table_typed(&b, &one_ref, 1, v, &t), -EINVAL);
	fb_builder_free(&b);
}

/* fb_output's pieces appended to a growing block. */
struct collected {
	uint8_t *data;
	size_t len;
};

static int collect_piece(void *ctx, const void *data, size_t len)
{
	struct collected *c = ctx;

	c->data = realloc(c->data, c->len + len);
	CHECK(c->data != NULL);
	memcpy(c->data + c->len, data, len);
	c->len += len;
	return 0;
}

/* Shared strings, tables and vectors: tens of megabytes. */
static fb_ref build_many(struct fb_builder *b, int n)
{
	static const char *const names[] = { "conv", "relu", "xnnpack", "" };
	fb_ref s, t, v, *refs = calloc(n, sizeof(*refs));
	uint8_t meta[24];
	int i;

	CHECK(refs != NULL);
	for (i = 0; i < n; i++) {
		char name[32];

		/* some names again and again, some new */
		snprintf(name, sizeof(name), "%s%d", names[i % 4],
			 i % 7 ? 0 : i);
		CHECK_EQ_INT(fb_create_shared_string(b, name, &s), 0);
		fb_builder_forget_addresses(b); /* name is a reused buffer */
		memset(meta, i, (size_t)(i % 24));
		CHECK_EQ_INT(fb_create_vector_u8(b, meta, i % 24, &v), 0);
		fb_table_start(b);
		fb_add_u64(b, 0, (uint64_t)i * 977, 0);
		fb_add_ref(b, 1, s);
		fb_add_ref(b, 2 + i % 3, v);
		CHECK_EQ_INT(fb_table_end(b, &t), 0);
		refs[i] = t;
	}
	CHECK_EQ_INT(fb_create_vector_refs(b, refs, n, &v), 0);
	free(refs);
	CHECK_EQ_INT(fb_create_ref_table(b, 0, v, &t), 0);
	return t;
}

/*
 * A string is known by its address until the builder is told it may
 * change: then by its text. Forgetting one address keeps the others.
 */
TEST(a_forgotten_address_is_looked_at_again)
{
	struct fb_builder b;
	char kept[8] = "conv", reused[8] = "relu";
	fb_ref k, r, again;

	fb_builder_init(&b);
	CHECK_EQ_INT(fb_create_shared_string(&b, kept, &k), 0);
	CHECK_EQ_INT(fb_create_shared_string(&b, reused, &r), 0);
	CHECK(k != r);
	/* changed without a word: still the string made for that address */
	memcpy(reused, "gelu", 5);
	CHECK_EQ_INT(fb_create_shared_string(&b, reused, &again), 0);
	CHECK(again == r);
	fb_builder_forget_address(&b, reused);
	CHECK_EQ_INT(fb_create_shared_string(&b, reused, &again), 0);
	CHECK(again != r && again != k);
	/* the one not forgotten: its string, even with new text */
	memcpy(kept, "mul", 4);
	CHECK_EQ_INT(fb_create_shared_string(&b, kept, &again), 0);
	CHECK(again == k);
	fb_builder_free(&b);
}

/*
 * A spilled file's bytes are the unspilled one's with padding after the
 * identifier, which makes it whole pages: the size prefix and the root
 * offset count it, every object is the same bytes at the same place from
 * the end.
 */
static void check_padded(const uint8_t *got, size_t got_len,
			 const uint8_t *want, size_t len)
{
	size_t pad = got_len - len;
	uint32_t size, root, want_root;
	size_t i;

	CHECK(got_len >= len && pad < 4096);
	CHECK_EQ_INT(got_len % 4096, 0);
	memcpy(&size, got, 4);
	CHECK_EQ_INT(size, got_len - 4);
	memcpy(&root, got + 4, 4);
	memcpy(&want_root, want + 4, 4);
	CHECK_EQ_INT(root, want_root + pad);
	CHECK(!memcmp(got + 8, want + 8, 4));
	for (i = 0; i < pad; i++)
		if (got[12 + i])
			break;
	CHECK_EQ_INT(i, pad);
	CHECK(!memcmp(got + 12 + pad, want + 12, len - 12));
}

static int spill_file(const char *dir)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/.test_fb_spill_XXXXXX", dir);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	unlink(path);
	return fd;
}

/* The same buffer built twice, once spilling to fd. */
static void build_both(struct fb_builder *a, struct fb_builder *b, int fd)
{
	fb_builder_init(a);
	fb_builder_init(b);
	fb_builder_spill(b, fd);
	/* about 60 bytes each: far more than the part kept in memory */
	CHECK_EQ_INT(fb_finish(a, build_many(a, 600000), IDENT), 0);
	CHECK_EQ_INT(fb_finish(b, build_many(b, 600000), IDENT), 0);
}

TEST(spilled_buffer_gives_the_same_bytes)
{
	struct fb_builder a, b;
	struct collected got = { 0 };
	const void *want;
	size_t len;
	int fd = spill_file("/tmp");

	build_both(&a, &b, fd);
	want = fb_data(&a, &len);
	CHECK(want != NULL);
	CHECK(len > (24u << 20));
	/* once spilled, only fb_output has the bytes */
	CHECK(b.spilled > 0);
	CHECK(fb_data(&b, &len) == NULL);
	CHECK_EQ_INT(fb_output(&b, collect_piece, &got), 0);
	want = fb_data(&a, &len);
	check_padded(got.data, got.len, want, len);
	free(got.data);
	fb_builder_free(&a);
	fb_builder_free(&b);
	close(fd);
}

/*
 * Made in place, the spill file is the file: the same bytes from offset
 * 0, nothing after them (the repository's file system, as the output's
 * folder is: ext4 and XFS cut whole blocks).
 */
TEST(a_spilled_file_is_made_in_its_spill_file)
{
	struct fb_builder a, b;
	const uint8_t *want;
	uint8_t *got;
	size_t len;
	off_t end;
	int fd = spill_file(".");

	build_both(&a, &b, fd);
	want = fb_data(&a, &len);
	CHECK_EQ_INT(fb_output_in_place(&b), 0);
	end = lseek(fd, 0, SEEK_END);
	CHECK(end > 0 && (size_t)end >= len && (size_t)end < len + 4096);
	got = malloc((size_t)end);
	CHECK(got != NULL);
	CHECK_EQ_INT(pread(fd, got, (size_t)end, 0), end);
	check_padded(got, (size_t)end, want, len);
	free(got);
	fb_builder_free(&a);
	fb_builder_free(&b);
	close(fd);
}

/*
 * Where the file system cannot cut (tmpfs), or nothing was spilled, the
 * builder says so and fb_output() still gives the bytes.
 */
TEST(in_place_refused_leaves_fb_output_whole)
{
	struct fb_builder a, b, small;
	struct collected got = { 0 };
	const void *want;
	size_t len;
	int fd = spill_file("/dev/shm");

	build_both(&a, &b, fd);
	CHECK_EQ_INT(fb_output_in_place(&b), -EOPNOTSUPP);
	CHECK_EQ_INT(fb_output(&b, collect_piece, &got), 0);
	want = fb_data(&a, &len);
	check_padded(got.data, got.len, want, len);
	free(got.data);
	fb_builder_init(&small);
	fb_builder_spill(&small, fd);
	CHECK_EQ_INT(fb_finish(&small, build_many(&small, 10), IDENT), 0);
	CHECK_EQ_INT(fb_output_in_place(&small), -EOPNOTSUPP);
	CHECK(fb_data(&small, &len) != NULL);
	fb_builder_free(&small);
	fb_builder_free(&a);
	fb_builder_free(&b);
	close(fd);
}

/*
 * The reservation stays whole while spilled chunks' pages move to the
 * front: no hole in it where another mapping could land, which freeing
 * the builder would unmap with it (msync() fails on an unmapped page).
 */
TEST(spilling_leaves_no_hole_in_the_reservation)
{
	struct fb_builder b;
	int fd = spill_file("/tmp");

	fb_builder_init(&b);
	fb_builder_spill(&b, fd);
	CHECK_EQ_INT(fb_finish(&b, build_many(&b, 600000), IDENT), 0);
	CHECK(b.mapped);
	CHECK(b.spilled >= (16u << 20));
	CHECK_EQ_INT(msync(b.buf, b.cap, MS_ASYNC), 0);
	fb_builder_free(&b);
	close(fd);
}

int main(void)
{
	RUN(scalars_of_every_width_read_back);
	RUN(defaults_are_left_out);
	RUN(negative_zero_is_not_the_default);
	RUN(strings_vectors_and_nested_tables);
	RUN(equal_vtables_are_shared);
	RUN(alignment_counts_from_byte_zero);
	RUN(misuse_is_refused_and_sticks);
	RUN(typed_tables_are_the_same_bytes);
	RUN(typed_tables_of_one_shape_at_every_alignment);
	RUN(typed_table_misuse_is_refused);
	RUN(a_forgotten_address_is_looked_at_again);
	RUN(spilled_buffer_gives_the_same_bytes);
	RUN(a_spilled_file_is_made_in_its_spill_file);
	RUN(in_place_refused_leaves_fb_output_whole);
	RUN(spilling_leaves_no_hole_in_the_reservation);
	RUN(reader_refuses_bad_offsets_with_a_message);
	RUN(reader_refuses_long_vectors_and_keeps_the_first_error);
	return TEST_SUMMARY();
}
