/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * self_offset.h - where code of this process is, as a uprobe names it:
 * the file mapped at it and the offset in that file (from
 * /proc/self/maps). For probes on the recorder's own functions
 * (symbol_calibrate.h) and the tests'.
 */
#ifndef ETDUMP_SELF_OFFSET_H
#define ETDUMP_SELF_OFFSET_H

#include <stddef.h>
#include <stdint.h>

/* -ENOENT when at is in no file (or its path is len or longer), -errno. */
int self_offset(const void *at, char *path, size_t len, uint64_t *offset);

#endif /* ETDUMP_SELF_OFFSET_H */
