// SPDX-License-Identifier: BSD-3-Clause
/*
 * test_arm64_exits.c - where an aarch64 function is probed without
 * single-stepping (user/symbol/arm64_exits.h): hand-written functions,
 * the words as aarch64-linux-gnu-as assembles them (-march=armv8.5-a for
 * retaa and bti), each bl to a function 0x1000 bytes on.
 */
#include <stdlib.h>
#include "symbol/arm64_exits.h"
#include "testlib.h"

#define MAX_RETS 4

static uint64_t rets[MAX_RETS];

/* The function of n words, its exits found into rets: 0, or -1. */
static int find(const uint32_t *words, size_t n, uint32_t regs,
		struct arm64_exits *x)
{
	uint8_t code[64];
	size_t i;

	for (i = 0; i < n && i * 4 + 4 <= sizeof(code); i++) {
		code[4 * i] = words[i];
		code[4 * i + 1] = words[i] >> 8;
		code[4 * i + 2] = words[i] >> 16;
		code[4 * i + 3] = words[i] >> 24;
	}
	struct arm64_code c = { .bytes = code, .size = 4 * n };

	*x = (struct arm64_exits){ .rets = rets, .max = MAX_RETS };
	return arm64_exits_find(&c, regs, x);
}

#define FIND(words, regs, x) find(words, sizeof(words) / 4, regs, x)

TEST(entry_on_the_call_exit_on_the_ret)
{
	static const uint32_t f[] = {
		0xa9bf7bfd,     /* stp x29, x30, [sp, #-16]! */
		0x910003fd,     /* mov x29, sp */
		0x9400043a,     /* bl far */
		0xa8c17bfd,     /* ldp x29, x30, [sp], #16 */
		0xd65f03c0,     /* ret */
	};
	struct arm64_exits x;

	CHECK_EQ_INT(FIND(f, 0, &x), 0);
	CHECK_EQ_INT(x.entry, 8);
	CHECK_EQ_INT(x.nrets, 1);
	CHECK_EQ_INT(rets[0], 16);
}

TEST(a_guard_before_the_call_two_rets)
{
	static const uint32_t f[] = {
		0xa9be7bfd,     /* stp x29, x30, [sp, #-32]! */
		0x910003fd,     /* mov x29, sp */
		0xb4000080,     /* cbz x0, 1f */
		0x94000434,     /* bl far */
		0xa8c27bfd,     /* ldp x29, x30, [sp], #32 */
		0xd65f03c0,     /* ret */
		0x52800240,     /* 1: mov w0, #18 */
		0xa8c27bfd,     /* ldp x29, x30, [sp], #32 */
		0xd65f03c0,     /* ret */
	};
	struct arm64_exits x;

	/* the guard's branch is the entry: a call that returns there too */
	CHECK_EQ_INT(FIND(f, 0, &x), 0);
	CHECK_EQ_INT(x.entry, 8);
	CHECK_EQ_INT(x.nrets, 2);
	CHECK_EQ_INT(rets[0], 20);
	CHECK_EQ_INT(rets[1], 32);
}

TEST(a_tail_call_keeps_the_uretprobe)
{
	static const uint32_t f[] = {
		0xa9bf7bfd,     /* stp x29, x30, [sp, #-16]! */
		0x910003fd,     /* mov x29, sp */
		0x9400042c,     /* bl far */
		0xa8c17bfd,     /* ldp x29, x30, [sp], #16 */
		0x1400042a,     /* b far */
	};
	struct arm64_exits x;

	CHECK_EQ_INT(FIND(f, 0, &x), -1);
	CHECK_EQ_STR(x.why, "leaves by a branch (a tail call)");
	CHECK_EQ_INT(x.where, 16);
}

TEST(a_branch_back_before_the_entry_is_refused)
{
	static const uint32_t loop_back[] = {
		0xa9be7bfd,     /* stp x29, x30, [sp, #-32]! */
		0x910003fd,     /* mov x29, sp */
		0xf9000bf3,     /* 2: str x19, [sp, #16] */
		0x94000426,     /* bl far */
		0x35ffffc0,     /* cbnz w0, 2b */
		0xa8c27bfd,     /* ldp x29, x30, [sp], #32 */
		0xd65f03c0,     /* ret */
	};
	static const uint32_t to_entry[] = {
		0xa9bf7bfd,     /* stp x29, x30, [sp, #-16]! */
		0x94000404,     /* 5: bl far */
		0x35ffffe0,     /* cbnz w0, 5b */
		0xa8c17bfd,     /* ldp x29, x30, [sp], #16 */
		0xd65f03c0,     /* ret */
	};
	struct arm64_exits x;

	/* a call would pass the entry more than once */
	CHECK_EQ_INT(FIND(loop_back, 0, &x), -1);
	CHECK_EQ_STR(x.why, "branches back to its entry");
	CHECK_EQ_INT(x.where, 16);
	CHECK_EQ_INT(FIND(to_entry, 0, &x), -1);
	CHECK_EQ_STR(x.why, "branches back to its entry");
}

