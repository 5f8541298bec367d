// SPDX-License-Identifier: BSD-3-Clause
/*
 * Raw captures: what the writer writes the reader gives back, byte for
 * byte and in order; a capture cut at any byte gives exactly its complete
 * chunks; a damaged byte anywhere stops the reading at its chunk, never
 * further, and never crashes.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>
#include "collect/collector.h"
#include "capture/counters.h"
#include "schema/etdump_record.h"
#include "write/etdump_writer.h"
#include "schema/raw_format.h"
#include "read/raw_reader.h"
#include "write/raw_writer.h"
#include "testlib.h"

#define NRECORDS 42
#define FLUSH_EVERY 7

static const char *const probes[] = { "block", "profile_begin", "profile_end" };

/* The records written, each in its own buffer. */
static struct {
	union {
		struct etdump_rec_hdr hdr;
		struct etdump_rec_block block;
		struct etdump_rec_begin begin;
		struct etdump_rec_end end;
		struct etdump_rec_instruction instr;
	} u;
	size_t len;
} recs[NRECORDS];

/* A block, then scopes opened and closed, with an instruction between. */
static void make_records(void)
{
	uint64_t ts = 1000;
	int i;

	memset(recs, 0, sizeof(recs));
	for (i = 0; i < NRECORDS; i++) {
		struct etdump_rec_hdr *h = &recs[i].u.hdr;

		h->pid = 42;
		h->tid = 42 + (i >= NRECORDS / 2);
		h->ts = ts += 10;
		if (i % (NRECORDS / 2) == 0) {
			h->type = ETDUMP_REC_BLOCK;
			recs[i].len = sizeof(struct etdump_rec_block);
			recs[i].u.block.name_len = 7;
			memcpy(recs[i].u.block.name, "Execute", 7);
		} else if (i % 3 == 1) {
			h->type = ETDUMP_REC_PROFILE_BEGIN;
			recs[i].len = sizeof(struct etdump_rec_begin);
			recs[i].u.begin.token = 0x1000 + i;
			recs[i].u.begin.chain = -1;
			recs[i].u.begin.name_len = 2;
			memcpy(recs[i].u.begin.name, "op", 2);
		} else if (i % 3 == 2) {
			h->type = ETDUMP_REC_PROFILE_END;
			/* the length the ring gives need not be the struct's */
			recs[i].len = offsetof(struct etdump_rec_end, counters);
			recs[i].u.end.token = 0x1000 + i - 1;
		} else {
			h->type = ETDUMP_REC_INSTRUCTION;
			recs[i].len = sizeof(struct etdump_rec_instruction);
			recs[i].u.instr.chain = 0;
			recs[i].u.instr.instr = i;
		}
		h->size = recs[i].len;
	}
}

/* A capture of every record, flushed every FLUSH_EVERY; its bytes. */
static uint8_t *write_capture(size_t *len, uint64_t drops)
{
	char path[] = "/tmp/test_raw.XXXXXX";
	struct raw_target t = {
		.pid = getpid(), .exe = "/opt/runtime", .probes = probes,
		.nprobes = 3,
	};
	struct counter_set set;
	struct raw_writer *w;
	struct stat st, after;
	uint8_t *buf = NULL;
	char err[128];
	FILE *f;
	int i, fd;

	CHECK_EQ_INT(counters_parse("task-clock,page-faults", &set, err,
				    sizeof(err)), 0);
	t.counters = &set;
	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	/* the file exists: only force may replace it */
	CHECK_EQ_INT(raw_writer_open(&w, path, false, &t), -EEXIST);
	CHECK_EQ_INT(raw_writer_open(&w, path, true, &t), 0);
	/* a turn with nothing new writes nothing */
	CHECK(stat(path, &st) == 0);
	CHECK_EQ_INT(raw_writer_flush(w, 0), 0);
	CHECK(stat(path, &after) == 0);
	CHECK_EQ_INT(after.st_size, st.st_size);
	for (i = 0; i < NRECORDS; i++) {
		CHECK_EQ_INT(raw_writer_append(w, &recs[i].u, recs[i].len), 0);
		if (i % FLUSH_EVERY == FLUSH_EVERY - 1)
			CHECK_EQ_INT(raw_writer_flush(w, drops * i / NRECORDS), 0);
	}
	CHECK_EQ_INT(raw_writer_finish(w, drops, "target exited"), 0);
	raw_writer_free(w);

	f = fopen(path, "rb");
	CHECK(f != NULL);
	buf = malloc(1 << 20);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	unlink(path);
	return buf;
}

