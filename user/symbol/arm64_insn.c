// SPDX-License-Identifier: BSD-3-Clause
#include "symbol/arm64_insn.h"

/* A64 encodings: bits set in mask must equal value. */
static const struct {
	uint32_t mask, value;
} simulated[] = {
	{ 0xffffffff, 0xd503201f },     /* nop */
	{ 0x7c000000, 0x14000000 },     /* b, bl */
	{ 0xff000010, 0x54000000 },     /* b.cond */
	{ 0x7e000000, 0x34000000 },     /* cbz, cbnz */
	{ 0x7e000000, 0x36000000 },     /* tbz, tbnz */
	{ 0x1f000000, 0x10000000 },     /* adr, adrp */
	{ 0xfffffc1f, 0xd61f0000 },     /* br */
	{ 0xfffffc1f, 0xd63f0000 },     /* blr */
	{ 0xfffffc1f, 0xd65f0000 },     /* ret */
};

bool arm64_uprobe_simulated(const uint8_t *b, size_t len)
{
	uint32_t insn;
	size_t i;

	if (len < 4)
		return false;
	insn = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
	for (i = 0; i < sizeof(simulated) / sizeof(simulated[0]); i++)
		if ((insn & simulated[i].mask) == simulated[i].value)
			return true;
	return false;
}
