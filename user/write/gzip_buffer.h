/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gzip_buffer.h - a buffer compressed into one gzip member (RFC 1952), as
 * pprof stores a profile on disk and as `go tool pprof` and profile
 * stores read it.
 */
#ifndef ETDUMP_GZIP_BUFFER_H
#define ETDUMP_GZIP_BUFFER_H

#include <stddef.h>
#include <stdint.h>

/* The gzip bytes in a malloc'd *out; 0, -ENOMEM or -EIO (zlib's error). */
int gzip_buffer(const void *in, size_t len, uint8_t **out, size_t *outlen);

#endif /* ETDUMP_GZIP_BUFFER_H */
