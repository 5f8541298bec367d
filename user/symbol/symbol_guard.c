// SPDX-License-Identifier: BSD-3-Clause
#include <stdbool.h>
#include "symbol/symbol_guard.h"
#include "symbol/x86_insn.h"

#define RSP 4
#define MAX_STEPS 16

enum insn_kind { I_OTHER, I_PLAIN, I_JCC, I_RET, I_NOP };

struct insn {
	enum insn_kind kind;
	size_t len;
	long rel;               /* I_JCC: from the next instruction */
};

/*
 * The length of a ModRM byte and what follows it (SIB, displacement);
 * 0 when it runs past len. *reg: the reg field; *rm: the register r/m
 * names, -1 for memory.
 */
static size_t modrm_len(const uint8_t *b, size_t len, int rex, int *reg,
			int *rm)
{
	unsigned int mod, low;
	size_t n = 1;

	if (!len)
		return 0;
	mod = b[0] >> 6;
	low = b[0] & 7;
	*reg = ((b[0] >> 3) & 7) | (rex & 4 ? 8 : 0);
	*rm = mod == 3 ? (int)(low | (rex & 1 ? 8 : 0)) : -1;
	if (mod == 3)
		return 1;
	if (low == 4) {
		if (len < 2)
			return 0;
		n++;
		if (mod == 0 && (b[1] & 7) == 5)
			n += 4;
	} else if (mod == 0 && low == 5) {
		n += 4;         /* %rip-relative */
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n <= len ? n : 0;
}

/* One instruction of the short list (symbol_guard.h), else I_OTHER. */
static struct insn decode(const uint8_t *b, size_t len)
{
	struct insn in = { I_OTHER, 0, 0 };
	int rex = 0, reg, rm, imm = 0;
	bool opsize = false, writes_reg = false, writes_rm = false;
	size_t p = 0, m;
	uint8_t op;

	/* operand size; cs, which pads nops */
	while (p < len && (b[p] == 0x66 || b[p] == 0x2e))
		opsize |= b[p++] == 0x66;
	if (p < len && (b[p] & 0xf0) == 0x40)
		rex = b[p++];
	if (p >= len)
		return in;
	op = b[p++];
	if (op == 0x90 || op == 0xc3) {
		in.kind = op == 0x90 ? I_NOP : I_RET;
		in.len = p;
		return in;
	}
	if (op >= 0x70 && op <= 0x7f) {
		if (p >= len)
			return in;
		in.kind = I_JCC;
		in.rel = (int8_t)b[p];
		in.len = p + 1;
		return in;
	}
	if (op >= 0xb8 && op <= 0xbf) {        /* mov $imm, %reg */
		reg = (op & 7) | (rex & 1 ? 8 : 0);
		imm = rex & 8 ? 8 : opsize ? 2 : 4;
		if (reg == RSP || p + imm > len)
			return in;
		in.kind = I_PLAIN;
		in.len = p + imm;
		return in;
	}
	if (op == 0x0f) {
		if (p >= len)
			return in;
		op = b[p++];
		if (op >= 0x80 && op <= 0x8f) {        /* jcc rel32 */
			if (p + 4 > len)
				return in;
			in.kind = I_JCC;
			in.rel = (int32_t)((uint32_t)b[p] | (uint32_t)b[p + 1] << 8 |
					   (uint32_t)b[p + 2] << 16 |
					   (uint32_t)b[p + 3] << 24);
			in.len = p + 4;
			return in;
		}
		m = modrm_len(b + p, len - p, rex, &reg, &rm);
		if (!m)
			return in;
		if (op == 0x1f && (reg & 7) == 0) {
			in.kind = I_NOP;
		} else if (op == 0xb6 || op == 0xb7 || op == 0xbe ||
			   op == 0xbf) {        /* movzx, movsx */
			if (reg == RSP)
				return in;
			in.kind = I_PLAIN;
		} else {
			return in;
		}
		in.len = p + m;
		return in;
	}
	switch (op) {
	case 0x38: case 0x39: case 0x3a: case 0x3b:    /* cmp */
	case 0x84: case 0x85:                          /* test */
		break;
	case 0x3c:
		imm = 1;
		break;
	case 0x3d:
		imm = opsize ? 2 : 4;
		break;
	case 0x80: case 0x83:                          /* cmp $imm8 */
		imm = 1;
		break;
	case 0x81:                                     /* cmp $imm32 */
		imm = opsize ? 2 : 4;
		break;
	case 0x88: case 0x89: case 0x31:               /* mov, xor to r/m */
		writes_rm = true;
		break;
	case 0x8a: case 0x8b: case 0x33: case 0x8d:    /* to reg; lea */
		writes_reg = true;
		break;
	case 0xc6:                                     /* mov $imm8 */
		writes_rm = true;
		imm = 1;
		break;
	case 0xc7:                                     /* mov $imm32 */
		writes_rm = true;
		imm = 4;
		break;
	default:
		return in;
	}
	if (op == 0x3c || op == 0x3d) {
		if (p + imm > len)
			return in;
		in.kind = I_PLAIN;
		in.len = p + imm;
		return in;
	}
	m = modrm_len(b + p, len - p, rex, &reg, &rm);
	if (!m || p + m + imm > len)
		return in;
	/* group 1 is cmp only (/7); mov $imm is /0 */
	if ((op == 0x80 || op == 0x81 || op == 0x83) && (reg & 7) != 7)
		return in;
	if ((op == 0xc6 || op == 0xc7) && (reg & 7) != 0)
		return in;
	if ((writes_reg && reg == RSP) || (writes_rm && rm == RSP))
		return in;
	in.kind = I_PLAIN;
	in.len = p + m + imm;
	return in;
}

/*
 * Does the code from `at` only set values and return? With `to`, only
 * nops may follow the return, up to `to`.
 */
static bool just_returns(const uint8_t *code, size_t len, size_t at,
			 size_t to)
{
	struct insn in;
	bool returned = false;
	int steps;

	for (steps = 0; at < len && steps < MAX_STEPS; steps++) {
		if (returned && at == to)
			return true;
		in = decode(code + at, len - at);
		if (returned ? in.kind != I_NOP :
			       in.kind != I_PLAIN && in.kind != I_RET)
			return false;
		returned |= in.kind == I_RET;
		at += in.len;
		if (returned && !to)
			return true;
	}
	return returned && at == to;
}

size_t symbol_guard_skip(const uint8_t *code, size_t len)
{
	size_t at = 0, next, target;
	struct insn in;
	int steps;

	for (steps = 0; at < len && steps < MAX_STEPS; steps++) {
		if (at && symbol_entry_emulated(code + at, len - at))
			return at;
		in = decode(code + at, len - at);
		if (in.kind == I_PLAIN) {
			at += in.len;
			continue;
		}
		if (in.kind != I_JCC || in.rel <= 0)
			return 0;
		next = at + in.len;
		target = next + in.rel;
		if (target >= len)
			return 0;
		if (just_returns(code, len, next, target))
			at = target;    /* jumps over the early return */
		else if (just_returns(code, len, target, 0))
			at = next;      /* jumps to the early return */
		else
			return 0;
	}
	return 0;
}
