/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etdump_reader.h - fill an etd_dump from an ETDump file, ours or
 * ExecuTorch's, checking everything: a truncated or corrupt file gives an
 * error, never a crash or a read outside the buffer.
 *
 * The file must be size-prefixed (as ETDumpGen writes and the Inspector
 * reads) with identifier "ED00" at byte 8. The size prefix may not exceed
 * the bytes that follow it (else the file is truncated); bytes after the
 * prefixed length are ignored, and nothing is read from them. An
 * unprefixed buffer (Python's serialize_to_etdump_flatcc) is refused with a
 * message saying so, as the Inspector cannot load it either.
 *
 * Everything the schema holds is read: profile, debug and allocation events
 * (kind ETD_ALLOCATION, so a report can say the Inspector will refuse the
 * file), allocators, bundled_input_index. Present-but-empty vectors stay
 * non-NULL with a count of 0; absent ones are NULL. Only the Value member
 * named by Value.val is read. An Event with none of its three members is
 * an error (the Inspector fails on it too); with several, the first of
 * profile, debug, allocation wins, as in the Inspector.
 *
 * Errors: -EINVAL for a file that is not a valid ETDump, -ENOMEM, or the
 * errno of a failed open/read; *out is then empty and err holds one
 * sentence (without the file name: prefix it) saying what is wrong where,
 * e.g. "corrupt ETDump at run_data[1].events[7].profile_event: the string
 * at byte 2400 (31 bytes) runs past the end of the data (2436 > 2316)".
 * On success free *out with etd_dump_free().
 */
#ifndef ETDUMP_READER_H
#define ETDUMP_READER_H

#include <stddef.h>
#include "model/etdump_model.h"

int etdump_read(const void *buf, size_t len, struct etd_dump *out, char *err,
		size_t errlen);
int etdump_read_file(const char *path, struct etd_dump *out, char *err,
		     size_t errlen);
/*
 * The whole file (up to 2 GiB) in a malloc'd *buf, as etdump_read_file()
 * loads it: 0 or a negative errno.
 */
int etdump_load_file(const char *path, void **buf, size_t *len);

#endif /* ETDUMP_READER_H */
