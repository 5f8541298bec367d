// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/file_io.h"
#include "read/etdump_reader.h"
#include "symbol/rule_glob.h"
#include "symbol/symbol_rules.h"
#include "symbol/value_rules.h"

#define MAX_FIELDS 4

/*
 * The built-in rules, schema/executorch.rules, assembled into .rodata.
 * The path is relative to the tree's top, where make runs the compiler.
 */
__asm__(".pushsection .rodata\n"
	".local etdump_builtin_rules, etdump_builtin_rules_end\n"
	"etdump_builtin_rules:\n"
	".incbin \"schema/executorch.rules\"\n"
	"etdump_builtin_rules_end:\n"
	".popsection\n");
/*
 * hidden: addressed PC-relative, not through the GOT. In a PIE, aarch64 gcc
 * loads an extern array's address from the GOT, gas turns the GOT
 * relocations of these local labels into .rodata + offset, and ld gives
 * both one GOT entry, the start of .rodata: the rules came out empty.
 */
extern const char etdump_builtin_rules[] __attribute__((visibility("hidden")));
extern const char etdump_builtin_rules_end[] __attribute__((visibility("hidden")));

static const char *const kind_names[] = {
	[ETDUMP_FUNC_EVENT] = "event",
	[ETDUMP_FUNC_BLOCK] = "block",
	[ETDUMP_FUNC_KERNEL] = "kernel",
	[ETDUMP_FUNC_DELEGATE] = "delegate",
	[ETDUMP_FUNC_ALLOCATE] = "allocate",
};

static void rule_free(struct symbol_rule *r)
{
	free(r->pattern);
	free(r->event);
	free(r->run);
	free(r->where);
}

static int parse_kind(const char *word)
{
	size_t i;

	for (i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(word, kind_names[i]))
			return i;
	return -1;
}

/* Every '{' must open "{op}"; how many times it does. */
static int count_captures(const char *s)
{
	int n = 0;

	for (s = strchr(s, '{'); s; s = strchr(s + 1, '{')) {
		if (strncmp(s, RULE_CAPTURE, RULE_CAPTURE_LEN))
			return -1;
		n++;
	}
	return n;
}

/* Why the fields of one line are not a rule, or NULL. */
static const char *check_fields(char **f, int n, int *kind)
{
	int in_pattern, in_event;

	*kind = parse_kind(f[0]);
	if (*kind < 0)
		return "unknown kind (block, event, kernel, delegate, allocate, outputs or tensor)";
	if (n < 3)
		return "expected KIND FUNCTION EVENT [RUN]";
	if (*kind == ETDUMP_FUNC_BLOCK && n != 4)
		return "a block rule names its run: block FUNCTION EVENT RUN";
	if (*kind != ETDUMP_FUNC_BLOCK && n != 3)
		return "only a block rule takes a RUN";
	in_pattern = count_captures(f[1]);
	in_event = count_captures(f[2]);
	if (in_pattern < 0 || in_event < 0 || (n == 4 && count_captures(f[3])))
		return "'{' may only open {op}, in FUNCTION and EVENT";
	if (in_pattern > 1)
		return "FUNCTION may hold {op} once";
	if (in_event && !in_pattern)
		return "EVENT uses {op}, which FUNCTION does not capture";
	if (strlen(f[2]) >= ETDUMP_NAME_MAX ||
	    (n == 4 && strlen(f[3]) >= ETDUMP_NAME_MAX))
		return "names are at most 63 bytes";
	return NULL;
}

/* Split at blanks, in place; the number of fields, or -1 for too many. */
static int split_fields(char *line, char **f)
{
	char *save = NULL, *w;
	int n = 0;

	for (w = strtok_r(line, " \t\r", &save); w;
	     w = strtok_r(NULL, " \t\r", &save)) {
		if (n == MAX_FIELDS)
			return -1;
		f[n++] = w;
	}
	return n;
}

