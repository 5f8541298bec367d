// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collect/collector.h"
#include "convert/raw_replay.h"
#include "lib/file_io.h"
#include "lib/log.h"
#include "read/etdump_reader.h"
#include "read/raw_reader.h"
#include "report/report_memory.h"
#include "schema/raw_format.h"

/* What one allocator, or one operator of one allocator, handed out. */
struct tally {
	int32_t allocator;
	int64_t chain;          /* operators only */
	int32_t instr;
	const char *op;
	uint64_t count;         /* allocations, over the recording */
	uint64_t bytes;
	uint64_t largest;       /* one allocation */
	uint64_t peak;          /* the most in one run */
	size_t peak_run;
	uint64_t in_run;        /* the run being counted */
};

struct tallies {
	struct tally *v;
	size_t n;
};

static struct tally *tally_get(struct tallies *t, int32_t allocator,
			       int64_t chain, int32_t instr)
{
	struct tally *p;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].allocator == allocator && t->v[i].chain == chain &&
		    t->v[i].instr == instr)
			return &t->v[i];
	p = realloc(t->v, (t->n + 1) * sizeof(*p));
	if (!p)
		return NULL;
	t->v = p;
	p = &t->v[t->n++];
	memset(p, 0, sizeof(*p));
	p->allocator = allocator;
	p->chain = chain;
	p->instr = instr;
	return p;
}

static void tally_add(struct tally *t, uint64_t size)
{
	t->count++;
	t->bytes += size;
	t->in_run += size;
	t->largest = size > t->largest ? size : t->largest;
}

/* A run ended: what each tally handed out in it may be its peak. */
static void tally_close_run(struct tallies *t, size_t run)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (t->v[i].in_run > t->v[i].peak) {
			t->v[i].peak = t->v[i].in_run;
			t->v[i].peak_run = run;
		}
		t->v[i].in_run = 0;
	}
}

/* The operator of an instruction: its first named scope in the run. */
static const char *operator_name(const struct etd_run *run, int64_t chain,
				 int32_t instr)
{
	size_t i;

	if (chain == -1)
		return "(outside instructions)";
	for (i = 0; i < run->nevents; i++) {
		const struct etd_event *e = &run->events[i];

		if (e->kind == ETD_PROFILE && e->chain_index == chain &&
		    e->instruction_id == instr && e->name &&
		    !strstr(e->name, "OPERATOR_CALL"))
			return e->name;
	}
	return NULL;
}

static const char *allocator_name(const struct etd_dump *d, int32_t id)
{
	size_t i;

	for (i = 0; i < d->nruns; i++)
		if (id >= 1 && (uint32_t)id <= d->runs[i].nallocators &&
		    d->runs[i].allocators[id - 1])
			return d->runs[i].allocators[id - 1];
	return "";
}

/*
 * Where an allocation was made. The collector knows the instruction state;
 * an ETDump's AllocationEvent has no such field (instruction_id reads -1),
 * but sits where it was made among events written when their scope ends:
 * the next profile event is the scope around it, or the one after it.
 */
static void allocation_place(const struct etd_run *run, size_t at,
			     int64_t *chain, int32_t *instr)
{
	const struct etd_event *e = &run->events[at];
	size_t i;

	*chain = e->chain_index;
	*instr = e->instruction_id;
	if (*instr != -1)
		return;
	*chain = -1;
	*instr = 0;
	for (i = at + 1; i < run->nevents; i++) {
		if (run->events[i].kind == ETD_PROFILE) {
			*chain = run->events[i].chain_index;
			*instr = run->events[i].instruction_id;
			return;
		}
	}
}

static int tally_dump(const struct etd_dump *d, struct tallies *alloc,
		      struct tallies *ops)
{
	struct tally *a, *o;
	int64_t chain;
	int32_t instr;
	size_t i, j;

	for (i = 0; i < d->nruns; i++) {
		const struct etd_run *run = &d->runs[i];

		for (j = 0; j < run->nevents; j++) {
			const struct etd_event *e = &run->events[j];

			if (e->kind != ETD_ALLOCATION)
				continue;
			allocation_place(run, j, &chain, &instr);
			a = tally_get(alloc, e->allocator_id, 0, 0);
			o = ops ? tally_get(ops, e->allocator_id, chain, instr) :
				  NULL;
			if (!a || (ops && !o))
				return -ENOMEM;
			tally_add(a, e->allocation_size);
			if (!o)
				continue;
			tally_add(o, e->allocation_size);
			if (!o->op)
				o->op = operator_name(run, chain, instr);
		}
		tally_close_run(alloc, i);
		if (ops)
			tally_close_run(ops, i);
	}
	return 0;
}

void memory_summary(const struct etd_dump *dump)
{
	struct tallies alloc = { 0 };
	size_t i;

	if (tally_dump(dump, &alloc, NULL) || !alloc.n)
		p_info("memory: no allocation reported (the runtime calls track_allocation?)");
	for (i = 0; i < alloc.n; i++) {
		const struct tally *t = &alloc.v[i];

		p_info("memory: allocator %d %s: %llu allocations, %llu bytes; at most %llu bytes in one run (%s, run %zu)",
		       t->allocator, allocator_name(dump, t->allocator),
		       (unsigned long long)t->count,
		       (unsigned long long)t->bytes,
		       (unsigned long long)t->peak,
		       dump->runs[t->peak_run].name ? dump->runs[t->peak_run].name : "",
		       t->peak_run + 1);
	}
	free(alloc.v);
}

