// SPDX-License-Identifier: BSD-3-Clause
#include <unistd.h>
#include "capture/ring_default.h"

#define RING_FLOOR_BYTES (1ull << 20)

static uint64_t pow2_at_least(uint64_t n)
{
	uint64_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static uint64_t pow2_at_most(uint64_t n)
{
	uint64_t p = 1;

	while (p <= n / 2)
		p <<= 1;
	return p;
}

uint64_t ring_default_for(unsigned int ncpus, uint64_t mem_bytes)
{
	uint64_t bytes = pow2_at_least(RING_PER_CPU_BYTES * (ncpus ? ncpus : 1));
	uint64_t share = mem_bytes / RING_MEMORY_SHARE;

	if (bytes < RING_DEFAULT_MIN_BYTES)
		bytes = RING_DEFAULT_MIN_BYTES;
	if (bytes > RING_DEFAULT_MAX_BYTES)
		bytes = RING_DEFAULT_MAX_BYTES;
	if (mem_bytes && bytes > share)
		bytes = share < RING_FLOOR_BYTES ? RING_FLOOR_BYTES :
						    pow2_at_most(share);
	return bytes;
}

uint64_t ring_default_bytes(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long pages = sysconf(_SC_PHYS_PAGES);
	long page = sysconf(_SC_PAGESIZE);

	return ring_default_for(cpus > 0 ? (unsigned int)cpus : 0,
				pages > 0 && page > 0 ?
					(uint64_t)pages * (uint64_t)page : 0);
}
