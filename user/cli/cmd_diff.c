// SPDX-License-Identifier: BSD-3-Clause
/*
 * cmd_diff.c - `etdump-bpf diff BASE NEW` or `diff BASE... -- NEW...`:
 * what changed, operator by operator, between two recordings (or two sets
 * of recordings), and whether it is more than noise; with --fail-above,
 * an exit status a CI job can gate on.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/commands.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "read/etdump_reader.h"
#include "report/diff.h"
#include "report/diff_format.h"

/* a status of its own, that a CI job tells from a failure to compare */
#define EXIT_REGRESSION 3

#define REPEAT_HINT \
	"record several a side, in turns (etdump-bpf record --repeat 5 -o base.etdp --alternate-with new.etdp -- OLD -- NEW writes base.0001.etdp ... base.0005.etdp and new.0001.etdp ...) and give them as diff base.0*.etdp -- new.0*.etdp"

static const char diff_usage[] =
	"usage: etdump-bpf diff BASE NEW [OPTIONS]\n"
	"       etdump-bpf diff [OPTIONS] BASE1 BASE2 ... -- NEW1 NEW2 ...\n"
	"  OPTIONS: [--fail-above PCT] [--alpha A] [--min-change PCT]\n"
	"           [--min-delta NS] [--operator-call] [--top N]\n"
	"           [--format table|markdown|csv|json] [--units ns|us|ms|s]\n"
	"\n"
	"Compare ETDumps (recordings, builds) operator by operator: p50 and avg\n"
	"of each event's per-run durations and of each perf counter all hold,\n"
	"with the change, largest change of p50 first; p-values adjusted by\n"
	"Holm over all rows. A row is 'slower' or 'faster' when the adjusted p\n"
	"is below A and p50 changed by at least the minimum change.\n"
	"\n"
	"Two files: each event's runs are compared with the Mann-Whitney U test.\n"
	"Runs of one process share its state, so this cannot tell a slower\n"
	"build from a slower process: the output says so.\n"
	"\n"
	"Several recordings a side (files before and after --; options before\n"
	"--): each recording is one sample, its p50. A side's p50 is the median\n"
	"of its recordings'; the test is Welch's t on their logs, each less its\n"
	"recording's pace over the other events (a process's pace moves all\n"
	"its events together); and a change no larger than the noise, the\n"
	"spread (standard deviation) between recordings of one side at one\n"
	"pace, is never called. Sides whose paces differ are one more test:\n"
	"when it holds, every row changed that way is called with it. Five a\n"
	"side catch a 1.3x slowdown of one operator (scripts/diff_alarms.py).\n"
	"\n"
	"  --fail-above PCT  exit 3 when some event is significantly slower\n"
	"                    with p50 more than PCT percent above the base's\n"
	"  --alpha A         significance level (default 0.01, over runs and\n"
	"                    across recordings)\n"
	"  --min-change PCT  smallest change called slower/faster (default 5)\n"
	"  --min-delta NS    and in nanoseconds (default 100: two processes of\n"
	"                    one build differ that much in tiny operators)\n"
	"  --operator-call   keep OPERATOR_CALL rows (left out, as the\n"
	"                    Inspector's print_data_tabular does)\n"
	"  --top N           the N largest changes only\n"
	"  --format F        table (default), markdown (a GitHub table for a\n"
	"                    CI summary or a pull-request comment), or csv,\n"
	"                    json: every column, numbers in full precision\n"
	"  --csv, --json     --format csv, --format json\n"
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