/* A reader over a capture that must open. */
static struct raw_reader *open_capture(const uint8_t *buf, size_t len)
{
	struct raw_reader *r = NULL;
	char err[256];
	int ret;

	ret = raw_reader_open_mem(&r, buf, len, err, sizeof(err));
	if (ret)
		printf("    %s\n", err);
	CHECK_EQ_INT(ret, 0);
	return ret ? NULL : r;
}

/* Read every record; how many matched the originals, in order. */
static int read_all(struct raw_reader *r, int *mismatches)
{
	const void *rec;
	size_t len;
	int n = 0, ret;

	*mismatches = 0;
	while ((ret = raw_reader_next(r, &rec, &len)) > 0) {
		if (n >= NRECORDS || len != recs[n].len ||
		    memcmp(rec, &recs[n].u, len) || (uintptr_t)rec % 8)
			(*mismatches)++;
		n++;
	}
	CHECK_EQ_INT(ret, 0);
	return n;
}

TEST(records_come_back_as_written)
{
	const struct raw_info *in;
	struct raw_reader *r;
	int mismatches;
	uint8_t *buf;
	size_t len;

	buf = write_capture(&len, 0);
	r = open_capture(buf, len);
	if (!r) {
		free(buf);
		return;
	}
	in = raw_reader_info(r);
	CHECK_EQ_INT(in->pid, getpid());
	CHECK_EQ_INT(in->record_version, ETDUMP_RECORD_VERSION);
	CHECK_EQ_STR(in->exe, "/opt/runtime");
	CHECK_EQ_INT(in->nprobes, 3);
	CHECK_EQ_STR(in->probes[2], "profile_end");
	CHECK_EQ_INT(in->ncounters, 2);
	CHECK_EQ_STR(in->counter_names[0], "task-clock");
	CHECK_EQ_STR(in->counter_names[1], "page-faults");
	CHECK(in->start_clock && in->start_realtime > in->start_clock);
	/* the map was read at open: our own, holding this very binary */
	CHECK(strstr(in->maps, "test_raw") != NULL);
	CHECK_EQ_INT(read_all(r, &mismatches), NRECORDS);
	CHECK_EQ_INT(mismatches, 0);
	CHECK_EQ_INT(in->state, RAW_COMPLETE);
	CHECK_EQ_STR(in->stop, "target exited");
	CHECK_EQ_INT(in->records, NRECORDS);
	CHECK_EQ_INT(in->drops, 0);
	CHECK_EQ_INT(in->nmarks, 0);
	/* header, a data chunk per flush and one for the rest, end */
	CHECK_EQ_INT(in->chunks, 1 + NRECORDS / FLUSH_EVERY +
				 (NRECORDS % FLUSH_EVERY != 0) + 1);
	raw_reader_free(r);
	free(buf);
}

