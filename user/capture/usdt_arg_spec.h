/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * usdt_arg_spec.h - a USDT probe site's argument string (its .note.stapsdt
 * "8@%rdi -4@-20(%rbp) ..." on x86-64, "8@x0 -4@[sp, 12]" on arm64) as
 * the spec <bpf/usdt.bpf.h> reads the arguments by: the same layout as
 * its struct __bpf_usdt_spec, for the sites armed_binaries.h attaches to
 * without libbpf's USDT attach (which fills that map for its own).
 */
#ifndef ETDUMP_USDT_ARG_SPEC_H
#define ETDUMP_USDT_ARG_SPEC_H

#include <stdbool.h>
#include <stdint.h>

/* <bpf/usdt.bpf.h>'s enum __bpf_usdt_arg_type */
enum usdt_arg_kind {
	USDT_ARG_CONST,
	USDT_ARG_REG,
	USDT_ARG_REG_DEREF,
};

#define USDT_MAX_ARGS 12         /* BPF_USDT_MAX_ARG_CNT */

struct usdt_arg {
	uint64_t val_off;        /* the constant, or the offset dereferenced */
	uint32_t kind;           /* enum usdt_arg_kind, an enum's size */
	int16_t reg_off;         /* the register's offset in struct pt_regs */
	bool is_signed;
	int8_t bitshift;         /* 64 - the argument's size in bits */
};

struct usdt_spec {
	struct usdt_arg args[USDT_MAX_ARGS];
	uint64_t usdt_cookie;
	int16_t nargs;
};

/*
 * Parse the argument string of this build's architecture into *spec.
 * -EINVAL for a form or register we do not read (the site is then left to
 * libbpf's attach after exec), -E2BIG for more than USDT_MAX_ARGS.
 */
int usdt_arg_spec_parse(const char *args, struct usdt_spec *spec);

#endif /* ETDUMP_USDT_ARG_SPEC_H */
