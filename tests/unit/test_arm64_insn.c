// SPDX-License-Identifier: BSD-3-Clause
/*
 * Which first instructions arm64 uprobes simulate (cheap) and which they
 * single-step, where an instruction sends control, and which leave the
 * argument registers alone; encodings as aarch64-linux-gnu-as assembles
 * them (-march=armv8.5-a for the pointer-authentication ones).
 */
#include "symbol/arm64_insn.h"
#include "testlib.h"

static bool simulated(uint32_t insn)
{
	const uint8_t b[4] = { insn, insn >> 8, insn >> 16, insn >> 24 };

	return arm64_uprobe_simulated(b, sizeof(b));
}

TEST(branches_adr_and_nop_are_simulated)
{
	CHECK(simulated(0xd503201f));   /* nop */
	CHECK(simulated(0x14000002));   /* b */
	CHECK(simulated(0x94000002));   /* bl */
	CHECK(simulated(0x54000041));   /* b.ne */
	CHECK(simulated(0xb4000040));   /* cbz x0 */
	CHECK(simulated(0x35000041));   /* cbnz w1 */
	CHECK(simulated(0x36180042));   /* tbz w2, #3 */
	CHECK(simulated(0x37080043));   /* tbnz w3, #1 */
	CHECK(simulated(0x10000040));   /* adr x0 */
	CHECK(simulated(0x90000001));   /* adrp x1 */
	CHECK(simulated(0xd61f0200));   /* br x16 */
	CHECK(simulated(0xd63f0100));   /* blr x8 */
	CHECK(simulated(0xd65f03c0));   /* ret */
	CHECK(simulated(0xd65f0060));   /* ret x3 */
}

TEST(prologues_are_single_stepped)
{
	CHECK(!simulated(0xa9be7bfd));  /* stp x29, x30, [sp, #-32]! */
	CHECK(!simulated(0xd10103ff));  /* sub sp, sp, #0x40 */
	CHECK(!simulated(0xd503233f));  /* paciasp */
	CHECK(!simulated(0xd503245f));  /* bti c */
	CHECK(!simulated(0x910003fd));  /* mov x29, sp */
	CHECK(!simulated(0xf9000bf3));  /* str x19, [sp, #16] */
	CHECK(!simulated(0x58000040));  /* ldr x0, literal */
}

TEST(a_short_read_is_not_simulated)
{
	const uint8_t nop[] = { 0x1f, 0x20, 0x03, 0xd5 };

	CHECK(arm64_uprobe_simulated(nop, 4));
	CHECK(!arm64_uprobe_simulated(nop, 3));
	CHECK(!arm64_uprobe_simulated(nop, 0));
}

static enum arm64_flow flow(uint32_t insn, int64_t *target)
{
	return arm64_insn_flow(insn, target);
}

TEST(where_control_goes)
{
	int64_t t;

	CHECK_EQ_INT(flow(0xa9bf7bfd, &t), ARM64_FLOW_NEXT);   /* stp */
	CHECK_EQ_INT(flow(0xd503233f, &t), ARM64_FLOW_NEXT);   /* paciasp */
	CHECK_EQ_INT(flow(0x9400043a, &t), ARM64_FLOW_CALL);   /* bl +0x10e8 */
	CHECK_EQ_INT(t, 0x10e8);
	CHECK_EQ_INT(flow(0x97fffffe, &t), ARM64_FLOW_CALL);   /* bl -8 */
	CHECK_EQ_INT(t, -8);
	CHECK_EQ_INT(flow(0x1400042a, &t), ARM64_FLOW_BRANCH); /* b +0x10a8 */
	CHECK_EQ_INT(t, 0x10a8);
	CHECK_EQ_INT(flow(0x35ffffc0, &t), ARM64_FLOW_BRANCH); /* cbnz -8 */
	CHECK_EQ_INT(t, -8);
	CHECK_EQ_INT(flow(0x54000041, &t), ARM64_FLOW_BRANCH); /* b.ne +8 */
	CHECK_EQ_INT(t, 8);
	CHECK_EQ_INT(flow(0x36180042, &t), ARM64_FLOW_BRANCH); /* tbz +8 */
	CHECK_EQ_INT(t, 8);
	CHECK_EQ_INT(flow(0xd63f0100, &t), ARM64_FLOW_CALL);   /* blr x8 */
	CHECK_EQ_INT(flow(0xd63f081f, &t), ARM64_FLOW_CALL);   /* blraaz x0 */
	CHECK_EQ_INT(flow(0xd65f03c0, &t), ARM64_FLOW_RET);    /* ret */
	CHECK_EQ_INT(flow(0xd65f0060, &t), ARM64_FLOW_RET);    /* ret x3 */
	CHECK_EQ_INT(flow(0xd65f0bff, &t), ARM64_FLOW_UNKNOWN); /* retaa */
	CHECK_EQ_INT(flow(0xd61f0020, &t), ARM64_FLOW_UNKNOWN); /* br x1 */
	CHECK_EQ_INT(flow(0x00000000, &t), ARM64_FLOW_UNKNOWN); /* udf */
}

TEST(argument_registers_kept)
{
	CHECK(arm64_insn_keeps_regs(0xa9bf7bfd, 0x3));   /* stp x29, x30, [sp..]! */
	CHECK(arm64_insn_keeps_regs(0x910003fd, 0x3));   /* mov x29, sp */
	CHECK(arm64_insn_keeps_regs(0xaa0003e3, 0x3));   /* mov x3, x0 */
	CHECK(arm64_insn_keeps_regs(0xd503233f, 0x3));   /* paciasp */
	CHECK(!arm64_insn_keeps_regs(0xf9400400, 0x3));  /* ldr x0, [x0, #8] */
	CHECK(!arm64_insn_keeps_regs(0xa8c107e3, 0x3));  /* ldp x3, x1, [sp], #16 */
	CHECK(!arm64_insn_keeps_regs(0xf8408c03, 0x3));  /* ldr x3, [x0, #8]! */
	CHECK(!arm64_insn_keeps_regs(0xd4000001, 0x3));  /* svc #0 */
	CHECK(arm64_insn_keeps_regs(0xf9400400, 0));   /* none read */
	/* x8 alone: where a result in memory is, at the entry */
	CHECK(arm64_insn_keeps_regs(0xaa0003e3, 1u << 8));   /* mov x3, x0 */
	CHECK(!arm64_insn_keeps_regs(0xaa0403e8, 1u << 8));  /* mov x8, x4 */
	CHECK(!arm64_insn_keeps_regs(0x910c83e8, 1u << 8));  /* add x8, sp, #0x320 */
	CHECK(!arm64_insn_keeps_regs(0xa9412508, 1u << 8));  /* ldp x8, x9, [x8, #16] */
}

int main(void)
{
	RUN(branches_adr_and_nop_are_simulated);
	RUN(prologues_are_single_stepped);
	RUN(a_short_read_is_not_simulated);
	RUN(where_control_goes);
	RUN(argument_registers_kept);
	return TEST_SUMMARY();
}