TEST(threads_tool_and_command_line_come_back)
{
	char path[] = "/tmp/test_raw.XXXXXX";
	char *argv[] = { "record", "--raw", "x.raw", "--", "./runner" };
	struct raw_target t = {
		.pid = getpid(), .exe = "/opt/runtime", .probes = probes,
		.nprobes = 3, .tool = "etdump-bpf 9.9", .argv = argv,
		.argc = 5,
	};
	const struct raw_info *in;
	struct raw_writer *w;
	struct raw_reader *r;
	int mismatches, fd;
	uint8_t buf[1 << 16];
	size_t len;
	FILE *f;

	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ_INT(raw_writer_open(&w, path, true, &t), 0);
	CHECK_EQ_INT(raw_writer_thread(w, 7, "main"), 0);
	CHECK_EQ_INT(raw_writer_append(w, &recs[0].u, recs[0].len), 0);
	CHECK_EQ_INT(raw_writer_thread(w, 8, "worker"), 0);
	/* a thread that renamed itself: the later name wins */
	CHECK_EQ_INT(raw_writer_thread(w, 7, "renamed"), 0);
	CHECK_EQ_INT(raw_writer_finish(w, 0, "target exited"), 0);
	raw_writer_free(w);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	len = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f)
		fclose(f);
	unlink(path);
	r = open_capture(buf, len);
	if (!r)
		return;
	in = raw_reader_info(r);
	CHECK_EQ_STR(in->tool, "etdump-bpf 9.9");
	CHECK_EQ_INT(in->nargs, 5);
	if (in->nargs == 5)
		CHECK_EQ_STR(in->args[4], "./runner");
	CHECK_EQ_INT(read_all(r, &mismatches), 1);
	CHECK_EQ_INT(in->state, RAW_COMPLETE);
	CHECK_EQ_INT(in->nthreads, 2);
	if (in->nthreads == 2) {
		CHECK_EQ_INT(in->threads[0].tid, 7);
		CHECK_EQ_STR(in->threads[0].name, "renamed");
		CHECK_EQ_INT(in->threads[1].tid, 8);
		CHECK_EQ_STR(in->threads[1].name, "worker");
	}
	raw_reader_free(r);
}

TEST(drops_are_marked_when_they_grow)
{
	const struct raw_info *in;
	struct raw_reader *r;
	int mismatches;
	uint8_t *buf;
	size_t len, i;

	buf = write_capture(&len, 100);
	r = open_capture(buf, len);
	if (!r) {
		free(buf);
		return;
	}
	in = raw_reader_info(r);
	CHECK_EQ_INT(read_all(r, &mismatches), NRECORDS);
	CHECK_EQ_INT(in->drops, 100);
	CHECK(in->nmarks >= 2);
	for (i = 1; i < in->nmarks; i++) {
		CHECK(in->marks[i].drops > in->marks[i - 1].drops);
		CHECK(in->marks[i].time >= in->marks[i - 1].time);
	}
	CHECK_EQ_INT(in->marks[in->nmarks - 1].drops, 100);
	raw_reader_free(r);
	free(buf);
}

/* A command just released is read once it runs its runtime. */
TEST(a_started_command_is_mapped_once_it_has_execd)
{
	char path[] = "/tmp/test_raw.XXXXXX", exe[PATH_MAX];
	struct raw_target t = { .just_started = true };
	const struct raw_info *in;
	struct raw_writer *w;
	struct raw_reader *r;
	char err[256];
	int fd, mismatches;
	pid_t child;

	CHECK(realpath("/bin/sleep", exe) != NULL);
	child = fork();
	if (!child) {
		/* still our fork for a while, as behind record's gate */
		usleep(100 * 1000);
		execl(exe, "sleep", "5", (char *)NULL);
		_exit(127);
	}
	t.pid = child;
	t.exe = exe;
	fd = mkstemp(path);
	close(fd);
	CHECK_EQ_INT(raw_writer_open(&w, path, true, &t), 0);
	CHECK_EQ_INT(raw_writer_finish(w, 0, "interrupted"), 0);
	raw_writer_free(w);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK_EQ_INT(raw_reader_open(&r, path, err, sizeof(err)), 0);
	unlink(path);
	in = raw_reader_info(r);
	CHECK(strstr(in->maps, exe) != NULL);
	CHECK(strstr(in->maps, "test_raw") == NULL);
	CHECK_EQ_INT(read_all(r, &mismatches), 0);
	CHECK_EQ_INT(in->state, RAW_COMPLETE);
	CHECK_EQ_STR(in->stop, "interrupted");
	raw_reader_free(r);
}

