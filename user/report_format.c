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
#include "json_out.h"
#include "report_format.h"

enum cell_kind { CELL_NONE, CELL_STR, CELL_NUM, CELL_INT, CELL_BOOL };

struct cell {
	enum cell_kind kind;
	const char *s;
	double num;
	long long i;
	bool b;
};

struct row {
	const struct report_block *block;
	size_t block_index;
	const struct report_event *ev;
};

struct column {
	char header[48];
	bool numeric;   /* aligned on the decimal point in the table */
	bool table;     /* shown in the table too, not only in CSV/JSON */
	void (*get)(const struct row *w, int arg, struct cell *c);
	int arg;
};

#define MAX_COLUMNS (16 + 2 * ETD_MAX_COUNTERS)
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
	*c = (struct cell){ .kind = CELL_BOOL, .b = w->ev->delegated };
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
	*c = (struct cell){ .kind = CELL_BOOL, .b = w->ev->op_call };
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

static size_t make_columns(const struct report *r, struct column *cols)
{
	const char *unit = report_unit_name(r->unit);
	char h[48];
	size_t n = 0, i;

	n = add_column(cols, n, "event_block_name", false, true,
		       get_block_name, 0);
	n = add_column(cols, n, "event_block_index", true, false,
		       get_block_index, 0);
	n = add_column(cols, n, "event_name", false, true, get_event_name, 0);
	n = add_column(cols, n, "runs", true, true, get_runs, 0);
	for (i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		snprintf(h, sizeof(h), "%s (%s)", stats[i].name, unit);
		n = add_column(cols, n, h, true, true, get_stat, (int)i);
	}
	n = add_column(cols, n, "is_delegated_op", false, true,
		       get_delegated, 0);
	n = add_column(cols, n, "delegate_backend_name", false, true,
		       get_backend, 0);
	n = add_column(cols, n, "op_call", false, true, get_op_call, 0);
	n = add_column(cols, n, "delegate_debug_identifier", false, false,
		       get_identifier, 0);
	for (i = 0; i < r->ncounters; i++) {
		snprintf(h, sizeof(h), "%.40s_p50", r->counter_names[i]);
		n = add_column(cols, n, h, true, true, get_counter, (int)i * 2);
		snprintf(h, sizeof(h), "%.40s_avg", r->counter_names[i]);
		n = add_column(cols, n, h, true, true, get_counter,
			       (int)i * 2 + 1);
	}
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
	char buf[REPORT_NUM_LEN];
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
	char buf[REPORT_NUM_LEN];
	struct cell c;
	size_t i, j;

	fprintf(f, "%s: %zu event block%s from %zu run%s; times in %s%s\n\n",
		o->source ? o->source : "report", r->nblocks,
		r->nblocks == 1 ? "" : "s", r->nruns, r->nruns == 1 ? "" : "s",
		report_unit_name(r->unit),
		o->no_operator_call ? "; OPERATOR_CALL rows left out" : "");
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

/* The rows shown: every event of every block, in order, maybe filtered. */
static struct row *collect_rows(const struct report *r, bool no_op_call,
				size_t *nrows)
{
	struct row *rows;
	size_t i, k, n = 0;

	for (i = 0; i < r->nblocks; i++)
		n += r->blocks[i].nevents;
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return NULL;
	for (i = n = 0; i < r->nblocks; i++) {
		for (k = 0; k < r->blocks[i].nevents; k++) {
			if (no_op_call && r->blocks[i].events[k].op_call)
				continue;
			rows[n++] = (struct row){ &r->blocks[i], i,
						  &r->blocks[i].events[k] };
		}
	}
	*nrows = n;
	return rows;
}

int report_print(FILE *f, const struct report *r,
		 const struct report_output *o)
{
	struct column cols[MAX_COLUMNS];
	size_t ncols, nrows;
	struct row *rows;
	int err = 0;

	rows = collect_rows(r, o->no_operator_call, &nrows);
	if (!rows)
		return -ENOMEM;
	ncols = make_columns(r, cols);
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
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
	return err;
}
