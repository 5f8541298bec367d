/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbol_xnnpack.h - symbol mode's XNNPACK operators
 * (user/symbol/xnnpack_ops.h): where bpf/symbols.bpf.c reads an
 * operator's fields, which the recorder names from the binary's own
 * string tables (user/symbol/entry_expand.h). The names travel in the
 * entry record (ETDUMP_FUNC_XNN_OP) the raw capture keeps, so it converts
 * without the binary.
 */
#ifndef ETDUMP_SYMBOL_XNNPACK_H
#define ETDUMP_SYMBOL_XNNPACK_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "etdump_record.h"

/* microkernel types named (xnn_microkernel_type_to_string's table): the
   recorder names none past these */
#define ETDUMP_XNN_UKERNELS 64

/* where the probe reads the operator's fields (struct xnn_operator) */
struct etdump_xnn_layout {
	__u32 type;
	__u32 sub;
	__u32 ukernel;
};

#endif /* ETDUMP_SYMBOL_XNNPACK_H */
