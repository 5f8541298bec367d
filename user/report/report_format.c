// SPDX-License-Identifier: BSD-3-Clause
/*
 * report_format.c - one column model, three writers: a column knows how
 * to take its cell from a row; the table, CSV and JSON writers only render
 * cells, so the three outputs cannot disagree on what a row holds.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json_out.h"
#include "report/report_format.h"

enum cell_kind { CELL_NONE, CELL_STR, CELL_NUM, CELL_INT, CELL_BOOL,
		 CELL_LIST };

struct cell {
	enum cell_kind kind;
	const char *s;
	double num;
	long long i;
	bool b;
	const uint64_t *list;   /* CELL_LIST: i values */
};

/* a cell's text in the table: a list shortened as the Inspector does */
#define CELL_TEXT_LEN 160

struct row {
	const struct report_block *block;
	size_t block_index;
	const struct report_event *ev;
	bool total;             /* the table's block total line */
};

struct column {
	char header[48];
	bool numeric;   /* aligned on the decimal point in the table */
	bool table;     /* shown in the table too, not only in CSV/JSON */
	void (*get)(const struct row *w, int arg, struct cell *c);
	int arg;
};

#define MAX_COLUMNS (20 + 2 * ETD_MAX_COUNTERS)
#define COLUMN_GAP 2

static void get_block_name(const struct row *w, int arg, struct cell *c)
{
	(void)arg;
	*c = (struct cell){ .kind = CELL_STR, .s = w->block->name };
}

static void get_block_index(const struct row *w, int arg, struct cell *c)
{
	(void)arg;
	*c = (struct cell){ .kind = CELL_INT, .i = (long long)w->block_index };
}

static void get_event_name(const struct row *w, int arg, struct cell *c)
{
	(void)arg;
	*c = (struct cell){ .kind = CELL_STR, .s = w->ev->name };
}

static void get_runs(const struct row *w, int arg, struct cell *c)
{
	(void)arg;
	*c = (struct cell){ .kind = CELL_INT, .i = (long long)w->block->nruns };
}

static const struct {
	const char *name;
	size_t offset;
} stats[] = {
	{ "p10", offsetof(struct report_stats, p10) },
	{ "p50", offsetof(struct report_stats, p50) },
	{ "p90", offsetof(struct report_stats, p90) },
	{ "avg", offsetof(struct report_stats, avg) },
	{ "min", offsetof(struct report_stats, min) },
	{ "max", offsetof(struct report_stats, max) },
};

static void get_stat(const struct row *w, int arg, struct cell *c)
{
	const char *base = (const char *)&w->ev->time;

	*c = (struct cell){ .kind = CELL_NONE };
	if (w->ev->has_time) {
		c->kind = CELL_NUM;
		memcpy(&c->num, base + stats[arg].offset, sizeof(c->num));
	}
}

static void get_delegated(const struct row *w, int arg, struct cell *c)
{
	(void)arg;
	*c = (struct cell){ .kind = w->total ? CELL_NONE : CELL_BOOL,
			    .b = w->ev->delegated };
}

/* Only an ETRecord gives operator types: the Inspector's empty list. */
static void get_op_types(const struct row *w, int arg, struct cell *c)
{
	(void)arg;
	*c = (struct cell){ .kind = w->total ? CELL_NONE : CELL_LIST };
}

static void get_start_times(const struct row *w, int arg, struct cell *c)
{
	(void)arg;
	*c = (struct cell){ .kind = CELL_NONE };
	if (w->ev->has_time && !w->total)
		*c = (struct cell){ .kind = CELL_LIST,
				    .list = w->ev->start_times,
				    .i = (long long)w->ev->nstart_times };
}

static void get_share(const struct row *w, int arg, struct cell *c)
{
	(void)arg;
	*c = (struct cell){ .kind = CELL_NONE };
	if (w->ev->has_time && w->block->total.avg > 0)
		*c = (struct cell){ .kind = CELL_NUM, .num = w->ev->share };
}

static void get_total_avg(const struct row *w, int arg, struct cell *c)
{
	(void)arg;
	*c = (struct cell){ .kind = CELL_NONE };
	if (w->block->total.avg > 0)
		*c = (struct cell){ .kind = CELL_NUM,
				    .num = w->block->total.avg };
}

