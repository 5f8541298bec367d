// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include "convert/raw_replay.h"
#include "symbol/symbol_translate.h"

int raw_replay(struct raw_reader *r, struct collector *col,
	       struct sched_lanes *lanes,
	       struct symbol_calibration *probe_time)
{
	return raw_replay_each(r, col, lanes, probe_time, NULL, NULL);
}

int raw_replay_each(struct raw_reader *r, struct collector *col,
		    struct sched_lanes *lanes,
		    struct symbol_calibration *probe_time,
		    raw_replay_fn between, void *ctx)
{
	unsigned int since = 0;
	uint64_t mark = 0;
	const struct raw_info *info = raw_reader_info(r);
	struct symbol_calibration said = { 0 };
	struct symbol_translator *tr = NULL;
	const void *rec;
	size_t len;
	int n = 0, err;

	/* what record told the collector before the first record */
	collector_set_start(col, info->capture_start);
	err = collector_set_counters(col, (const char *const *)info->counter_names,
				     info->counter_kinds, info->ncounters);
	/* symbol mode's records become the collector's, as record does it */
	if (!err)
		err = symbol_translator_new(&tr, NULL,
					    symbol_translator_to_collector, col);
	while (!err && (n = raw_reader_next(r, &rec, &len)) > 0) {
		/* a malformed record is counted by the collector */
		if (sched_record_is(rec, len))
			err = lanes ? sched_lanes_add(lanes, rec, len) : 0;
		else
			err = symbol_translator_feed(tr, rec, len);
		if (err != -ENOMEM)
			err = 0;
		/*
		 * symbol mode's probe time comes first: said as record said
		 * it; the translator here has no program: call-order ids
		 */
		if (!err && !said.done &&
		    symbol_translator_probe_time(tr, &said))
			err = symbol_calibration_note(&said, true, col);
		if (!err && between &&
		    (++since == RAW_REPLAY_BETWEEN ||
		     collector_events_seen(col) - mark >= RAW_REPLAY_BETWEEN)) {
			since = 0;
			mark = collector_events_seen(col);
			err = between(ctx);
		}
	}
	if (probe_time)
		*probe_time = said;
	symbol_translator_free(tr);
	return err ? err : n;
}
