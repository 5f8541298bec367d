// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/parse.h"

/* strtoull accepts a sign and leading blanks; we accept digits only. */
static int parse_digits(const char *s, const char **end, uint64_t *out)
{
	char *e;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &e, 10);
	if (errno == ERANGE)
		return -ERANGE;
	*end = e;
	return 0;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int err;

	err = parse_digits(s, &end, &v);
	if (err)
		return err;
	if (*end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_pid(const char *s, int *out)
{
	uint64_t v;
	int err;

	err = parse_u64(s, 1, INT32_MAX, &v);
	if (!err)
		*out = (int)v;
	return err;
}

int parse_seconds(const char *s, uint64_t *ns)
{
	const uint64_t max_s = UINT64_MAX / 1000000000ull;
	uint64_t whole, frac = 0, scale = 100000000ull;
	const char *end;
	int err;

	err = parse_digits(s, &end, &whole);
	if (err)
		return err;
	if (*end == '.') {
		end++;
		if (!isdigit((unsigned char)*end))
			return -EINVAL;
		for (; isdigit((unsigned char)*end); end++) {
			frac += (uint64_t)(*end - '0') * scale;
			scale /= 10;
		}
	}
	if (*end)
		return -EINVAL;
	if (whole >= max_s)
		return -ERANGE;
	*ns = whole * 1000000000ull + frac;
	return 0;
}

int parse_size(const char *s, uint64_t *bytes)
{
	const char *end;
	unsigned int shift = 0;
	uint64_t v;
	int err;

	err = parse_digits(s, &end, &v);
	if (err)
		return err;
	switch (*end) {
	case '\0':
		break;
	case 'K': case 'k':
		shift = 10;
		break;
	case 'M': case 'm':
		shift = 20;
		break;
	case 'G': case 'g':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (shift && end[1])
		return -EINVAL;
	if (v > (UINT64_MAX >> shift))
		return -ERANGE;
	*bytes = v << shift;
	return 0;
}

int parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t mul, div;
	} units[] = {
		{ "", 1, 1 }, { "s", 1, 1 }, { "ms", 1, 1000 },
		{ "us", 1, 1000000 }, { "min", 60, 1 }, { "h", 3600, 1 },
	};
	char num[32];
	size_t n = strspn(s, "0123456789.");
	uint64_t v;
	size_t i;

	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	if (parse_seconds(num, &v))
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(s + n, units[i].unit))
			continue;
		if (v > UINT64_MAX / units[i].mul)
			return -ERANGE;
		*ns = v * units[i].mul / units[i].div;
		return 0;
	}
	return -EINVAL;
}
