/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * value_rules.h - the rules' lines for record --values in symbol mode
 * (symbol_rules.h), facts about the runtime the probes cannot find out:
 *
 *   outputs   FUNCTION      PLACE[,PLACE...]
 *   tensor    TYPE.FIELD    OFFSET
 *
 * An `outputs` line names kernels (FUNCTION as in a kernel rule, no {op})
 * and where their out tensors are when they return, in the order the
 * runtime logs them: `ret` (the return register holds the address of the
 * Tensor the kernel returns: Tensor&), `sret+N` (the kernel returns an
 * object in memory, whose address x86-64 gives back in rax and arm64
 * passes in x8 at the entry, and the
 * Tensor's address is stored at byte N of it), or `none`. The first line
 * that matches wins; a kernel none matches has no value captured.
 *
 * `tensor` lines give the layout of a tensor: Tensor.impl (where the
 * Tensor holds its TensorImpl's address), TensorImpl.sizes,
 * TensorImpl.strides (addresses of int32 arrays), TensorImpl.data,
 * TensorImpl.dim, TensorImpl.numel (64-bit), TensorImpl.type (the
 * ScalarType, one byte); OFFSET in bytes. The first line of a field wins.
 */
#ifndef ETDUMP_VALUE_RULES_H
#define ETDUMP_VALUE_RULES_H

#include <stdbool.h>
#include "symbol/rule_set.h"

/*
 * An `outputs` or `tensor` line (f[0..n-1]) added to rs: 0; -EINVAL with
 * *why; -ENOMEM; -ENOENT when it is neither kind.
 */
int value_rules_parse(struct symbol_rules *rs, char **f, int n,
		      const char *source, unsigned int lineno,
		      const char **why);
/* The first `outputs` line matching func, or NULL. */
const struct symbol_output_rule *
value_rules_outputs(const struct symbol_rules *rs, const char *func);
/* Every tensor field was given. */
bool value_rules_tensor_known(const struct symbol_rules *rs);
void value_rules_free(struct symbol_rules *rs);

#endif /* ETDUMP_VALUE_RULES_H */
