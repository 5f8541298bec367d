// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "target/self_offset.h"

int self_offset(const void *fn, char *path, size_t len, uint64_t *offset)
{
	unsigned long long start, end, pgoff, at = (unsigned long)fn;
	char line[PATH_MAX + 256], *name;
	int ret = -ENOENT, pos;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		pos = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end,
			   &pgoff, &pos) < 3 || !pos || at < start || at >= end)
			continue;
		name = line + pos;
		name[strcspn(name, "\n")] = '\0';
		if (name[0] != '/' || strlen(name) >= len)
			break;
		strcpy(path, name);
		*offset = at - start + pgoff;
		ret = 0;
	}
	fclose(f);
	return ret;
}
