/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * entry_expand.h - symbol mode's entry records as the probe sends them
 * (ETDUMP_REC_FUNC_CALL: the site's id alone, a fifth of the bytes the
 * traced thread writes; ETDUMP_REC_XNN_CALL: an XNNPACK operator's fields)
 * made the FUNC_ENTRY records they stand for, with the description of the
 * site the recorder attached (an operator named from the binary's tables,
 * xnnpack_ops.h): before the raw capture, the translator or the
 * calibration read them.
 */
#ifndef ETDUMP_ENTRY_EXPAND_H
#define ETDUMP_ENTRY_EXPAND_H

#include <stdbool.h>
#include <stddef.h>
#include "schema/etdump_record.h"
#include "symbol/symbol_sites.h"

/*
 * When rec (len bytes) is a FUNC_CALL or XNN_CALL of one of the sites: the FUNC_ENTRY
 * it stands for in out, and true. Else false, rec left as it is.
 */
bool entry_expand(const struct symbol_sites *s, const void *rec, size_t len,
		  struct etdump_rec_func_entry *out);

#endif /* ETDUMP_ENTRY_EXPAND_H */
