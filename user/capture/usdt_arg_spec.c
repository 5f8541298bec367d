// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <asm/ptrace.h>
#include "capture/usdt_arg_spec.h"

_Static_assert(sizeof(struct usdt_arg) == 16, "struct __bpf_usdt_arg_spec");
_Static_assert(offsetof(struct usdt_spec, usdt_cookie) == 16 * USDT_MAX_ARGS &&
	       sizeof(struct usdt_spec) == 16 * USDT_MAX_ARGS + 16,
	       "struct __bpf_usdt_spec");

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* A decimal number, signed; NULL when there is none. */
static const char *parse_long(const char *s, long long *v)
{
	char *end;

	s = skip_space(s);
	if (!isdigit((unsigned char)*s) && *s != '-' && *s != '+')
		return NULL;
	errno = 0;
	*v = strtoll(s, &end, 10);
	if (end == s || errno)
		return NULL;
	return end;
}

/* A register name: letters and digits, at most 15. */
static const char *parse_name(const char *s, char name[16])
{
	size_t n = 0;

	s = skip_space(s);
	while (isalnum((unsigned char)s[n]) && n < 15) {
		name[n] = s[n];
		n++;
	}
	name[n] = '\0';
	return n && !isalnum((unsigned char)s[n]) ? s + n : NULL;
}

#if defined(__x86_64__)
/* Every name of a general register, by its 64-, 32-, 16- and 8-bit parts. */
static const struct {
	const char *names[4];
	short off;
} regs[] = {
#define R(field, a, b, c, d) { { a, b, c, d }, offsetof(struct pt_regs, field) }
	R(rax, "rax", "eax", "ax", "al"),
	R(rbx, "rbx", "ebx", "bx", "bl"),
	R(rcx, "rcx", "ecx", "cx", "cl"),
	R(rdx, "rdx", "edx", "dx", "dl"),
	R(rsi, "rsi", "esi", "si", "sil"),
	R(rdi, "rdi", "edi", "di", "dil"),
	R(rbp, "rbp", "ebp", "bp", "bpl"),
	R(rsp, "rsp", "esp", "sp", "spl"),
	R(rip, "rip", "eip", "ip", NULL),
	R(r8, "r8", "r8d", "r8w", "r8b"),
	R(r9, "r9", "r9d", "r9w", "r9b"),
	R(r10, "r10", "r10d", "r10w", "r10b"),
	R(r11, "r11", "r11d", "r11w", "r11b"),
	R(r12, "r12", "r12d", "r12w", "r12b"),
	R(r13, "r13", "r13d", "r13w", "r13b"),
	R(r14, "r14", "r14d", "r14w", "r14b"),
	R(r15, "r15", "r15d", "r15w", "r15b"),
#undef R
};

static int reg_offset(const char *name)
{
	size_t i, j;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (j = 0; j < 4; j++)
			if (regs[i].names[j] && !strcmp(regs[i].names[j], name))
				return regs[i].off;
	return -EINVAL;
}

/* "%reg", "$imm", "off(%reg)", "(%reg)"; no index register. */
static const char *parse_operand(const char *s, struct usdt_arg *a)
{
	long long v = 0;
	char name[16];
	const char *p;
	int off;

	s = skip_space(s);
	if (*s == '$') {
		s = parse_long(s + 1, &v);
		a->kind = USDT_ARG_CONST;
		a->val_off = (uint64_t)v;
		return s;
	}
	if (*s == '%') {
		s = parse_name(s + 1, name);
		off = s ? reg_offset(name) : -EINVAL;
		if (off < 0)
			return NULL;
		a->kind = USDT_ARG_REG;
		a->reg_off = off;
		return s;
	}
	if (*s != '(') {
		s = parse_long(s, &v);
		if (!s || *s != '(')
			return NULL;
	}
	p = skip_space(s + 1);
	if (*p != '%')
		return NULL;
	p = parse_name(p + 1, name);
	off = p ? reg_offset(name) : -EINVAL;
	p = p ? skip_space(p) : NULL;
	if (off < 0 || *p != ')')
		return NULL;
	a->kind = USDT_ARG_REG_DEREF;
	a->reg_off = off;
	a->val_off = (uint64_t)v;
	return p + 1;
}
#elif defined(__aarch64__)
/* x0..x30 and sp, as struct user_pt_regs keeps them. */
static int reg_offset(const char *name)
{
	char *end;
	long n;

	if (!strcmp(name, "sp"))
		return offsetof(struct user_pt_regs, sp);
	if (name[0] != 'x' || !isdigit((unsigned char)name[1]))
		return -EINVAL;
	n = strtol(name + 1, &end, 10);
	if (*end || n > 30)
		return -EINVAL;
	return offsetof(struct user_pt_regs, regs) + n * sizeof(__u64);
}

/* "xN", "sp", "imm", "[xN]", "[xN, off]". */
static const char *parse_operand(const char *s, struct usdt_arg *a)
{
	long long v = 0;
	char name[16];
	int off;

	s = skip_space(s);
	if (isdigit((unsigned char)*s) || *s == '-') {
		a->kind = USDT_ARG_CONST;
		s = parse_long(s, &v);
		a->val_off = (uint64_t)v;
		return s;
	}
	if (*s != '[') {
		s = parse_name(s, name);
		off = s ? reg_offset(name) : -EINVAL;
		if (off < 0)
			return NULL;
		a->kind = USDT_ARG_REG;
		a->reg_off = off;
		return s;
	}
	s = parse_name(s + 1, name);
	off = s ? reg_offset(name) : -EINVAL;
	if (off < 0)
		return NULL;
	s = skip_space(s);
	if (*s == ',') {
		s = parse_long(s + 1, &v);
		if (!s)
			return NULL;
		s = skip_space(s);
	}
	if (*s != ']')
		return NULL;
	a->kind = USDT_ARG_REG_DEREF;
	a->reg_off = off;
	a->val_off = (uint64_t)v;
	return s + 1;
}
#else
#error "usdt_arg_spec.c: x86-64 or arm64"
#endif

int usdt_arg_spec_parse(const char *args, struct usdt_spec *spec)
{
	const char *s = args;
	struct usdt_arg *a;
	long long size;

	memset(spec, 0, sizeof(*spec));
	for (s = skip_space(s); *s; s = skip_space(s)) {
		if (spec->nargs == USDT_MAX_ARGS)
			return -E2BIG;
		a = &spec->args[spec->nargs];
		s = parse_long(s, &size);
		if (!s || *s != '@')
			return -EINVAL;
		if (size != 1 && size != 2 && size != 4 && size != 8 &&
		    size != -1 && size != -2 && size != -4 && size != -8)
			return -EINVAL;
		a->is_signed = size < 0;
		a->bitshift = 64 - 8 * (size < 0 ? -size : size);
		s = parse_operand(s + 1, a);
		/* one argument ends at a blank or the string's end */
		if (!s || (*s && !isspace((unsigned char)*s)))
			return -EINVAL;
		spec->nargs++;
	}
	return 0;
}
