// SPDX-License-Identifier: BSD-3-Clause
/*
 * The protobuf encoder byte by byte against the encodings protobuf's
 * documentation gives, then profiles it wrote read back by a real reader,
 * `go tool pprof` (Debian's golang-go, installed by make deps): a missing
 * go fails these tests, it does not skip them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dump_builder.h"
#include "write/gzip_buffer.h"
#include "write/pprof_writer.h"
#include "write/protobuf_encode.h"
#include "testlib.h"

static bool bytes_are(const struct pb_buf *b, const uint8_t *want, size_t n)
{
	return !b->failed && b->len == n && !memcmp(b->data, want, n);
}

TEST(varints)
{
	static const struct { uint64_t v; uint8_t bytes[10]; size_t n; } cases[] = {
		{ 0, { 0x00 }, 1 },
		{ 1, { 0x01 }, 1 },
		{ 127, { 0x7f }, 1 },
		{ 128, { 0x80, 0x01 }, 2 },
		{ 150, { 0x96, 0x01 }, 2 },
		{ 300, { 0xac, 0x02 }, 2 },
		{ 1ull << 63, { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
				0x80, 0x01 }, 10 },
		{ UINT64_MAX, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				0xff, 0x01 }, 10 },
	};
	struct pb_buf b = { 0 };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pb_reset(&b);
		pb_varint(&b, cases[i].v);
		CHECK(bytes_are(&b, cases[i].bytes, cases[i].n));
		CHECK_EQ_INT(pb_varint_size(cases[i].v), cases[i].n);
	}
	pb_free(&b);
}

TEST(fields)
{
	/* protobuf's encoding guide: 150 in field 1, "testing" in field 2 */
	static const uint8_t int150[] = { 0x08, 0x96, 0x01 };
	static const uint8_t testing[] = { 0x12, 0x07, 't', 'e', 's', 't',
					   'i', 'n', 'g' };
	/* and a packed repeated field 4 of 3, 270, 86942 */
	static const uint8_t packed[] = { 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e,
					  0xa7, 0x05 };
	/* int64 -1: ten bytes, not zigzag */
	static const uint8_t minus1[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
					  0xff, 0xff, 0xff, 0xff, 0x01 };
	/* field 3 holding a message with 150 in field 1 */
	static const uint8_t nested[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };
	/* field 16 needs a tag of two bytes */
	static const uint8_t field16[] = { 0x80, 0x01, 0x01 };
	static const uint64_t list[] = { 3, 270, 86942 };
	struct pb_buf b = { 0 }, m = { 0 };

	pb_uint64(&b, 1, 150);
	CHECK(bytes_are(&b, int150, sizeof(int150)));
	pb_reset(&b);
	pb_string(&b, 2, "testing");
	CHECK(bytes_are(&b, testing, sizeof(testing)));
	pb_reset(&b);
	pb_packed(&b, 4, list, 3);
	CHECK(bytes_are(&b, packed, sizeof(packed)));
	pb_reset(&b);
	pb_int64(&b, 1, -1);
	CHECK(bytes_are(&b, minus1, sizeof(minus1)));
	pb_reset(&b);
	pb_uint64(&m, 1, 150);
	pb_message(&b, 3, &m);
	CHECK(bytes_are(&b, nested, sizeof(nested)));
	pb_reset(&b);
	pb_bool(&b, 16, true);
	CHECK(bytes_are(&b, field16, sizeof(field16)));
	pb_free(&b);
	pb_free(&m);
}

TEST(failure_is_sticky)
{
	struct pb_buf b = { 0 }, m = { .failed = true };

	pb_message(&b, 1, &m);
	CHECK(b.failed);
	pb_uint64(&b, 1, 1);
	CHECK_EQ_INT(b.len, 0);
	pb_free(&b);
}

/* A file of bytes, its name in path (a template of mkstemp). */
static bool write_temp(char *path, const void *p, size_t n)
{
	int fd = mkstemp(path);
	bool ok = fd >= 0 && write(fd, p, n) == (ssize_t)n;

	if (fd >= 0)
		close(fd);
	return ok;
}

