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
/* Room for need bytes in all (len unchanged); -ENOMEM. */
int debug_buffer_grow(struct debug_buffer *b, size_t need);
void debug_buffer_free(struct debug_buffer *b);

/*
 * The file name beside an ETDump: X.etdp gives X.debug.bin, as the
 * reference files are named; any other name gets .debug.bin appended.
 * Malloc'd, NULL on ENOMEM.
 */
char *debug_buffer_path_for(const char *etdump_path);

/*
 * Tensors cut short (record --values bound, a page unread, the ring full)
 * are marked in a trailer after the last blob, where no Tensor.offset
 * points, so the Inspector reads the file as ever: per cut tensor a u64
 * offset and a u64 count of the bytes that are real (the rest are zeros),
 * then a u64 count of entries, then the 8 bytes "EDBPFCUT". Little-endian.
 */
#define DEBUG_BUFFER_CUT_MAGIC "EDBPFCUT"

struct debug_buffer_cut {
	uint64_t offset;
	uint64_t copied;
};

/* Append the trailer (nothing when n is 0). -ENOMEM. */
int debug_buffer_seal(struct debug_buffer *b,
		      const struct debug_buffer_cut *cuts, size_t n);
/*
 * The cuts a buffer's trailer lists: *cuts points into data (unaligned:
 * read with memcpy), *n of them; 0 and none without a valid trailer.
 */
size_t debug_buffer_cuts(const uint8_t *data, size_t len,
			 const uint8_t **cuts);

/*
 * Write it as file_replace() (file_io.h) writes: never through a symbolic
 * link, an existing file replaced only with force. One line on error.
 */
int debug_buffer_write(const char *path, const uint8_t *data, size_t len,
		       bool force);

#endif /* ETDUMP_DEBUG_BUFFER_H */
