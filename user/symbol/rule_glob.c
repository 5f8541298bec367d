// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include "symbol/rule_glob.h"

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

bool rule_glob(const char *p, const char *s, const char **cap,
	       size_t *caplen)
{
	size_t n;

	for (; *p; p++, s++) {
		if (*p == '*') {
			while (p[1] == '*')
				p++;
			for (;; s++) {
				if (rule_glob(p + 1, s, cap, caplen))
					return true;
				if (!*s)
					return false;
			}
		}
		if (!strncmp(p, RULE_CAPTURE, RULE_CAPTURE_LEN)) {
			for (n = 0; is_ident(s[n]); n++)
				;
			for (; n > 0; n--) {
				if (rule_glob(p + RULE_CAPTURE_LEN, s + n, cap,
				      caplen)) {
					*cap = s;
					*caplen = n;
					return true;
				}
			}
			return false;
		}
		if (*p != *s)
			return false;
	}
	return !*s;
}

bool symbol_rules_glob(const char *p, const char *func)
{
	const char *cap = NULL;
	size_t caplen = 0;

	return rule_glob(p, func, &cap, &caplen);
}