/* Only an ETRecord names the backend; we never have one. */
static void get_backend(const struct row *w, int arg, struct cell *c)
{
	(void)w;
	(void)arg;
	*c = (struct cell){ .kind = CELL_NONE };
}

static void get_op_call(const struct row *w, int arg, struct cell *c)
{
	(void)arg;
	*c = (struct cell){ .kind = w->total ? CELL_NONE : CELL_BOOL,
			    .b = w->ev->op_call };
}

static void get_identifier(const struct row *w, int arg, struct cell *c)
{
	(void)arg;
	*c = (struct cell){ .kind = CELL_NONE };
	if (w->ev->id_kind == REPORT_ID_INT)
		*c = (struct cell){ .kind = CELL_INT, .i = w->ev->id_int };
	else if (w->ev->id_kind == REPORT_ID_STR)
		*c = (struct cell){ .kind = CELL_STR, .s = w->ev->id_str };
}

/* arg: counter * 2, + 1 for the average */
static void get_counter(const struct row *w, int arg, struct cell *c)
{
	int k = arg / 2;

	*c = (struct cell){ .kind = CELL_NONE };
	if (!w->ev->has_counter[k])
		return;
	c->kind = CELL_NUM;
	c->num = arg % 2 ? w->ev->counter_avg[k] : w->ev->counter_p50[k];
}

static size_t add_column(struct column *cols, size_t n, const char *header,
			 bool numeric, bool table,
			 void (*get)(const struct row *, int, struct cell *),
			 int arg)
{
	cols[n] = (struct column){ .numeric = numeric, .table = table,
				   .get = get, .arg = arg };
	snprintf(cols[n].header, sizeof(cols[n].header), "%s", header);
	return n + 1;
}

static size_t add_stats(struct column *cols, size_t n, const char *unit)
{
	char h[48];
	size_t i;

	for (i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		snprintf(h, sizeof(h), "%s (%s)", stats[i].name, unit);
		n = add_column(cols, n, h, true, true, get_stat, (int)i);
	}
	return n;
}

static size_t add_counters(const struct report *r, struct column *cols,
			   size_t n)
{
	char h[48];
	size_t i;

	for (i = 0; i < r->ncounters; i++) {
		snprintf(h, sizeof(h), "%.40s_p50", r->counter_names[i]);
		n = add_column(cols, n, h, true, true, get_counter, (int)i * 2);
		snprintf(h, sizeof(h), "%.40s_avg", r->counter_names[i]);
		n = add_column(cols, n, h, true, true, get_counter,
			       (int)i * 2 + 1);
	}
	return n;
}

/*
 * The table: print_data_tabular()'s columns in its order (its start_time
 * list moved last, being the widest), then what it lacks: runs, share,
 * counters.
 */
static size_t table_columns(const struct report *r, struct column *cols)
{
	size_t n = 0;

	n = add_column(cols, n, "event_block_name", false, true,
		       get_block_name, 0);
	n = add_column(cols, n, "event_name", false, true, get_event_name, 0);
	n = add_stats(cols, n, report_unit_name(r->unit));
	n = add_column(cols, n, "op_types", false, true, get_op_types, 0);
	n = add_column(cols, n, "is_delegated_op", false, true,
		       get_delegated, 0);
	n = add_column(cols, n, "delegate_backend_name", false, true,
		       get_backend, 0);
	n = add_column(cols, n, "runs", true, true, get_runs, 0);
	n = add_column(cols, n, "share (%)", true, true, get_share, 0);
	n = add_counters(r, cols, n);
	n = add_column(cols, n, "start_time", false, true, get_start_times, 0);
	return n;
}

