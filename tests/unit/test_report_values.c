// SPDX-License-Identifier: BSD-3-Clause
/*
 * report --values on files written here: NaN and Inf counted apart from
 * min, max and mean; dtypes read as their own kind (HALF, LONG); scalar
 * values; a tensor whose bytes lie outside the buffer is said so, never read.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "write/etdump_writer.h"
#include "report/report_values.h"
#include "testlib.h"

static char dir[] = "/tmp/test_report_values.XXXXXX";

static void tensor_event(struct etd_run *run, int instr, int8_t st,
			 int64_t n, int64_t offset)
{
	struct etd_event ev;
	struct etd_value *v = calloc(1, sizeof(*v));

	etd_event_init(&ev, ETD_DEBUG);
	ev.instruction_id = instr;
	v->type = ETD_VALUE_TENSOR;
	v->tensor.scalar_type = st;
	v->tensor.sizes = malloc(sizeof(int64_t));
	v->tensor.sizes[0] = n;
	v->tensor.nsizes = 1;
	v->tensor.strides = malloc(sizeof(int64_t));
	v->tensor.strides[0] = 1;
	v->tensor.nstrides = 1;
	v->tensor.offset = offset;
	ev.debug_entry = v;
	CHECK_EQ_INT(etd_run_add_event(run, &ev), 0);
}

static char *report(const char *etdump, const char *buffer)
{
	struct report_values_input in = { etdump, buffer };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CHECK_EQ_INT(report_values(f, &in, NULL, 0), 0);
	fclose(f);
	return text;
}

/* runs of spaces as one: the columns' widths are not what is tested */
static void squeeze(char *s)
{
	char *start = s, *o = s;

	for (; *s; s++)
		if (*s != ' ' || o == start || o[-1] != ' ')
			*o++ = *s;
	*o = 0;
}

TEST(nan_inf_dtypes_and_scalars)
{
	struct etd_dump d = { 0 };
	struct etd_run *run;
	struct etd_event ev;
	struct etd_value *v;
	char path[128], buf_path[128], *kept = NULL, *text;
	float f[4] = { 1.0f, NAN, INFINITY, 3.0f };
	uint16_t h[2] = { 0x3c00, 0xc000 }; /* 1.0, -2.0 */
	int64_t l[2] = { -5, 7 };
	uint8_t buf[256] = { 0 };
	FILE *bf;

	memcpy(buf, f, sizeof(f));
	memcpy(buf + 64, h, sizeof(h));
	memcpy(buf + 128, l, sizeof(l));
	CHECK_EQ_INT(etd_dump_add_run(&d, "Execute", &run), 0);
	tensor_event(run, 0, 6, 4, 0);
	tensor_event(run, 1, 5, 2, 64);
	tensor_event(run, 2, 4, 2, 128);
	tensor_event(run, 3, 6, 100, 128); /* past the buffer's end */
	etd_event_init(&ev, ETD_DEBUG);
	ev.instruction_id = 4;
	v = ev.debug_entry = calloc(1, sizeof(*v));
	v->type = ETD_VALUE_INT;
	v->int_val = 42;
	CHECK_EQ_INT(etd_run_add_event(run, &ev), 0);

	snprintf(path, sizeof(path), "%s/v.etdp", dir);
	snprintf(buf_path, sizeof(buf_path), "%s/v.debug.bin", dir);
	CHECK_EQ_INT(etdump_write_file(&d, path, true, &kept), 0);
	bf = fopen(buf_path, "wb");
	fwrite(buf, 1, 144, bf);
	fclose(bf);

	text = report(path, NULL);
	squeeze(text);
	CHECK(strstr(text, "FLOAT [4] 1 3 2 1 1"));
	CHECK(strstr(text, "HALF [2] -2 1 -0.5 0 0"));
	CHECK(strstr(text, "LONG [2] -5 7 1 0 0"));
	CHECK(strstr(text, "FLOAT [100] - - - - - not in the buffer"));
	CHECK(strstr(text, "Int - 42 42 42 0 0"));
	if (testlib_failed_checks)
		printf("%s", text);
	free(text);
	unlink(buf_path);
	unlink(path);
	etd_dump_free(&d);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(nan_inf_dtypes_and_scalars);
	rmdir(dir);
	return TEST_SUMMARY();
}
