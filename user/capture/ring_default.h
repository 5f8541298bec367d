/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring_default.h - the ring buffer's size when record is given no
 * --ring-size: sized from the machine it runs on.
 *
 * Every CPU may fire into the one ring while the recorder, which empties
 * it, is not running (the scheduler's other tasks, its own page faults):
 * what it must hold grows with the CPUs. At 10 M events a second from 4
 * threads on 2 CPUs a ring of 8 MiB lost records in 1 trial of 5, and
 * no run was whole; 32 MiB lost none in 10 with 4 threads, but did in 1
 * of 5 with 8; 64 MiB lost none in 8 with 8 (README: Benchmark, row 4b).
 */
#ifndef ETDUMP_RING_DEFAULT_H
#define ETDUMP_RING_DEFAULT_H

#include <stdint.h>

#define RING_PER_CPU_BYTES (32ull << 20)
#define RING_DEFAULT_MIN_BYTES (8ull << 20)
#define RING_DEFAULT_MAX_BYTES (256ull << 20)
/* the ring never takes more than this share of the machine's memory */
#define RING_MEMORY_SHARE 64

/*
 * RING_PER_CPU_BYTES for each of ncpus, as a power of two, from
 * RING_DEFAULT_MIN_BYTES to RING_DEFAULT_MAX_BYTES, and at most
 * 1/RING_MEMORY_SHARE of mem_bytes (then down to 1 MiB on a machine that
 * small). ncpus or mem_bytes 0: not known, not limiting.
 */
uint64_t ring_default_for(unsigned int ncpus, uint64_t mem_bytes);
/* The same for this machine: its online CPUs and its memory. */
uint64_t ring_default_bytes(void);

#endif