/* CSV and JSON: every column, new ones after the first ones. */
static size_t data_columns(const struct report *r, struct column *cols)
{
	const char *unit = report_unit_name(r->unit);
	char h[48];
	size_t n = 0;

	n = add_column(cols, n, "event_block_name", false, true,
		       get_block_name, 0);
	n = add_column(cols, n, "event_block_index", true, false,
		       get_block_index, 0);
	n = add_column(cols, n, "event_name", false, true, get_event_name, 0);
	n = add_column(cols, n, "runs", true, true, get_runs, 0);
	n = add_stats(cols, n, unit);
	n = add_column(cols, n, "is_delegated_op", false, true,
		       get_delegated, 0);
	n = add_column(cols, n, "delegate_backend_name", false, true,
		       get_backend, 0);
	n = add_column(cols, n, "op_call", false, true, get_op_call, 0);
	n = add_column(cols, n, "delegate_debug_identifier", false, false,
		       get_identifier, 0);
	n = add_counters(r, cols, n);
	n = add_column(cols, n, "op_types", false, true, get_op_types, 0);
	n = add_column(cols, n, "start_time", false, true, get_start_times, 0);
	n = add_column(cols, n, "share (%)", true, true, get_share, 0);
	snprintf(h, sizeof(h), "block_total_avg (%s)", unit);
	n = add_column(cols, n, h, true, true, get_total_avg, 0);
	return n;
}

void report_fmt_readable(double v, char *buf, size_t len)
{
	char sci[32], *end;
	int exp10, decimals;

	if (v == 0 || !isfinite(v)) {
		snprintf(buf, len, "%g", v == 0 ? 0.0 : v);
		return;
	}
	/* the exponent %g would use, after rounding to 6 digits */
	snprintf(sci, sizeof(sci), "%.5e", v);
	exp10 = atoi(strchr(sci, 'e') + 1);
	if (exp10 > 20 || exp10 < -20) {
		snprintf(buf, len, "%.6g", v);
		return;
	}
	decimals = exp10 >= 5 ? 0 : 5 - exp10;
	snprintf(buf, len, "%.*f", decimals, v);
	if (!strchr(buf, '.'))
		return;
	end = buf + strlen(buf);
	while (end[-1] == '0')
		*--end = '\0';
	if (end[-1] == '.')
		end[-1] = '\0';
}

void report_fmt_exact(double v, char *buf, size_t len)
{
	int digits, exp10, decimals;

	for (digits = 1; digits < 17; digits++) {
		snprintf(buf, len, "%.*e", digits - 1, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!isfinite(v) || digits == 17) {
		snprintf(buf, len, "%.17g", v);
		return;
	}
	/* positional where Python's repr() is, with the same digits */
	exp10 = atoi(strchr(buf, 'e') + 1);
	if (exp10 < -4 || exp10 >= 16)
		return;
	decimals = digits - 1 - exp10;
	snprintf(buf, len, "%.*f", decimals > 0 ? decimals : 0, v);
}

/*
 * A list as the Inspector's table shows it: whole up to 4 values, else
 * its truncated_list() form, "[a, b ... z] (n total)".
 */
static const char *list_text(const struct cell *c, char *buf, size_t len)
{
	size_t n = (size_t)c->i, i, at;

	if (n > 4) {
		snprintf(buf, len, "[%llu, %llu ... %llu] (%zu total)",
			 (unsigned long long)c->list[0],
			 (unsigned long long)c->list[1],
			 (unsigned long long)c->list[n - 1], n);
		return buf;
	}
	at = (size_t)snprintf(buf, len, "[");
	for (i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%llu",
				       i ? ", " : "",
				       (unsigned long long)c->list[i]);
	if (at < len)
		snprintf(buf + at, len - at, "]");
	return buf;
}

/* The whole list, as Python prints it (CSV) or as a JSON array. */
static void put_list(FILE *f, const struct cell *c)
{
	long long i;

	fputc('[', f);
	for (i = 0; i < c->i; i++)
		fprintf(f, "%s%llu", i ? ", " : "",
			(unsigned long long)c->list[i]);
	fputc(']', f);
}

/* A cell as text; numbers in the table's or the exact format. */
static const char *cell_text(const struct cell *c, bool table,
			     const char *none, char *buf, size_t len)
{
	switch (c->kind) {
	case CELL_STR:
		return c->s ? c->s : "";
	case CELL_NUM:
		if (table)
			report_fmt_readable(c->num, buf, len);
		else
			report_fmt_exact(c->num, buf, len);
		return buf;
	case CELL_INT:
		snprintf(buf, len, "%lld", c->i);
		return buf;
	case CELL_BOOL:
		return c->b ? "True" : "False";
	case CELL_LIST:
		return list_text(c, buf, len);
	default:
		return none;
	}
}

/* ---- table ---- */

/* Table width of UTF-8 text: one column per code point. */
static size_t text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Digits before the decimal point (all of them without one). */
static size_t int_part(const char *s)
{
	const char *dot = strchr(s, '.');

	return dot ? (size_t)(dot - s) : strlen(s);
}

struct layout {
	size_t width;   /* the whole column */
	size_t left;    /* numeric: widest part before the decimal point */
	size_t right;   /* numeric: widest part from it */
};

/*
 * A line whose trailing blanks are never written: spaces wait until
 * something visible follows them.
 */
struct line {
	FILE *f;
	size_t spaces;
};

static void put_spaces(struct line *l, size_t n)
{
	l->spaces += n;
}

/* Visible text; control characters would break the layout: '?'. */
static void put_text(struct line *l, const char *s)
{
	if (!*s)
		return;
	for (; l->spaces; l->spaces--)
		fputc(' ', l->f);
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, l->f);
}

