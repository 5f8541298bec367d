/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etdump_log_writer.h - write the runs of a run log (run_log.h) as one
 * ETDump, the same file etdump_writer.h writes for the same runs, without
 * building an etd_dump first: each run goes into the file as it is read,
 * and the log's memory is handed back as its runs are written, so a
 * recording never holds its events twice.
 */
#ifndef ETDUMP_LOG_WRITER_H
#define ETDUMP_LOG_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include "model/run_log.h"

struct etdump_log_meta {
	const char *const *counter_names;  /* the counters events carry */
	uint32_t ncounters;
};

/*
 * Drain log into path, runs ordered by the time they opened (then by
 * thread), as etdump_write_file() does: file_replace()'s rules, *kept set
 * when the data had to be left beside path. A negative errno; the log is
 * emptied either way.
 */
int etdump_write_log_file(struct run_log *log, const struct etdump_log_meta *m,
			  const char *path, bool force, char **kept);
/* The same into an open descriptor (standard output): all of it, or -errno. */
int etdump_write_log_fd(struct run_log *log, const struct etdump_log_meta *m,
			int fd);

/*
 * The same file built as the runs complete (collector_set_run_sink with
 * etdump_stream_run): each run's tables go into the file being built and
 * the run's memory is the collector's again, so a recording holds little
 * more than the file. The file is finished by one of the writes.
 */
struct etdump_stream;
struct run_names;

int etdump_stream_open(struct etdump_stream **out,
		       const struct etdump_log_meta *m);
/*
 * Keep only the newest part of the file in memory, the rest in an unnamed
 * file in path's folder (fb_builder_spill), which becomes the file at the
 * end where the file system allows (fb_output_in_place), else is read
 * back once: memory stays bounded however long the recording. Best effort: where
 * the folder takes no such file, all of it stays in memory.
 */
void etdump_stream_spill_near(struct etdump_stream *w, const char *path);
/*
 * The first MiBs of the file backed now (before a recording starts), not
 * while the first events come in: a negative errno.
 */
int etdump_stream_prepare(struct etdump_stream *w);
/*
 * A collector_run_fn: r's tables into the file; r is left to its owner.
 * Its events that went ahead (etdump_stream_ahead) come first in it.
 */
int etdump_stream_run(void *ctx, struct run_view *r);
/*
 * collector_set_ahead()'s taker and its drop: the events of an open run
 * written now, their places kept until the run's end comes through
 * etdump_stream_run (by its tid and open time); a dropped run's are left
 * unreferenced in the file.
 */
int etdump_stream_ahead(void *ctx, struct run_view *r);
void etdump_stream_drop_ahead(void *ctx, const struct run_view *r);
/*
 * The runs of log into the file, a slab of the log at a time: the oldest
 * complete one (the one being filled is left), or with all every run.
 * 1 when another slab may be ready, 0 when none was, or a negative errno.
 * A recorder appends its runs to the log, which is cheap, and drains it
 * between reads of the ring: the ring never waits for the file.
 */
int etdump_stream_drain(struct etdump_stream *w, struct run_log *log,
			bool all);
/* Whether building the file failed (its memory, or its spill file). */
bool etdump_stream_failed(const struct etdump_stream *w);
/* The names of the runs streamed, for the summary (summary.h). */
const struct run_names *etdump_stream_names(const struct etdump_stream *w);
/*
 * A recording past what one ETDump holds (2 GiB) goes on as a series
 * named after path, as record --rotate names one (run.0001.etdp, ...),
 * each file finished at a run's end: never lost whole at the end. Said in
 * one line when the first file is written.
 */
void etdump_stream_series(struct etdump_stream *w, const char *path,
			  bool force);
/*
 * The runs streamed, by open time, as one ETDump: as etdump_write_log_file;
 * the series' last file when one began.
 */
int etdump_stream_write_file(struct etdump_stream *w, const char *path,
			     bool force, char **kept);
/* What was written, for the summary: path, or the series' files. */
void etdump_stream_files_text(const struct etdump_stream *w, const char *path,
			      char *buf, size_t len);
int etdump_stream_write_fd(struct etdump_stream *w, int fd);
void etdump_stream_free(struct etdump_stream *w);

#endif /* ETDUMP_LOG_WRITER_H */