/* What `go tool pprof ARGS FILE` prints, malloc'd; NULL if it failed. */
static char *pprof_output(const char *args, const char *path)
{
	char cmd[512], *out = NULL;
	size_t len = 0;
	FILE *p, *f;
	int c;

	snprintf(cmd, sizeof(cmd), "go tool pprof %s %s 2>&1", args, path);
	p = popen(cmd, "r");
	f = open_memstream(&out, &len);
	if (!p || !f) {
		if (p)
			pclose(p);
		if (f)
			fclose(f);
		free(out);
		return NULL;
	}
	while ((c = fgetc(p)) != EOF)
		fputc(c, f);
	fclose(f);
	if (pclose(p)) {
		printf("    go tool pprof %s: %s\n", args, out);
		free(out);
		return NULL;
	}
	return out;
}

/*
 * The flat and cum of name's row in pprof -top's output (numbers with an
 * optional unit: "200ns", "8").
 */
static void check_row_at(const char *out, const char *name, long long flat,
			 long long cum, int line)
{
	char want[128];
	const char *end, *row;
	long long f = -1, c = -1;
	char pf[16], sum[16];

	snprintf(want, sizeof(want), "  %s\n", name);
	end = strstr(out, want);
	if (end) {
		for (row = end; row > out && row[-1] != '\n'; row--)
			;
		if (sscanf(row, "%lld%*[a-z] %15s %15s %lld", &f, pf, sum,
			   &c) != 4 &&
		    sscanf(row, "%lld %15s %15s %lld", &f, pf, sum, &c) != 4)
			f = c = -1;
	}
	if (f != flat || c != cum) {
		printf("    line %d: %s: flat %lld cum %lld, expected %lld %lld\n",
		       line, name, f, c, flat, cum);
		testlib_failed_checks++;
	}
}
#define check_row(out, name, flat, cum) \
	check_row_at(out, name, flat, cum, __LINE__)

enum { STR_EMPTY, STR_EVENTS, STR_COUNT, STR_WALL, STR_NS, STR_F, STR_G,
       STR_KEY, STR_VALUE, STR_NOTE };

/*
 * A profile put together field by field (not by pprof_writer.c), with
 * values only a correct varint gives back: 2^40 and a negative one.
 */
static void hand_made(struct pb_buf *p)
{
	static const char *const strs[] = { "", "events", "count", "wall",
		"nanoseconds", "f_leaf", "g_root", "key", "value",
		"a comment" };
	struct pb_buf m = { 0 }, l = { 0 };
	uint64_t locs[] = { 1, 2 }, vals[] = { 3, 1ull << 40 };
	uint64_t neg[] = { 1, (uint64_t)-5 };
	size_t i;

	for (i = STR_EVENTS; i <= STR_WALL; i += 2) {
		pb_reset(&m);
		pb_int64(&m, 1, (int64_t)i);
		pb_int64(&m, 2, (int64_t)i + 1);
		pb_message(p, 1, &m);
	}
	pb_reset(&m);
	pb_packed(&m, 1, locs, 2);
	pb_packed(&m, 2, vals, 2);
	pb_int64(&l, 1, STR_KEY);
	pb_int64(&l, 2, STR_VALUE);
	pb_message(&m, 3, &l);
	pb_message(p, 2, &m);
	pb_reset(&m);
	pb_packed(&m, 1, locs + 1, 1);
	pb_packed(&m, 2, neg, 2);
	pb_message(p, 2, &m);
	for (i = 1; i <= 2; i++) {
		pb_reset(&m);
		pb_uint64(&m, 1, i);
		pb_reset(&l);
		pb_uint64(&l, 1, i);
		pb_message(&m, 4, &l);
		pb_message(p, 4, &m);
		pb_reset(&m);
		pb_uint64(&m, 1, i);
		pb_int64(&m, 2, STR_F + (int64_t)i - 1);
		pb_message(p, 5, &m);
	}
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		pb_string(p, 6, strs[i]);
	pb_int64(p, 13, STR_NOTE);
	pb_free(&m);
	pb_free(&l);
}

