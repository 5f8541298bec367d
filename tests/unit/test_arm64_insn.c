// SPDX-License-Identifier: BSD-3-Clause
/*
 * Which first instructions arm64 uprobes simulate (cheap) and which they
 * single-step; encodings as aarch64-linux-gnu-as assembles them.
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

int main(void)
{
	RUN(branches_adr_and_nop_are_simulated);
	RUN(prologues_are_single_stepped);
	RUN(a_short_read_is_not_simulated);
	return TEST_SUMMARY();
}
