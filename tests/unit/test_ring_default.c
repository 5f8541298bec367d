// SPDX-License-Identifier: BSD-3-Clause
/*
 * ring_default: the ring record uses without --ring-size grows with the
 * CPUs, stays a power of two within its bounds, and never takes more than
 * its share of a small machine's memory.
 */
#include "capture/ring_default.h"
#include "testlib.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

TEST(grows_with_the_cpus)
{
	CHECK(ring_default_for(1, 16 * GiB) == 32 * MiB);
	CHECK(ring_default_for(2, 16 * GiB) == 64 * MiB);
	CHECK(ring_default_for(4, 16 * GiB) == 128 * MiB);
	/* 3 CPUs: 96 MiB is no power of two */
	CHECK(ring_default_for(3, 16 * GiB) == 128 * MiB);
}

TEST(bounded)
{
	CHECK(ring_default_for(64, 1024 * GiB) == RING_DEFAULT_MAX_BYTES);
	CHECK(ring_default_for(0, 0) == 32 * MiB);
	CHECK(ring_default_for(1, 0) >= RING_DEFAULT_MIN_BYTES);
}

TEST(a_small_machine_keeps_its_memory)
{
	/* 1 GiB: 16 MiB at most, whatever the CPUs */
	CHECK(ring_default_for(8, GiB) == 16 * MiB);
	/* 300 MiB: 4.7 MiB its share, 4 MiB the power of two below */
	CHECK(ring_default_for(2, 300 * MiB) == 4 * MiB);
	CHECK(ring_default_for(2, 16 * MiB) == MiB);
}

TEST(this_machine)
{
	uint64_t b = ring_default_bytes();

	CHECK(b >= MiB && b <= RING_DEFAULT_MAX_BYTES);
	CHECK((b & (b - 1)) == 0);
}

int main(void)
{
	RUN(grows_with_the_cpus);
	RUN(bounded);
	RUN(a_small_machine_keeps_its_memory);
	RUN(this_machine);
	return TEST_SUMMARY();
}
