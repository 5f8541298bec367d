// SPDX-License-Identifier: BSD-3-Clause
/*
 * test_entry_expand.c - an entry as symbol mode's probe sends it (the
 * site's id) made the FUNC_ENTRY it stands for (user/symbol/entry_expand.h).
 */
#include <stdbool.h>
#include <string.h>
#include "symbol/entry_expand.h"
#include "testlib.h"

static void two_sites(struct symbol_sites *s, struct symbol_site *site)
{
	memset(site, 0, 2 * sizeof(*site));
	memset(s, 0, sizeof(*s));
	site[1].desc.id = 1;
	site[1].desc.kind = ETDUMP_FUNC_KERNEL;
	strcpy(site[1].desc.name, "native_call_relu.out");
	site[1].desc.name_len = strlen(site[1].desc.name);
	s->sites = site;
	s->n = 2;
}

/* The probe's record of a call through site `id`. */
static struct etdump_rec_func_call call_of(uint32_t id)
{
	struct etdump_rec_func_call c = { 0 };

	c.hdr.type = ETDUMP_REC_FUNC_CALL;
	c.hdr.size = sizeof(c);
	c.id = id;
	return c;
}

TEST(call_becomes_the_entry_it_stands_for)
{
	struct etdump_rec_func_call c = call_of(1);
	struct etdump_rec_func_entry e;
	struct symbol_site site[2];
	struct symbol_sites s;

	two_sites(&s, site);
	c.hdr.tid = 42;
	c.hdr.ts = 1234;
	CHECK(entry_expand(&s, &c, sizeof(c), &e));
	CHECK_EQ_INT(e.hdr.type, ETDUMP_REC_FUNC_ENTRY);
	CHECK_EQ_INT(e.hdr.size, sizeof(e));
	CHECK_EQ_INT(e.hdr.tid, 42);
	CHECK_EQ_INT(e.hdr.ts, 1234);
	CHECK_EQ_INT(e.site.id, 1);
	CHECK_EQ_INT(e.site.kind, ETDUMP_FUNC_KERNEL);
	CHECK_EQ_STR(e.site.name, "native_call_relu.out");
}

TEST(anything_else_left_as_it_is)
{
	struct etdump_rec_func_call c = call_of(2);     /* no such site */
	struct etdump_rec_func_entry e;
	struct symbol_site site[2];
	struct symbol_sites s;

	two_sites(&s, site);
	CHECK(!entry_expand(&s, &c, sizeof(c), &e));
	c.id = 0;
	CHECK(!entry_expand(&s, &c, sizeof(c) - 1, &e));
	c.hdr.size = sizeof(c) + 8;     /* longer than what came */
	CHECK(!entry_expand(&s, &c, sizeof(c), &e));
	c.hdr.size = sizeof(c);
	c.hdr.type = ETDUMP_REC_FUNC_EXIT;
	CHECK(!entry_expand(&s, &c, sizeof(c), &e));
}

/* Operator types 0-3, type 2 named by sub-type, microkernel types 0-1. */
static char type_names[4][XNN_NAME_MAX] = { "Copy (NC, X32)", "Add (ND)", "",
					    "Clamp (NC)" };
static char sub_names[3][XNN_NAME_MAX] = { "", "Fully Connected (NC, F32)",
					   "Fully Connected (NC, QD8)" };
static char ukernel_names[2][XNN_NAME_MAX] = { "", "GEMM" };

static bool xnn_entry(struct symbol_sites *s, uint32_t type, uint32_t sub,
		      uint32_t ukernel, struct etdump_rec_func_entry *e)
{
	struct etdump_rec_xnn_call c = { 0 };

	c.hdr.type = ETDUMP_REC_XNN_CALL;
	c.hdr.size = sizeof(c);
	c.id = 1;
	c.part = 3 << 3 | 1;
	c.type = type;
	c.sub = sub;
	c.ukernel = ukernel;
	return entry_expand(s, &c, sizeof(c), e);
}

