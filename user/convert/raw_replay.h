/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * raw_replay.h - feed a raw capture's records to a collector as record fed
 * them: the capture's start and counters first, symbol mode's records
 * translated, its probe time said as record says it. What convert and
 * report --memory share.
 */
#ifndef ETDUMP_RAW_REPLAY_H
#define ETDUMP_RAW_REPLAY_H

#include "collect/collector.h"
#include "read/raw_reader.h"
#include "symbol/symbol_calibrate.h"
#include "write/sched_lanes.h"

/*
 * Every readable record, in file order: 0, or a negative errno (-ENOMEM).
 * record --sched's switches go into lanes (left out when NULL); symbol
 * mode's probe time, when the capture holds it, into probe_time (or
 * NULL).
 */
int raw_replay(struct raw_reader *r, struct collector *col,
	       struct sched_lanes *lanes,
	       struct symbol_calibration *probe_time);

/*
 * The same, calling between(ctx) after every RAW_REPLAY_BETWEEN records or
 * events, whichever comes first (what convert writes of the runs that
 * ended meanwhile: a batched record holds hundreds of events, and runs
 * held back until the end took fresh memory, and its clearing, for all of
 * them); its error, a negative errno, ends the replay.
 */
#define RAW_REPLAY_BETWEEN 65536
typedef int (*raw_replay_fn)(void *ctx);
int raw_replay_each(struct raw_reader *r, struct collector *col,
		    struct sched_lanes *lanes,
		    struct symbol_calibration *probe_time,
		    raw_replay_fn between, void *ctx);

#endif /* ETDUMP_RAW_REPLAY_H */
