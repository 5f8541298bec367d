/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * live_view.h - `etdump-bpf top` / `record --live`: per-operator counts,
 * mean and p99 durations and counter means over the last interval,
 * refreshed every second on stdout, like perf top. On a terminal the
 * screen is redrawn and keys are read unbuffered (q quits); the terminal
 * is given back as it was.
 */
#ifndef ETDUMP_LIVE_VIEW_H
#define ETDUMP_LIVE_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include "collect/collector.h"

struct live_view;

/* Watch col's events (collector_set_event_hook); what the title names. */
int live_view_open(struct live_view **out, struct collector *col,
		   const char *title);
/*
 * Once per poll turn: draw when a second has passed (drops: the kernel's
 * count so far). True when the user asked to quit.
 */
bool live_view_tick(struct live_view *lv, uint64_t now, uint64_t drops);
/* Restore the terminal. */
void live_view_free(struct live_view *lv);

#endif /* ETDUMP_LIVE_VIEW_H */
