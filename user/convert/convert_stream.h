/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * convert_stream.h - a raw capture into the very ETDump record wrote
 * beside it: the capture's records replayed into a collector whose runs
 * go into the file as record put them there (each run as it ends, a long
 * run's events ahead of its end, the runs ended before a chunk first), so
 * that the two files are the same byte for byte, and the file is built
 * as the records are read rather than from every run held at once.
 */
#ifndef ETDUMP_CONVERT_STREAM_H
#define ETDUMP_CONVERT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include "collect/collector.h"
#include "read/raw_reader.h"
#include "symbol/symbol_calibrate.h"

/* What record could not have built as it went: --allocations' file. */
bool convert_stream_fits(const struct raw_info *info);
/*
 * Replay r into col (new) and write path (file_replace()'s rules, *kept
 * set when the data had to be left beside it); *stats as
 * collector_close() fills it, the runs' names described into runs, the
 * files written into files (path, or a series past what one ETDump holds:
 * etdump_stream_series()). A negative errno; *write_failed says whether
 * it was the file's.
 */
int convert_stream(struct raw_reader *r, struct collector *col,
		   const char *path, bool force, char **kept,
		   struct collector_stats *stats,
		   struct symbol_calibration *probe_time, char *runs,
		   size_t runs_len, char *files, size_t files_len,
		   bool *write_failed);

#endif
