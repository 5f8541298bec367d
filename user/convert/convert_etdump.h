/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * convert_etdump.h - `convert` of an ETDump (ours or ETDumpGen's) into a
 * timeline (or a profile of the same nesting): its profile events at their start and end times, its counters
 * where the file carries them (schema/COUNTERS.md). An ETDump names no
 * thread: runs that overlap in time go on separate tracks.
 */
#ifndef ETDUMP_CONVERT_ETDUMP_H
#define ETDUMP_CONVERT_ETDUMP_H

#include <stdbool.h>
#include "model/etdump_model.h"
#include "write/pprof_writer.h"

/* Give each run a track (tid 1, 2, ...) no earlier run on it overlaps. */
int etdump_assign_tracks(struct etd_dump *dump);

/*
 * Write the Chrome trace of the ETDump at input to output (flags as for
 * chrome_write()), or with pprof its profile (pprof_writer.h); the
 * command's exit status, with one line on error.
 */
int convert_etdump(const char *input, const char *output,
		   unsigned int chrome_flags, bool force,
		   const struct pprof_source *pprof);

#endif /* ETDUMP_CONVERT_ETDUMP_H */
