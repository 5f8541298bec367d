// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "target/demangle.h"

/* libstdc++'s demangler (<cxxabi.h>), a C-callable function. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
			    int *status);

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Past an operator's own name, p just after "operator": "()", a run of
 * punctuation ("<<=", "[]", "->*"), or words ("new[]", "char const*").
 * Its brackets must not count as nesting.
 */
static const char *skip_operator_name(const char *p)
{
	if (starts_with(p, "()"))
		return p + 2;
	if (*p && strchr("+-*/%^&|~!=<>,[]", *p)) {
		while (*p && strchr("+-*/%^&|~!=<>,[]", *p))
			p++;
		return p;
	}
	while (*p == ' ' || is_ident(*p) || *p == '*' || *p == '&' ||
	       starts_with(p, "[]"))
		p += starts_with(p, "[]") ? 2 : 1;
	return p;
}

/*
 * Split a demangled name into [*start, *params): the qualified name after
 * any return type, up to the parameter list's '(' (or the end of a name
 * without one). Returns false for unbalanced brackets.
 */
static bool split_name(const char *s, const char **start, const char **params)
{
	const char *p = s;
	int depth = 0;

	*start = s;
	*params = NULL;
	while (*p) {
		if (starts_with(p, "(anonymous namespace)")) {
			p += strlen("(anonymous namespace)");
			continue;
		}
		if (starts_with(p, "operator") && !is_ident(p[8]) &&
		    (p == s || !is_ident(p[-1]))) {
			p = skip_operator_name(p + 8);
			continue;
		}
		switch (*p) {
		case '<':
		case '[':
			depth++;
			break;
		case '>':
		case ']':
		case ')':
			if (--depth < 0)
				return false;
			break;
		case '(':
			if (!depth) {
				*params = p;
				return true;
			}
			depth++;
			break;
		case ' ':
			/* "void ns::f<int>": the return type ends here */
			if (!depth)
				*start = p + 1;
			break;
		}
		p++;
	}
	return !depth;
}

/* What follows the parameter list: qualifiers only, or a nested entity. */
static bool tail_is_qualifiers(const char *params)
{
	const char *p = params;
	int depth = 0;

	for (; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && !--depth)
			break;
	}
	if (!*p)
		return false;
	/* "f(...)::{lambda()#1}::operator()() const", "f() [clone .cold]" */
	return !strstr(p, "::") && !strstr(p, "[clone");
}

static char *extract(const char *demangled)
{
	const char *start, *params;

	if (strstr(demangled, "thunk to ") ||
	    starts_with(demangled, "transaction clone for ") ||
	    !split_name(demangled, &start, &params) ||
	    (params && !tail_is_qualifiers(params)) ||
	    (params ? params : start + strlen(start)) == start) {
		errno = EINVAL;
		return NULL;
	}
	return params ? strndup(start, params - start) : strdup(start);
}

char *demangle_function(const char *symbol)
{
	char *demangled, *name;
	int status = 0;

	/* "foo.cold", "foo.part.0", "foo.constprop.0": not the source's entry */
	if (strchr(symbol, '.')) {
		errno = EINVAL;
		return NULL;
	}
	if (!starts_with(symbol, "_Z"))
		return strdup(symbol);
	demangled = __cxa_demangle(symbol, NULL, NULL, &status);
	if (!demangled) {
		/* -1: out of memory; -2: not a mangled name after all */
		if (status == -1) {
			errno = ENOMEM;
			return NULL;
		}
		return strdup(symbol);
	}
	name = extract(demangled);
	free(demangled);
	return name;
}
