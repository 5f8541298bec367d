/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * raw_replay.h - feed a raw capture's records to a collector as record fed
 * them: the capture's start and counters first, symbol mode's records
 * translated. What convert and report --memory share.
 */
#ifndef ETDUMP_RAW_REPLAY_H
#define ETDUMP_RAW_REPLAY_H

#include "collector.h"
#include "raw_reader.h"

/* Every readable record, in file order: 0, or a negative errno (-ENOMEM). */
int raw_replay(struct raw_reader *r, struct collector *col);

#endif /* ETDUMP_RAW_REPLAY_H */
