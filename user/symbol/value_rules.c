// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/rule_glob.h"
#include "symbol/value_rules.h"

static const struct {
	const char *name;
	size_t at;   /* in struct etdump_tensor_layout */
} tensor_fields[] = {
	{ "Tensor.impl", offsetof(struct etdump_tensor_layout, impl) },
	{ "TensorImpl.sizes", offsetof(struct etdump_tensor_layout, sizes) },
	{ "TensorImpl.strides",
	  offsetof(struct etdump_tensor_layout, strides) },
	{ "TensorImpl.data", offsetof(struct etdump_tensor_layout, data) },
	{ "TensorImpl.dim", offsetof(struct etdump_tensor_layout, dim) },
	{ "TensorImpl.numel", offsetof(struct etdump_tensor_layout, numel) },
	{ "TensorImpl.type", offsetof(struct etdump_tensor_layout, type) },
};

_Static_assert(sizeof(tensor_fields) / sizeof(tensor_fields[0]) == 7 &&
		       ETDUMP_TENSOR_FIELDS == 0x7f,
	       "a bit of `known` per tensor field");

/* A byte offset, at most 64 KiB: a layout field, or a place in a tuple. */
static bool parse_offset(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v > 0xffff)
		return false;
	*out = v;
	return true;
}

static int parse_tensor(struct symbol_rules *rs, char **f, int n,
			const char **why)
{
	uint32_t off, *field;
	size_t i;

	if (n != 3) {
		*why = "expected tensor TYPE.FIELD OFFSET";
		return -EINVAL;
	}
	for (i = 0; i < sizeof(tensor_fields) / sizeof(tensor_fields[0]); i++)
		if (!strcmp(f[1], tensor_fields[i].name))
			break;
	if (i == sizeof(tensor_fields) / sizeof(tensor_fields[0])) {
		*why = "unknown tensor field (Tensor.impl, TensorImpl.sizes, .strides, .data, .dim, .numel, .type)";
		return -EINVAL;
	}
	if (!parse_offset(f[2], &off)) {
		*why = "OFFSET is a number of bytes, at most 65535";
		return -EINVAL;
	}
	if (rs->tensor.known & (1u << i))
		return 0;
	field = (uint32_t *)((char *)&rs->tensor + tensor_fields[i].at);
	*field = off;
	rs->tensor.known |= 1u << i;
	return 0;
}

/* "ret", "sret+N" or "none", comma-separated, into o. */
static const char *parse_places(char *list, struct etdump_func_outputs *o)
{
	char *save = NULL, *p;

	memset(o, 0, sizeof(*o));
	if (!strcmp(list, "none"))
		return NULL;
	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (o->n == ETDUMP_OUT_MAX)
			return "at most 4 out tensors";
		if (!strcmp(p, "ret")) {
			o->place[o->n++] = ETDUMP_OUT_RET;
			continue;
		}
		if (strncmp(p, "sret+", 5) || !parse_offset(p + 5,
							     &o->offset[o->n]))
			return "a place is ret, sret+N or none";
		o->place[o->n++] = ETDUMP_OUT_SRET;
	}
	return o->n ? NULL : "a place is ret, sret+N or none";
}

static int parse_outputs(struct symbol_rules *rs, char **f, int n,
			 const char *source, unsigned int lineno,
			 const char **why)
{
	struct symbol_output_rule *rules, *r;

	if (n != 3) {
		*why = "expected outputs FUNCTION PLACE[,PLACE...]";
		return -EINVAL;
	}
	if (strchr(f[1], '{')) {
		*why = "an outputs line captures nothing: '*', not {op}";
		return -EINVAL;
	}
	rules = realloc(rs->outputs, (rs->noutputs + 1) * sizeof(*rules));
	if (!rules)
		return -ENOMEM;
	rs->outputs = rules;
	r = &rules[rs->noutputs];
	memset(r, 0, sizeof(*r));
	*why = parse_places(f[2], &r->out);
	if (*why)
		return -EINVAL;
	r->pattern = strdup(f[1]);
	if (asprintf(&r->where, "%s:%u", source, lineno) < 0)
		r->where = NULL;
	if (!r->pattern || !r->where) {
		free(r->pattern);
		free(r->where);
		return -ENOMEM;
	}
	rs->noutputs++;
	return 0;
}

int value_rules_parse(struct symbol_rules *rs, char **f, int n,
		      const char *source, unsigned int lineno,
		      const char **why)
{
	if (!strcmp(f[0], "tensor"))
		return parse_tensor(rs, f, n, why);
	if (!strcmp(f[0], "outputs"))
		return parse_outputs(rs, f, n, source, lineno, why);
	return -ENOENT;
}

const struct symbol_output_rule *
value_rules_outputs(const struct symbol_rules *rs, const char *func)
{
	size_t i;

	for (i = 0; i < rs->noutputs; i++)
		if (symbol_rules_glob(rs->outputs[i].pattern, func))
			return &rs->outputs[i];
	return NULL;
}

bool value_rules_tensor_known(const struct symbol_rules *rs)
{
	return rs->tensor.known == ETDUMP_TENSOR_FIELDS;
}

void value_rules_free(struct symbol_rules *rs)
{
	size_t i;

	for (i = 0; i < rs->noutputs; i++) {
		free(rs->outputs[i].pattern);
		free(rs->outputs[i].where);
	}
	free(rs->outputs);
	rs->outputs = NULL;
	rs->noutputs = 0;
	memset(&rs->tensor, 0, sizeof(rs->tensor));
}
