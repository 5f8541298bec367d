// SPDX-License-Identifier: BSD-3-Clause
/*
 * The reader on ExecuTorch's own files (values checked against flatc's
 * decoding of them), read-write-read round trips, and on every truncation
 * and many corruptions of them: an error with a message, never a crash
 * (run under `make SAN=1` to prove it).
 *
 * usage: test_etdump_reader [REPO_ROOT]; the fixtures are read from
 * $ETDUMP_FIXTURES, else tests/fixtures from the repository root.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "read/etdump_reader.h"
#include "write/etdump_writer.h"
#include "write/fb_builder.h"
#include "read/fb_reader.h"
#include "testlib.h"

static const char *const fixtures[] = {
	"executorch-tutorial.etdp",
	"executorch-add.etdp",
	"executorch-add-x3.etdp",
	"executorch-linear.etdp",
	"executorch-linear-intermediates.etdp",
	"executorch-linear-outputs.etdp",
};
#define NFIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

/* the repository, whose tests/fixtures are ExecuTorch's files */
static const char *root = ".";

static uint8_t *load_fixture(const char *name, size_t *len)
{
	const char *dir = getenv("ETDUMP_FIXTURES");
	char path[4096];
	void *buf = NULL;

	if (dir)
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	else
		snprintf(path, sizeof(path), "%s/tests/fixtures/%s", root,
			 name);
	/* every case after this one needs it: stop, do not crash */
	if (etdump_load_file(path, &buf, len)) {
		printf("FAIL - fixture %s cannot be read\n", path);
		exit(1);
	}
	return buf;
}

/* Read a fixture into d; the caller frees it. */
static void read_fixture(const char *name, struct etd_dump *d)
{
	char err[256] = "";
	uint8_t *buf;
	size_t len;

	buf = load_fixture(name, &len);
	CHECK_EQ_INT(etdump_read(buf, len, d, err, sizeof(err)), 0);
	if (*err)
		printf("    %s: %s\n", name, err);
	free(buf);
}

static void check_profile(const struct etd_event *ev, const char *name,
			  int chain, int instr, uint64_t start, uint64_t end)
{
	CHECK_EQ_INT(ev->kind, ETD_PROFILE);
	CHECK_EQ_STR(ev->name, name);
	CHECK_EQ_INT(ev->chain_index, chain);
	CHECK_EQ_INT(ev->instruction_id, instr);
	CHECK_EQ_INT(ev->delegate_id_int, -1);
	CHECK(ev->delegate_id_str == NULL);
	CHECK(!ev->has_metadata);
	CHECK_EQ_INT(ev->start_time, start);
	CHECK_EQ_INT(ev->end_time, end);
}

static size_t count_kind(const struct etd_dump *d, enum etd_event_kind kind)
{
	size_t i, j, n = 0;

	for (i = 0; i < d->nruns; i++)
		for (j = 0; j < d->runs[i].nevents; j++)
			n += d->runs[i].events[j].kind == kind;
	return n;
}

TEST(tutorial_fixture)
{
	struct etd_dump d;
	struct etd_run *run;

	read_fixture("executorch-tutorial.etdp", &d);
	CHECK_EQ_INT(d.version, 0);
	CHECK_EQ_INT(d.nruns, 2);
	if (d.nruns != 2)
		goto out;
	CHECK_EQ_STR(d.runs[0].name, "Default");
	CHECK_EQ_STR(d.runs[1].name, "Execute");
	CHECK_EQ_INT(d.runs[0].bundled_input_index, -1);
	CHECK_EQ_INT(d.runs[0].nallocators, 0);
	CHECK_EQ_INT(count_kind(&d, ETD_PROFILE), 31);
	CHECK_EQ_INT(count_kind(&d, ETD_DEBUG), 0);
	CHECK_EQ_INT(d.runs[0].nevents, 2);
	CHECK_EQ_INT(d.runs[1].nevents, 29);
	check_profile(&d.runs[0].events[0], "Method::init", -1, 0, 399054,
		      421538);
	check_profile(&d.runs[0].events[1], "Program::load_method", -1, 0,
		      398073, 422930);
	run = &d.runs[1];
	check_profile(&run->events[0], "native_call_convolution.out", 0, 0,
		      426786, 971569);
	check_profile(&run->events[1], "OPERATOR_CALL", 0, 0, 425624, 972440);
	check_profile(&run->events[2], "native_call_relu.out", 0, 1, 973071,
		      981465);
	check_profile(&run->events[27], "OPERATOR_CALL", 0, 13, 2323163,
		      2324004);
	check_profile(&run->events[28], "Method::execute", -1, 0, 425313,
		      2324134);
out:
	etd_dump_free(&d);
}

