/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * site_traps.h - what the kernel does at each symbol-mode site, and how
 * many traps that takes: per site (list, record's start-up line), and per
 * run as recorded (the summary).
 *
 * A trap here is one entry into the kernel a probe causes, what a probe
 * costs the traced thread. An entry the kernel emulates (push, call,
 * jcc, the nops it knows) takes one: the breakpoint. One it must
 * single-step takes two: the breakpoint, then the debug trap after the
 * step, and ~10x the time (symbol_calibrate.h measures both). The 5-byte
 * nop x86-64 kernels from 6.18 turn into a call of their uprobe
 * trampoline takes one syscall instead, after a first hit that traps. A
 * uretprobe's return goes through the kernel's return trampoline: one
 * more (a syscall on x86-64 since 6.11, a breakpoint elsewhere); an exit
 * probed where a call returns (XNNPACK's) is judged as an entry is. On
 * arm64 the kernel "simulates" (its word) what it does not step: a
 * branch, adr(p), nop, ret; an aarch64 function probed on its rets
 * (arm64_exits.h) takes one trap at the entry and one at the ret it
 * leaves by. A kernel that ends at the next event (symbol_translate.h)
 * takes none at its return once the gaps are measured; until then its
 * return is probed as any other.
 */
#ifndef ETDUMP_SITE_TRAPS_H
#define ETDUMP_SITE_TRAPS_H

#include <stddef.h>
#include <stdint.h>
#include "symbol/symbol_sites.h"

enum site_treatment {
	SITE_EMULATED,
	SITE_SINGLE_STEPPED,
	SITE_OPTIMIZED,         /* the 5-byte nop made a call */
	SITE_URETPROBE,         /* a return through the trampoline */
	SITE_SIMULATED,         /* arm64's word for emulated */
	SITE_NEXT_EVENT,        /* no probe: ends where the next event begins */
	SITE_TREATMENTS
};

/* What the kernel does at the site's entry, and at its return or exit. */
enum site_treatment site_traps_entry(const struct symbol_site *s);
enum site_treatment site_traps_exit(const struct symbol_site *s);
/* "emulated", "single-stepped", "optimized nop", "uretprobe", "simulated",
   "next event" */
const char *site_treatment_name(enum site_treatment t);
/*
 * Traps one call through the site takes: entry and return (its return's
 * once the gaps are measured).
 */
unsigned int site_traps_per_call(const struct symbol_site *s);
/* Whether a call through the site has an instruction single-stepped. */
int site_traps_stepped(const struct symbol_site *s);
/*
 * "16 site(s): entries 13 simulated, 3 single-stepped; returns 3
 * uretprobe, 13 exit simulated (20 exit probes)" style: how many sites of
 * each treatment, entries and exits, in the words of the sites'
 * architecture.
 */
void site_traps_describe(const struct symbol_sites *s, char *buf,
			 size_t len);

/* Traps counted per run name from the records as they come. */
struct site_tally_run {
	char name[64];          /* the run a block site opens */
	uint64_t runs;          /* closed: its block's return seen */
	uint64_t traps;         /* in closed runs */
	uint64_t stepped;       /* hits that single-stepped, in closed runs */
	uint64_t open_traps, open_stepped;  /* in the runs still open */
	/* the closed runs in which every kernel's return was probed to
	   measure the gaps, counted apart (the runs above are those with
	   none); a run whose returns came out while it ran, neither */
	uint64_t gap_runs, gap_traps, gap_stepped;
	uint64_t open_next_calls, open_next_returns; /* kernels ended at the
							next event, returns */
};

struct site_tally {
	struct site_tally_run *runs;
	size_t nruns;
	struct site_tally_thread *threads;
	size_t nthreads;
	uint64_t outside;       /* traps on a thread in no run */
	uint64_t start;         /* runs opened before it are not counted */
};

/*
 * One record on its way to the translator: its entry, exit or
 * allocation's traps counted to the run open on its thread. -ENOMEM.
 */
int site_tally_feed(struct site_tally *t, const struct symbol_sites *s,
		    const void *rec, size_t len);
/*
 * "12 traps per 'Execute' run (0 single-stepped hits) and 22 in the 5
 * run(s) that measured the gaps, 4 traps per 'Default' run (0 ...)", or
 * "22 traps per 'Execute' run (0 single-stepped hits), all 5 of which
 * measured the gaps ...": the closed runs', most runs first; "" when none
 * closed.
 */
void site_tally_describe(const struct site_tally *t, char *buf, size_t len);
/*
 * Every probe in place from ts on (the collector's start); UINT64_MAX
 * while they come or go. A run open now, or opened before ts, may miss
 * some probes' traps: it is left out, as the collector leaves it out.
 */
void site_tally_set_start(struct site_tally *t, uint64_t ts);
/* The probes were taken away (record --duty): the runs open are cut. */
void site_tally_gap(struct site_tally *t);
void site_tally_free(struct site_tally *t);

#endif /* ETDUMP_SITE_TRAPS_H */
