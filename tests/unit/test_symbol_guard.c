// SPDX-License-Identifier: BSD-3-Clause
/*
 * Where symbol mode probes a function whose first instruction the kernel
 * would single-step: past a guard that only returns, at the first push
 * (x86-64 machine code, as gcc 12 -O2 writes it), or at the entry when in
 * doubt.
 */
#include <stdint.h>
#include <string.h>
#include "symbol/symbol_guard.h"
#include "testlib.h"

#define SKIP(code) symbol_guard_skip(code, sizeof(code))
/* x86-64 code, decoded the same by a recorder built for any machine */

/* ExecuTorch's Method::execute: if (!initialized()) return 0x10; */
TEST(jump_over_an_early_return)
{
	static const uint8_t code[] = {
		0x80, 0xbf, 0x98, 0x00, 0x00, 0x00, 0x01,  /* cmpb $1,0x98(%rdi) */
		0xb8, 0x10, 0x00, 0x00, 0x00,              /* mov $0x10,%eax */
		0x74, 0x02,                                /* je +2 */
		0xc3,                                      /* ret */
		0x90,                                      /* nop */
		0x41, 0x54,                                /* push %r12 */
		0x55,                                      /* push %rbp */
	};

	CHECK_EQ_INT(SKIP(code), 16);
}

/* test %rdi,%rdi; je .Lout (xor %eax,%eax; ret); push %rbx */
TEST(jump_to_an_early_return)
{
	static const uint8_t code[] = {
		0x48, 0x85, 0xff,        /* test %rdi,%rdi */
		0x74, 0x01,              /* je +1 */
		0x53,                    /* push %rbx */
		0x31, 0xc0,              /* xor %eax,%eax */
		0xc3,                    /* ret */
	};

	CHECK_EQ_INT(SKIP(code), 5);
}

TEST(in_doubt_the_entry)
{
	/* a call before any push: not a guard */
	static const uint8_t call[] = {
		0x48, 0x89, 0xfb, 0xe8, 0, 0, 0, 0, 0x53,
	};
	/* the early path does more than return */
	static const uint8_t work[] = {
		0x85, 0xff, 0x74, 0x06, 0xe8, 0, 0, 0, 0, 0xc3, 0x53,
	};
	/* the stack pointer moves: a uretprobe after it would not find the
	   return address */
	static const uint8_t moves_rsp[] = {
		0x48, 0x89, 0xc4,        /* mov %rax,%rsp */
		0x53,
	};
	static const uint8_t sub_rsp[] = { 0x48, 0x83, 0xec, 0x08, 0x53 };
	/* a backward jump: a loop, not a guard */
	static const uint8_t loop[] = { 0x85, 0xff, 0x74, 0xfc, 0xc3, 0x53 };
	/* cut short */
	static const uint8_t cut[] = { 0x80, 0xbf, 0x98, 0x00 };

	CHECK_EQ_INT(SKIP(call), 0);
	CHECK_EQ_INT(SKIP(work), 0);
	CHECK_EQ_INT(SKIP(moves_rsp), 0);
	CHECK_EQ_INT(SKIP(sub_rsp), 0);
	CHECK_EQ_INT(SKIP(loop), 0);
	CHECK_EQ_INT(SKIP(cut), 0);
}

int main(void)
{
	RUN(jump_over_an_early_return);
	RUN(jump_to_an_early_return);
	RUN(in_doubt_the_entry);
	return TEST_SUMMARY();
}
