// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json_out.h"
#include "lib/utf8.h"

int json_out_str(FILE *f, const char *s)
{
	static const char short_esc[] = "\"\"\\\\\bb\ff\nn\rr\tt";
	const unsigned char *p;
	char *fixed = NULL;
	const char *e;

	if (!s)
		s = "";
	if (!utf8_valid(s)) {
		fixed = strdup(s);
		if (!fixed)
			return -ENOMEM;
		utf8_sanitize(fixed);
		s = fixed;
	}
	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		/* pairs of (character, its escape letter) */
		for (e = short_esc; *e && (unsigned char)*e != *p; e += 2)
			;
		if (*e)
			fprintf(f, "\\%c", e[1]);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
	free(fixed);
	return 0;
}
