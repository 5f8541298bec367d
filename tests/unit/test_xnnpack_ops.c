// SPDX-License-Identifier: BSD-3-Clause
/*
 * XNNPACK operators named from a binary's own tables: a small image laid
 * out as gcc 12 -O2 compiles XNNPACK 92a7ad5 (xnnpack_ops.c's patterns),
 * read whole; the same image with op->type read elsewhere, or a table
 * that holds no names, gives no name at all.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "testlib.h"
#include "symbol/xnnpack_ops.h"

#define BASE 0x1000
static uint8_t image[0x800];

static int read_image(void *ctx, uint64_t vaddr, void *buf, size_t len)
{
	(void)ctx;
	if (vaddr < BASE || vaddr - BASE + len > sizeof(image))
		return -EFAULT;
	memcpy(buf, image + (vaddr - BASE), len);
	return 0;
}

static void put(uint64_t at, const uint8_t *b, size_t n)
{
	memcpy(image + (at - BASE), b, n);
}

static void put32(uint64_t at, int32_t v)
{
	memcpy(image + (at - BASE), &v, 4);
}

/* lea STRING(%rip),%rax; ret at `at`, the string at `str` */
static void string_case(uint64_t at, uint64_t str, const char *s)
{
	static const uint8_t lea[] = { 0x48, 0x8d, 0x05 };

	put(at, lea, 3);
	put32(at + 3, (int32_t)(str - (at + 7)));
	image[at + 7 - BASE] = 0xc3;
	put(str, (const uint8_t *)s, strlen(s) + 1);
}

/* A switch function at `at`: lea TABLE; mov; movslq; add; jmp; cases. */
static void enum_switch(uint64_t at, uint64_t table, uint64_t strs,
			const char *const *names, int n)
{
	static const uint8_t tail[] = { 0x89, 0xff, 0x48, 0x63, 0x04, 0xba,
					0x48, 0x01, 0xd0, 0xff, 0xe0 };
	static const uint8_t lea[] = { 0x48, 0x8d, 0x15 };
	int i;

	put(at, lea, 3);
	put32(at + 3, (int32_t)(table - (at + 7)));
	put(at + 7, tail, sizeof(tail));
	for (i = 0; i < n; i++) {
		uint64_t c = at + 0x20 + 8 * i;

		string_case(c, strs + 32 * i, names[i]);
		put32(table + 4 * i, (int32_t)(c - table));
	}
}

enum { V2 = 0x1000, TYPES = 0x1100, UK = 0x1180, INVOKE = 0x1200,
       RUN = 0x1240, INFO = 0x1260, DELRT = 0x1290, DELOP = 0x12c0 };

