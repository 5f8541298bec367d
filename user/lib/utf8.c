// SPDX-License-Identifier: BSD-3-Clause
#include <stddef.h>
#include "lib/utf8.h"

/* Length of the valid sequence starting at s, or 0. */
static size_t sequence_len(const unsigned char *s)
{
	size_t n, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and past U+10FFFF are not UTF-8 */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void utf8_sanitize(char *s)
{
	unsigned char *p = (unsigned char *)s;
	size_t n;

	while (*p) {
		n = sequence_len(p);
		if (!n) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
}

bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		n = sequence_len(p);
		if (!n)
			return false;
		p += n;
	}
	return true;
}
