// SPDX-License-Identifier: BSD-3-Clause
/*
 * writer.c - bench-writer: the user-space half of a recording without the
 * kernel. Feeds the collector the records the probes send for N events
 * (runs shaped like the example runtime's: a block, an outer scope, 15
 * named scopes), then writes the ETDump as record does (the runs stream
 * from the collector's log into the file).
 *
 *   bench-writer -o FILE [-n EVENTS]     (default 1000000)
 *
 * Prints one line of key=value pairs: events, records, feed_ns (collector),
 * write_ns (etdump_write_file), bytes (the file), rss_before_write_kb and
 * rss_peak_kb (max RSS before the write and at the end).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "collect/collector.h"
#include "lib/parse.h"
#include "schema/etdump_record.h"
#include "write/etdump_log_writer.h"

#define SCOPES_PER_RUN 15 /* inside the outer scope: 16 events a run */

static const char *const names[] = {
	"native_call_convolution.out", "OPERATOR_CALL",
	"native_call_relu.out", "native_call_max_pool2d_with_indices.out",
	"native_call_view_copy.out", "DELEGATE_CALL",
	"native_call__softmax.out",
};
static const char run_name[] = "Execute";
static const char outer_name[] = "Method::execute";

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void header(struct etdump_rec_hdr *h, uint8_t type, uint16_t size,
		   uint64_t *ts)
{
	h->type = type;
	h->size = size;
	h->pid = 1;
	h->tid = 1;
	h->ts = (*ts)++;
}

/* Records as the BPF programs fill them: full size, bounded names. */
static int feed_begin(struct collector *c, const char *name, uint64_t *ts)
{
	struct etdump_rec_begin r = { 0 };

	header(&r.hdr, ETDUMP_REC_PROFILE_BEGIN, sizeof(r), ts);
	r.token = (uint64_t)(uintptr_t)name;
	r.chain = -1;
	r.name_len = strlen(name);
	memcpy(r.name, name, r.name_len);
	return collector_feed(c, &r, sizeof(r));
}

static int feed_end(struct collector *c, const char *name, uint64_t *ts)
{
	struct etdump_rec_end r = { 0 };

	header(&r.hdr, ETDUMP_REC_PROFILE_END, sizeof(r), ts);
	r.token = (uint64_t)(uintptr_t)name;
	return collector_feed(c, &r, sizeof(r));
}

static int feed_run(struct collector *c, uint64_t *ts, uint64_t *records)
{
	struct etdump_rec_block b = { 0 };
	const char *name;
	int err, i;

	header(&b.hdr, ETDUMP_REC_BLOCK, sizeof(b), ts);
	b.name_len = strlen(run_name);
	memcpy(b.name, run_name, b.name_len);
	err = collector_feed(c, &b, sizeof(b));
	err = err ? err : feed_begin(c, outer_name, ts);
	for (i = 0; !err && i < SCOPES_PER_RUN; i++) {
		name = names[i % (sizeof(names) / sizeof(names[0]))];
		err = feed_begin(c, name, ts);
		err = err ? err : feed_end(c, name, ts);
	}
	*records += 3 + 2 * SCOPES_PER_RUN;
	return err ? err : feed_end(c, outer_name, ts);
}

int main(int argc, char **argv)
{
	struct collector_stats st = { 0 };
	struct etdump_log_meta meta = { 0 };
	uint64_t events = 1000000, records = 0, ts = 1, run, t0, t1, t2;
	const char *path = NULL;
	char *kept = NULL;
	struct collector *c;
	long rss_before;
	struct stat sb;
	int i, err = 0;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-o"))
			path = argv[i + 1];
		else if (strcmp(argv[i], "-n") ||
			 parse_u64(argv[i + 1], 1, 1ull << 32, &events))
			break;
	}
	if (!path || i != argc) {
		fprintf(stderr, "usage: bench-writer -o FILE [-n EVENTS]\n");
		return 2;
	}
	c = collector_new();
	if (!c)
		return 1;
	t0 = now_ns();
	for (run = 0; !err && run * (SCOPES_PER_RUN + 1) < events; run++)
		err = feed_run(c, &ts, &records);
	err = err ? err : collector_close(c, &st);
	t1 = now_ns();
	rss_before = max_rss_kb();
	err = err ? err : etdump_write_log_file(collector_log(c), &meta, path,
						true, &kept);
	free(kept);
	t2 = now_ns();
	if (!err && stat(path, &sb))
		err = -errno;
	if (err) {
		fprintf(stderr, "bench-writer: %s: %s\n", path, strerror(-err));
	} else {
		printf("events=%llu records=%llu feed_ns=%llu write_ns=%llu bytes=%lld rss_before_write_kb=%ld rss_peak_kb=%ld\n",
		       (unsigned long long)st.events, (unsigned long long)records,
		       (unsigned long long)(t1 - t0), (unsigned long long)(t2 - t1),
		       (long long)sb.st_size, rss_before, max_rss_kb());
	}
	collector_free(c);
	return err ? 1 : 0;
}
