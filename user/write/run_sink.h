/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_sink.h - where the complete runs of a long recording go, as the
 * collector completes them (collector_set_run_sink):
 *   - only the slow ones (--keep-slower-than): a run whose events span
 *     less than the bound is counted and dropped; the bound may be a
 *     percentile (pNN) of the spans of the runs seen so far, set by the
 *     first RUN_SINK_WARMUP runs before any is kept;
 *   - a series of complete ETDumps (--rotate SIZE|DURATION): the runs held
 *     are written to the next file of the series once they reach SIZE
 *     (their compact size, about the file's) or DURATION passed;
 *   - the last N runs only (--flight-recorder N), written to the next file
 *     of the series when asked (SIGUSR1) and at the end.
 * A series is named after -o FILE with a 4-digit number before its
 * extension: run.etdp gives run.0001.etdp, run.0002.etdp, ...; each file is
 * written as -o is (file_replace(): never through a symbolic link, an
 * existing file replaced only with -f).
 */
#ifndef ETDUMP_RUN_SINK_H
#define ETDUMP_RUN_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "collect/collector.h"

struct run_sink_opts {
	const char *output;       /* -o FILE */
	bool force;
	uint64_t rotate_bytes;    /* 0: not by size */
	uint64_t rotate_ns;       /* 0: not by time */
	uint64_t slower_than_ns;  /* 0: every run */
	unsigned int slower_pct;  /* or slower than this percentile; 0: none */
	size_t flight;            /* 0: not a flight recorder */
};

#define RUN_SINK_WARMUP 100

struct run_sink_stats {
	uint64_t seen;            /* complete runs the collector handed over */
	uint64_t kept;            /* slow enough (all without the bound) */
	uint64_t runs;            /* written */
	uint64_t events;          /* written */
	unsigned int files;
};

struct run_sink;

/* Whether the options ask for a sink at all, and for a numbered series. */
bool run_sink_wanted(const struct run_sink_opts *o);
bool run_sink_series(const struct run_sink_opts *o);

/* Become col's run sink; counter names come from col. */
int run_sink_open(struct run_sink **out, const struct run_sink_opts *o,
		  struct collector *col);
/* The next file of the rotation when it is due (now: CLOCK_MONOTONIC ns). */
int run_sink_poll(struct run_sink *s, uint64_t now);
/* Flight recorder: write the runs held now, and start over. */
int run_sink_dump(struct run_sink *s);
/* After collector_close(): write what is held (the last file). */
int run_sink_finish(struct run_sink *s);
/* Whether a write failed (the error was said, naming the file). */
bool run_sink_failed(const struct run_sink *s);
const struct run_sink_stats *run_sink_stats(const struct run_sink *s);
void run_sink_free(struct run_sink *s);

#endif /* ETDUMP_RUN_SINK_H */
