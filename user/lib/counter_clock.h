/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * counter_clock.h - the CPU's constant-rate counter, the one batched
 * stamps read (schema/etdump_usdt.h), and CLOCK_MONOTONIC at a reading of
 * it as the kernel computes it (struct etdump_rec_clock).
 */
#ifndef ETDUMP_COUNTER_CLOCK_H
#define ETDUMP_COUNTER_CLOCK_H

#include <stdint.h>
#include "schema/etdump_record.h"

/* The counter the runtime stamps with, read here: the same on every CPU. */
static inline uint64_t counter_now(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
#else
	return 0;
#endif
}

/*
 * CLOCK_MONOTONIC ns at counter c on the kernel's line k: the kernel's
 * own arithmetic, so to the ns what its clock_gettime() read there. A
 * counter before k's cycle_last (more than half the mask behind) is taken
 * back along the line: the kernel's earlier points lie on it while its
 * rate was the same.
 */
static inline uint64_t counter_clock_ns(const struct etdump_rec_clock *k,
					uint64_t c)
{
	uint64_t delta = (c - k->cycle_last) & k->mask;
	__int128 d = delta > k->mask / 2 ? -(__int128)((k->mask - delta) + 1) :
					   (__int128)delta;
	__int128 shifted = (__int128)k->nsec_shifted + d * k->mult;

	/* >> of a negative __int128 floors, as the kernel's would */
	return k->sec * 1000000000ull + (uint64_t)(int64_t)(shifted >> k->shift);
}

#endif /* ETDUMP_COUNTER_CLOCK_H */
