/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_note.h - what the recorder said about an ETDump inside it: the
 * note symbol mode puts in the delegate_debug_metadata of each run's
 * outermost event (symbol_calibrate.h), the only free-form field an
 * ETDump has. The report's header repeats what a reader of the table must
 * know.
 */
#ifndef ETDUMP_REPORT_NOTE_H
#define ETDUMP_REPORT_NOTE_H

#include <stdbool.h>
#include <stddef.h>
#include "model/etdump_model.h"

/*
 * Whether a run's note says its instruction ids are call-order ids
 * (symbol mode without --program): numbered in the order the calls ran,
 * not the program's plan.
 */
bool report_note_call_order(const struct etd_dump *dump);

/* record --duty's mark in the note: ";duty=PCT/PERIODms" */
#define REPORT_NOTE_DUTY ";duty="

/*
 * Whether the runs were recorded in windows (record --duty): then its
 * PCT/PERIOD ("10.0/1000ms") in buf.
 */
bool report_note_duty(const struct etd_dump *dump, char *buf, size_t len);

#endif /* ETDUMP_REPORT_NOTE_H */
