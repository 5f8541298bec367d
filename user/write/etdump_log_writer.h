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
#include "run_log.h"

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

#endif /* ETDUMP_LOG_WRITER_H */
