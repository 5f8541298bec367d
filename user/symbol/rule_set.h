/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rule_set.h - a rules file once read (symbol_rules.h): the kernel and
 * block rules, and what record --values reads (value_rules.h).
 */
#ifndef ETDUMP_RULE_SET_H
#define ETDUMP_RULE_SET_H

#include <stddef.h>
#include "schema/etdump_record.h"
#include "schema/symbol_values.h"

struct symbol_rule {
	enum etdump_func_kind kind;
	char *pattern;
	char *event;
	char *run;              /* block rules only, else NULL */
	char *where;            /* "FILE:LINE", for messages */
};

/* An `outputs` line: the kernels it names, and where their out tensors are. */
struct symbol_output_rule {
	char *pattern;
	struct etdump_func_outputs out;
	char *where;
};

struct symbol_rules {
	struct symbol_rule *rules;
	size_t n;
	struct symbol_output_rule *outputs;
	size_t noutputs;
	struct etdump_tensor_layout tensor;  /* the first line of a field wins */
};

#endif /* ETDUMP_RULE_SET_H */