TEST(go_pprof_reads_what_the_encoder_wrote)
{
	char path[] = "/tmp/test_pprof_XXXXXX";
	struct pb_buf p = { 0 };
	uint8_t *gz = NULL;
	size_t gzlen = 0;
	char *out;

	hand_made(&p);
	CHECK(!p.failed);
	CHECK(!gzip_buffer(p.data, p.len, &gz, &gzlen));
	CHECK(write_temp(path, gz, gzlen));
	out = pprof_output("-raw", path);
	CHECK(out != NULL);
	if (out) {
		CHECK(strstr(out, "Comment: a comment\n") != NULL);
		CHECK(strstr(out, "events/count wall/nanoseconds\n") != NULL);
		CHECK(strstr(out, "3 1099511627776: 1 2 \n") != NULL);
		CHECK(strstr(out, "key:[value]") != NULL);
		CHECK(strstr(out, "1         -5: 2 \n") != NULL);
		CHECK(strstr(out, "1: 0x0 M=1 f_leaf :0") != NULL);
		CHECK(strstr(out, "2: 0x0 M=1 g_root :0") != NULL);
	}
	free(out);
	unlink(path);
	free(gz);
	pb_free(&p);
}

/*
 * Two runs of Method::execute > OPERATOR_CALL > kernel, a delegate's
 * event under DELEGATE_CALL, one counter: go tool pprof's flat and cum.
 */
static void small_dump(struct etd_dump *d)
{
	struct etd_event *ev;
	int r;

	d->counter_names[0] = db_strdup("page-faults");
	d->ncounters = 1;
	for (r = 0; r < 2; r++) {
		struct etd_run *run = db_run(d, "Execute");
		uint64_t t = 1000000 * (uint64_t)(r + 1);

		run->tid = 7;
		run->open_time = t;
		ev = db_profile(run, "native_call_add.out", 0, 0, t + 20,
				t + 120);
		ev->counters.n = 1;
		ev->counters.valid[0] = true;
		ev->counters.value[0] = 4;
		ev = db_profile(run, "OPERATOR_CALL", 0, 0, t + 10, t + 130);
		ev->counters.n = 1;
		ev->counters.valid[0] = true;
		ev->counters.value[0] = 5;
		db_profile(run, "DELEGATE_CALL", 0, 1, t + 200, t + 400);
		db_delegate(run, "Add (ND) #1", -1, 1, t + 250, t + 300);
		db_profile(run, "Method::execute", 0, -1, t, t + 500);
	}
}

TEST(profile_of_a_dump)
{
	char path[] = "/tmp/test_pprof_XXXXXX";
	struct etd_dump d = { 0 };
	struct pprof_source src = { .input = "small.etdp" };
	uint8_t *buf = NULL;
	size_t len = 0;
	char *out;

	small_dump(&d);
	CHECK(!pprof_write(&d, &src, &buf, &len));
	CHECK(write_temp(path, buf, len));
	out = pprof_output("-top -unit=ns -nodefraction=0", path);
	CHECK(out != NULL);
	if (out) {
		/* flat = own time, cum = the summed durations */
		CHECK(strstr(out, "Type: wall\n") != NULL);
		CHECK(strstr(out, "Duration: 1ms,") != NULL);
		check_row(out, "native_call_add.out", 200, 200);
		check_row(out, "OPERATOR_CALL instruction 0", 40, 240);
		check_row(out, "Add (ND) #1", 100, 100);
		check_row(out, "DELEGATE_CALL instruction 1", 300, 400);
		check_row(out, "Method::execute", 360, 1000);
		check_row(out, "Execute", 0, 1000);
	}
	free(out);
	out = pprof_output("-top -sample_index=page-faults", path);
	CHECK(out != NULL);
	/* the kernel's own 4, OPERATOR_CALL's 5 - 4 */
	if (out) {
		check_row(out, "native_call_add.out", 8, 8);
		check_row(out, "OPERATOR_CALL instruction 0", 2, 10);
	}
	free(out);
	out = pprof_output("-tags", path);
	CHECK(out != NULL);
	if (out) {
		CHECK(strstr(out, "Execute") != NULL);
		CHECK(strstr(out, "thread 7") != NULL);
		CHECK(strstr(out, "): 1\n") != NULL);
		CHECK(strstr(out, "): 2\n") != NULL);
	}
	free(out);
	unlink(path);
	free(buf);
	etd_dump_free(&d);
}

int main(void)
{
	RUN(varints);
	RUN(fields);
	RUN(failure_is_sticky);
	RUN(go_pprof_reads_what_the_encoder_wrote);
	RUN(profile_of_a_dump);
	return TEST_SUMMARY();
}
