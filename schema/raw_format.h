/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * raw_format.h - the layout of a raw capture, as schema/RAW_FORMAT.md
 * describes it: the file magic, then chunks, each a struct raw_chunk
 * followed by its payload. Written by user/write/raw_writer.c, read by
 * user/read/raw_reader.c. All integers are little-endian (the records are the
 * host's bytes; etdump-bpf runs on little-endian hosts only).
 *
 * A change that an older reader would misread bumps RAW_FORMAT_VERSION;
 * new chunk types and new items are skipped by readers that do not know
 * them, so adding one does not.
 */
#ifndef ETDUMP_RAW_FORMAT_H
#define ETDUMP_RAW_FORMAT_H

#include <linux/types.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "raw captures are little-endian: the records are the host's bytes"
#endif

/* the first 8 bytes of every raw capture */
#define RAW_MAGIC "ETDPRAW\n"
#define RAW_MAGIC_LEN 8
#define RAW_FORMAT_VERSION 1

/* payloads are multiples of 8 bytes, so records stay 8-byte aligned */
#define RAW_ALIGN 8
/* the largest chunk a reader accepts: a header with a huge maps text */
#define RAW_CHUNK_MAX (64u << 20)

enum raw_chunk_type {
	RAW_CHUNK_HEADER = 1,  /* struct raw_header, then items; first chunk */
	RAW_CHUNK_DATA = 2,    /* struct raw_data, then framed records */
	RAW_CHUNK_END = 3,     /* struct raw_end, then items; last chunk */
	RAW_CHUNK_THREADS = 4, /* RAW_ITEM_THREAD items; any number, anywhere
				* between the header and the end */
};

struct raw_chunk {
	__u32 type;            /* enum raw_chunk_type */
	__u32 len;             /* payload bytes, a multiple of 8 */
	__u32 payload_crc;     /* zlib crc32 of the payload */
	__u32 chunk_crc;       /* zlib crc32 of the 12 bytes above */
};

struct raw_header {
	__u32 format_version;  /* RAW_FORMAT_VERSION */
	__u32 record_version;  /* ETDUMP_RECORD_VERSION of the records */
	__u32 clock;           /* clockid of every timestamp: CLOCK_MONOTONIC */
	__u32 pid;             /* the target process (tgid) */
	__u64 start_realtime;  /* CLOCK_REALTIME ns and ... */
	__u64 start_clock;     /* ... `clock` ns, read together at start */
	__u64 capture_start;   /* `clock` ns: records stamped before it are an
				* earlier capture's (collector_set_start) */
};

/*
 * Variable parts of the header and end chunks: an item is a struct
 * raw_item, `len` bytes, then zeros up to a multiple of 8. Text has no NUL
 * and no terminator.
 */
enum raw_item_tag {
	RAW_ITEM_EXE = 1,      /* text: the executable carrying the probes */
	RAW_ITEM_PROBE = 2,    /* text: one probe attached, in attach order */
	RAW_ITEM_COUNTER = 3,  /* __u32 enum etdump_counter_kind, then the name */
	RAW_ITEM_MAPS = 4,     /* text: /proc/PID/maps of the target */
	RAW_ITEM_STOP = 5,     /* text (end chunk): why the recording stopped */
	RAW_ITEM_TOOL = 6,     /* text: the recorder and its version */
	RAW_ITEM_ARG = 7,      /* text: one word of its command line, in order */
	RAW_ITEM_THREAD = 8,   /* threads chunk: __u32 tid, then its name
				* (comm); a later item for a tid renames it */
};

struct raw_item {
	__u32 tag;             /* enum raw_item_tag */
	__u32 len;             /* bytes that follow, before the padding */
};

struct raw_data {
	__u64 time;            /* `clock` ns when the chunk was written */
	__u64 drops;           /* records the kernel had dropped by then */
};

/* A record in a data chunk: its length, the bytes, zeros up to 8. */
struct raw_record {
	__u32 len;             /* bytes as the ring buffer gave them */
	__u32 reserved;        /* 0 */
};

struct raw_end {
	__u64 records;         /* records in all the data chunks */
	__u64 drops;           /* records the kernel dropped, in total */
	__u64 end_clock;       /* `clock` ns when the recording stopped */
};

#endif /* ETDUMP_RAW_FORMAT_H */
