// SPDX-License-Identifier: BSD-3-Clause
/*
 * diff_format.c - every cell is made once, as text for the table or as
 * the exact number for CSV and JSON, so the outputs cannot disagree.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json_out.h"
#include "report/diff_format.h"

enum dcell_kind { DC_NONE, DC_STR, DC_NUM, DC_PCT, DC_PROB, DC_INT, DC_BOOL };

struct dcell {
	enum dcell_kind kind;
	const char *s;
	double v;
	bool b;
};

enum dcol_id {
	DC_BLOCK, DC_BLOCK_ORD, DC_EVENT, DC_RUNS_BASE, DC_RUNS_NEW,
	DC_RECS_BASE, DC_RECS_NEW,
	DC_P50_BASE, DC_P50_NEW, DC_P50_CHANGE, DC_P50_PCT, DC_NOISE,
	DC_AVG_BASE, DC_AVG_NEW, DC_AVG_PCT, DC_P, DC_SIGNIFICANT, DC_WITH_PACE,
	DC_VERDICT, DC_COUNTER_BASE, DC_COUNTER_NEW, DC_COUNTER_PCT,
};

struct dcol {
	enum dcol_id id;
	int counter;
	bool table;
	char header[64];
};

#define DIFF_MAX_COLUMNS (DC_VERDICT + 1 + 3 * ETD_MAX_COUNTERS)

static double scale(enum report_unit unit)
{
	static const double div[] = { 1, 1e3, 1e6, 1e9 };

	return div[unit];
}

static struct dcell num(bool present, double v)
{
	return present ? (struct dcell){ .kind = DC_NUM, .v = v } :
			 (struct dcell){ .kind = DC_NONE };
}

static struct dcell pct(bool present, double v)
{
	return present && isfinite(v) ? (struct dcell){ .kind = DC_PCT, .v = v } :
			 (struct dcell){ .kind = DC_NONE };
}

static struct dcell get(const struct dcol *c, const struct diff_row *r,
			enum report_unit unit)
{
	const struct diff_side *b = &r->base, *n = &r->new;
	bool both = b->present && n->present;
	double f = scale(unit);
	int k = c->counter;

	switch (c->id) {
	case DC_BLOCK:
		return (struct dcell){ .kind = DC_STR, .s = r->block };
	case DC_BLOCK_ORD:
		return (struct dcell){ .kind = DC_INT,
				       .v = (double)r->block_ordinal };
	case DC_EVENT:
		return (struct dcell){ .kind = DC_STR, .s = r->event };
	case DC_RUNS_BASE:
		return (struct dcell){ .kind = DC_INT, .v = (double)b->nruns };
	case DC_RUNS_NEW:
		return (struct dcell){ .kind = DC_INT, .v = (double)n->nruns };
	case DC_RECS_BASE:
		return (struct dcell){ .kind = DC_INT, .v = (double)b->nrec };
	case DC_RECS_NEW:
		return (struct dcell){ .kind = DC_INT, .v = (double)n->nrec };
	case DC_NOISE:
		return num(both && !isnan(r->noise), r->noise / f);
	case DC_P50_BASE:
		return num(b->present, b->p50 / f);
	case DC_P50_NEW:
		return num(n->present, n->p50 / f);
	case DC_P50_CHANGE:
		return num(true, r->delta_p50 / f);
	case DC_P50_PCT:
		return pct(both, r->p50_pct);
	case DC_AVG_BASE:
		return num(b->present, b->avg / f);
	case DC_AVG_NEW:
		return num(n->present, n->avg / f);
	case DC_AVG_PCT:
		return pct(both, r->avg_pct);
	case DC_P:
		return both ? (struct dcell){ .kind = DC_PROB, .v = r->p } :
			      (struct dcell){ .kind = DC_NONE };
	case DC_SIGNIFICANT:
		return (struct dcell){ .kind = DC_BOOL, .b = r->significant };
	case DC_WITH_PACE:
		return (struct dcell){ .kind = DC_BOOL, .b = r->with_pace };
	case DC_VERDICT:
		return (struct dcell){ .kind = DC_STR,
				       .s = diff_verdict_name(r->verdict) };
	case DC_COUNTER_BASE:
		return num(b->has_counter[k], b->counter_p50[k]);
	case DC_COUNTER_NEW:
		return num(n->has_counter[k], n->counter_p50[k]);
	case DC_COUNTER_PCT:
		return pct(b->has_counter[k] && n->has_counter[k],
			   (n->counter_p50[k] - b->counter_p50[k]) /
				   b->counter_p50[k] * 100);
	}
	return (struct dcell){ .kind = DC_NONE };
}

static size_t add(struct dcol *cols, size_t n, enum dcol_id id, int counter,
		  bool table, const char *fmt, const char *arg)
{
	cols[n] = (struct dcol){ .id = id, .counter = counter, .table = table };
	snprintf(cols[n].header, sizeof(cols[n].header), fmt, arg);
	return n + 1;
}

static size_t make_columns(const struct diff *d, enum report_unit unit,
			   struct dcol *cols)
{
	const char *u = report_unit_name(unit);
	bool across = diff_across(d);
	size_t n = 0;
	uint32_t k;

	n = add(cols, n, DC_BLOCK, 0, true, "%sevent_block_name", "");
	n = add(cols, n, DC_BLOCK_ORD, 0, false, "%sevent_block_ordinal", "");
	n = add(cols, n, DC_EVENT, 0, true, "%sevent_name", "");
	n = add(cols, n, DC_RUNS_BASE, 0, true, "%sruns_base", "");
	n = add(cols, n, DC_RUNS_NEW, 0, true, "%sruns_new", "");
	n = add(cols, n, DC_RECS_BASE, 0, across, "%srecordings_base", "");
	n = add(cols, n, DC_RECS_NEW, 0, across, "%srecordings_new", "");
	n = add(cols, n, DC_P50_BASE, 0, true, "p50_base (%s)", u);
	n = add(cols, n, DC_P50_NEW, 0, true, "p50_new (%s)", u);
	n = add(cols, n, DC_P50_CHANGE, 0, true, "p50_change (%s)", u);
	n = add(cols, n, DC_P50_PCT, 0, true, "%sp50_change_pct", "");
	n = add(cols, n, DC_NOISE, 0, across, "noise (%s)", u);
	n = add(cols, n, DC_AVG_BASE, 0, true, "avg_base (%s)", u);
	n = add(cols, n, DC_AVG_NEW, 0, true, "avg_new (%s)", u);
	n = add(cols, n, DC_AVG_PCT, 0, true, "%savg_change_pct", "");
	n = add(cols, n, DC_P, 0, true, "%sp_value", "");
	n = add(cols, n, DC_SIGNIFICANT, 0, false, "%ssignificant", "");
	/* significant as every row is: the sides' pace changed */
	n = add(cols, n, DC_WITH_PACE, 0, false, "%swith_pace", "");
	n = add(cols, n, DC_VERDICT, 0, true, "%sverdict", "");
	for (k = 0; k < d->ncounters; k++) {
		n = add(cols, n, DC_COUNTER_BASE, (int)k, true,
			"%.40s_p50_base", d->counter_names[k]);
		n = add(cols, n, DC_COUNTER_NEW, (int)k, true,
			"%.40s_p50_new", d->counter_names[k]);
		n = add(cols, n, DC_COUNTER_PCT, (int)k, true,
			"%.40s_p50_change_pct", d->counter_names[k]);
	}
	return n;
}

