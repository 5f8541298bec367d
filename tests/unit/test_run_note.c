// SPDX-License-Identifier: BSD-3-Clause
/*
 * The notes the recorder leaves in an ETDump's metadata: record --every's
 * share read back as written, and nothing read from metadata that only
 * looks like it (a runtime's own bytes, a cut or overlong count).
 */
#include <string.h>
#include "model/run_note.h"
#include "testlib.h"

/* A dump of one run whose one profile event carries `meta`. */
static uint32_t every_in(const char *meta, size_t len)
{
	struct etd_event ev = { .kind = ETD_PROFILE };
	struct etd_run run = { .events = &ev, .nevents = 1 };
	struct etd_dump dump = { .runs = &run, .nruns = 1 };

	ev.has_metadata = meta != NULL;
	ev.metadata = (uint8_t *)meta;
	ev.metadata_len = len;
	return run_note_every(&dump);
}

TEST(every_is_read_back_as_written)
{
	char note[64];

	run_note_every_text(5, note, sizeof(note));
	CHECK_EQ_STR(note, "etdump-bpf-every:1;every=5");
	CHECK_EQ_INT(every_in(note, strlen(note)), 5);
	run_note_every_text(4294967295u, note, sizeof(note));
	CHECK_EQ_INT(every_in(note, strlen(note)), 4294967295u);
	/* a later field of the same note */
	CHECK_EQ_INT(every_in("etdump-bpf-every:1;every=12;x=1", 31), 12);
}

TEST(what_only_looks_like_a_note_is_none)
{
	CHECK_EQ_INT(every_in(NULL, 0), 0);
	CHECK_EQ_INT(every_in("etdump-bpf-every:1;every=", 25), 0);
	CHECK_EQ_INT(every_in("etdump-bpf-every:1;every=5x", 27), 0);
	CHECK_EQ_INT(every_in("etdump-bpf-every:1;every=4294967296", 35), 0);
	CHECK_EQ_INT(every_in("etdump-bpf-every:1;every=99999999999", 36), 0);
	/* bounded by the metadata's length, not by a NUL */
	CHECK_EQ_INT(every_in("etdump-bpf-every:1;every=57", 26), 5);
	CHECK_EQ_INT(every_in("etdump-bpf-every:1;ever", 23), 0);
	CHECK_EQ_INT(every_in("etdump-bpf-probe-time:1;scope_ns=610", 36), 0);
}

int main(void)
{
	RUN(every_is_read_back_as_written);
	RUN(what_only_looks_like_a_note_is_none);
	return TEST_SUMMARY();
}