static int add_rule(struct symbol_rules *rs, int kind, char **f, int n,
		    const char *source, unsigned int lineno)
{
	struct symbol_rule *rules, *r;

	rules = realloc(rs->rules, (rs->n + 1) * sizeof(*rules));
	if (!rules)
		return -ENOMEM;
	rs->rules = rules;
	r = &rules[rs->n];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->pattern = strdup(f[1]);
	r->event = strdup(f[2]);
	r->run = n == 4 ? strdup(f[3]) : NULL;
	if (asprintf(&r->where, "%s:%u", source, lineno) < 0)
		r->where = NULL;
	if (!r->pattern || !r->event || (n == 4 && !r->run) || !r->where) {
		rule_free(r);
		return -ENOMEM;
	}
	rs->n++;
	return 0;
}

int symbol_rules_parse(struct symbol_rules *rs, const char *text, size_t len,
		       const char *source, char *err, size_t errlen)
{
	char *copy, *line, *next, *hash, *f[MAX_FIELDS];
	const char *why;
	unsigned int lineno = 0;
	int n, kind, ret = 0;

	copy = strndup(text, len);
	if (!copy)
		return -ENOMEM;
	for (line = copy; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		n = split_fields(line, f);
		if (!n)
			continue;
		ret = n > 0 ? value_rules_parse(rs, f, n, source, lineno, &why) :
			      -ENOENT;
		if (ret == -ENOMEM)
			goto out;
		if (ret != -ENOENT) {
			if (!ret)
				continue;
			snprintf(err, errlen, "%s:%u: %s", source, lineno, why);
			goto out;
		}
		ret = 0;
		why = n < 0 ? "expected KIND FUNCTION EVENT [RUN]" :
			      check_fields(f, n, &kind);
		if (why) {
			snprintf(err, errlen, "%s:%u: %s", source, lineno, why);
			ret = -EINVAL;
			goto out;
		}
		ret = add_rule(rs, kind, f, n, source, lineno);
		if (ret)
			goto out;
	}
out:
	free(copy);
	return ret;
}

int symbol_rules_load_file(struct symbol_rules *rs, const char *path,
			   char *err, size_t errlen)
{
	void *text = NULL;
	size_t len = 0;
	int ret;

	ret = etdump_load_file(path, &text, &len);
	if (ret)
		snprintf(err, errlen, "%s: %s", path, file_error(ret));
	else
		ret = symbol_rules_parse(rs, text, len, path, err, errlen);
	free(text);
	return ret;
}

int symbol_rules_load_builtin(struct symbol_rules *rs, char *err,
			      size_t errlen)
{
	return symbol_rules_parse(rs, etdump_builtin_rules,
				  etdump_builtin_rules_end -
					  etdump_builtin_rules,
				  "schema/executorch.rules", err, errlen);
}

/* EVENT with every {op} replaced by the capture. */
static int expand(const char *tmpl, const char *cap, size_t caplen,
		  char out[ETDUMP_NAME_MAX])
{
	size_t len = 0, n;
	const char *from;

	while (*tmpl) {
		from = tmpl;
		n = 1;
		if (!strncmp(tmpl, RULE_CAPTURE, RULE_CAPTURE_LEN)) {
			from = cap;
			n = caplen;
			tmpl += RULE_CAPTURE_LEN;
		} else {
			tmpl++;
		}
		if (len + n >= ETDUMP_NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(out + len, from, n);
		len += n;
	}
	out[len] = '\0';
	return 0;
}

int symbol_rules_match(const struct symbol_rules *rs, const char *func,
		       char event[ETDUMP_NAME_MAX])
{
	const char *cap = NULL;
	size_t i, caplen = 0;
	int err;

	for (i = 0; i < rs->n; i++) {
		if (!rule_glob(rs->rules[i].pattern, func, &cap, &caplen))
			continue;
		err = expand(rs->rules[i].event, cap, caplen, event);
		return err ? err : (int)i;
	}
	return -ENOENT;
}

void symbol_rules_free(struct symbol_rules *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		rule_free(&rs->rules[i]);
	free(rs->rules);
	rs->rules = NULL;
	rs->n = 0;
	value_rules_free(rs);
}
