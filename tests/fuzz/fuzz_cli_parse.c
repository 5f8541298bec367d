// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_cli_parse - the command line's numbers (user/lib/parse.h) and counter
 * lists (counters_parse) against straightforward reference parsers: the
 * first byte picks the parser, the rest is the argument. Any difference,
 * in acceptance or in value, aborts.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "capture/counters.h"
#include "fuzz_copy.h"
#include "lib/parse.h"

/* Digits at *s, to *v; false when there are none or they overflow. */
static bool ref_digits(const char **s, uint64_t *v)
{
	const char *p = *s;

	*v = 0;
	if (!isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		if (*v > (UINT64_MAX - (*p - '0')) / 10)
			return false;
		*v = *v * 10 + (*p - '0');
	}
	*s = p;
	return true;
}

static void check_u64(const char *s, uint64_t min, uint64_t max)
{
	uint64_t got = 0, want;
	const char *p = s;
	bool ok = ref_digits(&p, &want) && !*p && want >= min && want <= max;

	if (!parse_u64(s, min, max, &got) != ok || (ok && got != want))
		abort();
}

static void check_pid(const char *s)
{
	uint64_t want;
	const char *p = s;
	bool ok = ref_digits(&p, &want) && !*p && want >= 1 &&
		  want <= INT32_MAX;
	int got = 0;

	if (!parse_pid(s, &got) != ok || (ok && (uint64_t)got != want))
		abort();
}

static void check_seconds(const char *s)
{
	uint64_t whole, frac = 0, scale = 100000000, got = 0;
	const char *p = s;
	bool ok = ref_digits(&p, &whole);

	if (ok && *p == '.') {
		ok = isdigit((unsigned char)*++p);
		for (; isdigit((unsigned char)*p); p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	ok = ok && !*p && whole < UINT64_MAX / 1000000000;
	if (!parse_seconds(s, &got) != ok ||
	    (ok && got != whole * 1000000000 + frac))
		abort();
}

static void check_size(const char *s)
{
	const char *p = s;
	uint64_t v, got = 0;
	unsigned int shift = 0;
	bool ok = ref_digits(&p, &v);

	if (ok && *p && strchr("kKmMgG", *p)) {
		shift = strchr("kK", *p) ? 10 : strchr("mM", *p) ? 20 : 30;
		p++;
	}
	ok = ok && !*p && v <= UINT64_MAX >> shift;
	if (!parse_size(s, &got) != ok || (ok && got != v << shift))
		abort();
}

/* Accepted: one spec per comma-separated name, in order, each once. */
static void check_counters(const char *s)
{
	const char *p = s, *comma;
	struct counter_set set;
	uint32_t i, j, items = 1;
	char err[256];

	if (counters_parse(s, &set, err, sizeof(err))) {
		if (!memchr(err, '\0', sizeof(err)) || !err[0])
			abort();
		return;
	}
	for (comma = s; (comma = strchr(comma, ',')); comma++)
		items++;
	if (set.n != items || set.n > ETDUMP_MAX_COUNTERS)
		abort();
	for (i = 0; i < set.n; i++, p = comma + 1) {
		comma = strchrnul(p, ',');
		if (strlen(set.spec[i].name) != (size_t)(comma - p) ||
		    memcmp(set.spec[i].name, p, comma - p))
			abort();
		for (j = 0; j < i; j++)
			if (!strcmp(set.spec[i].name, set.spec[j].name))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t lo, hi;
	char *s;

	/* a C string, as argv gives it: up to the first NUL */
	s = fuzz_rest(data, size, true);
	if (!s)
		return 0;
	switch (data[0] % 6) {
	case 0:
		check_u64(s, 0, UINT64_MAX);
		break;
	case 1:
		/* bounds from the argument's own first bytes */
		lo = size > 2 ? data[1] : 0;
		hi = size > 3 ? (uint64_t)data[2] << 24 : UINT64_MAX;
		check_u64(s, lo, hi);
		break;
	case 2:
		check_pid(s);
		break;
	case 3:
		check_seconds(s);
		break;
	case 4:
		check_size(s);
		break;
	case 5:
		check_counters(s);
		break;
	}
	free(s);
	return 0;
}
