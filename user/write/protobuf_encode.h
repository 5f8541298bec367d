/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * protobuf_encode.h - the protocol buffers wire format, for writing one
 * message type (pprof's profile.proto) without a protobuf library: base
 * 128 varints, fields of wire types 0 (varint) and 2 (length-delimited:
 * bytes, strings, nested messages, packed repeated varints).
 *
 * A nested message is encoded into a buffer of its own and appended with
 * its length, as the length must come first and a varint's size is not
 * known before its value. Out of memory is sticky: the buffer says
 * `failed` and every later call does nothing, so that a writer checks once
 * at the end.
 */
#ifndef ETDUMP_PROTOBUF_ENCODE_H
#define ETDUMP_PROTOBUF_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_buf {
	uint8_t *data;
	size_t len, cap;
	bool failed;
};

/* Empty it, keeping its memory (for a nested message written again). */
void pb_reset(struct pb_buf *b);
void pb_free(struct pb_buf *b);

/* Bytes a varint of v takes (1 to 10). */
size_t pb_varint_size(uint64_t v);
void pb_varint(struct pb_buf *b, uint64_t v);

/*
 * One field each. A negative int64 is its two's complement as a varint of
 * 10 bytes (protobuf's int64, not the zigzag sint64). Proto3 leaves a
 * field at its default (0, "") out: callers decide, these always write.
 */
void pb_uint64(struct pb_buf *b, uint32_t field, uint64_t v);
void pb_int64(struct pb_buf *b, uint32_t field, int64_t v);
void pb_bool(struct pb_buf *b, uint32_t field, bool v);
void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t n);
void pb_string(struct pb_buf *b, uint32_t field, const char *s);
/* msg's bytes as field of b (msg failed: b fails too). */
void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *msg);
/* A repeated varint field, packed (proto3's encoding for it). */
void pb_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n);

#endif /* ETDUMP_PROTOBUF_ENCODE_H */