TEST(xnnpack_operator_named_as_the_binary_names_it)
{
	struct etdump_rec_func_entry e;
	struct symbol_site site[2];
	struct symbol_sites s;
	struct xnn_object x = { 0 };

	two_sites(&s, site);
	site[1].desc.kind = ETDUMP_FUNC_XNN_OP;
	site[1].xnn = &x;
	x.ops.type_names = type_names;
	x.ops.ntypes = 4;
	x.ops.sub[0] = (struct xnn_subswitch){ 2, sub_names, 3 };
	x.ops.copy_first = x.ops.copy_last = 0;
	x.ops.ukernel_names = ukernel_names;
	x.ops.nukernels = 2;
	CHECK(xnn_entry(&s, 2, 0, 1, &e));
	CHECK_EQ_INT(e.hdr.type, ETDUMP_REC_FUNC_ENTRY);
	CHECK_EQ_INT(e.site.part, 3 << 3 | 1);
	CHECK_EQ_STR(e.site.name, "Fully Connected (NC, F32)");
	CHECK_EQ_STR(e.site.arg, "GEMM");
	CHECK_EQ_INT(e.site.arg_len, 4);
	CHECK(xnn_entry(&s, 3, 7, 0, &e));
	CHECK_EQ_STR(e.site.name, "Clamp (NC)");
	CHECK_EQ_INT(e.site.arg_len, 0);
	/* a copy type, a type past the table, a microkernel type unnamed:
	   no name rather than a wrong one */
	CHECK(xnn_entry(&s, 0, 0, 0, &e));
	CHECK_EQ_INT(e.site.name_len, 0);
	CHECK(xnn_entry(&s, 9, 0, 0, &e));
	CHECK_EQ_INT(e.site.name_len, 0);
	CHECK(xnn_entry(&s, 1, 0, 5, &e));
	CHECK_EQ_INT(e.site.name_len, 0);
	CHECK(xnn_entry(&s, 1, 0, 64, &e));
	CHECK_EQ_INT(e.site.name_len, 0);
}

/* Two objects with XNNPACK (a library loaded later): each its own names. */
static char other_types[2][XNN_NAME_MAX] = { "", "Add (ND) of the other" };

TEST(xnnpack_operators_named_by_their_own_objects_tables)
{
	struct etdump_rec_func_entry e;
	struct symbol_site site[3];
	struct symbol_sites s;
	struct xnn_object one = { 0 }, two = { 0 };

	memset(site, 0, sizeof(site));
	two_sites(&s, site);
	site[2].desc.id = 2;
	s.n = 3;
	site[1].desc.kind = site[2].desc.kind = ETDUMP_FUNC_XNN_OP;
	site[1].xnn = &one;
	site[2].xnn = &two;
	one.ops.type_names = type_names;
	one.ops.ntypes = 4;
	two.ops.type_names = other_types;
	two.ops.ntypes = 2;
	CHECK(xnn_entry(&s, 1, 0, 0, &e));
	CHECK_EQ_STR(e.site.name, "Add (ND)");
	{
		struct etdump_rec_xnn_call c = { 0 };

		c.hdr.type = ETDUMP_REC_XNN_CALL;
		c.hdr.size = sizeof(c);
		c.id = 2;
		c.type = 1;
		CHECK(entry_expand(&s, &c, sizeof(c), &e));
		CHECK_EQ_STR(e.site.name, "Add (ND) of the other");
		/* an operator site with no XNNPACK read: no name */
		site[2].xnn = NULL;
		CHECK(entry_expand(&s, &c, sizeof(c), &e));
		CHECK_EQ_INT(e.site.name_len, 0);
	}
}

int main(void)
{
	RUN(call_becomes_the_entry_it_stands_for);
	RUN(anything_else_left_as_it_is);
	RUN(xnnpack_operator_named_as_the_binary_names_it);
	RUN(xnnpack_operators_named_by_their_own_objects_tables);
	return TEST_SUMMARY();
}
