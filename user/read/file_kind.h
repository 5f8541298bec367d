/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * file_kind.h - what a file that is not what a command reads is, by its
 * first bytes, and which command reads it: a user who gives a raw capture
 * to `report` hears "use `convert`", not only "not an ETDump".
 */
#ifndef ETDUMP_FILE_KIND_H
#define ETDUMP_FILE_KIND_H

#include <stddef.h>

/*
 * "a raw capture (record --raw), not an ETDump: use `etdump-bpf convert`"
 * and the like for a raw capture, an ELF binary, an ExecuTorch program or
 * a JSON file (a timeline); NULL when the bytes are none of these.
 */
const char *file_kind_hint(const void *buf, size_t len);

#endif /* ETDUMP_FILE_KIND_H */
