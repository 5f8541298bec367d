/* SPDX-License-Identifier: BSD-3-Clause */
/* privileges.h - say which capabilities a recording lacks, before trying. */
#ifndef ETDUMP_PRIVILEGES_H
#define ETDUMP_PRIVILEGES_H

#include <stddef.h>

/*
 * 0 when this process may load BPF and attach uprobes; otherwise -EPERM and
 * a sentence naming the missing capabilities in msg.
 */
int privileges_check_record(char *msg, size_t len);

#endif /* ETDUMP_PRIVILEGES_H */
