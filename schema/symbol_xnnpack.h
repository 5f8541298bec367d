/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbol_xnnpack.h - symbol mode's XNNPACK operators
 * (user/symbol/xnnpack_ops.h): the names bpf/symbols.bpf.c gives an
 * operator from the fields it reads, as user/symbol/ fills its maps from
 * the binary's own string tables. The names travel in the entry record
 * (ETDUMP_FUNC_XNN_OP), so a raw capture converts without the binary.
 */
#ifndef ETDUMP_SYMBOL_XNNPACK_H
#define ETDUMP_SYMBOL_XNNPACK_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "etdump_record.h"

/*
 * An operator's name: by (type, sub-type) for the types named by a
 * sub-type, else by (type, 0) with `whole` 1.
 */
struct etdump_xnn_key {
	__u32 type;
	__u32 sub;
	__u32 whole;
};

/* len 0: a type this cannot name (its event is not written) */
struct etdump_xnn_name {
	__u16 len;
	char name[ETDUMP_NAME_MAX];
};

/* microkernel types named (xnn_microkernel_type_to_string's table) */
#define ETDUMP_XNN_UKERNELS 64

/* where the probe reads the operator's fields (struct xnn_operator) */
struct etdump_xnn_layout {
	__u32 type;
	__u32 sub;
	__u32 ukernel;
};

#endif /* ETDUMP_SYMBOL_XNNPACK_H */
