/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * raw_writer.h - write a raw capture (schema/RAW_FORMAT.md) while
 * recording: the records exactly as the ring buffer hands them over, so
 * that `convert` can later replay them through the collector.
 *
 * Cheap on the hot path: a record is copied into the data chunk being
 * filled; a chunk is written when it is full and at every flush (each poll
 * turn), never synced, so a crash loses at most the last turn's records.
 * The first write error sticks: every later call returns it.
 */
#ifndef ETDUMP_RAW_WRITER_H
#define ETDUMP_RAW_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct raw_writer;
struct counter_set;

/* What the header chunk says about the recording. */
struct raw_target {
	int pid;
	const char *exe;
	const char *const *probes;          /* the probes attached, by name */
	size_t nprobes;
	const struct counter_set *counters; /* as opened; NULL: none */
	uint64_t capture_start;             /* what the collector was told */
	/*
	 * A command released from its gate: its map is read once it has
	 * exec'd exe (waiting up to a second); before, it is our own fork.
	 */
	bool just_started;
	const char *tool;                   /* "etdump-bpf VERSION"; NULL: none */
	char *const *argv;                  /* its command line */
	int argc;
};

/*
 * Create path (an existing file is replaced only with force) and write
 * the header chunk. Negative errno; path is then removed.
 */
int raw_writer_open(struct raw_writer **out, const char *path, bool force,
		    const struct raw_target *t);
/* One ring-buffer record, as received. */
int raw_writer_append(struct raw_writer *w, const void *rec, size_t len);
/* A threads chunk naming tid, written at once. */
int raw_writer_thread(struct raw_writer *w, uint32_t tid, const char *name);
/* Write the records buffered so far; drops: the kernel's count now. */
int raw_writer_flush(struct raw_writer *w, uint64_t drops);
/* The last data chunk, the end chunk with the totals, and a sync. */
int raw_writer_finish(struct raw_writer *w, uint64_t drops, const char *stop);
/* The sticky error, 0 if none (and for NULL). */
int raw_writer_error(const struct raw_writer *w);
/* Unfinished, what is buffered is written first (a capture cut short). */
void raw_writer_free(struct raw_writer *w);

#endif /* ETDUMP_RAW_WRITER_H */
