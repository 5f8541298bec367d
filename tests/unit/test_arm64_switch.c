// SPDX-License-Identifier: BSD-3-Clause
/*
 * test_arm64_switch.c - a switch's jump table read to tell where its br
 * goes (user/symbol/arm64_switch.h), and an aarch64 function with one
 * probed on its rets (arm64_exits.h). The functions as aarch64-linux-gnu-as
 * and ld place them (text at 0x10000, the table at 0x21230).
 */
#include <errno.h>
#include <string.h>
#include "symbol/arm64_exits.h"
#include "symbol/arm64_switch.h"
#include "testlib.h"

#define TEXT 0x10000
#define TABLE 0x21230

/*
 * adrp x1, 0x21000; add x1, x1, #0x230; ldrb w1, [x1, w0, uxtw];
 * adr x2, CASES; add x1, x2, w1, sxtb #2; br x1
 */
#define DISPATCH(adr) 0xb0000081, 0x9108c021, 0x38604821, adr, 0x8b218841, \
		      0xd61f0020

/* f(x): switch (x) over 3 cases, reached by b.ls after cmp w0, #2 */
static uint32_t f[] = {
	0xa9bf7bfd,     /* stp x29, x30, [sp, #-16]! */
	0x7100081f,     /* cmp w0, #0x2 */
	0x54000069,     /* b.ls 0x14 */
	0xa8c17bfd,     /* 0xc: ldp x29, x30, [sp], #16 */
	0xd65f03c0,     /* ret */
	DISPATCH(0x10000062),   /* 0x14 .. 0x28, adr x2, 0x2c */
	0x52800020,     /* 0x2c: mov w0, #1 */
	0x17fffff7,     /* b 0xc */
	0x94000004,     /* 0x34: bl far */
	0x17fffff5,     /* b 0xc */
	0x52800060,     /* 0x3c: mov w0, #3 */
	0x17fffff3,     /* b 0xc */
};

/* g(x): the same dispatch reached by falling from b.hi, at 0x10048 */
static uint32_t g[] = {
	0xa9bf7bfd,     /* stp x29, x30, [sp, #-16]! */
	0x97fffffe,     /* bl far */
	0x7100081f,     /* cmp w0, #0x2 */
	0x540000e8,     /* 0xc: b.hi 0x28 */
	DISPATCH(0x100000a2),   /* 0x10 .. 0x24, adr x2, 0x30 */
	0xa8c17bfd,     /* 0x28: ldp x29, x30, [sp], #16 */
	0xd65f03c0,     /* ret */
	0x52800020,     /* 0x30: mov w0, #1 */
	0x17fffffd,     /* 0x34: b 0x28 */
	0x52800040,     /* mov w0, #2 */
	0x17fffffb,     /* b 0x28 */
	0x52800060,     /* mov w0, #3 */
	0x17fffff9,     /* b 0x28 */
};

static uint8_t table[3];

static int read_table(void *ctx, uint64_t vaddr, void *buf, size_t len)
{
	(void)ctx;
	if (vaddr != TABLE || len > sizeof(table))
		return -ENOENT;
	memcpy(buf, table, len);
	return 0;
}

static uint8_t bytes[sizeof(g)];

static struct arm64_code code_of(const uint32_t *words, size_t n,
				 uint64_t vaddr)
{
	struct arm64_code c = { .bytes = bytes, .size = 4 * n, .vaddr = vaddr,
				.read = read_table };
	size_t i;

	for (i = 0; i < n; i++) {
		bytes[4 * i] = words[i];
		bytes[4 * i + 1] = words[i] >> 8;
		bytes[4 * i + 2] = words[i] >> 16;
		bytes[4 * i + 3] = words[i] >> 24;
	}
	table[0] = 0;
	table[1] = 2;
	table[2] = 4;
	return c;
}

#define CODE(words, vaddr) code_of(words, sizeof(words) / 4, vaddr)

/*
 * The br at `br` goes to [lo, hi] only, so the function is probed on
 * its entry and its one ret.
 */
static void check_probed(const struct arm64_code *c, uint64_t br,
			 int64_t lo, int64_t hi, uint64_t entry, uint64_t ret)
{
	uint64_t rets[2];
	struct arm64_exits x = { .rets = rets, .max = 2 };
	int64_t got_lo, got_hi;

	CHECK_EQ_INT(arm64_switch_span(c, br, &got_lo, &got_hi), 0);
	CHECK_EQ_INT(got_lo, lo);
	CHECK_EQ_INT(got_hi, hi);
	CHECK_EQ_INT(arm64_exits_find(c, 0, &x), 0);
	CHECK_EQ_INT(x.entry, entry);
	CHECK_EQ_INT(x.nrets, 1);
	CHECK_EQ_INT(rets[0], ret);
}

