/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_memory.h - what the runtime allocated (track_allocator,
 * track_allocation; record --allocations): per allocator, per execution
 * (run) and per operator (the instruction current at the allocation).
 *
 * ExecuTorch's allocators hand out memory and release it all at once
 * (reset), and the runtime reports allocations, never releases: the bytes
 * an allocator handed out within a run is the most it can have held then,
 * and "peak" below is that, over the runs (for an allocator, an operator).
 */
#ifndef ETDUMP_REPORT_MEMORY_H
#define ETDUMP_REPORT_MEMORY_H

#include <stdio.h>
#include "model/etdump_model.h"

/* The closing lines of record: one per allocator. */
void memory_summary(const struct etd_dump *dump);

/*
 * report --memory FILE: an ETDump holding allocation events (record
 * --allocations-in-etdump) or a raw capture (record --allocations --raw).
 * 0 printed, 1 the file cannot be read (one line says why).
 */
int report_memory(FILE *out, const char *path);

#endif /* ETDUMP_REPORT_MEMORY_H */
