// SPDX-License-Identifier: BSD-3-Clause
#include <stdlib.h>
#include <string.h>
#include "write/protobuf_encode.h"

enum wire_type { WIRE_VARINT = 0, WIRE_LEN = 2 };

void pb_reset(struct pb_buf *b)
{
	b->len = 0;
	b->failed = false;
}

void pb_free(struct pb_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static bool room(struct pb_buf *b, size_t n)
{
	uint8_t *p;
	size_t cap;

	if (b->failed)
		return false;
	if (n <= b->cap - b->len)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2) {
			b->failed = true;
			return false;
		}
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

static void put(struct pb_buf *b, const void *p, size_t n)
{
	if (n && room(b, n)) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	}
}

size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void pb_varint(struct pb_buf *b, uint64_t v)
{
	uint8_t out[10];
	size_t n = 0;

	/* seven bits at a time, low first; the top bit says more follow */
	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	put(b, out, n);
}

static void tag(struct pb_buf *b, uint32_t field, enum wire_type wt)
{
	pb_varint(b, ((uint64_t)field << 3) | wt);
}

void pb_uint64(struct pb_buf *b, uint32_t field, uint64_t v)
{
	tag(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

void pb_int64(struct pb_buf *b, uint32_t field, int64_t v)
{
	pb_uint64(b, field, (uint64_t)v);
}

void pb_bool(struct pb_buf *b, uint32_t field, bool v)
{
	pb_uint64(b, field, v);
}

void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t n)
{
	tag(b, field, WIRE_LEN);
	pb_varint(b, n);
	put(b, p, n);
}

void pb_string(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *msg)
{
	if (msg->failed)
		b->failed = true;
	else
		pb_bytes(b, field, msg->data, msg->len);
}

void pb_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t i, len = 0;

	for (i = 0; i < n; i++)
		len += pb_varint_size(v[i]);
	tag(b, field, WIRE_LEN);
	pb_varint(b, len);
	for (i = 0; i < n; i++)
		pb_varint(b, v[i]);
}
