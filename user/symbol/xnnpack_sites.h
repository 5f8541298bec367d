/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xnnpack_sites.h - symbol mode's sites for XNNPACK's operators: while an
 * object's symbols are walked (symbol_sites.c), the functions
 * xnnpack_ops.h reads are noted; after, its operators are read from the
 * file and one site added, on the call that runs each operator object.
 * An XNNPACK whose layout is not the one known is said once, and adds no
 * site: its DELEGATE_CALL is recorded as before, never a wrong name.
 */
#ifndef ETDUMP_XNNPACK_SITES_H
#define ETDUMP_XNNPACK_SITES_H

#include <stdint.h>
#include "symbol/xnnpack_ops.h"

struct symbol_sites;

/* What a walk of one object found of XNNPACK: file offsets, sizes. */
struct xnn_found {
	uint64_t offset[XNN_NFUNCS];
	uint64_t size[XNN_NFUNCS];
};

/* A symbol of the walk: noted when it is one xnnpack_ops.h reads. */
void xnnpack_sites_symbol(struct xnn_found *f, const char *symbol,
			  uint64_t offset, uint64_t size);
/*
 * After the walk of `path`: when it has XNNPACK, its operators read into
 * an xnn_object of its own (s->xnn) and their site added. 0, or -ENOMEM;
 * a layout not known is said (p_warn) and is no error.
 */
int xnnpack_sites_add(struct symbol_sites *s, const char *path,
		      const struct xnn_found *f);

#endif /* ETDUMP_XNNPACK_SITES_H */