TEST(runtime_fixtures)
{
	const char *const names[] = { "Default", "Execute", "Execute",
				      "Execute" };
	struct etd_dump d;
	size_t i;

	read_fixture("executorch-add.etdp", &d);
	CHECK(d.nruns == 2 && d.runs[1].nevents == 3);
	if (d.nruns == 2 && d.runs[1].nevents == 3) {
		CHECK_EQ_STR(d.runs[1].events[0].name, "native_call_add.out");
		CHECK_EQ_STR(d.runs[1].events[2].name, "Method::execute");
	}
	etd_dump_free(&d);

	read_fixture("executorch-add-x3.etdp", &d);
	CHECK_EQ_INT(d.nruns, 4);
	for (i = 0; i < d.nruns && i < 4; i++) {
		CHECK_EQ_STR(d.runs[i].name, names[i]);
		CHECK_EQ_INT(d.runs[i].nevents, i ? 3 : 2);
	}
	if (d.nruns == 4)
		check_profile(&d.runs[2].events[0], "native_call_add.out", 0,
			      0, 301868, 302058);
	etd_dump_free(&d);

	read_fixture("executorch-linear.etdp", &d);
	CHECK(d.nruns == 2 && d.runs[1].nevents == 5);
	if (d.nruns == 2 && d.runs[1].nevents == 5) {
		CHECK_EQ_STR(d.runs[1].events[0].name, "native_call_mul.out");
		CHECK_EQ_STR(d.runs[1].events[2].name, "native_call_add.out");
		CHECK_EQ_INT(d.runs[1].events[2].instruction_id, 1);
	}
	etd_dump_free(&d);
}

static void check_tensor_event(const struct etd_event *ev, uint64_t chain,
			       int instr, int64_t offset, bool output)
{
	const struct etd_tensor *t;

	CHECK_EQ_INT(ev->kind, ETD_DEBUG);
	CHECK(ev->debug_chain_index == chain);
	CHECK_EQ_INT(ev->instruction_id, instr);
	CHECK_EQ_INT(ev->delegate_id_int, -1);
	CHECK(ev->name == NULL && ev->delegate_id_str == NULL);
	CHECK(ev->debug_entry != NULL);
	if (!ev->debug_entry)
		return;
	CHECK_EQ_INT(ev->debug_entry->type, ETD_VALUE_TENSOR);
	CHECK_EQ_INT(ev->debug_entry->has_output, output);
	CHECK_EQ_INT(ev->debug_entry->output, output);
	t = &ev->debug_entry->tensor;
	CHECK_EQ_INT(t->scalar_type, 6); /* FLOAT */
	CHECK(t->nsizes == 2 && t->sizes[0] == 2 && t->sizes[1] == 2);
	CHECK(t->nstrides == 2 && t->strides[0] == 2 && t->strides[1] == 1);
	CHECK_EQ_INT(t->offset, offset);
}

TEST(debug_event_fixtures)
{
	struct etd_dump d;
	struct etd_run *run;

	read_fixture("executorch-linear-intermediates.etdp", &d);
	CHECK(d.nruns == 2 && d.runs[1].nevents == 8);
	if (d.nruns == 2 && d.runs[1].nevents == 8) {
		run = &d.runs[1];
		check_tensor_event(&run->events[0], 0, 0, 48, false);
		check_tensor_event(&run->events[3], 0, 1, 112, false);
		check_profile(&run->events[4], "native_call_add.out", 0, 1,
			      285393, 287626);
		check_tensor_event(&run->events[7], UINT64_MAX, 0, 176, true);
	}
	CHECK_EQ_INT(count_kind(&d, ETD_DEBUG), 3);
	etd_dump_free(&d);

	read_fixture("executorch-linear-outputs.etdp", &d);
	CHECK(d.nruns == 2 && d.runs[1].nevents == 6);
	if (d.nruns == 2 && d.runs[1].nevents == 6)
		check_tensor_event(&d.runs[1].events[5], UINT64_MAX, 0, 48,
				   true);
	CHECK_EQ_INT(count_kind(&d, ETD_DEBUG), 1);
	etd_dump_free(&d);
}