static void build(struct xnn_image *img)
{
	static const char *const types[] = { "Zero (NC)", "Fully Connected (NC, F32)" };
	static const char *const uks[] = { "Default", "DWConv", "GEMM" };
	static const uint8_t v2_head[] = {
		0x48, 0x89, 0xf8, 0x8b, 0xbf, 0xb8, 0, 0, 0,
		0x83, 0xff, 0x2a, 0x77, 0, 0x83, 0xff, 0x27, 0x77, 0,
		0x83, 0xff, 0x0e, 0x75, 0, 0x8b, 0x40, 0x5c, 0x83, 0xc0, 0x01,
		0x83, 0xf8, 0x12, 0x77, 0, 0x48, 0x8d, 0x15,
	};
	static const uint8_t switch_tail[] = { 0x48, 0x63, 0x04, 0x82, 0x48,
					       0x01, 0xd0, 0xff, 0xe0 };
	static const uint8_t v2_unary[] = {
		0x83, 0xff, 0x7b, 0x75, 0, 0x8b, 0x40, 0x5c, 0x83, 0xc0, 0x01,
		0x83, 0xf8, 0x1a, 0x77, 0, 0x48, 0x8d, 0x15,
	};
	/* mov 0xc0(%rsi),%edi; test %edi,%edi; je; call ukernel */
	static const uint8_t info[] = { 0x8b, 0xbe, 0xc0, 0, 0, 0, 0x85, 0xff,
					0x74, 0x10, 0xe8 };
	/* call run; test %eax,%eax; jne */
	static const uint8_t invoke[] = { 0xe8, 0, 0, 0, 0, 0x85, 0xc0, 0x75,
					  0x10 };
	uint64_t at, table = 0x1500;
	int i;

	memset(image, 0, sizeof(image));
	memset(img, 0, sizeof(*img));
	img->read = read_image;
	/* v2: binary sub-types -1..17 all "Add (ND)", unary -1..25 "Abs (NC)" */
	put(V2, v2_head, sizeof(v2_head));
	put32(V2 + sizeof(v2_head), (int32_t)(table - (V2 + sizeof(v2_head) + 4)));
	put(V2 + sizeof(v2_head) + 4, switch_tail, sizeof(switch_tail));
	at = V2 + 0x40;
	put(at, v2_unary, sizeof(v2_unary));
	put32(at + sizeof(v2_unary), (int32_t)(table + 0x80 - (at + sizeof(v2_unary) + 4)));
	put(at + sizeof(v2_unary) + 4, switch_tail, sizeof(switch_tail));
	at += sizeof(v2_unary) + 4 + sizeof(switch_tail);
	image[at - BASE] = 0xe9;
	put32(at + 1, (int32_t)(TYPES - (at + 5)));
	string_case(V2 + 0x80, 0x1700, "Add (ND)");
	string_case(V2 + 0x88, 0x1720, "Abs (NC)");
	for (i = 0; i < 19; i++)
		put32(table + 4 * i, (int32_t)(V2 + 0x80 - table));
	for (i = 0; i < 27; i++)
		put32(table + 0x80 + 4 * i, (int32_t)(V2 + 0x88 - (table + 0x80)));
	img->addr[XNN_TYPE_STRING_V2] = V2;
	img->size[XNN_TYPE_STRING_V2] = 0x100;
	enum_switch(TYPES, 0x1600, 0x1740, types, 2);
	img->addr[XNN_TYPE_STRING] = TYPES;
	img->size[XNN_TYPE_STRING] = 0x80;
	enum_switch(UK, 0x1680, 0x17a0, uks, 3);
	img->addr[XNN_UKERNEL_STRING] = UK;
	img->size[XNN_UKERNEL_STRING] = 0x80;
	put(INFO, info, sizeof(info));
	put32(INFO + sizeof(info), (int32_t)(UK - (INFO + sizeof(info) + 4)));
	img->addr[XNN_PROFILING_INFO] = INFO;
	img->size[XNN_PROFILING_INFO] = 0x20;
	put(INVOKE + 8, invoke, sizeof(invoke));
	put32(INVOKE + 9, (int32_t)(RUN - (INVOKE + 13)));
	img->addr[XNN_INVOKE_RUNTIME] = INVOKE;
	img->size[XNN_INVOKE_RUNTIME] = 0x40;
	img->addr[XNN_RUN_OPERATOR] = RUN;
	img->size[XNN_RUN_OPERATOR] = 0x10;
	/* xnn_delete_runtime: a call of xnn_delete_operator in its loop */
	image[DELRT + 6 - BASE] = 0xe8;
	put32(DELRT + 7, (int32_t)(DELOP - (DELRT + 11)));
	img->addr[XNN_DELETE_RUNTIME] = DELRT;
	img->size[XNN_DELETE_RUNTIME] = 0x20;
	image[DELOP - BASE] = 0x55;
	img->addr[XNN_DELETE_OPERATOR] = DELOP;
	img->size[XNN_DELETE_OPERATOR] = 0x10;
}

static char name[XNN_NAME_MAX];

TEST(names_from_the_tables)
{
	struct xnn_image img;
	struct xnn_ops x;
	char why[256] = "";

	build(&img);
	CHECK_EQ_INT(xnn_ops_read(&x, &img, why, sizeof(why)), 0);
	CHECK_EQ_STR(why, "");
	CHECK_EQ_INT(x.type_off, 0xb8);
	CHECK_EQ_INT(x.ukernel_off, 0xc0);
	CHECK_EQ_INT(x.call_at, INVOKE + 8);
	/* the jne after test %eax,%eax: emulated */
	CHECK_EQ_INT(x.exit_at, INVOKE + 15);
	CHECK(!x.exit_stepped);
	CHECK_EQ_INT(x.forget_at, DELOP);
	CHECK(xnn_ops_name(&x, 1, 0, 2, name, sizeof(name)));
	CHECK_EQ_STR(name, "Fully Connected (NC, F32) GEMM");
	CHECK(xnn_ops_name(&x, 14, 0, 0, name, sizeof(name)));
	CHECK_EQ_STR(name, "Add (ND)");
	CHECK(xnn_ops_name(&x, 123, (uint32_t)-1, 0, name, sizeof(name)));
	CHECK_EQ_STR(name, "Abs (NC)");
	/* copy types, types and microkernels past the tables: no name */
	CHECK(!xnn_ops_name(&x, 41, 0, 0, name, sizeof(name)));
	CHECK(!xnn_ops_name(&x, 7, 0, 0, name, sizeof(name)));
	CHECK(!xnn_ops_name(&x, 1, 0, 9, name, sizeof(name)));
	xnn_ops_free(&x);
}

