/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chrome_writer.h - a recording as a Chrome trace-event JSON file, the
 * timeline Perfetto's UI (and chrome://tracing) opens.
 *
 * One process (the target's PID) with one track per thread; each run is
 * a slice enclosing its events, each profile event a complete ("X") slice
 * with its ids, metadata and counters as args. Counter deltas of the
 * innermost events also draw counter ("C") tracks, one per counter and
 * thread. Kernel drops are global instants where they were noticed.
 * Timestamps are CLOCK_MONOTONIC in microseconds with nanosecond digits,
 * as in the ETDump; otherData gives the wall-clock pair.
 */
#ifndef ETDUMP_CHROME_WRITER_H
#define ETDUMP_CHROME_WRITER_H

#include <stddef.h>
#include "etdump_model.h"
#include "raw_reader.h"

/* The JSON text in a malloc'd *buf; 0 or a negative errno. */
int chrome_write(const struct etd_dump *dump, const struct raw_info *info,
		 char **buf, size_t *len);
/* The same, replacing path as etdump_write_file() does. */
int chrome_write_file(const struct etd_dump *dump,
		      const struct raw_info *info, const char *path,
		      bool force, char **kept);

#endif /* ETDUMP_CHROME_WRITER_H */
