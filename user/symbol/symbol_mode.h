/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbol_mode.h - record a runtime that carries no etdump probes: uprobes
 * and uretprobes (bpf/symbols.bpf.c) on the functions of its executable and
 * shared libraries that the rules name (symbol_rules.h), their records
 * turned into ETDumpGen's events by symbol_translate.h before the
 * collector.
 */
#ifndef ETDUMP_SYMBOL_MODE_H
#define ETDUMP_SYMBOL_MODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capture/capture.h"

struct collector;
struct etd_dump;
struct symbol_mode;
struct target;

struct symbol_mode_opts {
	bool force;             /* --symbols: even where etdump probes are */
	const char *rules;      /* --rules FILE: before the built-in rules */
	const char *program;    /* --program MODEL.pte: instruction ids */
	const char *debug_file; /* --debug-file FILE: the executable's */
	/* record --values: kernels' out tensors at return, at most
	   value_max bytes each (value_sites.h) */
	bool values;
	uint64_t value_max;
	/* record --allocations: probe the rules' allocate functions */
	bool allocations;
	/* record --duty: every hit into the ring as it comes */
	bool per_hit;
	/* record --exact-returns: every kernel's return probed, not only
	   while the gaps after them are measured (gap_table.h) */
	bool exact_returns;
};

/* Symbol mode is used with --symbols, or when no etdump probe is there. */
bool symbol_mode_wanted(const struct symbol_mode_opts *o,
			size_t etdump_probes);
/*
 * Read the rules and the program, and set up the translator that feeds
 * col. Says why with p_err(); negative errno.
 */
int symbol_mode_open(struct symbol_mode **out,
		     const struct symbol_mode_opts *o, struct collector *col);
/*
 * A record as the probe sent it made the one it stands for (an entry's
 * description added, entry_expand.h): what the raw capture and
 * symbol_mode_feed() take; valid until the next call. len is updated.
 */
const void *symbol_mode_expand(struct symbol_mode *sm, const void *rec,
			       size_t *len);
/*
 * Where records go in symbol mode instead of collector_feed(): as they
 * arrive (a raw capture stores them so), then translated for col.
 */
int symbol_mode_feed(struct symbol_mode *sm, const void *rec, size_t len);
/*
 * Measure what the probes add to a scope here (symbol_calibrate.h),
 * attach to every function of the target the rules name, writing into
 * cap's ring buffer, and say in one line that symbol mode is used and
 * why, in another what the probes' time is. When there is none: one line saying what is missing and how to
 * provide it, and -ENOENT.
 */
int symbol_mode_attach(struct symbol_mode *sm, struct capture *cap,
		       const struct target *t, int *nattached);
/*
 * What must go before the record rec (len bytes) into the raw capture and
 * symbol_mode_feed(): the probes' time measured at attach (an
 * ETDUMP_REC_PROBE_TIME record) before the first, and again after each
 * symbol_mode_recalibrate() that measured; else NULL.
 */
const void *symbol_mode_note(struct symbol_mode *sm, const void *rec,
			     size_t len, size_t *note_len);
/*
 * What a probe costs drifts while recording by as much as between one
 * recording and the next: measured again (a fraction of a ms of the
 * recorder's time) while records come, SYMBOL_RECALIBRATE_NS apart;
 * now is CLOCK_MONOTONIC ns. The records after it are corrected by it.
 */
#define SYMBOL_RECALIBRATE_NS 10000000ull
/*
 * Also, once SYMBOL_GAP_RUNS runs measured the gaps after the kernels
 * that end at the next event (symbol_translate.h), their return probes
 * are taken out: one trap a kernel call from then on.
 */
#define SYMBOL_GAP_RUNS 5
void symbol_mode_recalibrate(struct symbol_mode *sm, uint64_t now);
/*
 * Once attached: the probes' time taken out of the recording
 * (symbol_calibrate.h), said as text in the delegate_debug_metadata of
 * each run's outermost event, which col writes. -ENOMEM.
 */
int symbol_mode_annotate(const struct symbol_mode *sm, struct collector *col);
/*
 * The functions the rules name in the target, found now, without a word:
 * how many (symbol_mode_attach() then uses them), or a negative errno. A
 * command without probes that names none (a shell) is one whose children
 * record follows instead.
 */
int symbol_mode_find(struct symbol_mode *sm, const struct target *t);
/*
 * A library pid loaded after symbol_mode_attach() (path as the recorder
 * reaches it, label as messages name it): the functions of it the rules
 * name attached as the first ones were, their events the runtime's own
 * (each site an id of its own; runs, names and instruction ids as for
 * the first). The probes' time measured at attach stands for them (the
 * same programs on the same machine, measured again while recording);
 * the gaps after its kernels are measured with the others' while those
 * are (their returns probed until then), else the others' stand for
 * them (gap_table.h: the least of all pairs'); its XNNPACK's operators
 * are read as the first objects' are. Said in one line: 1 attached, 0
 * not (no function a rule names, a file read already, or what cannot be
 * added, said: a library another process than the one recorded loaded
 * among them), -ENOMEM.
 */
int symbol_mode_add_library(struct symbol_mode *sm, pid_t pid,
			    const char *path, const char *label, int *nprobes);
/* The functions attached (found and kept), all libraries. */
size_t symbol_mode_sites(const struct symbol_mode *sm);
/* How many functions of the file at path the rules name, or -errno. */
int symbol_mode_names(const struct symbol_mode *sm, const char *path);
/*
 * After symbol_mode_find() found nothing and no child was recorded either:
 * why, in the one line symbol_mode_attach() would have said it.
 */
void symbol_mode_explain(const struct symbol_mode *sm, const char *exe);
/*
 * record --duty: every probe taken out (the programs kept); once every
 * record they sent is fed, symbol_mode_gap() forgets the calls open; then
 * the probes put back. Says why with p_err(); negative errno.
 */
void symbol_mode_pause(struct symbol_mode *sm);
void symbol_mode_gap(struct symbol_mode *sm);
/*
 * Every probe in place from ts on (as collector_set_start()): the traps a
 * run takes are counted for the runs opened after it.
 */
void symbol_mode_set_start(struct symbol_mode *sm, uint64_t ts);
int symbol_mode_resume(struct symbol_mode *sm);
/*
 * The recording ends: every probe taken out, then what the target's
 * threads keep (a run executing) put in the ring after all they sent,
 * for the ring's last drain (a failure said with p_warn()).
 */
void symbol_mode_finish(struct symbol_mode *sm);
/* Whether an option of symbol mode's was given (--symbols, --rules ...). */
bool symbol_mode_asked(const struct symbol_mode_opts *o);
/* The summary's line about the probes' time. */
void symbol_mode_summary(const struct symbol_mode *sm);
void symbol_mode_free(struct symbol_mode *sm);

#endif /* ETDUMP_SYMBOL_MODE_H */
