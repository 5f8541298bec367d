/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rule_glob.h - how a rule's FUNCTION pattern matches a demangled name
 * (symbol_rules.h): '*' matches any run of characters, "{op}" one or more
 * of [A-Za-z0-9_], which the rule's EVENT may then use.
 */
#ifndef ETDUMP_RULE_GLOB_H
#define ETDUMP_RULE_GLOB_H

#include <stdbool.h>
#include <stddef.h>

#define RULE_CAPTURE "{op}"
#define RULE_CAPTURE_LEN (sizeof(RULE_CAPTURE) - 1)

/*
 * Does pattern p match all of s? '*' backtracks; {op} takes the longest
 * identifier that lets the rest match, recorded in *cap and *caplen.
 */
bool rule_glob(const char *p, const char *s, const char **cap,
	       size_t *caplen);
/* Does FUNCTION pattern p match all of func? */
bool symbol_rules_glob(const char *p, const char *func);

#endif /* ETDUMP_RULE_GLOB_H */
