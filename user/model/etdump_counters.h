/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etdump_counters.h - perf counter deltas inside a standard ETDump: the
 * text of schema/COUNTERS.md, carried in the delegate_debug_metadata of
 * non-delegated profile events, which ExecuTorch's Inspector keeps per run
 * without interpreting it.
 */
#ifndef ETDUMP_COUNTERS_ENCODING_H
#define ETDUMP_COUNTERS_ENCODING_H

#include <stdbool.h>
#include <stdint.h>
#include "model/etdump_model.h"

#define ETD_COUNTERS_MAGIC "etdump-bpf-counters:1"

/* Does this event carry its counters as metadata when written? */
bool etd_counters_encodable(const struct etd_event *ev);
/*
 * "etdump-bpf-counters:1;task-clock=1200;page-faults=0;cycles=?" into
 * buf; the length, or -ENOSPC when buf is too small.
 */
int etd_counters_encode(const struct etd_dump *dump,
			const struct etd_counters *c, char *buf, size_t len);
/*
 * After reading: turn every event's counter metadata back into counters
 * (and dump->counter_names), removing that metadata. -EINVAL when the
 * names differ between events; other metadata is left alone.
 */
int etd_counters_decode_dump(struct etd_dump *dump);

#endif /* ETDUMP_COUNTERS_ENCODING_H */
