/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbol_values.h - record --values in symbol mode: where a kernel's out
 * tensors are when it returns, and how the runtime lays out a tensor, as
 * the rules say (`outputs` and `tensor` lines, user/symbol/symbol_rules.h;
 * ExecuTorch's in schema/executorch.rules). Shared by bpf/symbols.bpf.c,
 * which reads the tensors at the uretprobe, and user/symbol/, which fills
 * its maps. Nothing here reaches a raw capture: the values travel as the
 * USDT path's ETDUMP_REC_VALUE and ETDUMP_REC_VALUE_DATA records.
 */
#ifndef ETDUMP_SYMBOL_VALUES_H
#define ETDUMP_SYMBOL_VALUES_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* out tensors of one kernel at most (a tuple of them) */
#define ETDUMP_OUT_MAX 4

enum etdump_out_place {
	/* the return register holds the Tensor's address (Tensor&) */
	ETDUMP_OUT_RET = 1,
	/*
	 * the function returns an object in memory, whose address the
	 * return register gives back (x86-64; on arm64 x8 holds it at the
	 * entry, which keeps it for the return), and the Tensor's address
	 * is stored at `offset` in it (std::tuple<Tensor&, Tensor&>)
	 */
	ETDUMP_OUT_SRET = 2,
};

/* A site's out tensors, in the order the runtime would log them. */
struct etdump_func_outputs {
	__u8 n;
	__u8 place[ETDUMP_OUT_MAX];  /* enum etdump_out_place */
	__u8 pad[3];
	__u32 offset[ETDUMP_OUT_MAX];
};

/*
 * Is one of them in a result in memory (ETDUMP_OUT_SRET)? Bounded by
 * ETDUMP_OUT_MAX, as the verifier wants it.
 */
static inline __attribute__((always_inline)) int
etdump_outputs_in_memory(const struct etdump_func_outputs *o)
{
	unsigned int i;

	for (i = 0; i < ETDUMP_OUT_MAX; i++)
		if (i < o->n && o->place[i] == ETDUMP_OUT_SRET)
			return 1;
	return 0;
}

/*
 * A tensor: an object holding a pointer (at `impl`) to its TensorImpl,
 * whose fields are at these offsets: sizes and strides point at `dim`
 * int32s, dim and numel are 64-bit, type is the schema's ScalarType in
 * one byte.
 */
struct etdump_tensor_layout {
	__u32 impl;
	__u32 sizes;
	__u32 strides;
	__u32 data;
	__u32 dim;
	__u32 numel;
	__u32 type;
	__u32 known;   /* every field was given: ETDUMP_TENSOR_FIELDS bits */
};

#define ETDUMP_TENSOR_FIELDS 0x7f

#endif /* ETDUMP_SYMBOL_VALUES_H */