/* Where each chunk ends, and how many records it holds. */
struct layout {
	size_t end[64];
	int records[64];
	size_t n;
};

static void chunk_layout(const uint8_t *buf, size_t len, struct layout *l)
{
	size_t at = RAW_MAGIC_LEN, p;
	struct raw_chunk c;
	struct raw_record rec;

	l->n = 0;
	while (at < len && l->n < 64) {
		memcpy(&c, buf + at, sizeof(c));
		l->records[l->n] = 0;
		for (p = sizeof(struct raw_data);
		     c.type == RAW_CHUNK_DATA && p < c.len;
		     p += sizeof(rec) + ((rec.len + 7) & ~7u)) {
			memcpy(&rec, buf + at + sizeof(c) + p, sizeof(rec));
			l->records[l->n]++;
		}
		at += sizeof(c) + c.len;
		l->end[l->n++] = at;
	}
}

TEST(a_cut_at_any_byte_gives_exactly_the_complete_chunks)
{
	struct layout l;
	struct raw_reader *r;
	const struct raw_info *in;
	int mismatches, want, ret;
	uint8_t *buf;
	char err[256];
	size_t len, cut, i;

	buf = write_capture(&len, 0);
	chunk_layout(buf, len, &l);
	CHECK_EQ_INT(l.end[l.n - 1], len);
	for (cut = 0; cut <= len; cut++) {
		ret = raw_reader_open_mem(&r, buf, cut, err, sizeof(err));
		if (cut < l.end[0]) {
			/* nothing before the end of the header */
			CHECK_EQ_INT(ret, cut ? -ENODATA : -EPROTO);
			if (cut && !strstr(err, "truncated at byte"))
				CHECK_EQ_STR(err, "truncated at byte ...");
			continue;
		}
		CHECK_EQ_INT(ret, 0);
		if (ret)
			continue;
		in = raw_reader_info(r);
		for (want = 0, i = 0; i < l.n && l.end[i] <= cut; i++)
			want += l.records[i];
		CHECK_EQ_INT(read_all(r, &mismatches), want);
		CHECK_EQ_INT(mismatches, 0);
		CHECK_EQ_INT(in->state, cut == len ? RAW_COMPLETE : RAW_TRUNCATED);
		if (cut < len) {
			CHECK_EQ_INT(in->offset, cut);
			CHECK(!strncmp(in->message, "truncated at byte ", 18));
			CHECK_EQ_INT(strtoull(in->message + 18, NULL, 10), cut);
		}
		raw_reader_free(r);
	}
	free(buf);
}

/* The chunk holding byte `at`: its offset. */
static size_t chunk_of(const struct layout *l, size_t at)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (at < l->end[i])
			return i ? l->end[i - 1] : RAW_MAGIC_LEN;
	return 0;
}

TEST(a_damaged_byte_stops_the_reading_at_its_chunk)
{
	char err[256], want[64];
	const struct raw_info *in;
	struct raw_reader *r;
	int mismatches, n, ret, bit;
	struct layout l;
	size_t len, at, i, before;
	uint8_t *buf;

	buf = write_capture(&len, 0);
	chunk_layout(buf, len, &l);
	for (at = 0; at < len; at++) {
		for (bit = 0; bit < 8; bit++) {
			buf[at] ^= 1 << bit;
			ret = raw_reader_open_mem(&r, buf, len, err, sizeof(err));
			if (at < l.end[0]) {
				CHECK_EQ_INT(ret, at < RAW_MAGIC_LEN ? -EPROTO :
						  -EBADMSG);
				if (!ret)
					raw_reader_free(r);
				buf[at] ^= 1 << bit;
				continue;
			}
			CHECK_EQ_INT(ret, 0);
			in = raw_reader_info(r);
			n = read_all(r, &mismatches);
			CHECK_EQ_INT(mismatches, 0);
			CHECK_EQ_INT(in->state, RAW_CORRUPT);
			CHECK_EQ_INT(in->offset, chunk_of(&l, at));
			snprintf(want, sizeof(want), "corrupt chunk at byte %zu: ",
				 chunk_of(&l, at));
			CHECK(!strncmp(in->message, want, strlen(want)));
			for (before = 0, i = 0; l.end[i] <= chunk_of(&l, at); i++)
				before += l.records[i];
			CHECK_EQ_INT(n, before);
			raw_reader_free(r);
			buf[at] ^= 1 << bit;
		}
	}
	free(buf);
}

