// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "debug_buffer.h"
#include "file_io.h"

int debug_buffer_reserve(struct debug_buffer *b, size_t n, size_t *at)
{
	size_t start = (b->len + DEBUG_BUFFER_ALIGN - 1) &
		       ~(size_t)(DEBUG_BUFFER_ALIGN - 1);
	size_t end = start + n;
	uint8_t *p;

	if (end < start)
		return -ENOMEM;
	if (end > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < end) {
			if (cap > SIZE_MAX / 2)
				return -ENOMEM;
			cap *= 2;
		}
		p = realloc(b->data, cap);
		if (!p)
			return -ENOMEM;
		b->data = p;
		b->cap = cap;
	}
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
