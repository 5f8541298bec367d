// SPDX-License-Identifier: BSD-3-Clause
/*
 * The .pte reader on ExecuTorch's own programs (tests/fixtures, or
 * $ETDUMP_FIXTURES): add.pte is one add.out KernelCall, linear.pte is
 * mul.out then add.out. Every truncation and many corruptions of them
 * give an error, never a crash (run under `make SAN=1` to prove it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "read/etdump_reader.h"
#include "symbol/pte_reader.h"
#include "testlib.h"

static void fixture(const char *name, char path[4096])
{
	const char *dir = getenv("ETDUMP_FIXTURES");

	snprintf(path, 4096, "%s/%s", dir ? dir : "tests/fixtures", name);
}

static void check_kernel(const struct pte_plan *p, uint32_t chain,
			 uint32_t instr, const char *event)
{
	char name[64] = "";

	CHECK(chain < p->nchains && instr < p->chains[chain].n);
	if (chain >= p->nchains || instr >= p->chains[chain].n)
		return;
	CHECK_EQ_INT(p->chains[chain].instr[instr].kind,
		     PTE_INSTR_KERNEL_CALL);
	CHECK_EQ_INT(pte_kernel_event_name(p, &p->chains[chain].instr[instr],
					   name, sizeof(name)), 0);
	CHECK_EQ_STR(name, event);
}

/* A fixture's plan, read without error. */
static void read_plan(const char *name, const char *method,
		      struct pte_plan *p)
{
	char path[4096], err[256] = "";

	fixture(name, path);
	CHECK_EQ_INT(pte_read_plan_file(path, method, p, err, sizeof(err)), 0);
	if (*err)
		printf("    %s: %s\n", name, err);
	CHECK_EQ_STR(p->method, "forward");
	CHECK_EQ_INT(p->nchains, 1);
}

TEST(add_pte)
{
	struct pte_plan p;

	read_plan("add.pte", NULL, &p);
	CHECK_EQ_INT(p.nops, 1);
	if (p.nops == 1) {
		CHECK_EQ_STR(p.ops[0].name, "aten::add");
		CHECK_EQ_STR(p.ops[0].overload, "out");
	}
	if (p.nchains == 1)
		CHECK_EQ_INT(p.chains[0].n, 1);
	check_kernel(&p, 0, 0, "native_call_add.out");
	pte_plan_free(&p);
}

TEST(linear_pte_mul_then_add)
{
	struct pte_plan p;

	read_plan("linear.pte", "forward", &p);
	if (p.nchains == 1)
		CHECK_EQ_INT(p.chains[0].n, 2);
	check_kernel(&p, 0, 0, "native_call_mul.out");
	check_kernel(&p, 0, 1, "native_call_add.out");
	if (p.nchains == 1 && p.chains[0].n == 2) {
		CHECK_EQ_STR(p.ops[p.chains[0].instr[0].op_index].name,
			     "aten::mul");
		CHECK_EQ_STR(p.ops[p.chains[0].instr[1].op_index].name,
			     "aten::add");
	}
	pte_plan_free(&p);
}

TEST(errors_say_why)
{
	struct pte_plan p;
	char path[4096], err[256] = "";

	fixture("linear.pte", path);
	CHECK_EQ_INT(pte_read_plan_file(path, "backward", &p, err, sizeof(err)),
		     -ENOENT);
	CHECK(strstr(err, "no method 'backward'") != NULL);
	CHECK_EQ_INT(pte_read_plan_file("/nonexistent.pte", NULL, &p, err,
					sizeof(err)), -ENOENT);
	CHECK(strstr(err, "/nonexistent.pte") != NULL);
	/* an ETDump is a FlatBuffer too, but not a program */
	fixture("executorch-add.etdp", path);
	CHECK_EQ_INT(pte_read_plan_file(path, NULL, &p, err, sizeof(err)),
		     -EINVAL);
	CHECK(strstr(err, "not an ExecuTorch program") != NULL);
	CHECK_EQ_INT(p.nchains, 0);
}

TEST(event_name_bounds)
{
	struct pte_operator op = { "aten::max_pool2d_with_indices", "out" };
	struct pte_operator bare = { "my_op", "" };
	struct pte_instruction in = { PTE_INSTR_KERNEL_CALL, 0 };
	struct pte_instruction other = { PTE_INSTR_DELEGATE_CALL, -1 };
	struct pte_plan p = { .ops = &op, .nops = 1 };
	char name[64];

	CHECK_EQ_INT(pte_kernel_event_name(&p, &in, name, sizeof(name)), 0);
	CHECK_EQ_STR(name, "native_call_max_pool2d_with_indices.out");
	CHECK_EQ_INT(pte_kernel_event_name(&p, &in, name, 20), -ENAMETOOLONG);
	CHECK_EQ_INT(pte_kernel_event_name(&p, &other, name, sizeof(name)),
		     -EINVAL);
	p.ops = &bare;
	CHECK_EQ_INT(pte_kernel_event_name(&p, &in, name, sizeof(name)), 0);
	CHECK_EQ_STR(name, "native_call_my_op");
	in.op_index = 1;
	CHECK_EQ_INT(pte_kernel_event_name(&p, &in, name, sizeof(name)),
		     -EINVAL);
}

/* Read one damaged copy: success or -EINVAL with a reason, nothing else. */
static void read_damaged(const uint8_t *buf, size_t len, int *failed)
{
	struct pte_plan p;
	char err[256] = "";
	int ret;

	ret = pte_read_plan(buf, len, NULL, &p, err, sizeof(err));
	CHECK(ret == 0 || ret == -EINVAL || ret == -ENOENT);
	if (ret)
		CHECK(*err != '\0');
	*failed += ret != 0;
	pte_plan_free(&p);
}

TEST(truncated_and_corrupt_programs)
{
	static const char *const names[] = { "add.pte", "linear.pte" };
	size_t i, len, n, at;
	char path[4096];
	void *orig;
	uint8_t *buf;
	int failed;

	for (i = 0; i < 2; i++) {
		fixture(names[i], path);
		orig = NULL;
		CHECK_EQ_INT(etdump_load_file(path, &orig, &len), 0);
		if (!orig)
			continue;
		/* every prefix: a copy of its own, so ASan sees any over-read */
		failed = 0;
		for (n = 0; n < len; n++) {
			buf = malloc(n ? n : 1);
			memcpy(buf, orig, n);
			read_damaged(buf, n, &failed);
			free(buf);
		}
		CHECK(failed > 0);
		/* every byte flipped in turn */
		buf = malloc(len);
		for (at = 0; at < len; at++) {
			memcpy(buf, orig, len);
			buf[at] ^= 0xff;
			read_damaged(buf, len, &failed);
		}
		free(buf);
		free(orig);
	}
}

int main(void)
{
	RUN(add_pte);
	RUN(linear_pte_mul_then_add);
	RUN(errors_say_why);
	RUN(event_name_bounds);
	RUN(truncated_and_corrupt_programs);
	return TEST_SUMMARY();
}
