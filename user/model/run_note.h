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

/*
 * A run's note with the name of the thread it ran on: `note` (a
 * recording's own, or NULL) and ";thread=NAME", or "etdump-bpf-thread:1;
 * thread=NAME" alone. A ';' of the name is written ',': it would end the
 * field. Its length, or 0 when it does not fit in len (then the note
 * alone is the run's).
 */
size_t run_note_thread_text(const char *note, const char *name, char *buf,
			    size_t len);
/*
 * The thread name an event's note says into buf (NUL-terminated, cut to
 * len - 1): its length, or 0 when it says none.
 */
size_t run_note_thread(const struct etd_event *ev, char *buf, size_t len);

#endif /* ETDUMP_RUN_NOTE_H */
