// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/file_io.h"
#include "model/debug_buffer.h"

int debug_buffer_grow(struct debug_buffer *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 4096;
	uint8_t *p;

	if (need <= b->cap)
		return 0;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int debug_buffer_reserve(struct debug_buffer *b, size_t n, size_t *at)
{
	size_t start = (b->len + DEBUG_BUFFER_ALIGN - 1) &
		       ~(size_t)(DEBUG_BUFFER_ALIGN - 1);
	size_t end = start + n;

	if (end < start || debug_buffer_grow(b, end))
		return -ENOMEM;
	memset(b->data + b->len, 0, end - b->len);
	b->len = end;
	*at = start;
	return 0;
}

void debug_buffer_free(struct debug_buffer *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

char *debug_buffer_path_for(const char *etdump_path)
{
	static const char ext[] = ".etdp", suffix[] = ".debug.bin";
	size_t n = strlen(etdump_path);
	char *p;

	if (n > strlen(ext) && !strcmp(etdump_path + n - strlen(ext), ext))
		n -= strlen(ext);
	p = malloc(n + sizeof(suffix));
	if (!p)
		return NULL;
	memcpy(p, etdump_path, n);
	memcpy(p + n, suffix, sizeof(suffix));
	return p;
}

int debug_buffer_write(const char *path, const uint8_t *data, size_t len,
		       bool force)
{
	static const uint8_t none;
	char *kept = NULL;
	int err;

	err = file_replace(path, data ? data : &none, len, force, &kept);
	if (err)
		output_error(path, err, kept);
	free(kept);
	return err;
}

int debug_buffer_seal(struct debug_buffer *b,
		      const struct debug_buffer_cut *cuts, size_t n)
{
	size_t bytes = n * 16 + 16, at, i;
	uint64_t count = n;
	int err;

	if (!n)
		return 0;
	/* reserve() aligns the start: the trailer is found from the end */
	err = debug_buffer_reserve(b, bytes, &at);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		memcpy(b->data + at + i * 16, &cuts[i].offset, 8);
		memcpy(b->data + at + i * 16 + 8, &cuts[i].copied, 8);
	}
	memcpy(b->data + at + n * 16, &count, 8);
	memcpy(b->data + at + n * 16 + 8, DEBUG_BUFFER_CUT_MAGIC, 8);
	return 0;
}

size_t debug_buffer_cuts(const uint8_t *data, size_t len,
			 const uint8_t **cuts)
{
	uint64_t n;

	*cuts = NULL;
	if (len < 16 || memcmp(data + len - 8, DEBUG_BUFFER_CUT_MAGIC, 8))
		return 0;
	memcpy(&n, data + len - 16, 8);
	if (n > (len - 16) / 16)
		return 0;
	*cuts = data + len - 16 - n * 16;
	return n;
}
