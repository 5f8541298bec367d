/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * debug_buffer.h - the debug buffer file beside an ETDump: the bytes of
 * the tensors its DebugEvents log, at the offsets their Tensor.offset
 * gives, as ExecuTorch's BufferDataSink lays them out: each blob starts
 * at a multiple of 64 bytes, zeros between. The Inspector reads it with
 * Inspector(etdump_path=..., debug_buffer_path=...).
 */
#ifndef ETDUMP_DEBUG_BUFFER_H
#define ETDUMP_DEBUG_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEBUG_BUFFER_ALIGN 64

struct debug_buffer {
	uint8_t *data;
	size_t len;
	size_t cap;
};

/*
 * Room for n bytes at the next aligned offset: *at gets the offset, the
 * bytes are zeroed (the caller fills what it has). -ENOMEM.
 */
int debug_buffer_reserve(struct debug_buffer *b, size_t n, size_t *at);
void debug_buffer_free(struct debug_buffer *b);

/*
 * The file name beside an ETDump: X.etdp gives X.debug.bin, as the
 * reference files are named; any other name gets .debug.bin appended.
 * Malloc'd, NULL on ENOMEM.
 */
char *debug_buffer_path_for(const char *etdump_path);

/*
 * Write it as file_replace() (file_io.h) writes: never through a symbolic
 * link, an existing file replaced only with force. One line on error.
 */
int debug_buffer_write(const char *path, const uint8_t *data, size_t len,
		       bool force);

#endif /* ETDUMP_DEBUG_BUFFER_H */
