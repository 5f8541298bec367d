// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>
#include "write/gzip_buffer.h"

/* 15 bits of window, +16: zlib writes a gzip header and trailer */
#define GZIP_WINDOW (15 + 16)

int gzip_buffer(const void *in, size_t len, uint8_t **out, size_t *outlen)
{
	z_stream z = { 0 };
	uint8_t *buf = NULL;
	size_t cap;
	int zr, err = 0;

	*out = NULL;
	*outlen = 0;
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, len);
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.next_out = buf;
	z.avail_out = 0;
	/* avail_in and avail_out are 32-bit: feed and drain in steps */
	do {
		size_t left_in = len - (size_t)((const uint8_t *)z.next_in -
						(const uint8_t *)in);
		size_t left_out = cap - (size_t)(z.next_out - buf);

		z.avail_in = left_in > UINT32_MAX ? UINT32_MAX : (uInt)left_in;
		z.avail_out = left_out > UINT32_MAX ? UINT32_MAX :
			      (uInt)left_out;
		zr = deflate(&z, z.avail_in == left_in ? Z_FINISH : Z_NO_FLUSH);
	} while (zr == Z_OK);
	if (zr != Z_STREAM_END)
		err = zr == Z_MEM_ERROR ? -ENOMEM : -EIO;
	*outlen = (size_t)(z.next_out - buf);
	deflateEnd(&z);
	if (err) {
		free(buf);
		*outlen = 0;
		return err;
	}
	*out = buf;
	return 0;
}
