// SPDX-License-Identifier: BSD-3-Clause
/*
 * cmd_diff.c - `etdump-bpf diff BASE NEW`: what changed, operator by
 * operator, between two recordings, and whether it is more than noise;
 * with --fail-above, an exit status a CI job can gate on.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "diff.h"
#include "diff_format.h"
#include "etdump_reader.h"
#include "log.h"
#include "parse.h"

/* a status of its own, that a CI job tells from a failure to compare */
#define EXIT_REGRESSION 3

static const char diff_usage[] =
	"usage: etdump-bpf diff BASE NEW [--fail-above PCT] [--alpha A]\n"
	"                       [--min-change PCT] [--min-delta NS]\n"
	"                       [--operator-call] [--top N]\n"
	"                       [--csv | --json] [--units ns|us|ms|s]\n"
	"\n"
	"Compare two ETDumps (two recordings, two builds) operator by operator:\n"
	"p50 and avg of each event's per-run durations and of each perf counter\n"
	"both hold, with the change, largest change of p50 first. Each event's\n"
	"runs are compared with the Mann-Whitney U test (rank-based: per-run\n"
	"durations are not normal and have outliers), its p-value adjusted by\n"
	"Holm over all rows. A row is 'slower' or 'faster' when the adjusted p\n"
	"is below A and p50 changed by at least the minimum change. Record both\n"
	"side by side (at the same time, or alternating) on one machine: load\n"
	"that slows one whole recording looks like a slower build.\n"
	"\n"
	"  --fail-above PCT  exit 3 when some event is significantly slower\n"
	"                    with p50 more than PCT percent above the base's\n"
	"  --alpha A         significance level (default 0.01)\n"
	"  --min-change PCT  smallest change called slower/faster (default 5)\n"
	"  --min-delta NS    and in nanoseconds (default 100: two processes of\n"
	"                    one build differ that much in tiny operators)\n"
	"  --operator-call   keep OPERATOR_CALL rows (left out, as the\n"
	"                    Inspector's print_data_tabular does)\n"
	"  --top N           the N largest changes only\n"
	"  --csv, --json     every column, numbers in full precision\n"
	"  --units U         ns, us, ms (default) or s\n"
	"\n"
	"Exit status: 0 compared (no regression past --fail-above); 1 a file\n"
	"cannot be read or tabulated; 2 usage error; 3 a significant\n"
	"regression past --fail-above.\n";

static int parse_number(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * One line naming every event past the gate, largest change first, so a
 * CI log says what regressed without the table. True when there is one.
 */
static bool gate(const struct diff *d, const struct diff_output *o,
		 double limit)
{
	const char *sep = " ";
	size_t i, n = 0;

	for (i = 0; i < d->nrows; i++)
		n += diff_is_regression(&d->rows[i], limit);
	if (!n)
		return false;
	fprintf(stderr, "etdump-bpf: %s: %zu event%s significantly slower than in %s, above --fail-above %g%%:",
		o->new, n, n == 1 ? "" : "s", o->base, limit);
	for (i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];

		if (!diff_is_regression(r, limit))
			continue;
		fprintf(stderr, "%s%s (%s) p50 %+.1f%% (p = %.2g)", sep,
			r->event, r->block, r->p50_pct, r->p);
		sep = ", ";
	}
	fputc('\n', stderr);
	return true;
}

