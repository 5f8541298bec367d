/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clock.h - a clock's reading in nanoseconds, the unit every record's stamp
 * and every interval of the tool is kept in.
 */
#ifndef ETDUMP_CLOCK_H
#define ETDUMP_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC: the clock bpf_ktime_get_ns() and the runtimes stamp with */
static inline uint64_t monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

#endif /* ETDUMP_CLOCK_H */
