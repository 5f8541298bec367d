// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "convert/convert_etdump.h"
#include "lib/exit_code.h"
#include "lib/file_io.h"
#include "lib/log.h"
#include "model/etdump_counters.h"
#include "model/run_note.h"
#include "read/etdump_reader.h"
#include "write/chrome_writer.h"

/* a thread's name as a run's note says it, NUL included */
#define TRACK_NAME_LEN 32

/* The span of a run's profile events; false when it has none. */
static bool run_span(const struct etd_run *run, uint64_t *first,
		     uint64_t *last)
{
	bool any = false;
	size_t e;

	for (e = 0; e < run->nevents; e++) {
		const struct etd_event *ev = &run->events[e];

		if (ev->kind != ETD_PROFILE)
			continue;
		if (!any || ev->start_time < *first)
			*first = ev->start_time;
		if (!any || ev->end_time > *last)
			*last = ev->end_time;
		any = true;
	}
	return any;
}

/* The thread name a run's notes say ("" when none), into name[32]. */
static void run_thread(const struct etd_run *run, char *name)
{
	size_t e;

	name[0] = '\0';
	for (e = 0; e < run->nevents; e++)
		if (run->events[e].kind == ETD_PROFILE &&
		    run_note_thread(&run->events[e], name, TRACK_NAME_LEN))
			return;
}

/*
 * A run's track: the first free one of its thread's name (runs that name
 * none share the unnamed ones), so that runs of two threads that never
 * overlapped are not drawn as one thread's.
 */
int etdump_assign_tracks(struct etd_dump *dump)
{
	uint64_t *busy_until, first = 0, last = 0;
	char (*names)[TRACK_NAME_LEN], name[TRACK_NAME_LEN];
	size_t r, t, ntracks = 0, n = dump->nruns ? dump->nruns : 1;

	busy_until = calloc(n, sizeof(*busy_until));
	names = calloc(n, sizeof(*names));
	if (!busy_until || !names) {
		free(busy_until);
		free(names);
		return -ENOMEM;
	}
	for (r = 0; r < dump->nruns; r++) {
		struct etd_run *run = &dump->runs[r];

		if (!run_span(run, &first, &last)) {
			run->tid = 1;
			continue;
		}
		run_thread(run, name);
		for (t = 0; t < ntracks && (busy_until[t] > first ||
					    strcmp(names[t], name)); t++)
			;
		if (t == ntracks)
			ntracks++;
		busy_until[t] = last > first ? last : first;
		memcpy(names[t], name, sizeof(name));
		run->tid = (uint32_t)t + 1;
		run->open_time = first;
	}
	free(busy_until);
	free(names);
	return 0;
}

int convert_etdump(const char *input, const char *output,
		   unsigned int chrome_flags, bool force,
		   const struct pprof_source *pprof)
{
	/* the chrome writer's process: the file (named in exe) */
	struct raw_info info = { .pid = 1, .exe = (char *)input,
				 .state = RAW_COMPLETE };
	struct etd_dump dump = { 0 };
	char err[256], *kept = NULL;
	int ret;

	ret = etdump_read_file(input, &dump, err, sizeof(err));
	if (ret) {
		p_err("%s: neither a raw capture nor an ETDump: %s", input, err);
		return EXIT_FAIL;
	}
	/* our counters ride in delegate_debug_metadata: tracks, not bytes */
	if (etd_counters_decode_dump(&dump))
		p_warn("%s: counters in its metadata cannot be read: left out",
		       input);
	ret = etdump_assign_tracks(&dump);
	if (!ret && pprof)
		ret = pprof_write_file(&dump, pprof, output, force, &kept);
	else if (!ret)
		ret = chrome_write_file(&dump, &info, NULL,
					chrome_flags | CHROME_FROM_ETDUMP,
					output, force, &kept);
	if (ret) {
		output_error(output, ret, kept);
		free(kept);
		etd_dump_free(&dump);
		return EXIT_FAIL;
	}
	p_info("converted the ETDump %s; wrote %s: %zu runs (a raw capture, "
	       "record --raw, adds thread ids and names, drops and the wall "
	       "clock)", input, output, dump.nruns);
	etd_dump_free(&dump);
	return EXIT_OK;
}
