// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "timings.h"

uint64_t timings_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void timings_add(struct timings *t, const struct timing *row)
{
	if (t->len == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct timing *rows = realloc(t->rows, cap * sizeof(*rows));

		/* a partial file would mislead the test reading it */
		if (!rows) {
			fprintf(stderr, "example-runtime: out of memory for --timings\n");
			exit(1);
		}
		t->rows = rows;
		t->cap = cap;
	}
	t->rows[t->len++] = *row;
}

static void write_row(FILE *f, long tid, const struct timing *r)
{
	fprintf(f, "%ld\t%d\t", tid, r->run);
	if (r->name)
		fputs(r->name, f);
	else
		fprintf(f, "%lld", r->id);
	fprintf(f, "\t%lld\t%lld\t%llu\t%llu\n", r->chain, r->instr,
		(unsigned long long)r->start_ns, (unsigned long long)r->end_ns);
}

int timings_write(const char *path, const struct timings *logs, int n)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -1;
	fputs("tid\trun\tname\tchain\tinstr\tstart_ns\tend_ns\n", f);
	for (int i = 0; i < n; i++)
		for (size_t j = 0; j < logs[i].len; j++)
			write_row(f, logs[i].tid, &logs[i].rows[j]);
	err = ferror(f) ? EIO : 0;
	if (fclose(f) && !err)
		err = errno;
	errno = err;
	return err ? -1 : 0;
}
