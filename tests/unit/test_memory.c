// SPDX-License-Identifier: BSD-3-Clause
/*
 * record --allocations in the collector, the writer and report --memory,
 * fed synthetic records: an allocation belongs to the instruction current
 * when it was made and to the run of its thread; the ETDump leaves it out
 * unless asked; peaks are per run.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collect/collector.h"
#include "read/etdump_reader.h"
#include "schema/etdump_record.h"
#include "write/etdump_writer.h"
#include "report/report_memory.h"
#include "testlib.h"

static uint64_t clock_ns = 1000;

static void hdr(struct etdump_rec_hdr *h, uint8_t type, uint16_t size)
{
	h->type = type;
	h->size = size;
	h->pid = 42;
	h->tid = 42;
	h->ts = clock_ns;
	clock_ns += 10;
}

static void block(struct collector *c, const char *name)
{
	struct etdump_rec_block r = { 0 };

	hdr(&r.hdr, ETDUMP_REC_BLOCK, sizeof(r));
	r.name_len = strlen(name);
	memcpy(r.name, name, r.name_len);
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
}

static void scope(struct collector *c, uint8_t type, const char *name)
{
	struct etdump_rec_begin b = { 0 };
	struct etdump_rec_end e = { 0 };

	if (type == ETDUMP_REC_PROFILE_BEGIN) {
		hdr(&b.hdr, type, sizeof(b));
		b.token = (uintptr_t)name;
		b.chain = -1;
		b.id_int = -1;
		b.name_len = strlen(name);
		memcpy(b.name, name, b.name_len);
		CHECK_EQ_INT(collector_feed(c, &b, sizeof(b)), 0);
	} else {
		hdr(&e.hdr, type, sizeof(e));
		e.token = (uintptr_t)name;
		CHECK_EQ_INT(collector_feed(c, &e, sizeof(e)), 0);
	}
}

static void instruction(struct collector *c, int chain, int instr)
{
	struct etdump_rec_instruction r = { 0 };

	hdr(&r.hdr, ETDUMP_REC_INSTRUCTION, sizeof(r));
	r.chain = chain;
	r.instr = instr;
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
}

static void allocation(struct collector *c, int id, uint64_t size)
{
	struct etdump_rec_allocation r = { 0 };

	hdr(&r.hdr, ETDUMP_REC_ALLOCATION, sizeof(r));
	r.allocator_id = id;
	r.size = size;
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
}

static void allocator(struct collector *c, int id, const char *name)
{
	struct etdump_rec_allocator r = { 0 };

	hdr(&r.hdr, ETDUMP_REC_ALLOCATOR, sizeof(r));
	r.allocator_id = id;
	r.name_len = strlen(name);
	memcpy(r.name, name, r.name_len);
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
}

/* One Execute run: instruction 0 allocates `a` bytes in its kernel. */
static void execute(struct collector *c, uint64_t a)
{
	block(c, "Execute");
	scope(c, ETDUMP_REC_PROFILE_BEGIN, "Method::execute");
	instruction(c, 0, 0);
	scope(c, ETDUMP_REC_PROFILE_BEGIN, "native_call_mul.out");
	allocation(c, 2, a);
	scope(c, ETDUMP_REC_PROFILE_END, "native_call_mul.out");
	instruction(c, -1, 0);
	scope(c, ETDUMP_REC_PROFILE_END, "Method::execute");
}

static char *squeezed_report(const char *path)
{
	char *text = NULL, *s, *o;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CHECK_EQ_INT(report_memory(f, path), 0);
	fclose(f);
	for (s = o = text; *s; s++)
		if (*s != ' ' || o == text || o[-1] != ' ')
			*o++ = *s;
	*o = 0;
	return text;
}

TEST(allocations_by_allocator_run_and_operator)
{
	char dir[] = "/tmp/test_memory.XXXXXX", path[64], *kept = NULL, *text;
	struct collector *c = collector_new();
	struct collector_stats st;
	struct etd_dump d = { 0 }, back = { 0 };
	char err[256];
	size_t i, n = 0;

	CHECK(mkdtemp(dir));
	allocator(c, 1, "method");
	allocator(c, 2, "temp");
	block(c, "Default");
	scope(c, ETDUMP_REC_PROFILE_BEGIN, "Method::init");
	allocation(c, 1, 1000);
	allocation(c, 1, 24);
	scope(c, ETDUMP_REC_PROFILE_END, "Method::init");
	execute(c, 64);
	execute(c, 96);
	CHECK_EQ_INT(collector_finish(c, &d, &st), 0);
	CHECK_EQ_INT(st.allocations, 4);
	CHECK_EQ_INT(st.events, 1 + 2 * 2); /* allocations are not events */
	CHECK_EQ_INT(d.nruns, 3);
	/* the collector knows the instruction state at the allocation */
	if (d.nruns == 3 && d.runs[1].nevents == 3) {
		CHECK_EQ_INT(d.runs[1].events[0].kind, ETD_ALLOCATION);
		CHECK_EQ_INT(d.runs[1].events[0].chain_index, 0);
		CHECK_EQ_INT(d.runs[1].events[0].instruction_id, 0);
		CHECK_EQ_INT(d.runs[1].events[0].allocation_size, 64);
	}

	/* left out: the file holds only the Inspector's events */
	snprintf(path, sizeof(path), "%s/m.etdp", dir);
	d.allocations = ETD_ALLOCATIONS_LEAVE_OUT;
	CHECK_EQ_INT(etdump_write_file(&d, path, true, &kept), 0);
	CHECK_EQ_INT(etdump_read_file(path, &back, err, sizeof(err)), 0);
	for (i = 0; i < back.nruns; i++)
		n += back.runs[i].nevents;
	CHECK_EQ_INT(n, 5);
	CHECK(back.nruns && back.runs[0].nallocators == 2 &&
	      !strcmp(back.runs[0].allocators[1], "temp"));
	etd_dump_free(&back);

	d.allocations = ETD_ALLOCATIONS_WRITE;
	CHECK_EQ_INT(etdump_write_file(&d, path, true, &kept), 0);
	text = squeezed_report(path);
	/* per allocator: count, bytes, largest, peak, its run */
	CHECK(strstr(text, "\n 1 method 2 1024 1000 1024 1 (Default)\n"));
	CHECK(strstr(text, "\n 2 temp 2 160 96 96 3 (Execute)\n"));
	/* per run */
	CHECK(strstr(text, "\n 2 Execute 2 temp 1 64\n"));
	/*
	 * per operator, from the ETDump's order (it has no instruction
	 * field): the kernel of instruction 0, its largest run
	 */
	CHECK(strstr(text, "\n 0 0 native_call_mul.out 2 2 160 96\n"));
	CHECK(strstr(text, "\n -1 0 (outside instructions) 1 2 1024 1024\n"));
	if (testlib_failed_checks)
		printf("%s", text);
	free(text);
	unlink(path);
	rmdir(dir);
	etd_dump_free(&d);
	collector_free(c);
}

int main(void)
{
	RUN(allocations_by_allocator_run_and_operator);
	return TEST_SUMMARY();
}
