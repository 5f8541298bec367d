// SPDX-License-Identifier: BSD-3-Clause
/* Counters in ETDump metadata (schema/COUNTERS.md): written, read back. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/etdump_counters.h"
#include "read/etdump_reader.h"
#include "write/etdump_writer.h"
#include "testlib.h"

static void two_counters(struct etd_dump *d)
{
	memset(d, 0, sizeof(*d));
	d->counter_names[0] = strdup("task-clock");
	d->counter_names[1] = strdup("cycles");
	d->ncounters = 2;
}

static struct etd_event *profile(struct etd_run *run, const char *name)
{
	struct etd_event ev;

	etd_event_init(&ev, ETD_PROFILE);
	ev.name = name ? strdup(name) : NULL;
	ev.chain_index = -1;
	ev.instruction_id = 0;
	ev.start_time = 10;
	ev.end_time = 20;
	etd_run_add_event(run, &ev);
	return &run->events[run->nevents - 1];
}

TEST(encode_text)
{
	struct etd_counters c = { .n = 2, .value = { 1200, 0 },
				  .valid = { true, false } };
	struct etd_dump d;
	char buf[128];
	int n;

	two_counters(&d);
	n = etd_counters_encode(&d, &c, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "etdump-bpf-counters:1;task-clock=1200;cycles=?");
	CHECK_EQ_INT(n, strlen(buf));
	CHECK(etd_counters_encode(&d, &c, buf, 20) == -ENOSPC);
	etd_dump_free(&d);
}

TEST(round_trip_through_the_file_format)
{
	struct etd_dump d, back;
	struct etd_event *ev;
	struct etd_run *run;
	char err[256];
	size_t len;
	void *buf;

	two_counters(&d);
	etd_dump_add_run(&d, "Execute", &run);
	ev = profile(run, "native_call_add.out");
	ev->counters = (struct etd_counters){ .n = 2, .value = { 7, 99 },
					      .valid = { true, true } };
	ev = profile(run, "Method::execute");
	ev->counters = (struct etd_counters){ .n = 2, .value = { 8, 0 },
					      .valid = { true, false } };
	/* a delegate's own metadata is never replaced */
	ev = profile(run, NULL);
	ev->delegate_id_int = 7;
	ev->has_metadata = true;
	ev->metadata = malloc(4);
	memcpy(ev->metadata, "fp32", 4);
	ev->metadata_len = 4;
	ev->counters.n = 2;

	CHECK_EQ_INT(etdump_write(&d, &buf, &len), 0);
	CHECK_EQ_INT(etdump_read(buf, len, &back, err, sizeof(err)), 0);
	CHECK_EQ_INT(back.ncounters, 2);
	CHECK_EQ_STR(back.counter_names[1], "cycles");
	ev = &back.runs[0].events[0];
	CHECK(!ev->has_metadata);
	CHECK_EQ_INT(ev->counters.n, 2);
	CHECK_EQ_INT(ev->counters.value[1], 99);
	CHECK(ev->counters.valid[0] && ev->counters.valid[1]);
	ev = &back.runs[0].events[1];
	CHECK(ev->counters.valid[0] && !ev->counters.valid[1]);
	ev = &back.runs[0].events[2];
	CHECK_EQ_INT(ev->counters.n, 0);
	CHECK(ev->has_metadata && ev->metadata_len == 4 &&
	      !memcmp(ev->metadata, "fp32", 4));
	free(buf);
	etd_dump_free(&back);
	etd_dump_free(&d);
}

TEST(other_metadata_is_left_alone_and_bad_counters_refused)
{
	struct etd_dump d = { 0 };
	struct etd_event *ev;
	struct etd_run *run;

	etd_dump_add_run(&d, "Execute", &run);
	ev = profile(run, "x");
	ev->has_metadata = true;
	ev->metadata = (uint8_t *)strdup("etdump-bpf-counters:2;x=1");
	ev->metadata_len = strlen((char *)ev->metadata);
	CHECK_EQ_INT(etd_counters_decode_dump(&d), 0);
	CHECK(ev->has_metadata && ev->counters.n == 0);
	free(ev->metadata);
	ev->metadata = (uint8_t *)strdup("etdump-bpf-counters:1;cycles=12x");
	ev->metadata_len = strlen((char *)ev->metadata);
	CHECK(etd_counters_decode_dump(&d) < 0);
	/* a delegate's metadata is its own, even when it reads like ours */
	ev->delegate_id_int = 7;
	CHECK_EQ_INT(etd_counters_decode_dump(&d), 0);
	CHECK(ev->has_metadata && ev->counters.n == 0);
	etd_dump_free(&d);
}

int main(void)
{
	RUN(encode_text);
	RUN(round_trip_through_the_file_format);
	RUN(other_metadata_is_left_alone_and_bad_counters_refused);
	return TEST_SUMMARY();
}