static const char *text(const struct dcell *c, bool table, char *buf,
			size_t len)
{
	switch (c->kind) {
	case DC_STR:
		return c->s;
	case DC_INT:
		snprintf(buf, len, "%.0f", c->v);
		return buf;
	case DC_BOOL:
		return c->b ? "True" : "False";
	case DC_PCT:
		if (table) {
			snprintf(buf, len, "%+.1f%%", c->v);
			return buf;
		}
		report_fmt_exact(c->v, buf, len);
		return buf;
	case DC_PROB:
		if (table) {
			snprintf(buf, len, "%.2g", c->v);
			return buf;
		}
		report_fmt_exact(c->v, buf, len);
		return buf;
	case DC_NUM:
		if (table)
			report_fmt_readable(c->v, buf, len);
		else
			report_fmt_exact(c->v, buf, len);
		return buf;
	default:
		return table ? "-" : "";
	}
}

static bool right_aligned(enum dcol_id id)
{
	return id != DC_BLOCK && id != DC_EVENT && id != DC_VERDICT;
}

/* Text as the table shows it; control characters would break the layout. */
static void put_clean(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

static size_t width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void put_row(FILE *f, const struct dcol *cols, size_t ncols,
		    const size_t *w, const struct diff_row *r,
		    enum report_unit unit)
{
	char buf[REPORT_NUM_LEN];
	size_t j;

	for (j = 0; j < ncols; j++) {
		const char *t;
		struct dcell c;
		size_t tw;

		if (!cols[j].table)
			continue;
		if (r) {
			c = get(&cols[j], r, unit);
			t = text(&c, true, buf, sizeof(buf));
		} else {
			t = cols[j].header;
		}
		tw = width(t);
		if (right_aligned(cols[j].id))
			fprintf(f, "%*s", (int)(w[j] - tw), "");
		put_clean(f, t);
		if (!right_aligned(cols[j].id))
			fprintf(f, "%*s", (int)(w[j] - tw), "");
		fputs("  ", f);
	}
}

/* One line of the table, without trailing blanks. */
static int print_row(FILE *f, const struct dcol *cols, size_t ncols,
		     const size_t *w, const struct diff_row *r,
		     enum report_unit unit)
{
	char *line = NULL;
	size_t len = 0;
	FILE *m;

	m = open_memstream(&line, &len);
	if (!m)
		return -ENOMEM;
	put_row(m, cols, ncols, w, r, unit);
	if (fclose(m)) {
		free(line);
		return -ENOMEM;
	}
	while (len && line[len - 1] == ' ')
		line[--len] = '\0';
	fprintf(f, "%s\n", line);
	free(line);
	return 0;
}

static size_t shown(const struct diff *d, const struct diff_output *o)
{
	return o->top && o->top < d->nrows ? o->top : d->nrows;
}

/*
 * What was compared and how it was judged: two lines, and with one
 * recording a side a third saying what it cannot see (prefix: markdown's
 * paragraph breaks and quote).
 */
static void print_head(FILE *f, const struct diff *d,
		       const struct diff_output *o, bool markdown)
{
	size_t i, slower = 0, faster = 0;
	const char *end = markdown ? "\n\n" : "\n";

	for (i = 0; i < d->nrows; i++) {
		slower += d->rows[i].verdict == DIFF_SLOWER;
		faster += d->rows[i].verdict == DIFF_FASTER;
	}
	if (diff_across(d)) {
		fprintf(f, "base %s: %zu recording%s, %zu runs; new %s: %zu recording%s, %zu runs; times in %s%s",
			o->base, d->base_recordings,
			d->base_recordings == 1 ? "" : "s", d->base_runs,
			o->new, d->new_recordings,
			d->new_recordings == 1 ? "" : "s", d->new_runs,
			report_unit_name(o->unit), end);
		if (d->left_out_note[0])
			fprintf(f, "%s%s", d->left_out_note, end);
		if (d->pace.changed)
			fprintf(f, "new ran %.2fx base's pace throughout (every event together, Welch's t across recordings, p = %.2g): each row in that direction by %g%% or more is called%s",
				d->pace.factor, d->pace.p, o->min_change_pct,
				end);
	} else
		fprintf(f, "base %s: %zu runs; new %s: %zu runs; times in %s%s",
			o->base, d->base_runs, o->new, d->new_runs,
			report_unit_name(o->unit), end);
	if (diff_across(d)) {
		fprintf(f, "%zu slower, %zu faster (Welch's t across recordings on each one's p50 against its recording's pace over the other events, Holm-adjusted p < %g, change beyond the noise: the std. deviation between one side's recordings at one pace, p50 change >= %g%% and >= %g ns, and so beyond its recording's pace, unless with the pace); largest change first%s",
			slower, faster, o->alpha, o->min_change_pct,
			o->min_delta_ns, end);
		if (!markdown)
			fputc('\n', f);
		return;
	}
	fprintf(f, "%zu slower, %zu faster (Mann-Whitney U over the runs, Holm-adjusted p < %g, p50 change >= %g%% and >= %g ns); largest change first%s",
		slower, faster, o->alpha, o->min_change_pct, o->min_delta_ns,
		end);
	fprintf(f, "%sone recording a side cannot tell a change from the noise between processes: %s%s",
		markdown ? "> " : "", o->repeat_hint, end);
}

static int print_table(FILE *f, const struct diff *d,
			const struct diff_output *o, const struct dcol *cols,
			size_t ncols)
{
	size_t w[DIFF_MAX_COLUMNS], i, j, n = shown(d, o);
	char buf[REPORT_NUM_LEN];
	int err;

	print_head(f, d, o, false);
	for (j = 0; j < ncols; j++) {
		w[j] = width(cols[j].header);
		for (i = 0; i < n; i++) {
			struct dcell c = get(&cols[j], &d->rows[i], o->unit);
			size_t tw = width(text(&c, true, buf, sizeof(buf)));

			if (tw > w[j])
				w[j] = tw;
		}
	}
	err = print_row(f, cols, ncols, w, NULL, o->unit);
	for (i = 0; !err && i < n; i++)
		err = print_row(f, cols, ncols, w, &d->rows[i], o->unit);
	return err;
}

/* A cell of a GitHub table: its pipes escaped, no line breaks. */
static void put_md(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
	}
}