TEST(fixtures_round_trip)
{
	void *buf1 = NULL, *buf2 = NULL;
	struct etd_dump d1, d2;
	size_t i, len1, len2;
	char err[256];

	for (i = 0; i < NFIXTURES; i++) {
		read_fixture(fixtures[i], &d1);
		CHECK_EQ_INT(etdump_write(&d1, &buf1, &len1), 0);
		CHECK_EQ_INT(etdump_read(buf1, len1, &d2, err, sizeof(err)), 0);
		CHECK(etd_dump_equal(&d1, &d2));
		/* and the writer is deterministic */
		CHECK_EQ_INT(etdump_write(&d2, &buf2, &len2), 0);
		CHECK(len1 == len2 && !memcmp(buf1, buf2, len1));
		free(buf1);
		free(buf2);
		etd_dump_free(&d1);
		etd_dump_free(&d2);
	}
}

/* Read; either fine, or an error with a message and nothing left behind. */
static int read_anything(const uint8_t *buf, size_t len, int *errors)
{
	struct etd_dump d;
	char err[256];
	int ret;

	err[0] = 0;
	ret = etdump_read(buf, len, &d, err, sizeof(err));
	if (ret) {
		CHECK_EQ_INT(ret, -EINVAL);
		CHECK(err[0] != 0);
		CHECK(d.runs == NULL && d.nruns == 0);
		(*errors)++;
	}
	etd_dump_free(&d);
	return ret;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

TEST(every_truncation_fails_cleanly)
{
	int errors, errors_patched;
	size_t i, len, cut;
	uint8_t *buf, *copy;

	for (i = 0; i < NFIXTURES; i++) {
		buf = load_fixture(fixtures[i], &len);
		errors = errors_patched = 0;
		for (cut = 0; cut < len; cut++) {
			/* an exact-size copy, so ASan sees any overread */
			copy = malloc(cut ? cut : 1);
			memcpy(copy, buf, cut);
			CHECK(read_anything(copy, cut, &errors) != 0);
			/* a prefix that agrees gets past the header checks */
			if (cut >= 12) {
				put_le32(copy, cut - 4);
				read_anything(copy, cut, &errors_patched);
			}
			free(copy);
		}
		CHECK_EQ_INT(errors, len);
		/* the trailing padding may go, not much more */
		CHECK(errors_patched >= (int)len - 12 - 8);
		free(buf);
	}
}

/* A small deterministic generator, so failures reproduce. */
static uint32_t next_random(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

TEST(corruptions_fail_cleanly)
{
	static const uint8_t masks[] = { 0x01, 0x10, 0x80, 0xff };
	uint32_t seed = 1;
	int errors = 0;
	uint8_t *buf, *copy;
	size_t i, pos, m, n, k, len;

	for (i = 0; i < NFIXTURES; i++) {
		buf = load_fixture(fixtures[i], &len);
		copy = malloc(len);
		for (pos = 0; pos < len; pos++) {
			for (m = 0; m < sizeof(masks); m++) {
				memcpy(copy, buf, len);
				copy[pos] ^= masks[m];
				read_anything(copy, len, &errors);
			}
		}
		/* several random bytes at once */
		for (n = 0; n < 2000; n++) {
			memcpy(copy, buf, len);
			for (k = 1 + next_random(&seed) % 8; k; k--)
				copy[12 + next_random(&seed) % (len - 12)] =
					next_random(&seed);
			read_anything(copy, len, &errors);
		}
		free(copy);
		free(buf);
	}
	/* flips in the header alone give errors */
	CHECK(errors > 100);
}

static void expect_error(const uint8_t *buf, size_t len, const char *needle)
{
	struct etd_dump d;
	char err[256] = "";

	CHECK_EQ_INT(etdump_read(buf, len, &d, err, sizeof(err)), -EINVAL);
	if (!strstr(err, needle))
		printf("    message: %s\n", err);
	CHECK(strstr(err, needle) != NULL);
}

TEST(header_errors_say_what_is_wrong)
{
	uint8_t *buf, *big;
	struct etd_dump d1, d2;
	char err[256];
	size_t len;

	buf = load_fixture("executorch-add.etdp", &len);
	expect_error(buf, 5, "truncated: 5 bytes is too short");
	expect_error(buf, len - 1, "truncated: the size prefix announces 484 bytes after it but only 483 follow");
	/* without the prefix, as serialize_to_etdump_flatcc writes */
	expect_error(buf + 4, len - 4, "no size prefix");
	buf[11] = '1';
	expect_error(buf, len, "not an ETDump: the file identifier at byte 8 is \"ED01\"");
	buf[11] = '0';
	put_le32(buf, 2);
	expect_error(buf, len, "does not even cover");
	put_le32(buf, len - 4);

	/* bytes after the prefixed length are ignored */
	big = calloc(1, len + 16);
	memcpy(big, buf, len);
	CHECK_EQ_INT(etdump_read(big, len + 16, &d1, err, sizeof(err)), 0);
	CHECK_EQ_INT(etdump_read(buf, len, &d2, err, sizeof(err)), 0);
	CHECK(etd_dump_equal(&d1, &d2));
	etd_dump_free(&d1);
	etd_dump_free(&d2);
	free(big);
	free(buf);
}

TEST(corrupt_offsets_say_where)
{
	struct fb_table root, run, ev, pe;
	struct fb_vector v;
	struct fb_reader r;
	uint8_t *buf;
	size_t len, pos;

	buf = load_fixture("executorch-tutorial.etdp", &len);
	fb_reader_init(&r, buf, len);
	CHECK_EQ_INT(fb_reader_root(&r, 4, &root), 0);
	CHECK_EQ_INT(fb_read_vector(&root, ETD_SLOT_ETDUMP_RUN_DATA, 4, &v), 1);
	CHECK_EQ_INT(fb_vector_table(&v, 1, &run), 0);
	CHECK_EQ_INT(fb_read_vector(&run, ETD_SLOT_RUN_EVENTS, 4, &v), 1);
	CHECK_EQ_INT(fb_vector_table(&v, 7, &ev), 0);
	CHECK_EQ_INT(fb_read_table(&ev, ETD_SLOT_EVENT_PROFILE, &pe), 1);
	pos = fb_field_pos(&pe, ETD_SLOT_PROFILE_NAME);
	CHECK(pos != 0);
	put_le32(buf + pos, 100000);
	expect_error(buf, len, "corrupt ETDump at run_data[1].events[7].profile_event: the offset at byte");
	expect_error(buf, len, "to a string points past the end of the data");
	free(buf);
}

/* An ETDump of one run "Execute" holding the given Event tables. */
static void *dump_of_events(struct fb_builder *b, const fb_ref *events,
			    size_t n, fb_ref allocators, size_t *len)
{
	fb_ref vec, name, run;
	void *buf = NULL;

	fb_create_vector_refs(b, events, n, &vec);
	fb_create_string(b, "Execute", &name);
	fb_table_start(b);
	fb_add_ref(b, ETD_SLOT_RUN_NAME, name);
	fb_add_ref(b, ETD_SLOT_RUN_ALLOCATORS, allocators);
	fb_add_ref(b, ETD_SLOT_RUN_EVENTS, vec);
	fb_table_end(b, &run);
	fb_create_vector_refs(b, &run, 1, &vec);
	fb_table_start(b);
	fb_add_ref(b, ETD_SLOT_ETDUMP_RUN_DATA, vec);
	fb_table_end(b, &run);
	fb_finish(b, run, ETD_FILE_IDENTIFIER);
	CHECK_EQ_INT(fb_detach(b, &buf, len), 0);
	fb_builder_free(b);
	return buf;
}

TEST(allocation_events_are_read)
{
	struct fb_builder b;
	struct etd_dump d;
	fb_ref s, t, allocs;
	char err[256];
	size_t len;
	void *buf;

	fb_builder_init(&b);
	fb_create_string(&b, "pool", &s);
	fb_create_ref_table(&b, ETD_SLOT_ALLOCATOR_NAME, s, &t);
	fb_create_vector_refs(&b, &t, 1, &allocs);
	fb_table_start(&b);
	fb_add_i32(&b, ETD_SLOT_ALLOCATION_ALLOCATOR_ID, 1, 0);
	fb_add_u64(&b, ETD_SLOT_ALLOCATION_SIZE, 1 << 20, 0);
	fb_table_end(&b, &t);
	fb_create_ref_table(&b, ETD_SLOT_EVENT_ALLOCATION, t, &t);
	buf = dump_of_events(&b, &t, 1, allocs, &len);
	CHECK_EQ_INT(etdump_read(buf, len, &d, err, sizeof(err)), 0);
	CHECK(d.nruns == 1 && d.runs[0].nevents == 1);
	if (d.nruns == 1 && d.runs[0].nevents == 1) {
		CHECK_EQ_INT(d.runs[0].events[0].kind, ETD_ALLOCATION);
		CHECK_EQ_INT(d.runs[0].events[0].allocator_id, 1);
		CHECK_EQ_INT(d.runs[0].events[0].allocation_size, 1 << 20);
		CHECK_EQ_INT(d.runs[0].nallocators, 1);
		CHECK_EQ_STR(d.runs[0].allocators[0], "pool");
	}
	etd_dump_free(&d);
	free(buf);
}

TEST(broken_schema_rules_are_refused)
{
	struct fb_builder b;
	fb_ref t;
	size_t len;
	void *buf;

	/* an Event with no member */
	fb_builder_init(&b);
	fb_create_ref_table(&b, ETD_SLOT_EVENT_PROFILE, 0, &t);
	buf = dump_of_events(&b, &t, 1, 0, &len);
	expect_error(buf, len, "run_data[0].events[0]: the event has none of");
	free(buf);

	/* a Value whose type is not a ValueType */
	fb_builder_init(&b);
	fb_table_start(&b);
	fb_add_i8(&b, ETD_SLOT_VALUE_VAL, 42, 0);
	fb_table_end(&b, &t);
	fb_create_ref_table(&b, ETD_SLOT_DEBUG_ENTRY, t, &t);
	fb_create_ref_table(&b, ETD_SLOT_EVENT_DEBUG, t, &t);
	buf = dump_of_events(&b, &t, 1, 0, &len);
	expect_error(buf, len, "debug_event.debug_entry: Value.val is 42");
	free(buf);
}

TEST(shared_offsets_cannot_exhaust_memory)
{
	static uint8_t meta[1 << 16];
	enum { N = 20000 };
	struct fb_builder b;
	fb_ref t, *refs;
	size_t i, len;
	void *buf;

	/* 20000 events all naming one 64 KiB metadata vector: 1.3 GB */
	fb_builder_init(&b);
	fb_create_vector_u8(&b, meta, sizeof(meta), &t);
	fb_table_start(&b);
	fb_add_ref(&b, ETD_SLOT_PROFILE_METADATA, t);
	fb_table_end(&b, &t);
	fb_create_ref_table(&b, ETD_SLOT_EVENT_PROFILE, t, &t);
	refs = malloc(N * sizeof(*refs));
	for (i = 0; i < N; i++)
		refs[i] = t;
	buf = dump_of_events(&b, refs, N, 0, &len);
	expect_error(buf, len, "offsets are shared or looping");
	free(refs);
	free(buf);
}

TEST(read_file_errors)
{
	struct etd_dump d;
	char err[256] = "";

	CHECK_EQ_INT(etdump_read_file("/nonexistent/x.etdp", &d, err,
				      sizeof(err)), -ENOENT);
	CHECK_EQ_STR(err, "cannot read the file: No such file or directory");
	CHECK_EQ_INT(etdump_read_file("/", &d, err, sizeof(err)), -EISDIR);
	CHECK(d.runs == NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		root = argv[1];
	RUN(tutorial_fixture);
	RUN(runtime_fixtures);
	RUN(debug_event_fixtures);
	RUN(fixtures_round_trip);
	RUN(every_truncation_fails_cleanly);
	RUN(corruptions_fail_cleanly);
	RUN(header_errors_say_what_is_wrong);
	RUN(corrupt_offsets_say_where);
	RUN(allocation_events_are_read);
	RUN(broken_schema_rules_are_refused);
	RUN(shared_offsets_cannot_exhaust_memory);
	RUN(read_file_errors);
	return TEST_SUMMARY();
}
