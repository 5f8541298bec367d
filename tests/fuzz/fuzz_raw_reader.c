// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_raw_reader - any bytes as a raw capture, through what `convert`
 * does with it: the reader, the collector fed every record it gives (and
 * record --sched's switches their lanes), the ETDump and Chrome writers. Never a crash; a reading always ends in one
 * of the documented states with its message.
 *
 * Chunks carry CRCs, which a mutation almost never keeps right; for the
 * fuzzer to get past them, inputs whose first byte is odd have their
 * checksums recomputed before reading (the rest of the input is the file).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "write/chrome_writer.h"
#include "collect/collector.h"
#include "write/etdump_writer.h"
#include "fuzz_copy.h"
#include "schema/raw_format.h"
#include "read/raw_reader.h"
#include "write/sched_lanes.h"

static void fix_checksums(uint8_t *p, size_t size)
{
	struct raw_chunk h;
	size_t at = RAW_MAGIC_LEN;

	while (at <= size && size - at >= sizeof(h)) {
		memcpy(&h, p + at, sizeof(h));
		if (h.len > size - at - sizeof(h))
			break;
		h.payload_crc = crc32(0, p + at + sizeof(h), h.len);
		h.chunk_crc = crc32(0, (const Bytef *)&h,
				    offsetof(struct raw_chunk, chunk_crc));
		memcpy(p + at, &h, sizeof(h));
		at += sizeof(h) + h.len;
	}
}

static void replay(struct raw_reader *r, const struct raw_info *info)
{
	struct collector_stats stats;
	struct sched_lanes lanes = { 0 };
	struct etd_dump dump = { 0 };
	struct collector *col;
	const void *rec;
	size_t len;
	void *out;
	char *json;
	int n;

	col = collector_new();
	if (!col)
		return;
	collector_set_start(col, info->capture_start);
	if (collector_set_counters(col,
				   (const char *const *)info->counter_names,
				   info->counter_kinds, info->ncounters))
		goto out;
	while ((n = raw_reader_next(r, &rec, &len)) > 0) {
		if ((uintptr_t)rec % 8)
			abort(); /* documented: 8-byte aligned */
		if (sched_record_is(rec, len))
			sched_lanes_add(&lanes, rec, len);
		else
			collector_feed(col, rec, len);
	}
	sched_lanes_sort(&lanes);
	if (n == 0 && info->state == RAW_READING)
		abort();
	if ((info->state == RAW_TRUNCATED || info->state == RAW_CORRUPT) &&
	    !info->message[0])
		abort();
	if (collector_finish(col, &dump, &stats))
		goto out;
	if (!etdump_write(&dump, &out, &len))
		free(out);
	if (!chrome_write(&dump, info, &lanes,
			  info->pid & 1 ? CHROME_SLICE_ARGS : 0,
			  &json, &len))
		free(json);
out:
	sched_lanes_free(&lanes);
	etd_dump_free(&dump);
	collector_free(col);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct raw_reader *r;
	char err[256];
	uint8_t *file;

	/* the reader keeps pointing into it */
	file = fuzz_rest(data, size, false);
	if (!file)
		return 0;
	if (data[0] & 1)
		fix_checksums(file, size - 1);
	if (!raw_reader_open_mem(&r, file, size - 1, err, sizeof(err))) {
		replay(r, raw_reader_info(r));
		raw_reader_free(r);
	} else if (!err[0]) {
		abort();
	}
	free(file);
	return 0;
}