static void print_markdown(FILE *f, const struct diff *d,
			   const struct diff_output *o,
			   const struct dcol *cols, size_t ncols)
{
	char buf[REPORT_NUM_LEN];
	size_t i, j;

	print_head(f, d, o, true);
	for (j = 0; j < ncols; j++) {
		if (!cols[j].table)
			continue;
		fputs("| ", f);
		put_md(f, cols[j].header);
		fputc(' ', f);
	}
	fputs("|\n", f);
	for (j = 0; j < ncols; j++)
		if (cols[j].table)
			fputs(right_aligned(cols[j].id) ? "| --: " : "| :-- ",
			      f);
	fputs("|\n", f);
	for (i = 0; i < shown(d, o); i++) {
		for (j = 0; j < ncols; j++) {
			struct dcell c = get(&cols[j], &d->rows[i], o->unit);

			if (!cols[j].table)
				continue;
			fputs("| ", f);
			put_md(f, text(&c, true, buf, sizeof(buf)));
			fputc(' ', f);
		}
		fputs("|\n", f);
	}
}

static void print_csv(FILE *f, const struct diff *d,
		      const struct diff_output *o, const struct dcol *cols,
		      size_t ncols)
{
	char buf[REPORT_NUM_LEN];
	size_t i, j;

	for (j = 0; j < ncols; j++) {
		fputs(j ? "," : "", f);
		report_csv_field(f, cols[j].header);
	}
	fputs("\r\n", f);
	for (i = 0; i < shown(d, o); i++) {
		for (j = 0; j < ncols; j++) {
			struct dcell c = get(&cols[j], &d->rows[i], o->unit);

			fputs(j ? "," : "", f);
			report_csv_field(f, text(&c, false, buf, sizeof(buf)));
		}
		fputs("\r\n", f);
	}
}