static void end_line(struct line *l)
{
	l->spaces = 0;
	fputc('\n', l->f);
}

static void measure(const struct column *col, const struct row *rows,
		    size_t nrows, struct layout *lay)
{
	char buf[CELL_TEXT_LEN];
	const char *t;
	struct cell c;
	size_t i, w;

	memset(lay, 0, sizeof(*lay));
	for (i = 0; i < nrows; i++) {
		col->get(&rows[i], col->arg, &c);
		t = cell_text(&c, true, col->numeric ? "-" : "", buf,
			      sizeof(buf));
		w = text_width(t);
		if (col->numeric) {
			if (int_part(t) > lay->left)
				lay->left = int_part(t);
			if (w - int_part(t) > lay->right)
				lay->right = w - int_part(t);
			w = lay->left + lay->right;
		}
		if (w > lay->width)
			lay->width = w;
	}
	if (text_width(col->header) > lay->width)
		lay->width = text_width(col->header);
}

static void put_cell(struct line *l, const struct column *col,
		     const struct layout *lay, const char *t)
{
	size_t w = text_width(t), left;

	if (!col->numeric) {
		put_text(l, t);
		put_spaces(l, lay->width - w);
		return;
	}
	/* integer parts end in one place, whatever the header's width */
	left = int_part(t);
	put_spaces(l, lay->width - lay->right - left);
	put_text(l, t);
	put_spaces(l, lay->right - (w - left));
}

static void put_header(struct line *l, const struct column *cols,
		       const struct layout *lay, size_t ncols)
{
	size_t i, w;

	for (i = 0; i < ncols; i++) {
		if (!cols[i].table)
			continue;
		w = text_width(cols[i].header);
		if (cols[i].numeric)
			put_spaces(l, lay[i].width - w);
		put_text(l, cols[i].header);
		if (!cols[i].numeric)
			put_spaces(l, lay[i].width - w);
		put_spaces(l, COLUMN_GAP);
	}
	end_line(l);
	for (i = 0; i < ncols; i++) {
		if (!cols[i].table)
			continue;
		for (w = 0; w < lay[i].width; w++)
			put_text(l, "-");
		put_spaces(l, COLUMN_GAP);
	}
	end_line(l);
}