/* Rewrite the checksums of the chunk at `at`, as a forger would. */
static void reseal(uint8_t *buf, size_t at)
{
	struct raw_chunk c;

	memcpy(&c, buf + at, sizeof(c));
	c.payload_crc = crc32(0, buf + at + sizeof(c), c.len);
	c.chunk_crc = crc32(0, (const Bytef *)&c,
			    offsetof(struct raw_chunk, chunk_crc));
	memcpy(buf + at, &c, sizeof(c));
}

/* Open, read everything; the state, with the message in err. */
static int read_state(const uint8_t *buf, size_t len, char *err, size_t n)
{
	struct raw_reader *r;
	int mismatches, state;

	if (raw_reader_open_mem(&r, buf, len, err, n))
		return -1;
	read_all(r, &mismatches);
	state = raw_reader_info(r)->state;
	snprintf(err, n, "%s", raw_reader_info(r)->message);
	raw_reader_free(r);
	return state;
}

TEST(sealed_nonsense_is_refused_with_its_offset)
{
	struct raw_record rec;
	struct raw_header h;
	struct raw_end e;
	struct layout l;
	uint8_t *buf, *copy;
	char err[256], want[64];
	size_t len, data, end;

	buf = write_capture(&len, 0);
	chunk_layout(buf, len, &l);
	copy = malloc(len + 8);
	data = l.end[0];
	end = l.end[l.n - 2];

	/* a record longer than its chunk */
	memcpy(copy, buf, len);
	memcpy(&rec, copy + data + 32, sizeof(rec));
	rec.len = 1 << 20;
	memcpy(copy + data + 32, &rec, sizeof(rec));
	reseal(copy, data);
	CHECK_EQ_INT(read_state(copy, len, err, sizeof(err)), RAW_CORRUPT);
	CHECK(strstr(err, "invalid length") != NULL);

	/* an end chunk that miscounts the records */
	memcpy(copy, buf, len);
	memcpy(&e, copy + end + 16, sizeof(e));
	e.records++;
	memcpy(copy + end + 16, &e, sizeof(e));
	reseal(copy, end);
	CHECK_EQ_INT(read_state(copy, len, err, sizeof(err)), RAW_CORRUPT);
	snprintf(want, sizeof(want), "counts %d records", NRECORDS + 1);
	CHECK(strstr(err, want) != NULL);

	/* bytes after the end */
	memcpy(copy, buf, len);
	memset(copy + len, 0, 8);
	CHECK_EQ_INT(read_state(copy, len + 8, err, sizeof(err)), RAW_CORRUPT);
	CHECK(strstr(err, "after its end chunk") != NULL);

	/* records of a version this build does not read */
	memcpy(copy, buf, len);
	memcpy(&h, copy + RAW_MAGIC_LEN + 16, sizeof(h));
	h.record_version++;
	memcpy(copy + RAW_MAGIC_LEN + 16, &h, sizeof(h));
	reseal(copy, RAW_MAGIC_LEN);
	CHECK_EQ_INT(read_state(copy, len, err, sizeof(err)), -1);
	CHECK(strstr(err, "records of version") != NULL);

	/* not a capture at all; unaligned, so read from a copy */
	CHECK_EQ_INT(read_state((const uint8_t *)"\x18\0\0\0ED00", 8, err,
				sizeof(err)), -1);
	CHECK(strstr(err, "not a raw capture") != NULL);
	memcpy(copy + 1, buf, len);
	CHECK_EQ_INT(read_state(copy + 1, len, err, sizeof(err)), RAW_COMPLETE);
	free(copy);
	free(buf);
}

