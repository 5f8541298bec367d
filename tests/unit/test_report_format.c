// SPDX-License-Identifier: BSD-3-Clause
/*
 * report_format: the two number formats, and the table, CSV and JSON of a
 * small report compared to the exact text expected.
 */
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include "dump_builder.h"
#include "report/report_format.h"
#include "testlib.h"

static const char *readable(double v)
{
	static char buf[REPORT_NUM_LEN];

	report_fmt_readable(v, buf, sizeof(buf));
	return buf;
}

static const char *exact(double v)
{
	static char buf[REPORT_NUM_LEN];

	report_fmt_exact(v, buf, sizeof(buf));
	return buf;
}

TEST(readable_numbers)
{
	/* the 6 digits of the Inspector's "%g", never in exponent form */
	CHECK_EQ_STR(readable(0), "0");
	CHECK_EQ_STR(readable(0.022484), "0.022484");
	CHECK_EQ_STR(readable(1.0317249), "1.03172");
	CHECK_EQ_STR(readable(1.5), "1.5");
	CHECK_EQ_STR(readable(150), "150");
	CHECK_EQ_STR(readable(123456.7), "123457");
	CHECK_EQ_STR(readable(1234567.8), "1234568");
	CHECK_EQ_STR(readable(0.0000123456789), "0.0000123457");
	CHECK_EQ_STR(readable(999999.7), "1000000");
	CHECK_EQ_STR(readable(1e25), "1e+25");
}

TEST(exact_numbers)
{
	const double v[] = { 0.1, 1101.6666666666667, 3152.2000000000003,
			     7.6000000000000005, 1e-5, 123456789.125,
			     18446744073709551616.0, 2.5e-7 };
	size_t i;

	CHECK_EQ_STR(exact(0.1), "0.1");
	CHECK_EQ_STR(exact(13280), "13280");
	CHECK_EQ_STR(exact(1101.6666666666667), "1101.6666666666667");
	CHECK_EQ_STR(exact(1e-5), "1e-05");
	CHECK_EQ_STR(exact(18446744073709551616.0), "1.8446744073709552e+19");
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		CHECK(strtod(exact(v[i]), NULL) == v[i]);
}

/* Default (1 run), Execute (2 runs, a delegate, a debug-only event). */
static void sample(struct etd_dump *d)
{
	struct etd_run *run;
	int i;

	run = db_run(d, "Default");
	db_profile(run, "Method::init", -1, 0, 0, 1500);
	for (i = 0; i < 2; i++) {
		run = db_run(d, "Execute");
		db_profile(run, "native_call_\"odd\",name.out", 0, 0, 0,
			   10 + i);
		db_profile(run, "OPERATOR_CALL", 0, 0, 0, 20);
		db_delegate(run, "linear #0", -1, 1, 1000, 3000);
		db_debug(run, "v", 0, 2, false);
	}
}

/* What report_print writes for the sample, NUL-terminated, malloc'd. */
static char *print_sorted(enum report_format fmt, bool no_op_call,
			  enum report_sort sort, size_t top)
{
	struct report_output o = { .format = fmt,
				   .no_operator_call = no_op_call,
				   .source = "x.etdp", .sort = sort, .top = top };
	struct etd_dump d = {};
	struct report r = {};
	char err[256], *text = NULL;
	size_t len;
	FILE *f;

	sample(&d);
	f = open_memstream(&text, &len);
	if (!f || report_build(&d, REPORT_US, &r, err, sizeof(err)))
		abort();
	CHECK_EQ_INT(report_print(f, &r, &o), 0);
	fclose(f);
	report_free(&r);
	etd_dump_free(&d);
	return text;
}

static char *print(enum report_format fmt, bool no_op_call)
{
	return print_sorted(fmt, no_op_call, REPORT_SORT_FILE, 0);
}

TEST(table)
{
	char *t = print(REPORT_TABLE, false);

	/*
	 * print_data_tabular()'s columns (start_time last), then runs and
	 * share; a total line per block: OPERATOR_CALL (0-20 ns, holding
	 * the kernel) + linear #0 (2000 ns)
	 */
	CHECK_EQ_STR(t,
"x.etdp: 2 event blocks from 3 runs; times in us\n"
"\n"
"event_block_name  event_name                  p10 (us)  p50 (us)  p90 (us)  avg (us)  min (us)  max (us)  op_types  is_delegated_op  delegate_backend_name  runs   share (%)  start_time\n"
"----------------  --------------------------  --------  --------  --------  --------  --------  --------  --------  ---------------  ---------------------  ----  ----------  ------------\n"
"Default           Method::init                  1.5       1.5       1.5       1.5         1.5      1.5    []        False                                      1  100         [0]\n"
"Default           (block total)                 1.5       1.5       1.5       1.5         1.5      1.5                                                         1  100\n"
"\n"
"Execute           native_call_\"odd\",name.out    0.0101    0.0105    0.0109    0.0105      0.01     0.011  []        False                                      2    0.519802  [0, 0]\n"
"Execute           OPERATOR_CALL                 0.02      0.02      0.02      0.02        0.02     0.02   []        False                                      2    0.990099  [0, 0]\n"
"Execute           linear #0                     2         2         2         2           2        2      []        True                                       2   99.0099    [1000, 1000]\n"
"Execute           v                             -         -         -         -           -        -      []        False                                      2    -\n"
"Execute           (block total)                 2.02      2.02      2.02      2.02        2.02     2.02                                                        2  100\n");
	free(t);
}

