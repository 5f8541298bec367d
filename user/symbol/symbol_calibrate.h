/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbol_calibrate.h - what symbol mode's own probes add to the times it
 * records, measured on the machine at hand when it attaches: the same
 * programs, attached the same way to functions of the recorder itself
 * that do nothing, called in a loop.
 *
 * Two figures per kind of entry (emulated by the kernel, or
 * single-stepped: symbol_sites.h):
 *   scope   what a probed call's own scope gains: the entry probe's work
 *           after its timestamp and the return probe's before its own
 *           (the 5th percentile of the recorded durations of the empty
 *           function: a short kernel must not come out lasting no time);
 *   call    what a probed call costs its caller whole, both probes from
 *           trap to return (the loop's time per call, traced minus bare):
 *           each such call inside a scope lengthens that scope by it;
 *   entry call  the same with the entry alone probed, its return's probe
 *           taken out after the loops above: what a kernel that ends at
 *           the next event (symbol_translate.h) loses, with the gap after
 *           it.
 */
#ifndef ETDUMP_SYMBOL_CALIBRATE_H
#define ETDUMP_SYMBOL_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "schema/etdump_record.h"

struct collector;

enum symbol_entry_kind { SYMBOL_ENTRY_EMULATED, SYMBOL_ENTRY_STEPPED,
			 SYMBOL_ENTRY_KINDS };

struct symbol_calibration {
	bool done;
	uint64_t scope_ns[SYMBOL_ENTRY_KINDS];
	uint64_t call_ns[SYMBOL_ENTRY_KINDS];
	/* a call with its entry alone probed, whole (a kernel that ends at
	   the next event, symbol_translate.h); 0: not measured */
	uint64_t entry_call_ns[SYMBOL_ENTRY_KINDS];
};

/*
 * What a probed call is taken to cost its caller: what was measured, and
 * at least its scope's share, which noise can leave above it.
 */
static inline uint64_t symbol_call_ns(uint64_t measured, uint64_t scope)
{
	return measured > scope ? measured : scope;
}

/*
 * Measuring again while recording: the emulated entries' figures, with a
 * probe on the recorder's own function left attached (its own ring).
 * Negative errno.
 */
struct symbol_recalibration;
int symbol_recalibration_open(struct symbol_recalibration **out);
/* c's emulated figures measured now (a fraction of a ms); -ENODATA. */
int symbol_recalibrate(struct symbol_recalibration *r,
		       struct symbol_calibration *c);
void symbol_recalibration_close(struct symbol_recalibration *r);

/* Prefix of the calibration's text (symbol_calibration_text()). */
#define SYMBOL_CALIBRATION_MAGIC "etdump-bpf-probe-time:1"

/*
 * Measure. Negative errno, said why with p_warn(): the recording goes on
 * uncorrected, and says so.
 */
int symbol_calibrate(struct symbol_calibration *out);
/*
 * "etdump-bpf-probe-time:1;scope_ns=610;call_ns=1650;
 *  stepped_scope_ns=9100;stepped_call_ns=12200" into buf.
 */
void symbol_calibration_text(const struct symbol_calibration *c, char *buf,
			     size_t len);

/*
 * One line: "symbol mode: durations WHEN less the probes' own time,
 * measured at attach: ...", or that they include it when c was not
 * measured.
 */
void symbol_calibration_say(const struct symbol_calibration *c,
			    const char *when);
/* The record that carries it in a capture, stamped like `like`. */
void symbol_calibration_record(const struct symbol_calibration *c,
			       const struct etdump_rec_hdr *like,
			       struct etdump_rec_probe_time *r);
void symbol_calibration_from_record(struct symbol_calibration *c,
				    const struct etdump_rec_probe_time *r,
				    size_t len);
/*
 * Said in the note when instruction ids follow the calls' order (symbol
 * mode without --program): the block names stay ETDumpGen's, so that
 * tools looking for "Execute" find the runs; report reads this instead.
 */
#define SYMBOL_NOTE_CALL_ORDER ";ids=call-order"
/* The note's prefix when the probes' time was not measured. */
#define SYMBOL_NOTE_MAGIC "etdump-bpf-symbol-mode:1"

/*
 * Say in the ETDump that its times are corrected, and by how much, and
 * with call_order that its instruction ids are call-order ids: the text in
 * the delegate_debug_metadata of each run's outermost framework event
 * (collector_set_run_note()). Nothing when c was not measured and the ids
 * are the program's. -ENOMEM.
 */
int symbol_calibration_note(const struct symbol_calibration *c,
			    bool call_order, struct collector *col);

#endif /* ETDUMP_SYMBOL_CALIBRATE_H */