TEST(the_table_says_where_the_br_goes)
{
	struct arm64_code c = CODE(f, TEXT);
	uint64_t rets[2];
	struct arm64_exits x = { .rets = rets, .max = 2 };
	int64_t lo, hi;

	check_probed(&c, 0x28, 0x2c, 0x3c, 8, 0x10);
	/* nothing to read the table with: the br stays unknown */
	c.read = NULL;
	CHECK_EQ_INT(arm64_switch_span(&c, 0x28, &lo, &hi), -1);
	CHECK_EQ_INT(arm64_exits_find(&c, 0, &x), -1);
	CHECK_EQ_INT(x.where, 0x28);
}

TEST(a_fall_from_b_hi_bounds_it_too)
{
	struct arm64_code c = CODE(g, TEXT + 0x48);

	check_probed(&c, 0x24, 0x30, 0x40, 4, 0x2c);
}

TEST(a_case_before_the_entry_is_refused)
{
	struct arm64_code c = CODE(f, TEXT);
	uint64_t rets[2];
	struct arm64_exits x = { .rets = rets, .max = 2 };
	int64_t lo, hi;

	/* -9 words from 0x2c: 0x8, the entry (b.ls) */
	table[1] = 0xf7;
	CHECK_EQ_INT(arm64_switch_span(&c, 0x28, &lo, &hi), 0);
	CHECK_EQ_INT(lo, 0x8);
	CHECK_EQ_INT(arm64_exits_find(&c, 0, &x), -1);
	CHECK_EQ_INT(x.where, 0x28);
}

TEST(a_case_into_a_dispatch_is_refused)
{
	struct arm64_code c = CODE(f, TEXT);
	uint64_t rets[2];
	struct arm64_exits x = { .rets = rets, .max = 2 };

	/* -6 words from 0x2c: 0x14, the dispatch again, past its cmp */
	table[2] = 0xfa;
	CHECK_EQ_INT(arm64_exits_find(&c, 0, &x), -1);
	CHECK_EQ_STR(x.why, "has a switch that may lead into a dispatch");
}

TEST(unbounded_ways_in_are_refused)
{
	uint32_t into_middle[sizeof(g) / 4], no_bound[sizeof(g) / 4];
	struct arm64_code c;
	int64_t lo, hi;

	/* a branch to the ldrb, past the bound's check */
	memcpy(into_middle, g, sizeof(g));
	into_middle[13] = 0x17fffffa;   /* 0x34: b 0x1c */
	c = CODE(into_middle, TEXT + 0x48);
	CHECK_EQ_INT(arm64_switch_span(&c, 0x24, &lo, &hi), -1);
	/* b.ne in place of b.hi: the fall does not bound the index */
	memcpy(no_bound, g, sizeof(g));
	no_bound[3] = 0x540000e1;       /* b.ne 0x28 */
	c = CODE(no_bound, TEXT + 0x48);
	CHECK_EQ_INT(arm64_switch_span(&c, 0x24, &lo, &hi), -1);
	/* the index register compared is not the one loaded by */
	memcpy(no_bound, g, sizeof(g));
	no_bound[2] = 0x7100083f;       /* cmp w1, #0x2 */
	c = CODE(no_bound, TEXT + 0x48);
	CHECK_EQ_INT(arm64_switch_span(&c, 0x24, &lo, &hi), -1);
}

TEST(halfword_entries_need_sxth)
{
	uint32_t half[sizeof(f) / 4];
	struct arm64_code c;
	int64_t lo, hi;

	memcpy(half, f, sizeof(f));
	half[7] = 0x78605821;           /* ldrh w1, [x1, w0, uxtw #1] */
	half[9] = 0x8b21a841;           /* add x1, x2, w1, sxth #2 */
	c = CODE(half, TEXT);
	/* 3 entries of 2 bytes: past the 3-byte table, none read */
	CHECK_EQ_INT(arm64_switch_span(&c, 0x28, &lo, &hi), -1);
	half[1] = 0x7100001f;           /* cmp w0, #0: one entry, 0x0200 */
	c = CODE(half, TEXT);
	CHECK_EQ_INT(arm64_switch_span(&c, 0x28, &lo, &hi), 0);
	CHECK_EQ_INT(lo, 0x2c + 4 * 0x200);
	/* a byte load under sxth, an unscaled halfword: not GCC's */
	half[7] = 0x38604821;           /* ldrb */
	c = CODE(half, TEXT);
	CHECK_EQ_INT(arm64_switch_span(&c, 0x28, &lo, &hi), -1);
	half[7] = 0x78604821;           /* ldrh w1, [x1, w0, uxtw] */
	c = CODE(half, TEXT);
	CHECK_EQ_INT(arm64_switch_span(&c, 0x28, &lo, &hi), -1);
}

int main(void)
{
	RUN(the_table_says_where_the_br_goes);
	RUN(a_fall_from_b_hi_bounds_it_too);
	RUN(a_case_before_the_entry_is_refused);
	RUN(a_case_into_a_dispatch_is_refused);
	RUN(unbounded_ways_in_are_refused);
	RUN(halfword_entries_need_sxth);
	return TEST_SUMMARY();
}