static void print_table(FILE *f, const struct report *r,
			const struct report_output *o,
			const struct column *cols, size_t ncols,
			const struct row *rows, size_t nrows)
{
	struct layout lay[MAX_COLUMNS];
	struct line l = { .f = f };
	char buf[CELL_TEXT_LEN];
	struct cell c;
	size_t i, j;

	fprintf(f, "%s: %zu event block%s from %zu run%s; times in %s%s\n",
		o->source ? o->source : "report", r->nblocks,
		r->nblocks == 1 ? "" : "s", r->nruns, r->nruns == 1 ? "" : "s",
		report_unit_name(r->unit),
		o->no_operator_call ?
		"; OPERATOR_CALL rows left out (--operator-call shows them)" :
		"");
	if (o->call_order_ids)
		fprintf(f, "instruction ids are call-order ids (symbol mode without --program: chain 0, numbered in the order the calls ran, not the program's plan)\n");
	if (o->kept_every)
		fprintf(f, "runs: 1 in %u of the runtime's (record --every %u); the others were left out\n",
			o->kept_every, o->kept_every);
	if (o->duty[0])
		fprintf(f, "recorded with --duty %.*s%%/%s: probes attached that share of the time, a window at the start of each period; the runs are the executions whole inside a window\n",
			(int)strcspn(o->duty, "/"), o->duty,
			o->duty + strcspn(o->duty, "/") + (o->duty[strcspn(o->duty, "/")] == '/'));
	fputc('\n', f);
	for (j = 0; j < ncols; j++)
		measure(&cols[j], rows, nrows, &lay[j]);
	put_header(&l, cols, lay, ncols);
	for (i = 0; i < nrows; i++) {
		if (i && rows[i].block_index != rows[i - 1].block_index)
			end_line(&l);
		for (j = 0; j < ncols; j++) {
			if (!cols[j].table)
				continue;
			cols[j].get(&rows[i], cols[j].arg, &c);
			put_cell(&l, &cols[j], &lay[j],
				 cell_text(&c, true, cols[j].numeric ? "-" : "",
					   buf, sizeof(buf)));
			put_spaces(&l, COLUMN_GAP);
		}
		end_line(&l);
	}
}

/* ---- CSV (RFC 4180) ---- */

void report_csv_field(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void print_csv(FILE *f, const struct column *cols, size_t ncols,
		      const struct row *rows, size_t nrows)
{
	char buf[REPORT_NUM_LEN];
	struct cell c;
	size_t i, j;

	for (j = 0; j < ncols; j++) {
		fputs(j ? "," : "", f);
		report_csv_field(f, cols[j].header);
	}
	fputs("\r\n", f);
	for (i = 0; i < nrows; i++) {
		for (j = 0; j < ncols; j++) {
			cols[j].get(&rows[i], cols[j].arg, &c);
			fputs(j ? "," : "", f);
			if (c.kind == CELL_LIST) {
				fputc('"', f);
				put_list(f, &c);
				fputc('"', f);
				continue;
			}
			report_csv_field(f, cell_text(&c, false, "", buf, sizeof(buf)));
		}
		fputs("\r\n", f);
	}
}

/* ---- JSON ---- */

static int json_value(FILE *f, const struct cell *c)
{
	char buf[REPORT_NUM_LEN];

	switch (c->kind) {
	case CELL_STR:
		return json_out_str(f, c->s);
	case CELL_NUM:
	case CELL_INT:
		fputs(cell_text(c, false, "", buf, sizeof(buf)), f);
		return 0;
	case CELL_BOOL:
		fputs(c->b ? "true" : "false", f);
		return 0;
	case CELL_LIST:
		put_list(f, c);
		return 0;
	default:
		fputs("null", f);
		return 0;
	}
}

static int print_json(FILE *f, const struct column *cols, size_t ncols,
		      const struct row *rows, size_t nrows)
{
	struct cell c;
	size_t i, j;
	int err = 0;

	fputc('[', f);
	for (i = 0; i < nrows && !err; i++) {
		fputs(i ? ",\n{" : "\n{", f);
		for (j = 0; j < ncols && !err; j++) {
			cols[j].get(&rows[i], cols[j].arg, &c);
			fputs(j ? ", " : "", f);
			err = json_out_str(f, cols[j].header);
			fputs(": ", f);
			if (!err)
				err = json_value(f, &c);
		}
		fputc('}', f);
	}
	fputs("\n]\n", f);
	return err;
}

static double sort_value(const struct row *w, enum report_sort by)
{
	const char *base = (const char *)&w->ev->time;
	double v;

	if (by == REPORT_SORT_SHARE)
		return w->ev->share;
	if (by == REPORT_SORT_RUNS)
		return (double)w->block->nruns;
	memcpy(&v, base + stats[by - REPORT_SORT_P10].offset,
	       sizeof(v));
	return v;
}

/* Largest first (names: alphabetical); rows without times last. */
static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct row *a = pa, *b = pb;
	enum report_sort by = *(const enum report_sort *)arg;
	double va, vb;
	int c;

	if (a->ev->has_time != b->ev->has_time)
		return a->ev->has_time ? -1 : 1;
	if (by == REPORT_SORT_NAME) {
		c = strcmp(a->ev->name, b->ev->name);
		if (c)
			return c;
	} else if (a->ev->has_time) {
		va = sort_value(a, by);
		vb = sort_value(b, by);
		if (va != vb)
			return va < vb ? 1 : -1;
	}
	return (a->ev > b->ev) - (a->ev < b->ev); /* file order */
}

