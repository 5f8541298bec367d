// SPDX-License-Identifier: BSD-3-Clause
/*
 * A kernel whose symbol spells its operator otherwise than its registration
 * (softmax_out for aten::_softmax.out) gets the registered name; anything
 * not certain keeps the name the rule made.
 */
#include <stdio.h>
#include <string.h>
#include "symbol/kernel_registry.h"
#include "testlib.h"
#include "schema/etdump_record.h"

/* the first name packed after a double (1.0), no NUL between */
static const char rodata[] = "\0\0\0\0\0\0\xf0?aten::_softmax.out\0"
			     "aten::add.out\0"
			     "not a name\0std::x\0aten::relu.out\0"
			     "aten::_two.out\0aten::__two.out";

static void named(const char *in, const char *want)
{
	struct kernel_registry r = { 0 };
	char event[ETDUMP_NAME_MAX];

	CHECK_EQ_INT(kernel_registry_scan(&r, rodata, sizeof(rodata)), 0);
	CHECK_EQ_INT(r.n, 5);
	snprintf(event, sizeof(event), "%s", in);
	kernel_registry_name(&r, event, sizeof(event));
	CHECK_EQ_STR(event, want);
	kernel_registry_free(&r);
}

TEST(registered_name_wins)
{
	named("native_call_softmax.out", "native_call__softmax.out");
}

TEST(a_name_registered_as_it_is_stays)
{
	named("native_call_add.out", "native_call_add.out");
	named("native_call_relu.out", "native_call_relu.out");
}

TEST(unknown_or_ambiguous_stays)
{
	named("native_call_mul.out", "native_call_mul.out");
	/* _two.out and __two.out: which one is not known */
	named("native_call_two.out", "native_call_two.out");
	named("Method::execute", "Method::execute");
}

int main(void)
{
	RUN(registered_name_wins);
	RUN(a_name_registered_as_it_is_stays);
	RUN(unknown_or_ambiguous_stays);
	return TEST_SUMMARY();
}
