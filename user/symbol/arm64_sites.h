/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arm64_sites.h - an aarch64 site whose first instruction the kernel
 * would single-step, moved where it need not: its entry on the first
 * simulated instruction and a plain uprobe on each of its rets, when the
 * function's code allows it (arm64_exits.h); else left as it is (entry
 * and uretprobe at the first instruction, single-stepped).
 */
#ifndef ETDUMP_ARM64_SITES_H
#define ETDUMP_ARM64_SITES_H

#include <stdbool.h>
#include <stdint.h>
#include "symbol/site_list.h"

/*
 * s: a site at its function's first instruction (s->offset), of size
 * bytes (0: not known) in the file open at fd. A function that cannot be
 * read is left as it is.
 */
void arm64_sites_place(struct symbol_site *s, int fd, uint64_t size);

/*
 * A placed site's entry is to read the registers of regs (bit n: xn)
 * too: where the code before it may change one, the site goes back to
 * its first instruction, single-stepped (true).
 */
bool arm64_sites_need_regs(struct symbol_site *s, uint32_t regs);

#endif /* ETDUMP_ARM64_SITES_H */