TEST(br_and_retaa_leave_another_way)
{
	static const uint32_t jump[] = {
		0xd10043ff,     /* sub sp, sp, #0x10 */
		0x10000061,     /* adr x1, 3f */
		0x8b208821,     /* add x1, x1, w0, sxtb #2 */
		0xd61f0020,     /* br x1 */
		0x910043ff,     /* 3: add sp, sp, #0x10 */
		0xd65f03c0,     /* ret */
	};
	static const uint32_t pac[] = {
		0xd503233f,     /* paciasp */
		0xa9bf7bfd,     /* stp x29, x30, [sp, #-16]! */
		0x9400041a,     /* bl far */
		0xa8c17bfd,     /* ldp x29, x30, [sp], #16 */
		0xd65f0bff,     /* retaa: uprobes refuse it */
	};
	struct arm64_exits x;

	CHECK_EQ_INT(FIND(jump, 0, &x), -1);
	CHECK_EQ_INT(x.where, 12);
	CHECK_EQ_INT(FIND(pac, 0, &x), -1);
	CHECK_EQ_INT(x.where, 16);
}

TEST(arguments_the_entry_reads_are_kept)
{
	static const uint32_t alloc[] = {
		0xaa0003e3,     /* mov x3, x0 */
		0xf9400400,     /* ldr x0, [x0, #8] */
		0xb4000040,     /* cbz x0, 4f */
		0xf9400060,     /* ldr x0, [x3] */
		0xd65f03c0,     /* 4: ret */
	};
	struct arm64_exits x;

	/* allocate(this, size): x0 is gone by the cbz */
	CHECK_EQ_INT(FIND(alloc, 0x3, &x), -1);
	CHECK_EQ_STR(x.why, "may change an argument the entry reads");
	CHECK_EQ_INT(x.where, 4);
	/* a site that reads none of them */
	CHECK_EQ_INT(FIND(alloc, 0, &x), 0);
	CHECK_EQ_INT(x.entry, 8);
	CHECK_EQ_INT(x.nrets, 1);
}

TEST(nothing_simulated_before_the_ret)
{
	static const uint32_t leaf[] = {
		0xd10043ff,     /* sub sp, sp, #0x10 */
		0x910043ff,     /* add sp, sp, #0x10 */
		0xd65f03c0,     /* ret */
	};
	static const uint32_t no_ret[] = {
		0xa9bf7bfd,     /* stp x29, x30, [sp, #-16]! */
		0x910003fd,     /* mov x29, sp */
	};
	struct arm64_exits x;

	CHECK_EQ_INT(FIND(leaf, 0, &x), -1);
	CHECK_EQ_STR(x.why, "returns before any other simulated instruction");
	CHECK_EQ_INT(FIND(no_ret, 0, &x), -1);
}

TEST(data_in_the_function_is_refused)
{
	static const uint32_t data[] = {
		0xa9bf7bfd,     /* stp x29, x30, [sp, #-16]! */
		0x9400040e,     /* bl far */
		0xa8c17bfd,     /* ldp x29, x30, [sp], #16 */
		0xd65f03c0,     /* ret */
		0x00000000,     /* .word 0 (udf) */
	};
	struct arm64_exits x;

	CHECK_EQ_INT(FIND(data, 0, &x), -1);
	CHECK_EQ_INT(x.where, 16);
}

TEST(bti_then_a_call_of_itself)
{
	static const uint32_t f[] = {
		0xd503245f,     /* bti c: single-stepped */
		0xa9bf7bfd,     /* stp x29, x30, [sp, #-16]! */
		0x97fffffe,     /* bl itself: another call, not a loop */
		0xa8c17bfd,     /* ldp x29, x30, [sp], #16 */
		0xd65f03c0,     /* ret */
	};
	struct arm64_exits x;

	CHECK_EQ_INT(FIND(f, 0, &x), 0);
	CHECK_EQ_INT(x.entry, 8);
	CHECK_EQ_INT(rets[0], 16);
}

TEST(more_rets_than_room)
{
	static const uint32_t f[] = {
		0xb4000040,     /* cbz x0, +8 */
		0xd65f03c0, 0xd65f03c0, 0xd65f03c0, 0xd65f03c0, 0xd65f03c0,
	};
	struct arm64_exits x;

	CHECK_EQ_INT(FIND(f, 0, &x), -1);
	CHECK_EQ_STR(x.why, "has more ret instructions than probed");
	CHECK_EQ_INT(find(f, 5, 0, &x), 0);
	CHECK_EQ_INT(x.nrets, 4);
}

int main(void)
{
	RUN(entry_on_the_call_exit_on_the_ret);
	RUN(a_guard_before_the_call_two_rets);
	RUN(a_tail_call_keeps_the_uretprobe);
	RUN(a_branch_back_before_the_entry_is_refused);
	RUN(br_and_retaa_leave_another_way);
	RUN(arguments_the_entry_reads_are_kept);
	RUN(nothing_simulated_before_the_ret);
	RUN(data_in_the_function_is_refused);
	RUN(bti_then_a_call_of_itself);
	RUN(more_rets_than_room);
	return TEST_SUMMARY();
}
