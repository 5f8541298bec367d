/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * record_check.h - whether a record from the ring (or a raw capture, or a
 * fuzzer) can be read as its type says: its size, its counters and
 * metadata inside it, a delegate's ids as ETDumpGen needs them.
 */
#ifndef ETDUMP_RECORD_CHECK_H
#define ETDUMP_RECORD_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "schema/etdump_record.h"

/* len: the bytes the record came in. */
bool record_check(const struct etdump_rec_hdr *h, size_t len);

/*
 * ETDumpGen wants a delegate's event to have a string or an int id: with
 * neither, it would pass for a framework one, metadata and all (the int
 * is an int32 in the ETDump). A begin's string is its token, a log's its
 * name.
 */
bool record_delegate_ids_valid(uint8_t type, uint64_t token, int64_t id_int,
			       uint16_t name_len);

#endif /* ETDUMP_RECORD_CHECK_H */
