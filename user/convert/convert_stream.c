// SPDX-License-Identifier: BSD-3-Clause
#include <string.h>
#include "convert/convert_stream.h"
#include "convert/raw_replay.h"
#include "write/etdump_ahead_thread.h"
#include "write/etdump_log_writer.h"
#include "write/summary.h"

bool convert_stream_fits(const struct raw_info *info)
{
	/* record builds the file from every run at the end for these */
	for (uint32_t i = 0; i < info->nprobes; i++)
		if (!strncmp(info->probes[i], "allocat", 7))
			return false;
	return true;
}

struct convert_ctx {
	struct etdump_ahead_thread *ahead;
	struct collector *col;
};

/* The runs ended so far into the file, as record drains them. */
static int drain_ended(void *ctx)
{
	struct convert_ctx *c = ctx;
	int ret;

	/* every full slab: the one appends fill stays */
	do
		ret = etdump_ahead_thread_drain(c->ahead,
						collector_log(c->col), false);
	while (ret > 0);
	return ret;
}

int convert_stream(struct raw_reader *r, struct collector *col,
		   const char *path, bool force, char **kept,
		   struct collector_stats *stats,
		   struct symbol_calibration *probe_time, char *runs,
		   size_t runs_len, char *files, size_t files_len,
		   bool *write_failed)
{
	const struct raw_info *info = raw_reader_info(r);
	struct etdump_log_meta meta = {
		.counter_names = (const char *const *)info->counter_names,
		.ncounters = info->ncounters,
	};
	struct etdump_ahead_thread *ahead = NULL;
	struct etdump_stream *es = NULL;
	int err;

	*kept = NULL;
	*write_failed = false;
	err = etdump_stream_open(&es, &meta);
	if (err)
		return err;
	etdump_stream_spill_near(es, path);
	etdump_stream_series(es, path, force);
	err = etdump_ahead_thread_start(&ahead, es, ETDUMP_AHEAD_EVENTS);
	if (err)
		goto out;
	collector_set_ahead(col, etdump_ahead_thread_take,
			    etdump_ahead_thread_drop, ahead,
			    ETDUMP_AHEAD_EVENTS);
	etdump_ahead_thread_follow(ahead, collector_log(col));
	err = raw_replay_each(r, col, NULL, probe_time, drain_ended,
			      &(struct convert_ctx){ ahead, col });
	if (!err)
		err = etdump_ahead_thread_wait(ahead);
	if (!err)
		err = collector_close(col, stats);
	if (!err)
		err = etdump_ahead_thread_drain(ahead, collector_log(col), true);
	if (err) {
		*write_failed = etdump_stream_failed(es);
		goto out;
	}
	run_names_describe(etdump_stream_names(es), runs, runs_len);
	err = etdump_stream_write_file(es, path, force, kept);
	*write_failed = err != 0;
	etdump_stream_files_text(es, path, files, files_len);
out:
	etdump_ahead_thread_stop(ahead);
	etdump_stream_free(es);
	return err;
}