static int read_one(const char *path, struct etd_dump *dump)
{
	char err[512];

	if (etdump_read_file(path, dump, err, sizeof(err))) {
		p_err("%s: %s", path, err);
		return -1;
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	enum { OPT_FAIL = 256, OPT_ALPHA, OPT_MIN, OPT_MIN_DELTA, OPT_OPCALL, OPT_TOP,
	       OPT_CSV, OPT_JSON, OPT_UNITS };
	static const struct option longopts[] = {
		{ "fail-above", required_argument, NULL, OPT_FAIL },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "min-change", required_argument, NULL, OPT_MIN },
		{ "min-delta", required_argument, NULL, OPT_MIN_DELTA },
		{ "operator-call", no_argument, NULL, OPT_OPCALL },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "units", required_argument, NULL, OPT_UNITS },
		{ "help", no_argument, NULL, 'h' },
		CLI_COMMON_LONGOPTS,
		{},
	};
	struct diff_options dopt = { .alpha = DIFF_DEFAULT_ALPHA,
				     .min_change_pct = DIFF_DEFAULT_MIN_CHANGE,
				     .min_delta_ns = DIFF_DEFAULT_MIN_DELTA_NS };
	struct diff_output out = { .format = REPORT_TABLE, .unit = REPORT_MS };
	struct etd_dump dumps[2] = {};
	double fail_above = NAN;
	uint64_t top;
	struct diff d;
	char err[512];
	int c, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h" CLI_COMMON_SHORTOPTS, longopts,
				NULL)) != -1) {
		if (cli_common_option(c))
			continue;
		switch (c) {
		case OPT_FAIL:
			if (parse_number(optarg, 0, 1e9, &fail_above))
				return cli_usage_error("diff", "invalid --fail-above '%s': a percentage, 0 or more",
						       optarg);
			break;
		case OPT_ALPHA:
			if (parse_number(optarg, 1e-12, 0.5, &dopt.alpha))
				return cli_usage_error("diff", "invalid --alpha '%s': a probability above 0, at most 0.5",
						       optarg);
			break;
		case OPT_MIN:
			if (parse_number(optarg, 0, 1e9, &dopt.min_change_pct))
				return cli_usage_error("diff", "invalid --min-change '%s': a percentage, 0 or more",
						       optarg);
			break;
		case OPT_MIN_DELTA:
			if (parse_number(optarg, 0, 1e15, &dopt.min_delta_ns))
				return cli_usage_error("diff", "invalid --min-delta '%s': nanoseconds, 0 or more",
						       optarg);
			break;
		case OPT_OPCALL:
			dopt.operator_call = true;
			break;
		case OPT_TOP:
			if (parse_u64(optarg, 1, 1000000000, &top))
				return cli_usage_error("diff", "invalid --top '%s': a count, 1 or more",
						       optarg);
			out.top = (size_t)top;
			break;
		case OPT_CSV:
		case OPT_JSON:
			if (out.format != REPORT_TABLE)
				return cli_usage_error("diff", "choose one of --csv and --json");
			out.format = c == OPT_CSV ? REPORT_CSV : REPORT_JSON;
			break;
		case OPT_UNITS:
			if (report_unit_parse(optarg, &out.unit))
				return cli_usage_error("diff", "invalid unit '%s' (ns, us, ms or s)",
						       optarg);
			break;
		case 'h':
			fputs(diff_usage, stdout);
			return EXIT_OK;
		default:
			return cli_option_error("diff", c, argv);
		}
	}
	if (argc - optind != 2)
		return cli_usage_error("diff", "expected two ETDumps, BASE and NEW");
	out.base = argv[optind];
	out.new = argv[optind + 1];
	out.alpha = dopt.alpha;
	out.min_change_pct = dopt.min_change_pct;
	out.min_delta_ns = dopt.min_delta_ns;
	if (read_one(out.base, &dumps[0]) || read_one(out.new, &dumps[1]))
		goto cleanup;
	if (diff_build(&dumps[0], &dumps[1], &dopt, &d, err, sizeof(err))) {
		p_err("%s: %s", strncmp(err, "base", 4) ? out.new : out.base,
		      strchr(err, ' ') + 1);
		goto cleanup;
	}
	ret = diff_print(stdout, &d, &out);
	if (ret) {
		p_err("diff: cannot print: %s", strerror(-ret));
		ret = EXIT_FAIL;
	} else if (!isnan(fail_above) && gate(&d, &out, fail_above)) {
		ret = EXIT_REGRESSION;
	}
	diff_free(&d);
cleanup:
	etd_dump_free(&dumps[0]);
	etd_dump_free(&dumps[1]);
	return ret;
}