/*
 * The rows shown: the events of every block, filtered, sorted and cut to
 * --top within their block, and (table) the block's total after them;
 * totals[i] is block i's total line.
 */
static struct row *collect_rows(const struct report *r,
				const struct report_output *o,
				const struct report_event *totals,
				size_t *nrows)
{
	struct row *rows;
	size_t i, k, n = 0, first;

	for (i = 0; i < r->nblocks; i++)
		n += r->blocks[i].nevents + 1;
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return NULL;
	for (i = n = 0; i < r->nblocks; i++) {
		first = n;
		for (k = 0; k < r->blocks[i].nevents; k++) {
			if (o->no_operator_call && r->blocks[i].events[k].op_call)
				continue;
			rows[n++] = (struct row){ &r->blocks[i], i,
						  &r->blocks[i].events[k],
						  false };
		}
		if (o->sort != REPORT_SORT_FILE)
			qsort_r(rows + first, n - first, sizeof(*rows),
				cmp_rows, (void *)&o->sort);
		if (o->top && n - first > o->top)
			n = first + o->top;
		if (totals && r->blocks[i].total.avg > 0)
			rows[n++] = (struct row){ &r->blocks[i], i,
						  &totals[i], true };
	}
	*nrows = n;
	return rows;
}

/* The table's total line of each block (report_total.h). */
static struct report_event *make_totals(const struct report *r)
{
	struct report_event *t = calloc(r->nblocks ? r->nblocks : 1,
					sizeof(*t));
	size_t i;

	for (i = 0; t && i < r->nblocks; i++)
		t[i] = (struct report_event){
			.name = "(block total)",
			.has_time = true,
			.time = r->blocks[i].total,
			.share = 100,
		};
	return t;
}

static const char *const sort_names[] = {
	[REPORT_SORT_P10] = "p10", [REPORT_SORT_P50] = "p50",
	[REPORT_SORT_P90] = "p90", [REPORT_SORT_AVG] = "avg",
	[REPORT_SORT_MIN] = "min", [REPORT_SORT_MAX] = "max",
	[REPORT_SORT_SHARE] = "share", [REPORT_SORT_RUNS] = "runs",
	[REPORT_SORT_NAME] = "event_name",
};

int report_sort_parse(const char *s, enum report_sort *out)
{
	size_t i;

	for (i = REPORT_SORT_P10; i < sizeof(sort_names) / sizeof(*sort_names); i++) {
		if (!strcmp(s, sort_names[i]) ||
		    (i == REPORT_SORT_NAME && !strcmp(s, "name"))) {
			*out = (enum report_sort)i;
			return 0;
		}
	}
	return -EINVAL;
}

int report_print(FILE *f, const struct report *r,
		 const struct report_output *o)
{
	struct column cols[MAX_COLUMNS];
	struct report_event *totals = NULL;
	size_t ncols, nrows;
	struct row *rows;
	int err = 0;

	if (o->format == REPORT_TABLE) {
		totals = make_totals(r);
		if (!totals)
			return -ENOMEM;
	}
	rows = collect_rows(r, o, totals, &nrows);
	if (!rows) {
		free(totals);
		return -ENOMEM;
	}
	ncols = o->format == REPORT_TABLE ? table_columns(r, cols) :
					    data_columns(r, cols);
	switch (o->format) {
	case REPORT_CSV:
		print_csv(f, cols, ncols, rows, nrows);
		break;
	case REPORT_JSON:
		err = print_json(f, cols, ncols, rows, nrows);
		break;
	default:
		print_table(f, r, o, cols, ncols, rows, nrows);
		break;
	}
	free(rows);
	free(totals);
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
	return err;
}
