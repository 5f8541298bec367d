/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * value_sites.h - record --values in symbol mode: each kernel site gets
 * the out tensors its `outputs` rule places (value_rules.h), which
 * bpf/symbols.bpf.c reads at the kernel's return with the rules' tensor
 * layout, and the kernels that get none are named once.
 */
#ifndef ETDUMP_VALUE_SITES_H
#define ETDUMP_VALUE_SITES_H

#include <stdint.h>
#include "symbol/symbol_rules.h"
#include "symbol/symbol_sites.h"

/*
 * Set s's outputs and layout to capture at most max bytes a tensor. Says
 * in one line which kernels have no value captured and why. -EINVAL (said)
 * when the rules give no complete tensor layout.
 */
int value_sites_plan(struct symbol_sites *s, const struct symbol_rules *rs,
		       uint64_t max);

#endif /* ETDUMP_VALUE_SITES_H */