static void print_runs(FILE *f, const struct etd_dump *d)
{
	size_t i, j;

	fprintf(f, "\nper execution (run)\n%4s  %-10s %9s %-20s %12s %12s\n",
		"run", "block", "allocator", "", "allocations", "bytes");
	for (i = 0; i < d->nruns; i++) {
		struct tallies t = { 0 };

		for (j = 0; j < d->runs[i].nevents; j++) {
			const struct etd_event *e = &d->runs[i].events[j];
			struct tally *a;

			if (e->kind != ETD_ALLOCATION)
				continue;
			a = tally_get(&t, e->allocator_id, 0, 0);
			if (a)
				tally_add(a, e->allocation_size);
		}
		for (j = 0; j < t.n; j++)
			fprintf(f, "%4zu  %-10s %9d %-20s %12llu %12llu\n", i + 1,
				d->runs[i].name ? d->runs[i].name : "",
				t.v[j].allocator,
				allocator_name(d, t.v[j].allocator),
				(unsigned long long)t.v[j].count,
				(unsigned long long)t.v[j].bytes);
		free(t.v);
	}
}

static int print_report(FILE *f, const struct etd_dump *d, const char *path)
{
	struct tallies alloc = { 0 }, ops = { 0 };
	size_t i;
	int err;

	err = tally_dump(d, &alloc, &ops);
	if (err)
		goto out;
	if (!alloc.n) {
		fprintf(f, "no allocation in %s (record --allocations, with a runtime that calls track_allocation)\n",
			path);
		goto out;
	}
	fprintf(f, "per allocator\n%9s %-20s %12s %12s %12s %12s  %s\n",
		"allocator", "", "allocations", "bytes", "largest",
		"peak bytes", "peak in run");
	for (i = 0; i < alloc.n; i++) {
		const struct tally *t = &alloc.v[i];

		fprintf(f, "%9d %-20s %12llu %12llu %12llu %12llu  %zu (%s)\n",
			t->allocator, allocator_name(d, t->allocator),
			(unsigned long long)t->count,
			(unsigned long long)t->bytes,
			(unsigned long long)t->largest,
			(unsigned long long)t->peak, t->peak_run + 1,
			d->runs[t->peak_run].name ? d->runs[t->peak_run].name : "");
	}
	print_runs(f, d);
	fprintf(f, "\nper operator (the instruction current at the allocation)\n"
		"%5s %5s  %-40s %9s %12s %12s %12s\n", "chain", "instr",
		"operator", "allocator", "allocations", "bytes", "peak bytes");
	for (i = 0; i < ops.n; i++) {
		const struct tally *t = &ops.v[i];

		fprintf(f, "%5lld %5d  %-40s %9d %12llu %12llu %12llu\n",
			(long long)t->chain, t->instr, t->op ? t->op : "-",
			t->allocator, (unsigned long long)t->count,
			(unsigned long long)t->bytes,
			(unsigned long long)t->peak);
	}
out:
	free(alloc.v);
	free(ops.v);
	return err;
}

/* A raw capture, replayed as convert does, or an ETDump. */
static int load(const char *path, struct etd_dump *d)
{
	char magic[RAW_MAGIC_LEN] = { 0 }, err[512];
	struct collector_stats st;
	struct raw_reader *r = NULL;
	struct collector *col;
	int fd, ret;
	ssize_t n;

	fd = file_open_regular(path);
	if (fd < 0) {
		p_err("%s: cannot read: %s", path, strerror(-fd));
		return fd;
	}
	n = read(fd, magic, sizeof(magic));
	close(fd);
	if (n != RAW_MAGIC_LEN || memcmp(magic, RAW_MAGIC, RAW_MAGIC_LEN)) {
		ret = etdump_read_file(path, d, err, sizeof(err));
		if (ret)
			p_err("%s: %s", path, err);
		return ret;
	}
	ret = raw_reader_open(&r, path, err, sizeof(err));
	if (ret) {
		p_err("%s: %s", path, err);
		return ret;
	}
	col = collector_new();
	ret = col ? raw_replay(r, col, NULL, NULL) : -ENOMEM;
	if (!ret)
		ret = collector_finish(col, d, &st);
	if (ret)
		p_err("%s: %s", path, strerror(-ret));
	collector_free(col);
	raw_reader_free(r);
	return ret;
}

int report_memory(FILE *out, const char *path)
{
	struct etd_dump d = { 0 };
	int ret = 1;

	if (load(path, &d))
		goto out;
	if (print_report(out, &d, path)) {
		p_err("%s: %s", path, strerror(ENOMEM));
		goto out;
	}
	ret = fflush(out) || ferror(out) ? 1 : 0;
	if (ret)
		p_err("cannot write the report: %s", strerror(errno));
out:
	etd_dump_free(&d);
	return ret;
}
