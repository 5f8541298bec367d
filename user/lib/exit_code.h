/* SPDX-License-Identifier: BSD-3-Clause */
/* exit_code.h - what etdump-bpf's exit status says, for every command. */
#ifndef ETDUMP_EXIT_CODE_H
#define ETDUMP_EXIT_CODE_H

enum exit_code {
	EXIT_OK = 0,
	EXIT_FAIL = 1,   /* nothing (valid) written */
	EXIT_USAGE = 2,
	EXIT_LOST = 3,   /* written, but the kernel dropped events */
	EXIT_DAMAGED = 4, /* written from a damaged input: what precedes the damage */
};

#endif /* ETDUMP_EXIT_CODE_H */