TEST(another_layout_no_names)
{
	struct xnn_image img;
	struct xnn_ops x;
	char why[256] = "";

	build(&img);
	image[V2 + 5 - BASE] = 0xc0;  /* op->type read at 0xc0 */
	CHECK_EQ_INT(xnn_ops_read(&x, &img, why, sizeof(why)), -EPROTO);
	CHECK(strstr(why, "op->type at 0xb8") != NULL);
	CHECK(x.type_names == NULL && x.ntypes == 0);

	build(&img);
	image[INFO + 2 - BASE] = 0xc8;  /* the microkernel type elsewhere */
	CHECK_EQ_INT(xnn_ops_read(&x, &img, why, sizeof(why)), -EPROTO);
	CHECK(strstr(why, "ukernel.type") != NULL);

	build(&img);
	image[0x1740 - BASE] = 0x01;  /* a type's name is no string */
	image[0x1760 - BASE] = 0x01;
	CHECK_EQ_INT(xnn_ops_read(&x, &img, why, sizeof(why)), -EPROTO);
	CHECK(strstr(why, "xnn_operator_type_to_string is not") != NULL);
}

/*
 * Kept fields are only as good as the probe that forgets them: where
 * xnn_delete_runtime does not call xnn_delete_operator (inlined, or some
 * other way to free), or either is missing, none is kept.
 */
TEST(operators_deleted_elsewhere_read_every_run)
{
	struct xnn_image img;
	struct xnn_ops x;
	char why[256] = "";

	build(&img);
	image[DELRT + 6 - BASE] = 0x90;
	CHECK_EQ_INT(xnn_ops_read(&x, &img, why, sizeof(why)), 0);
	CHECK_EQ_INT(x.forget_at, 0);
	xnn_ops_free(&x);

	build(&img);
	img.addr[XNN_DELETE_OPERATOR] = 0;
	CHECK_EQ_INT(xnn_ops_read(&x, &img, why, sizeof(why)), 0);
	CHECK_EQ_INT(x.forget_at, 0);
	xnn_ops_free(&x);

	build(&img);
	img.addr[XNN_DELETE_RUNTIME] = 0;
	CHECK_EQ_INT(xnn_ops_read(&x, &img, why, sizeof(why)), 0);
	CHECK_EQ_INT(x.forget_at, 0);
	xnn_ops_free(&x);
}

TEST(no_xnnpack)
{
	struct xnn_image img;
	struct xnn_ops x;
	char why[16];

	build(&img);
	img.addr[XNN_INVOKE_RUNTIME] = 0;
	CHECK_EQ_INT(xnn_ops_read(&x, &img, why, sizeof(why)), -ENOENT);
}

TEST(match_captures_rel32)
{
	static const uint8_t code[] = { 0x48, 0x8d, 0x15, 0x10, 0, 0, 0, 0xc3 };
	uint64_t rel = 0;
	size_t n = 0;

	CHECK(xnn_match(code, sizeof(code), 0x100, "48 8d 15 T ??", &rel, &n));
	CHECK_EQ_INT(rel, 0x100 + 7 + 0x10);
	CHECK_EQ_INT(n, 8);
	CHECK(!xnn_match(code, sizeof(code), 0, "48 8d 05 T", NULL, NULL));
	CHECK(!xnn_match(code, 4, 0, "48 8d 15 T", NULL, NULL));
}

int main(void)
{
	RUN(names_from_the_tables);
	RUN(operators_deleted_elsewhere_read_every_run);
	RUN(another_layout_no_names);
	RUN(no_xnnpack);
	RUN(match_captures_rel32);
	return TEST_SUMMARY();
}
