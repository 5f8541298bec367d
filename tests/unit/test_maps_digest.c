// SPDX-License-Identifier: BSD-3-Clause
/*
 * test_maps_digest.c - the digest of a process's executable mappings
 * (user/target/maps_digest.h) moves when a file is mapped executable and
 * comes back when it is unmapped; a mapping that cannot run code leaves
 * it alone.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "target/maps_digest.h"
#include "testlib.h"

/* this test's own executable, mapped once more with prot */
static void *map_self(int prot)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return MAP_FAILED;
	p = mmap(NULL, 4096, prot, MAP_PRIVATE, fd, 0);
	close(fd);
	return p;
}

TEST(an_executable_mapping_moves_it)
{
	uint64_t before, during, after;
	void *p;

	CHECK_EQ_INT(maps_digest(getpid(), &before), 0);
	p = map_self(PROT_READ | PROT_EXEC);
	CHECK(p != MAP_FAILED);
	CHECK_EQ_INT(maps_digest(getpid(), &during), 0);
	CHECK(during != before);
	munmap(p, 4096);
	CHECK_EQ_INT(maps_digest(getpid(), &after), 0);
	CHECK(after == before);
}

TEST(a_mapping_that_cannot_run_code_does_not)
{
	uint64_t before, during;
	void *p;

	CHECK_EQ_INT(maps_digest(getpid(), &before), 0);
	p = map_self(PROT_READ);
	CHECK(p != MAP_FAILED);
	CHECK_EQ_INT(maps_digest(getpid(), &during), 0);
	CHECK(during == before);
	munmap(p, 4096);
}

/* a JIT's code, or valgrind's translations: no file, no library */
TEST(anonymous_code_does_not)
{
	uint64_t before, during;
	void *p;

	CHECK_EQ_INT(maps_digest(getpid(), &before), 0);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	CHECK(p != MAP_FAILED);
	CHECK_EQ_INT(maps_digest(getpid(), &during), 0);
	CHECK(during == before);
	munmap(p, 4096);
}

/*
 * qemu-user answers its guest's /proc/self/maps with a copy made at the
 * open (tests/qemu.py runs the arm64 build so): not the kernel's file,
 * whose reading again the recorder relies on for its targets'.
 */
static bool self_maps_is_the_kernels(void)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	struct statfs fs;
	bool procfs = fd >= 0 && !fstatfs(fd, &fs) &&
		      fs.f_type == PROC_SUPER_MAGIC;

	if (fd >= 0)
		close(fd);
	return procfs;
}

/* the file kept open and read again says what a fresh one does */
TEST(a_kept_file_read_again_follows_the_mappings)
{
	uint64_t fresh, kept, during, after;
	FILE *f = fopen("/proc/self/maps", "re");
	void *p;

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ_INT(maps_digest(getpid(), &fresh), 0);
	CHECK_EQ_INT(maps_digest_file(f, &kept), 0);
	CHECK(kept == fresh);
	p = map_self(PROT_READ | PROT_EXEC);
	CHECK(p != MAP_FAILED);
	CHECK_EQ_INT(maps_digest_file(f, &during), 0);
	CHECK(during != kept);
	CHECK_EQ_INT(maps_digest(getpid(), &fresh), 0);
	CHECK(during == fresh);
	munmap(p, 4096);
	CHECK_EQ_INT(maps_digest_file(f, &after), 0);
	CHECK(after == kept);
	fclose(f);
}

TEST(a_process_that_is_gone_is_an_error)
{
	uint64_t d;

	CHECK(maps_digest(0x3fffffff, &d) < 0);
}

int main(void)
{
	RUN(an_executable_mapping_moves_it);
	if (self_maps_is_the_kernels())
		RUN(a_kept_file_read_again_follows_the_mappings);
	else
		printf("# not run: a_kept_file_read_again_follows_the_mappings (/proc/self/maps is an emulator's copy here; the case runs natively)\n");
	RUN(a_mapping_that_cannot_run_code_does_not);
	RUN(anonymous_code_does_not);
	RUN(a_process_that_is_gone_is_an_error);
	return TEST_SUMMARY();
}
