/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbol_rules.h - which functions symbol mode probes, and as what event.
 *
 * A rules file holds one rule a line; '#' starts a comment. The first rule
 * that matches a function wins.
 *
 *   KIND      FUNCTION                                   EVENT                 [RUN]
 *   block     executorch::runtime::Method::execute       Method::execute       Execute
 *   kernel    torch::executor::native::{op}_out          native_call_{op}.out
 *
 * KIND is what a call of the function is, as ETDumpGen would record it:
 *   block     opens a run named RUN, then is a scope named EVENT
 *   event     a scope named EVENT (chain and instruction: the state then)
 *   kernel    a KernelCall instruction's scope: gets a chain and instruction
 *   delegate  a DelegateCall instruction's scope: the same
 *   allocate  an allocator's allocate(this, size, ...) returning the memory
 *             or NULL: no scope; with record --allocations, what it
 *             handed out, the allocator named EVENT and numbered by object
 * FUNCTION is matched against the function's demangled name without return
 * type and parameters (demangle.h); C names are matched as they are. '*'
 * matches any run of characters, "{op}" one or more of [A-Za-z0-9_], which
 * EVENT may then use.
 *
 * Two more kinds of line say what record --values reads (value_rules.h):
 *   outputs   FUNCTION      PLACE[,PLACE...]   where a kernel's out tensors
 *                                              are when it returns
 *   tensor    TYPE.FIELD    OFFSET             the runtime's tensor layout
 */
#ifndef ETDUMP_SYMBOL_RULES_H
#define ETDUMP_SYMBOL_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include "schema/etdump_record.h"
#include "symbol/rule_glob.h"
#include "symbol/rule_set.h"

/*
 * Append the rules of `text` (len bytes; `source` names it in messages).
 * -EINVAL with "SOURCE:LINE: what is wrong" in err, or -ENOMEM.
 */
int symbol_rules_parse(struct symbol_rules *rs, const char *text, size_t len,
		       const char *source, char *err, size_t errlen);
int symbol_rules_load_file(struct symbol_rules *rs, const char *path,
			   char *err, size_t errlen);
/* schema/executorch.rules, compiled in: ExecuTorch's runtime as it is. */
int symbol_rules_load_builtin(struct symbol_rules *rs, char *err,
			      size_t errlen);

/*
 * The index of the first rule matching `func`, with its event name written
 * to event[ETDUMP_NAME_MAX]; -ENOENT when none matches, -ENAMETOOLONG when
 * the event name would not fit.
 */
int symbol_rules_match(const struct symbol_rules *rs, const char *func,
		       char event[ETDUMP_NAME_MAX]);
void symbol_rules_free(struct symbol_rules *rs);

#endif /* ETDUMP_SYMBOL_RULES_H */