static int print_json(FILE *f, const struct diff *d,
		      const struct diff_output *o, const struct dcol *cols,
		      size_t ncols)
{
	char buf[REPORT_NUM_LEN];
	size_t i, j;
	int err = 0;

	fputc('[', f);
	for (i = 0; i < shown(d, o) && !err; i++) {
		fputs(i ? ",\n{" : "\n{", f);
		for (j = 0; j < ncols && !err; j++) {
			struct dcell c = get(&cols[j], &d->rows[i], o->unit);

			fputs(j ? ", " : "", f);
			err = json_out_str(f, cols[j].header);
			fputs(": ", f);
			if (err)
				break;
			if (c.kind == DC_STR)
				err = json_out_str(f, c.s);
			else if (c.kind == DC_BOOL)
				fputs(c.b ? "true" : "false", f);
			else if (c.kind == DC_NONE)
				fputs("null", f);
			else
				fputs(text(&c, false, buf, sizeof(buf)), f);
		}
		fputc('}', f);
	}
	fputs("\n]\n", f);
	return err;
}

int diff_print(FILE *f, const struct diff *d, const struct diff_output *o)
{
	struct dcol cols[DIFF_MAX_COLUMNS];
	size_t ncols = make_columns(d, o->unit, cols);
	int err = 0;

	switch (o->format) {
	case DIFF_CSV:
		print_csv(f, d, o, cols, ncols);
		break;
	case DIFF_MARKDOWN:
		print_markdown(f, d, o, cols, ncols);
		break;
	case DIFF_JSON:
		err = print_json(f, d, o, cols, ncols);
		break;
	default:
		err = print_table(f, d, o, cols, ncols);
		break;
	}
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
	return err;
}
