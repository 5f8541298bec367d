// SPDX-License-Identifier: BSD-3-Clause
#include <string.h>
#include "symbol/x86_insn.h"

static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

bool symbol_entry_nop5(const uint8_t *b, size_t len)
{
	return len >= sizeof(nop5) && !memcmp(b, nop5, sizeof(nop5));
}

bool symbol_entry_emulated(const uint8_t *b, size_t len)
{
	if (len >= 1 && ((b[0] >= 0x50 && b[0] <= 0x57) || b[0] == 0x90))
		return true;    /* push %rax..%rdi; nop */
	if (len >= 2 && b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57)
		return true;    /* push %r8..%r15 */
	/* optimized into a call; other multi-byte nops are single-stepped */
	return symbol_entry_nop5(b, len);
}
