/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pprof_writer.h - a recording as pprof's profile.proto (github.com/
 * google/pprof, proto/profile.proto), gzipped: the format `go tool pprof`,
 * Pyroscope, Parca and Grafana read. Its samples are pprof_samples.h's.
 *
 * - sample types: events/count, wall/nanoseconds (the default), one per
 *   counter of the recording (a *-clock counter in nanoseconds, others a
 *   count);
 * - one location, line and function per frame name;
 * - labels: run (1 for the file's first), block (the run's name), thread
 *   (its name; "thread N" for an ETDump's tracks) and, from a raw capture,
 *   tid;
 * - time_nanos: when the recording started (a raw capture's wall clock; an
 *   ETDump has none: left out); duration_nanos: the recording's length
 *   (an ETDump: its events' span);
 * - comments: the recorder and its command line, and the conversion.
 */
#ifndef ETDUMP_PPROF_WRITER_H
#define ETDUMP_PPROF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/etdump_model.h"
#include "read/raw_reader.h"

struct pprof_source {
	const char *input;              /* the file converted */
	const struct raw_info *info;    /* a raw capture's; NULL: an ETDump */
	char *const *argv;              /* how convert was called */
	int argc;
};

/* The gzipped profile in a malloc'd *buf; 0 or a negative errno. */
int pprof_write(const struct etd_dump *dump, const struct pprof_source *src,
		uint8_t **buf, size_t *len);
/* The same, replacing path as etdump_write_file() does. */
int pprof_write_file(const struct etd_dump *dump,
		     const struct pprof_source *src, const char *path,
		     bool force, char **kept);

#endif /* ETDUMP_PPROF_WRITER_H */
