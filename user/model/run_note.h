/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_note.h - what the recorder says of a whole recording inside its
 * ETDump: text in the delegate_debug_metadata of each run's outermost
 * event, the only free-form field an ETDump has (symbol mode's probe time,
 * record --every's share). Written by the collector, read by report and
 * the timeline; the Inspector shows it as the event's metadata.
 */
#ifndef ETDUMP_RUN_NOTE_H
#define ETDUMP_RUN_NOTE_H

#include <stddef.h>
#include <stdint.h>
#include "model/etdump_model.h"

/* Every note of ours starts so; a runtime's own metadata does not. */
#define RUN_NOTE_PREFIX "etdump-bpf-"

/*
 * A call symbol mode wrote with the time measured between its probes: the
 * probes' time it takes out of calls was more than this one took.
 */
#define RUN_NOTE_TIME_KEPT RUN_NOTE_PREFIX "probe-time:kept"

/* "etdump-bpf-every:1;every=N": the runtime kept one run in N. */
void run_note_every_text(uint32_t every, char *buf, size_t len);
/* The N a note of the dump's says, or 0 when none does. */
uint32_t run_note_every(const struct etd_dump *dump);

#endif /* ETDUMP_RUN_NOTE_H */
