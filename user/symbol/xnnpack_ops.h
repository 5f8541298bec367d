/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xnnpack_ops.h - the XNNPACK operators a stock runtime runs, named as
 * ExecuTorch's XNNPACK profiler names them, without calling anything in
 * the target and without DWARF.
 *
 * xnn_invoke_runtime runs each operator object with one call of
 * xnn_run_operator_with_index(op, opdata_index, object_index, pool):
 * symbol mode probes that call instruction (the operator in %rdi) and the
 * instruction it returns to. The profiler's name is
 * xnn_operator_type_to_string_v2(op), the microkernel type's name after it
 * when that is not the default, then " #k". Both functions are switches
 * gcc compiles to jump tables of `lea STRING(%rip),%rax; ret`: the names
 * are read from those tables in the file, and the fields of the operator
 * they switch on are checked in the code that reads them. The offsets are
 * XNNPACK's (at 92a7ad5, the commit ExecuTorch pins); a binary whose code
 * does not read them where this expects gets no operator names at all:
 * never a wrong one.
 */
#ifndef ETDUMP_XNNPACK_OPS_H
#define ETDUMP_XNNPACK_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The functions read, by symbol (XNNPACK's locals are in .symtab only). */
enum xnn_func {
	XNN_INVOKE_RUNTIME,     /* the loop: where the probes go */
	XNN_RUN_OPERATOR,       /* xnn_run_operator_with_index */
	XNN_TYPE_STRING_V2,     /* type (and sub-type) -> name */
	XNN_TYPE_STRING,        /* its table of every operator type */
	XNN_UKERNEL_STRING,     /* xnn_microkernel_type_to_string */
	XNN_PROFILING_INFO,     /* reads op->ukernel.type for the profiler */
	XNN_DELETE_RUNTIME,     /* deletes its operators through ... */
	XNN_DELETE_OPERATOR,    /* ... this, which every deletion goes through */
	XNN_NFUNCS
};

extern const char *const xnn_func_names[XNN_NFUNCS];

/* Reads len bytes at a virtual address of the file: 0 or negative errno. */
typedef int (*xnn_read_fn)(void *ctx, uint64_t vaddr, void *buf, size_t len);

struct xnn_image {
	xnn_read_fn read;
	void *ctx;
	uint64_t addr[XNN_NFUNCS];  /* virtual addresses, 0: not found */
	uint64_t size[XNN_NFUNCS];
};

/*
 * The one layout this reads (struct xnn_operator at 92a7ad5): every
 * xnn_ops read has it, so the probes are loaded reading there before any
 * XNNPACK is found (one a library loaded later brings).
 */
#define XNN_TYPE_OFF 0xb8
#define XNN_SUB_OFF 0x5c
#define XNN_UKERNEL_OFF 0xc0

#define XNN_NAME_MAX 64
/* A type that takes its name from a sub-type field (binary, unary ops). */
struct xnn_subswitch {
	uint32_t type;
	char (*names)[XNN_NAME_MAX];  /* by sub-type + 1; "" unnamed */
	uint32_t n;
};

struct xnn_ops {
	/* where the probes' reads go, in struct xnn_operator */
	uint32_t type_off, sub_off, ukernel_off;
	char (*type_names)[XNN_NAME_MAX];   /* by type; "" unnamed */
	uint32_t ntypes;
	struct xnn_subswitch sub[2];
	/* types named by a copy sub-type this does not read: left unnamed */
	uint32_t copy_first, copy_last;
	char (*ukernel_names)[XNN_NAME_MAX];  /* [0], the default: "" */
	uint32_t nukernels;
	/* virtual addresses: the call of xnn_run_operator_with_index, and
	   where its exit probe goes (the next instruction the kernel
	   emulates, or the one it returns to) */
	uint64_t call_at, exit_at;
	bool exit_stepped;
	/*
	 * xnn_delete_operator, where an operator's memory is let go: 0 when
	 * xnn_delete_runtime is not seen calling it. Probed there, the fields
	 * read at an operator's first run serve its later runs (an address
	 * reused is reused after this ran).
	 */
	uint64_t forget_at;
};

/*
 * Read and check everything of img. 0, or -ENOENT when it has no XNNPACK
 * (no xnn_invoke_runtime), -EPROTO with why (one clause) when its code is
 * not the layout this knows, -ENOMEM.
 */
int xnn_ops_read(struct xnn_ops *out, const struct xnn_image *img,
		 char *why, size_t whylen);
/*
 * The profiler's name of an operator with these fields, without " #k",
 * into buf; false when this cannot name it (then nothing is written).
 */
bool xnn_ops_name(const struct xnn_ops *x, uint32_t type, uint32_t sub,
		  uint32_t ukernel, char *buf, size_t len);
void xnn_ops_free(struct xnn_ops *x);

/*
 * The jump table of a switch returning strings: entries n at table, each
 * an int32 from table to a `lea STRING(%rip),%rax; ret` inside
 * [func, func + size). names[i] is the string, "" where the entry is not
 * such a case. Stops at the first entry out of the function when n is 0
 * (up to max). The number of entries read, or negative errno.
 */
int xnn_read_string_table(const struct xnn_image *img, uint64_t table,
			  uint64_t func, uint64_t size, uint32_t n,
			  uint32_t max, char (**names)[XNN_NAME_MAX]);
/*
 * Does code (len bytes) match pattern at its start? Pattern: hex bytes,
 * "??" any byte, "T" four bytes of a rel32 captured (the address after
 * them plus their value, relative to at, into *rel). Spaces ignored.
 */
bool xnn_match(const uint8_t *code, size_t len, uint64_t at,
	       const char *pattern, uint64_t *rel, size_t *matched);

#endif /* ETDUMP_XNNPACK_OPS_H */
