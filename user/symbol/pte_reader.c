// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/file_io.h"
#include "read/etdump_reader.h"
#include "read/fb_reader.h"
#include "symbol/pte_reader.h"

/* Field slots, in declaration order in ExecuTorch's schema/program.fbs. */
enum {
	SLOT_PROGRAM_EXECUTION_PLAN = 1,
	SLOT_PLAN_NAME = 0,
	SLOT_PLAN_CHAINS = 5,
	SLOT_PLAN_OPERATORS = 6,
	SLOT_CHAIN_INSTRUCTIONS = 2,
	/* a union field takes two slots: its type, then its table */
	SLOT_INSTRUCTION_ARGS_TYPE = 0,
	SLOT_INSTRUCTION_ARGS = 1,
	SLOT_KERNEL_CALL_OP_INDEX = 0,
	SLOT_OPERATOR_NAME = 0,
	SLOT_OPERATOR_OVERLOAD = 1,
};

#define FILE_IDENTIFIER "ET12"
#define IDENTIFIER_OFFSET 4

static char *string_or_empty(const struct fb_table *t, unsigned int slot)
{
	const char *s = "";
	uint32_t n = 0;

	if (fb_read_string(t, slot, &s, &n) < 0)
		return NULL;
	return strndup(s, n);
}

static int read_operators(const struct fb_table *plan, struct pte_plan *out)
{
	struct fb_vector v;
	struct fb_table op;
	uint32_t i;
	int ret;

	ret = fb_read_vector(plan, SLOT_PLAN_OPERATORS, 4, &v);
	if (ret <= 0)
		return ret;
	out->ops = calloc(v.count ? v.count : 1, sizeof(*out->ops));
	if (!out->ops)
		return -ENOMEM;
	out->nops = v.count;
	for (i = 0; i < v.count; i++) {
		ret = fb_vector_table(&v, i, &op);
		if (ret)
			return ret;
		out->ops[i].name = string_or_empty(&op, SLOT_OPERATOR_NAME);
		out->ops[i].overload = string_or_empty(&op,
						       SLOT_OPERATOR_OVERLOAD);
		/* a corrupt string fails the reader; else NULL is ENOMEM */
		if (!out->ops[i].name || !out->ops[i].overload)
			return plan->r->error ? plan->r->error : -ENOMEM;
	}
	return 0;
}

static int read_instruction(const struct fb_table *t, uint32_t nops,
			    struct pte_instruction *in)
{
	struct fb_table call;
	int ret;

	fb_read_u8(t, SLOT_INSTRUCTION_ARGS_TYPE, PTE_INSTR_NONE, &in->kind);
	in->op_index = -1;
	if (in->kind != PTE_INSTR_KERNEL_CALL)
		return t->r->error;
	ret = fb_read_table(t, SLOT_INSTRUCTION_ARGS, &call);
	if (ret <= 0)
		return ret ? ret : fb_reader_fail(t->r, "a KernelCall instruction at byte %zu has no arguments",
						   t->pos);
	fb_read_i32(&call, SLOT_KERNEL_CALL_OP_INDEX, 0, &in->op_index);
	if (!t->r->error &&
	    (in->op_index < 0 || (uint32_t)in->op_index >= nops))
		return fb_reader_fail(t->r, "a KernelCall at byte %zu names operator %d of %u",
				      call.pos, in->op_index, nops);
	return t->r->error;
}

static int read_chain(const struct fb_table *t, uint32_t nops,
		      struct pte_chain *chain)
{
	struct fb_table instr;
	struct fb_vector v;
	uint32_t i;
	int ret;

