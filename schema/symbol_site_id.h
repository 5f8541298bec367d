/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * symbol_site_id.h - where a kernel has no BPF cookies (before 5.15),
 * symbol mode loads a copy of its entry and exit programs per site, each
 * with the site's id in place of this constant (bpf/symbols.bpf.c loads
 * it in one 64-bit immediate; user/symbol/site_programs.c rewrites it).
 * A value no program otherwise loads.
 */
#ifndef ETDUMP_SYMBOL_SITE_ID_H
#define ETDUMP_SYMBOL_SITE_ID_H

#define SYMBOL_SITE_ID_MAGIC 0x5173e1d05173e1d0ull
/* the same, as the BPF assembler reads it */
#define SYMBOL_SITE_ID_MAGIC_ASM "0x5173e1d05173e1d0"

#endif /* ETDUMP_SYMBOL_SITE_ID_H */
