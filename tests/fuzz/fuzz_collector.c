// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_collector - any sequence of ring-buffer records through the
 * collector, then the ETDump writer and reader. The records come from our
 * BPF program, but what they carry comes from the traced process: names,
 * metadata, and in batched mode its whole event buffer (user/collect/batch.c).
 * Never a crash; whatever the collector makes, the writer writes a file
 * the reader reads back to the same bytes.
 *
 * Input: one byte giving how many counters the records carry, one byte
 * per counter for its kind, then records, each a little-endian u16 length
 * and that many bytes (shorter at the end: the rest).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "collect/collector.h"
#include "read/etdump_reader.h"
#include "schema/etdump_record.h"
#include "write/etdump_writer.h"
#include "fuzz_copy.h"

static const char *const counter_names[ETDUMP_MAX_COUNTERS] = {
	"cycles", "instructions", "task-clock", "page-faults",
};

static void check_written(const struct etd_dump *dump)
{
	struct etd_dump again = { 0 };
	void *w, *w2;
	size_t len, len2;
	char err[256];

	if (etdump_write(dump, &w, &len))
		return;
	if (etdump_read(w, len, &again, err, sizeof(err)))
		abort();
	if (etdump_write(&again, &w2, &len2) || len2 != len ||
	    memcmp(w, w2, len))
		abort();
	free(w);
	free(w2);
	etd_dump_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t kinds[ETDUMP_MAX_COUNTERS] = { 0 };
	struct collector_stats stats;
	struct etd_dump dump = { 0 };
	struct collector *c;
	uint32_t i, ncounters;
	size_t at = 0, len;
	void *rec;

	if (size < 1)
		return 0;
	ncounters = data[at++] % (ETDUMP_MAX_COUNTERS + 1);
	for (i = 0; i < ncounters && at < size; i++)
		kinds[i] = data[at++];
	c = collector_new();
	if (!c)
		return 0;
	if (collector_set_counters(c, counter_names, kinds, ncounters))
		goto out;
	collector_set_start(c, 1000);
	while (at < size) {
		len = size - at;
		if (len >= 2) {
			len = data[at] | data[at + 1] << 8;
			at += 2;
			if (len > size - at)
				len = size - at;
		}
		rec = fuzz_copy(data + at, len, false);
		if (!rec)
			break;
		at += len;
		if (collector_feed(c, rec, len) == -ENOMEM) {
			free(rec);
			break;
		}
		free(rec);
	}
	if (!collector_finish(c, &dump, &stats))
		check_written(&dump);
out:
	etd_dump_free(&dump);
	collector_free(c);
	return 0;
}
