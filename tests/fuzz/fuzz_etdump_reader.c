// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_etdump_reader - any bytes through etdump_read(), as `report` and the
 * tests load ETDumps from anywhere: an error or a dump, never a crash or a
 * read outside the buffer. A dump it accepts must also survive our writer:
 * what the writer writes, the reader reads back into the same bytes; and
 * the timeline `convert` makes of it is written (a JSON, or ENOMEM).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "convert/convert_etdump.h"
#include "model/etdump_counters.h"
#include "read/etdump_reader.h"
#include "write/chrome_writer.h"
#include "write/etdump_writer.h"

/* as convert_etdump() does, in memory */
static void timeline(struct etd_dump *d)
{
	struct raw_info info = { .pid = 1, .exe = "fuzz.etdp" };
	char *json;
	size_t len;

	etd_counters_decode_dump(d);
	if (etdump_assign_tracks(d))
		return;
	if (chrome_write(d, &info, NULL, CHROME_FROM_ETDUMP, &json, &len))
		return;
	if (!len || json[len - 1] != '\n')
		abort();
	free(json);
}

/* write(read(w)) == w for every w the writer produced */
static void check_round_trip(const void *w, size_t wlen)
{
	struct etd_dump again = { 0 };
	char err[256];
	void *w2;
	size_t w2len;

	if (etdump_read(w, wlen, &again, err, sizeof(err)))
		abort();
	if (etdump_write(&again, &w2, &w2len))
		abort();
	if (w2len != wlen || memcmp(w, w2, wlen))
		abort();
	free(w2);
	etd_dump_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etd_dump d = { 0 };
	char err[256];
	void *w;
	size_t wlen;

	if (etdump_read(data, size, &d, err, sizeof(err))) {
		/* one sentence, terminated */
		if (!memchr(err, '\0', sizeof(err)) || !err[0])
			abort();
		return 0;
	}
	/* -EINVAL is allowed: what the Inspector cannot load is refused */
	if (!etdump_write(&d, &w, &wlen)) {
		check_round_trip(w, wlen);
		free(w);
	}
	timeline(&d);
	etd_dump_free(&d);
	return 0;
}
