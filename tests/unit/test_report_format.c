// SPDX-License-Identifier: BSD-3-Clause
/*
 * report_format: the two number formats, and the table, CSV and JSON of a
 * small report compared to the exact text expected.
 */
#include <stdlib.h>
#include <string.h>
#include "dump_builder.h"
#include "report_format.h"
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
static char *print(enum report_format fmt, bool no_op_call)
{
	struct report_output o = { fmt, no_op_call, "x.etdp" };
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

TEST(table)
{
	char *t = print(REPORT_TABLE, false);

	CHECK_EQ_STR(t,
"x.etdp: 2 event blocks from 3 runs; times in us\n"
"\n"
"event_block_name  event_name                  runs  p10 (us)  p50 (us)  p90 (us)  avg (us)  min (us)  max (us)  is_delegated_op  delegate_backend_name  op_call\n"
"----------------  --------------------------  ----  --------  --------  --------  --------  --------  --------  ---------------  ---------------------  -------\n"
"Default           Method::init                   1    1.5       1.5       1.5       1.5         1.5      1.5    False                                   False\n"
"\n"
"Execute           native_call_\"odd\",name.out     2    0.0101    0.0105    0.0109    0.0105      0.01     0.011  False                                   False\n"
"Execute           OPERATOR_CALL                  2    0.02      0.02      0.02      0.02        0.02     0.02   False                                   True\n"
"Execute           linear #0                      2    2         2         2         2           2        2      True                                    False\n"
"Execute           v                              2    -         -         -         -           -        -      False                                   False\n");
	free(t);
}

TEST(table_without_operator_calls)
{
	char *t = print(REPORT_TABLE, true);

	CHECK(strstr(t, "; OPERATOR_CALL rows left out\n") != NULL);
	CHECK(strstr(t, "Execute           OPERATOR_CALL") == NULL);
	CHECK(strstr(t, "linear #0") != NULL);
	free(t);
}

TEST(csv)
{
	char *t = print(REPORT_CSV, true);

	CHECK_EQ_STR(t,
"event_block_name,event_block_index,event_name,runs,p10 (us),p50 (us),p90 (us),avg (us),min (us),max (us),is_delegated_op,delegate_backend_name,op_call,delegate_debug_identifier\r\n"
"Default,0,Method::init,1,1.5,1.5,1.5,1.5,1.5,1.5,False,,False,\r\n"
"Execute,1,\"native_call_\"\"odd\"\",name.out\",2,0.0101,0.010499999999999999,0.0109,0.010499999999999999,0.01,0.011,False,,False,\r\n"
"Execute,1,linear #0,2,2,2,2,2,2,2,True,,False,linear #0\r\n"
"Execute,1,v,2,,,,,,,False,,False,\r\n");
	free(t);
}

TEST(json)
{
	char *t = print(REPORT_JSON, false);

	CHECK(!strncmp(t, "[\n{\"event_block_name\": \"Default\", \"event_block_index\": 0, \"event_name\": \"Method::init\", \"runs\": 1, \"p10 (us)\": 1.5,", 104));
	CHECK(strstr(t, "\"event_name\": \"native_call_\\\"odd\\\",name.out\"") != NULL);
	CHECK(strstr(t, "\"is_delegated_op\": true, \"delegate_backend_name\": null, \"op_call\": false, \"delegate_debug_identifier\": \"linear #0\"}") != NULL);
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
	RUN(csv);
	RUN(json);
	return TEST_SUMMARY();
}
