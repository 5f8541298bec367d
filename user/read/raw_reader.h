/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * raw_reader.h - read a raw capture (schema/RAW_FORMAT.md) back, record by
 * record, validating every byte on the way: a chunk is used whole or not
 * at all. A capture cut short gives every complete chunk; a damaged chunk
 * ends the reading there, with one line saying where and why. Any input is
 * safe to read (it is fuzzed).
 */
#ifndef ETDUMP_RAW_READER_H
#define ETDUMP_RAW_READER_H

#include <stddef.h>
#include <stdint.h>
#include "schema/etdump_record.h"

struct raw_reader;

enum raw_state {
	RAW_READING = 0,  /* records may follow */
	RAW_COMPLETE,     /* its end chunk was read: the recording ended */
	RAW_TRUNCATED,    /* cut: no end chunk; every complete chunk read */
	RAW_CORRUPT,      /* a damaged chunk; every chunk before it read */
};

/* A thread's name (comm), as the recorder read it. */
struct raw_thread {
	uint32_t tid;
	char *name;
};

/* The kernel's drop count had reached `drops` by `time`. */
struct raw_drop_mark {
	uint64_t time;
	uint64_t drops;
};

struct raw_info {
	/* from the header chunk */
	uint32_t record_version;
	uint32_t clock;
	uint32_t pid;
	uint64_t start_realtime;       /* ns; read together with ... */
	uint64_t start_clock;          /* ... this, on `clock` */
	uint64_t capture_start;        /* for collector_set_start() */
	char *exe;                     /* "" when absent, as are maps */
	char **probes;
	uint32_t nprobes;
	char *counter_names[ETDUMP_MAX_COUNTERS];
	uint8_t counter_kinds[ETDUMP_MAX_COUNTERS];
	uint32_t ncounters;
	char *maps;
	char *tool;                    /* the recorder and version; "" unknown */
	char **args;                   /* its command line */
	uint32_t nargs;
	/* from the chunks read so far */
	struct raw_thread *threads;    /* threads chunks: the latest names */
	size_t nthreads;
	uint64_t chunks;               /* complete chunks, the header's too */
	uint64_t records;
	uint64_t drops;                /* the latest count */
	struct raw_drop_mark *marks;   /* each time the count grew */
	size_t nmarks;
	/* once raw_reader_next() has returned 0 */
	enum raw_state state;
	uint64_t end_clock;            /* RAW_COMPLETE */
	char *stop;                    /* RAW_COMPLETE: why recording stopped */
	uint64_t offset;               /* TRUNCATED: file size; CORRUPT: the chunk */
	char message[192];             /* TRUNCATED, CORRUPT: one line */
};

/*
 * Map the file and read its header chunk. Negative errno with a one-line
 * message in err: -EPROTO not a raw capture, -ENODATA cut before the end
 * of its header, -EBADMSG damaged header, -ENOTSUP a format or record
 * version this build does not read, or the file's own errno.
 */
int raw_reader_open(struct raw_reader **out, const char *path, char *err,
		    size_t errlen);
/* The same over a buffer the reader does not own, which must outlive it. */
int raw_reader_open_mem(struct raw_reader **out, const void *buf, size_t len,
			char *err, size_t errlen);
const struct raw_info *raw_reader_info(const struct raw_reader *r);
/* The thread's own name (comm) as the capture has it; NULL: none. */
const char *raw_thread_name(const struct raw_info *info, uint32_t tid);
/*
 * The next record: 1 with *rec (8-byte aligned, valid until the next
 * call) and *len; 0 when no more can be read (info->state says why);
 * -ENOMEM.
 */
int raw_reader_next(struct raw_reader *r, const void **rec, size_t *len);
void raw_reader_free(struct raw_reader *r);

#endif /* ETDUMP_RAW_READER_H */
