// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "target/maps_digest.h"

/* FNV-1a, 64 bits */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv1a(uint64_t h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * FNV_PRIME;
	return h;
}

/* Past n fields separated by blanks, at the next one (or the end). */
static const char *skip_fields(const char *s, int n)
{
	while (n--) {
		while (*s == ' ' || *s == '\t')
			s++;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n')
			s++;
	}
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * A maps line of a file's that can run code: its permissions (the second
 * field) allow it, and it has an inode (the fifth, read by hand: sscanf
 * was most of the look's CPU in the recorder). Anonymous code (a JIT's,
 * or valgrind's translations) is no library, and would move the digest
 * while no file came.
 */
static int executable(const char *line)
{
	const char *perms = strchr(line, ' ');
	const char *inode;

	if (!perms || strlen(perms) <= 4 || perms[3] != 'x')
		return 0;
	inode = skip_fields(line, 4);
	while (*inode == '0')
		inode++;
	return *inode >= '1' && *inode <= '9';
}

int maps_digest_file(FILE *f, uint64_t *out)
{
	char line[PATH_MAX + 128];
	uint64_t h = FNV_OFFSET;
	int in_line = 0, keep = 0;

	rewind(f);
	/* a line longer than the buffer comes in pieces: the first decides */
	while (fgets(line, sizeof(line), f)) {
		if (!in_line)
			keep = executable(line);
		if (keep)
			h = fnv1a(h, line);
		in_line = !strchr(line, '\n');
	}
	if (ferror(f))
		return -EIO;
	*out = h;
	return 0;
}

int maps_digest(pid_t pid, uint64_t *out)
{
	char maps[64];
	FILE *f;
	int err;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	err = maps_digest_file(f, out);
	fclose(f);
	return err;
}
