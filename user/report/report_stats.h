/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_stats.h - the table of `etdump-bpf report`: for each event of
 * each event block, the statistics ExecuTorch's Inspector prints
 * (report/inspector_stats.h says how each is computed), and the block's
 * total (report/report_total.h). Perf counters (etd_dump.counter_names):
 * p50 and avg over the runs where the value is valid, as
 * scripts/etdump_counters.py computes them (median, statistics.fmean: the
 * exact sum divided once).
 */
#ifndef ETDUMP_REPORT_STATS_H
#define ETDUMP_REPORT_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/etdump_model.h"
#include "report/inspector_stats.h"

enum report_id_kind { REPORT_ID_NONE, REPORT_ID_INT, REPORT_ID_STR };

struct report_event {
	/* The Inspector's name: a delegated event takes its delegate id. */
	char *name;
	bool delegated;                 /* is_delegated_op */
	enum report_id_kind id_kind;    /* delegate_debug_identifier */
	int32_t id_int;
	char *id_str;
	bool op_call;                   /* name contains "OPERATOR_CALL" */
	bool has_time;                  /* false: only debug events */
	struct report_stats time;
	uint64_t *start_times;          /* the Inspector's start_time, per run */
	size_t nstart_times;
	double share;                   /* avg / block total avg, in % */
	bool has_counter[ETD_MAX_COUNTERS]; /* some run had a valid value */
	double counter_p50[ETD_MAX_COUNTERS];
	double counter_avg[ETD_MAX_COUNTERS];
};

struct report_block {
	char *name;
	size_t nruns;                   /* runs merged into it */
	struct report_event *events;
	size_t nevents;
	struct report_stats total;      /* report_total.h; zero without times */
};

struct report {
	enum report_unit unit;
	size_t nruns;                   /* runs with an events vector */
	struct report_block *blocks;
	size_t nblocks;
	char *counter_names[ETD_MAX_COUNTERS];
	uint32_t ncounters;
};

/*
 * The whole report. -EINVAL with one sentence in err for a file the
 * Inspector cannot turn into a table: what report_group() refuses, a
 * duration it rejects, a present but empty events vector, no event block
 * at all; -ENOMEM. Free with report_free() on success.
 */
int report_build(const struct etd_dump *dump, enum report_unit unit,
		 struct report *out, char *err, size_t errlen);
void report_free(struct report *r);

#endif /* ETDUMP_REPORT_STATS_H */