static int parse_format(const char *s, enum diff_format *out)
{
	static const char *const names[] = {
		[DIFF_TABLE] = "table", [DIFF_CSV] = "csv",
		[DIFF_JSON] = "json", [DIFF_MARKDOWN] = "markdown",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*out = (enum diff_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The first "--" of argv: where the new recordings start; argc if none. */
static int find_split(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			return i;
	return argc;
}

/* "FIRST" for one file, "FIRST (+N)" for several: the side in one word. */
static char *side_label(char **files, size_t n)
{
	char *s = NULL;

	if (n == 1)
		return strdup(files[0]);
	if (asprintf(&s, "%s (+%zu)", files[0], n - 1) < 0)
		return NULL;
	return s;
}

/*
 * The files of both sides, in order: base, then new. 0, or a usage
 * error's exit status (already printed).
 */
static int split_files(int argc, char **argv, int split, char ***files,
		       size_t *nbase, size_t *nnew)
{
	size_t i, stdin_uses = 0;

	if (split == argc) {
		if (argc - optind != 2)
			return cli_usage_error("diff", "expected two ETDumps, BASE and NEW, or BASE... -- NEW...");
		*nbase = *nnew = 1;
		*files = &argv[optind];
		return 0;
	}
	*nbase = (size_t)(split - optind);
	*nnew = (size_t)(argc - split - 1);
	if (!*nbase || !*nnew)
		return cli_usage_error("diff", "expected recordings on both sides of --: BASE... -- NEW...");
	/* getopt left the base files at optind..split-1; close the gap */
	memmove(&argv[split], &argv[split + 1], *nnew * sizeof(*argv));
	*files = &argv[optind];
	for (i = 0; i < *nbase + *nnew; i++)
		stdin_uses += !strcmp((*files)[i], "-");
	if (stdin_uses > 1)
		return cli_usage_error("diff", "standard input ('-') can be read once");
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	enum { OPT_FAIL = 256, OPT_ALPHA, OPT_MIN, OPT_MIN_DELTA, OPT_OPCALL, OPT_TOP,
	       OPT_CSV, OPT_JSON, OPT_FORMAT, OPT_UNITS };
	static const struct option longopts[] = {
		{ "fail-above", required_argument, NULL, OPT_FAIL },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "min-change", required_argument, NULL, OPT_MIN },
		{ "min-delta", required_argument, NULL, OPT_MIN_DELTA },
		{ "operator-call", no_argument, NULL, OPT_OPCALL },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "units", required_argument, NULL, OPT_UNITS },
		{ "help", no_argument, NULL, 'h' },
		CLI_COMMON_LONGOPTS,
		{},
	};
	struct diff_options dopt = { .alpha = NAN,
				     .min_change_pct = DIFF_DEFAULT_MIN_CHANGE,
				     .min_delta_ns = DIFF_DEFAULT_MIN_DELTA_NS };
	struct diff_output out = { .format = DIFF_TABLE, .unit = REPORT_MS,
				   .repeat_hint = REPEAT_HINT };
	struct etd_dump *dumps = NULL;
	char **files = NULL, *labels[2] = {};
	size_t nbase = 0, nnew = 0, i, nread = 0;
	bool format_set = false;
	double fail_above = NAN;
	int c, split, ret;
	uint64_t top;
	struct diff d;
	char err[512];

	/* options come before "--"; what follows it is the new recordings */
	split = find_split(argc, argv);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(split, argv, ":h" CLI_COMMON_SHORTOPTS, longopts,
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
		case OPT_FORMAT:
			if (format_set)
				return cli_usage_error("diff", "choose one of --format, --csv and --json");
			format_set = true;
			if (c != OPT_FORMAT)
				out.format = c == OPT_CSV ? DIFF_CSV : DIFF_JSON;
			else if (parse_format(optarg, &out.format))
				return cli_usage_error("diff", "invalid --format '%s' (table, markdown, csv or json)",
						       optarg);
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
	ret = split_files(argc, argv, split, &files, &nbase, &nnew);
	if (ret)
		return ret;
	ret = EXIT_FAIL;
	if (isnan(dopt.alpha))
		dopt.alpha = nbase + nnew > 2 ? DIFF_DEFAULT_ALPHA_ACROSS :
						DIFF_DEFAULT_ALPHA;
	out.alpha = dopt.alpha;
	out.min_change_pct = dopt.min_change_pct;
	out.min_delta_ns = dopt.min_delta_ns;
	labels[0] = side_label(files, nbase);
	labels[1] = side_label(files + nbase, nnew);
	dumps = calloc(nbase + nnew, sizeof(*dumps));
	if (!labels[0] || !labels[1] || !dumps) {
		p_err("diff: out of memory");
		goto cleanup;
	}
	out.base = labels[0];
	out.new = labels[1];
	for (nread = 0; nread < nbase + nnew; nread++)
		if (read_one(files[nread], &dumps[nread]))
			goto cleanup;
	if (diff_build(dumps, nbase, nnew, &dopt, &d, err, sizeof(err))) {
		/* "base K: why" or "new K: why": the file, then why */
		char *why = strchr(err, ':');
		size_t k = strtoul(strchr(err, ' ') + 1, NULL, 10) - 1;

		p_err("%s: %s", files[err[0] == 'b' ? k : nbase + k],
		      why ? why + 2 : err);
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
	for (i = 0; i < nread && dumps; i++)
		etd_dump_free(&dumps[i]);
	free(dumps);
	free(labels[0]);
	free(labels[1]);
	return ret;
}