TEST(table_without_operator_calls)
{
	char *t = print(REPORT_TABLE, true);

	CHECK(strstr(t, "; OPERATOR_CALL rows left out (--operator-call shows them)\n") != NULL);
	CHECK(strstr(t, "Execute           OPERATOR_CALL") == NULL);
	CHECK(strstr(t, "linear #0") != NULL);
	free(t);
}

TEST(sort_and_top)
{
	enum report_sort by;
	char *t;

	CHECK_EQ_INT(report_sort_parse("share", &by), 0);
	CHECK_EQ_INT(by, REPORT_SORT_SHARE);
	CHECK_EQ_INT(report_sort_parse("name", &by), 0);
	CHECK_EQ_INT(by, REPORT_SORT_NAME);
	CHECK_EQ_INT(report_sort_parse("median", &by), -EINVAL);
	/* the largest two by avg, then the block's total */
	t = print_sorted(REPORT_TABLE, false, REPORT_SORT_AVG, 2);
	CHECK(strstr(t, "Execute           linear #0 ") != NULL);
	CHECK(strstr(t, "Execute           OPERATOR_CALL ") != NULL);
	CHECK(strstr(t, "odd") == NULL);
	CHECK(strstr(t, "linear #0") < strstr(t, "OPERATOR_CALL"));
	CHECK(strstr(t, "OPERATOR_CALL") < strstr(t, "Execute           (block total)"));
	free(t);
	/* names A to Z; debug-only rows (no times) last */
	t = print_sorted(REPORT_CSV, false, REPORT_SORT_NAME, 0);
	CHECK(strstr(t, "\nExecute,1,OPERATOR_CALL,") < strstr(t, "\nExecute,1,linear #0,"));
	CHECK(strstr(t, "\nExecute,1,linear #0,") < strstr(t, "\"native_call_"));
	CHECK(strstr(t, "\"native_call_") < strstr(t, "\nExecute,1,v,"));
	free(t);
}

TEST(csv)
{
	char *t = print(REPORT_CSV, true);

	CHECK_EQ_STR(t,
"event_block_name,event_block_index,event_name,runs,p10 (us),p50 (us),p90 (us),avg (us),min (us),max (us),is_delegated_op,delegate_backend_name,op_call,delegate_debug_identifier,op_types,start_time,share (%),block_total_avg (us)\r\n"
"Default,0,Method::init,1,1.5,1.5,1.5,1.5,1.5,1.5,False,,False,,\"[]\",\"[0]\",100,1.5\r\n"
"Execute,1,\"native_call_\"\"odd\"\",name.out\",2,0.0101,0.010499999999999999,0.0109,0.010499999999999999,0.01,0.011,False,,False,,\"[]\",\"[0, 0]\",0.5198019801980197,2.02\r\n"
"Execute,1,linear #0,2,2,2,2,2,2,2,True,,False,linear #0,\"[]\",\"[1000, 1000]\",99.00990099009901,2.02\r\n"
"Execute,1,v,2,,,,,,,False,,False,,\"[]\",,,2.02\r\n");
	free(t);
}

TEST(json)
{
	char *t = print(REPORT_JSON, false);

	CHECK(!strncmp(t, "[\n{\"event_block_name\": \"Default\", \"event_block_index\": 0, \"event_name\": \"Method::init\", \"runs\": 1, \"p10 (us)\": 1.5,", 104));
	CHECK(strstr(t, "\"event_name\": \"native_call_\\\"odd\\\",name.out\"") != NULL);
	CHECK(strstr(t, "\"is_delegated_op\": true, \"delegate_backend_name\": null, \"op_call\": false, \"delegate_debug_identifier\": \"linear #0\", \"op_types\": [], \"start_time\": [1000, 1000], \"share (%)\": 99.00990099009901, \"block_total_avg (us)\": 2.02}") != NULL);
	CHECK(strstr(t, "\"event_name\": \"v\", \"runs\": 2, \"p10 (us)\": null,") != NULL);
	CHECK(strstr(t, "\"op_call\": true") != NULL);
	CHECK(!strcmp(t + strlen(t) - 4, "}\n]\n"));
	free(t);
}

int main(void)
{
	RUN(readable_numbers);
	RUN(exact_numbers);
	RUN(table);
	RUN(table_without_operator_calls);
	RUN(sort_and_top);
	RUN(csv);
	RUN(json);
	return TEST_SUMMARY();
}
