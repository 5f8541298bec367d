/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chrome_writer.h - a recording as a Chrome trace-event JSON file, the
 * timeline Perfetto's UI (and chrome://tracing) opens.
 *
 * One process (the target's PID) with one track per thread; each run is
 * a slice enclosing its events, each profile event a slice (B/E pairs, so
 * that every reader nests them exactly). Counter deltas of the innermost
 * events draw counter ("C") tracks, one per counter and thread. Kernel
 * drops are global instants where they were noticed.
 *
 * Slices carry no args by default, so that speedscope (which keys a frame
 * by name and args) shows each operator once, over all runs; with
 * CHROME_SLICE_ARGS each carries its run, ids, metadata and counters, for
 * Perfetto's args panel.
 * Timestamps are CLOCK_MONOTONIC in microseconds with nanosecond digits,
 * as in the ETDump; otherData gives the wall-clock pair.
 */
#ifndef ETDUMP_CHROME_WRITER_H
#define ETDUMP_CHROME_WRITER_H

#include <stddef.h>
#include "model/etdump_model.h"
#include "read/raw_reader.h"
#include "write/sched_lanes.h"

#define CHROME_SLICE_ARGS 1u  /* every slice with its run's details */
/*
 * From an ETDump, not a capture: info holds pid, the file's path in exe and
 * no more; tids are tracks (convert_etdump.h), named "thread N".
 */
#define CHROME_FROM_ETDUMP 2u

/*
 * The JSON text in a malloc'd *buf; 0 or a negative errno. lanes (record
 * --sched; NULL: none), sorted, add a lane per thread.
 */
int chrome_write(const struct etd_dump *dump, const struct raw_info *info,
		 const struct sched_lanes *lanes, unsigned int flags,
		 char **buf, size_t *len);
/* The same, replacing path as etdump_write_file() does. */
int chrome_write_file(const struct etd_dump *dump,
		      const struct raw_info *info,
		      const struct sched_lanes *lanes, unsigned int flags,
		      const char *path, bool force, char **kept);

#endif /* ETDUMP_CHROME_WRITER_H */
