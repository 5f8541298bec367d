// SPDX-License-Identifier: BSD-3-Clause
/*
 * USDT argument strings as compilers write them, read into the specs
 * <bpf/usdt.bpf.h> reads arguments by: each form, sizes and signs, and
 * what is refused (left to libbpf's attach after exec).
 */
#include <errno.h>
#include <stddef.h>
#include <asm/ptrace.h>
#include "testlib.h"
#include "capture/usdt_arg_spec.h"

static void check_arg(const struct usdt_arg *a, unsigned int kind,
		      int reg_off, long long val_off, int size)
{
	CHECK_EQ_INT(a->kind, kind);
	if (kind != USDT_ARG_CONST)
		CHECK_EQ_INT(a->reg_off, reg_off);
	CHECK_EQ_INT((long long)a->val_off, val_off);
	CHECK_EQ_INT(a->is_signed, size < 0);
	CHECK_EQ_INT(a->bitshift, 64 - 8 * (size < 0 ? -size : size));
}

TEST(empty)
{
	struct usdt_spec s;

	CHECK_EQ_INT(usdt_arg_spec_parse("", &s), 0);
	CHECK_EQ_INT(s.nargs, 0);
	CHECK_EQ_INT(usdt_arg_spec_parse("   ", &s), 0);
	CHECK_EQ_INT(s.nargs, 0);
}

#if defined(__x86_64__)
TEST(forms)
{
	struct usdt_spec s;

	CHECK_EQ_INT(usdt_arg_spec_parse(
		"8@%rdi -4@-20(%rbp) 8@$5 2@(%rax) -1@%r8b 4@%esi 8@%r15 -8@$-3",
		&s), 0);
	CHECK_EQ_INT(s.nargs, 8);
	check_arg(&s.args[0], USDT_ARG_REG, offsetof(struct pt_regs, rdi), 0, 8);
	check_arg(&s.args[1], USDT_ARG_REG_DEREF,
		  offsetof(struct pt_regs, rbp), -20, -4);
	check_arg(&s.args[2], USDT_ARG_CONST, 0, 5, 8);
	check_arg(&s.args[3], USDT_ARG_REG_DEREF,
		  offsetof(struct pt_regs, rax), 0, 2);
	check_arg(&s.args[4], USDT_ARG_REG, offsetof(struct pt_regs, r8), 0, -1);
	check_arg(&s.args[5], USDT_ARG_REG, offsetof(struct pt_regs, rsi), 0, 4);
	check_arg(&s.args[6], USDT_ARG_REG, offsetof(struct pt_regs, r15), 0, 8);
	check_arg(&s.args[7], USDT_ARG_CONST, 0, -3, -8);
	CHECK_EQ_INT(s.usdt_cookie, 0);
}

TEST(refused)
{
	struct usdt_spec s;

	/* an index register, a symbol, no size, a size no type has */
	CHECK_EQ_INT(usdt_arg_spec_parse("8@(%rax,%rdx,8)", &s), -EINVAL);
	CHECK_EQ_INT(usdt_arg_spec_parse("8@counter(%rip)", &s), -EINVAL);
	CHECK_EQ_INT(usdt_arg_spec_parse("%rdi", &s), -EINVAL);
	CHECK_EQ_INT(usdt_arg_spec_parse("3@%rdi", &s), -EINVAL);
	CHECK_EQ_INT(usdt_arg_spec_parse("8@%xmm0", &s), -EINVAL);
	CHECK_EQ_INT(usdt_arg_spec_parse("8@%rdi8@%rsi", &s), -EINVAL);
	CHECK_EQ_INT(usdt_arg_spec_parse(
		"8@%rax 8@%rax 8@%rax 8@%rax 8@%rax 8@%rax 8@%rax 8@%rax "
		"8@%rax 8@%rax 8@%rax 8@%rax 8@%rax", &s), -E2BIG);
}
#elif defined(__aarch64__)
TEST(forms)
{
	struct usdt_spec s;

	CHECK_EQ_INT(usdt_arg_spec_parse(
		"8@x0 -4@[sp, 12] 8@5 2@[x1] 8@x30 -8@[x29, -16] 8@sp", &s), 0);
	CHECK_EQ_INT(s.nargs, 7);
	check_arg(&s.args[0], USDT_ARG_REG,
		  offsetof(struct user_pt_regs, regs[0]), 0, 8);
	check_arg(&s.args[1], USDT_ARG_REG_DEREF,
		  offsetof(struct user_pt_regs, sp), 12, -4);
	check_arg(&s.args[2], USDT_ARG_CONST, 0, 5, 8);
	check_arg(&s.args[3], USDT_ARG_REG_DEREF,
		  offsetof(struct user_pt_regs, regs[1]), 0, 2);
	check_arg(&s.args[4], USDT_ARG_REG,
		  offsetof(struct user_pt_regs, regs[30]), 0, 8);
	check_arg(&s.args[5], USDT_ARG_REG_DEREF,
		  offsetof(struct user_pt_regs, regs[29]), -16, -8);
	check_arg(&s.args[6], USDT_ARG_REG,
		  offsetof(struct user_pt_regs, sp), 0, 8);
}

TEST(refused)
{
	struct usdt_spec s;

	CHECK_EQ_INT(usdt_arg_spec_parse("8@x31", &s), -EINVAL);
	CHECK_EQ_INT(usdt_arg_spec_parse("8@v0", &s), -EINVAL);
	CHECK_EQ_INT(usdt_arg_spec_parse("8@[x0, x1]", &s), -EINVAL);
	CHECK_EQ_INT(usdt_arg_spec_parse("x0", &s), -EINVAL);
	CHECK_EQ_INT(usdt_arg_spec_parse("3@x0", &s), -EINVAL);
}
#endif

int main(void)
{
	RUN(empty);
	RUN(forms);
	RUN(refused);
	return TEST_SUMMARY();
}