TEST(random_chunks_never_crash)
{
	uint8_t buf[4096] __attribute__((aligned(8)));
	struct raw_header h = {
		.format_version = RAW_FORMAT_VERSION,
		.record_version = ETDUMP_RECORD_VERSION,
		.clock = CLOCK_MONOTONIC, .pid = 1,
	};
	struct raw_chunk c;
	char err[256];
	size_t len, at;
	int round;

	srand(1);
	for (round = 0; round < 2000; round++) {
		len = RAW_MAGIC_LEN + rand() % (sizeof(buf) - RAW_MAGIC_LEN);
		memcpy(buf, RAW_MAGIC, RAW_MAGIC_LEN);
		for (at = RAW_MAGIC_LEN; at < len; at++)
			buf[at] = rand() % 4 ? rand() % 4 : rand();
		/* sealed chunks of random types and contents */
		for (at = RAW_MAGIC_LEN; at + sizeof(c) <= len;) {
			c.type = round % 7 && at == RAW_MAGIC_LEN ?
					 RAW_CHUNK_HEADER : 1 + rand() % 3;
			c.len = (rand() % 512) & ~7u;
			if (c.len > len - at - sizeof(c))
				c.len = (len - at - sizeof(c)) & ~7u;
			memcpy(buf + at, &c, sizeof(c));
			if (c.type == RAW_CHUNK_HEADER && c.len >= sizeof(h))
				memcpy(buf + at + sizeof(c), &h, sizeof(h));
			reseal(buf, at);
			at += sizeof(c) + c.len;
		}
		read_state(buf, len, err, sizeof(err));
	}
}

/* The collector gives the same ETDump fed live or from the capture. */
TEST(replay_feeds_the_collector_the_same_records)
{
	struct etd_dump a = { 0 }, b = { 0 };
	struct collector *live, *replay;
	void *fa, *fb;
	size_t la, lb, len, n;
	struct raw_reader *r;
	const void *rec;
	uint8_t *buf;
	int i;

	live = collector_new();
	for (i = 0; i < NRECORDS; i++)
		collector_feed(live, &recs[i].u, recs[i].len);
	buf = write_capture(&len, 0);
	r = open_capture(buf, len);
	if (!r) {
		free(buf);
		return;
	}
	replay = collector_new();
	while (raw_reader_next(r, &rec, &n) > 0)
		collector_feed(replay, rec, n);
	CHECK_EQ_INT(collector_finish(live, &a, NULL), 0);
	CHECK_EQ_INT(collector_finish(replay, &b, NULL), 0);
	CHECK_EQ_INT(a.nruns, 2);
	CHECK_EQ_INT(etdump_write(&a, &fa, &la), 0);
	CHECK_EQ_INT(etdump_write(&b, &fb, &lb), 0);
	CHECK(la == lb && !memcmp(fa, fb, la));
	free(fa);
	free(fb);
	etd_dump_free(&a);
	etd_dump_free(&b);
	collector_free(live);
	collector_free(replay);
	raw_reader_free(r);
	free(buf);
}

int main(void)
{
	make_records();
	RUN(records_come_back_as_written);
	RUN(threads_tool_and_command_line_come_back);
	RUN(drops_are_marked_when_they_grow);
	RUN(a_started_command_is_mapped_once_it_has_execd);
	RUN(a_cut_at_any_byte_gives_exactly_the_complete_chunks);
	RUN(a_damaged_byte_stops_the_reading_at_its_chunk);
	RUN(sealed_nonsense_is_refused_with_its_offset);
	RUN(random_chunks_never_crash);
	RUN(replay_feeds_the_collector_the_same_records);
	return TEST_SUMMARY();
}