	ret = fb_read_vector(t, SLOT_CHAIN_INSTRUCTIONS, 4, &v);
	if (ret <= 0)
		return ret;
	chain->instr = calloc(v.count ? v.count : 1, sizeof(*chain->instr));
	if (!chain->instr)
		return -ENOMEM;
	chain->n = v.count;
	for (i = 0; i < v.count; i++) {
		ret = fb_vector_table(&v, i, &instr);
		if (!ret)
			ret = read_instruction(&instr, nops, &chain->instr[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_plan(const struct fb_table *plan, struct pte_plan *out)
{
	struct fb_table chain;
	struct fb_vector v;
	uint32_t i;
	int ret;

	out->method = string_or_empty(plan, SLOT_PLAN_NAME);
	if (!out->method)
		return plan->r->error ? plan->r->error : -ENOMEM;
	ret = read_operators(plan, out);
	if (ret < 0)
		return ret;
	ret = fb_read_vector(plan, SLOT_PLAN_CHAINS, 4, &v);
	if (ret <= 0)
		return ret;
	out->chains = calloc(v.count ? v.count : 1, sizeof(*out->chains));
	if (!out->chains)
		return -ENOMEM;
	out->nchains = v.count;
	for (i = 0; i < v.count; i++) {
		ret = fb_vector_table(&v, i, &chain);
		if (!ret)
			ret = read_chain(&chain, out->nops, &out->chains[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The execution plan named `method`, or the first: 0, -ENOENT, -EINVAL. */
static int find_plan(struct fb_reader *r, const char *method,
		     struct fb_table *plan)
{
	struct fb_table root;
	struct fb_vector plans;
	const char *name;
	uint32_t i, len;
	int ret;

	ret = fb_reader_root(r, 0, &root);
	if (ret)
		return ret;
	ret = fb_read_vector(&root, SLOT_PROGRAM_EXECUTION_PLAN, 4, &plans);
	if (ret < 0)
		return ret;
	for (i = 0; ret && i < plans.count; i++) {
		ret = fb_vector_table(&plans, i, plan);
		if (ret)
			return ret;
		if (!method)
			return 0;
		if (fb_read_string(plan, SLOT_PLAN_NAME, &name, &len) > 0 &&
		    strlen(method) == len && !memcmp(name, method, len))
			return 0;
	}
	return r->error ? r->error : -ENOENT;
}

int pte_read_plan(const void *data, size_t len, const char *method,
		  struct pte_plan *out, char *err, size_t errlen)
{
	struct fb_reader r;
	struct fb_table plan;
	int ret;

	memset(out, 0, sizeof(*out));
	if (len < IDENTIFIER_OFFSET + 4 ||
	    memcmp((const char *)data + IDENTIFIER_OFFSET, FILE_IDENTIFIER,
		   4)) {
		snprintf(err, errlen, "not an ExecuTorch program (no file identifier \"%s\" at byte %d)",
			 FILE_IDENTIFIER, IDENTIFIER_OFFSET);
		return -EINVAL;
	}
	fb_reader_init(&r, data, len);
	ret = find_plan(&r, method, &plan);
	if (!ret)
		ret = read_plan(&plan, out);
	if (ret == -ENOENT && method)
		snprintf(err, errlen, "the program has no method '%s'", method);
	else if (ret == -ENOENT)
		snprintf(err, errlen, "the program has no execution plan");
	else if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (ret)
		snprintf(err, errlen, "corrupt ExecuTorch program: %s", r.err);
	if (ret)
		pte_plan_free(out);
	return ret;
}

int pte_read_plan_file(const char *path, const char *method,
		       struct pte_plan *out, char *err, size_t errlen)
{
	char why[200];
	void *buf = NULL;
	size_t len = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = etdump_load_file(path, &buf, &len);
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, file_error(ret));
		goto out;
	}
	ret = pte_read_plan(buf, len, method, out, why, sizeof(why));
	if (ret)
		snprintf(err, errlen, "%s: %s", path, why);
out:
	free(buf);
	return ret;
}

/* "aten::add" -> "add": codegen names the function without namespace. */
static const char *base_name(const char *name)
{
	const char *sep = strstr(name, "::");

	return sep ? sep + 2 : name;
}

int pte_kernel_event_name(const struct pte_plan *p,
			  const struct pte_instruction *in, char *buf,
			  size_t len)
{
	const struct pte_operator *op;
	int n;

	if (in->kind != PTE_INSTR_KERNEL_CALL || in->op_index < 0 ||
	    (uint32_t)in->op_index >= p->nops)
		return -EINVAL;
	op = &p->ops[in->op_index];
	n = snprintf(buf, len, "native_call_%s%s%s", base_name(op->name),
		     *op->overload ? "." : "", op->overload);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void pte_plan_free(struct pte_plan *p)
{
	uint32_t i;

	for (i = 0; p->chains && i < p->nchains; i++)
		free(p->chains[i].instr);
	for (i = 0; p->ops && i < p->nops; i++) {
		free(p->ops[i].name);
		free(p->ops[i].overload);
	}
	free(p->chains);
	free(p->ops);
	free(p->method);
	memset(p, 0, sizeof(*p));
}
