// SPDX-License-Identifier: BSD-3-Clause
/*
 * The rules' lines for symbol-mode values (value_rules.h): `outputs`
 * places, first match wins, `tensor` fields, the errors that name the
 * line, and the built-in rules' places for ExecuTorch's kernels.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "symbol/symbol_rules.h"
#include "testlib.h"
#include "symbol/value_rules.h"

static int parse(struct symbol_rules *rs, const char *text, char *err,
		 size_t errlen)
{
	err[0] = '\0';
	return symbol_rules_parse(rs, text, strlen(text), "t.rules", err,
				  errlen);
}

TEST(outputs_places_and_first_match)
{
	static const char text[] =
		"outputs ns::pair_out sret+8,sret+0\n"
		"kernel ns::{op}_out native_call_{op}.out\n"
		"outputs ns::skip_out none\n"
		"outputs ns::*_out ret\n";
	const struct symbol_output_rule *r;
	struct symbol_rules rs = { 0 };
	char err[256];

	CHECK_EQ_INT(parse(&rs, text, err, sizeof(err)), 0);
	/* not sites: the kernel rule is the only one symbol_rules_match sees */
	CHECK_EQ_INT(rs.n, 1);
	CHECK_EQ_INT(rs.noutputs, 3);
	r = value_rules_outputs(&rs, "ns::pair_out");
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ_INT(r->out.n, 2);
		CHECK_EQ_INT(r->out.place[0], ETDUMP_OUT_SRET);
		CHECK_EQ_INT(r->out.offset[0], 8);
		CHECK_EQ_INT(r->out.place[1], ETDUMP_OUT_SRET);
		CHECK_EQ_INT(r->out.offset[1], 0);
		CHECK_EQ_STR(r->where, "t.rules:1");
	}
	r = value_rules_outputs(&rs, "ns::skip_out");
	CHECK(r != NULL && r->out.n == 0);
	r = value_rules_outputs(&rs, "ns::add_out");
	CHECK(r != NULL && r->out.n == 1 && r->out.place[0] == ETDUMP_OUT_RET);
	CHECK(value_rules_outputs(&rs, "other::add_out") == NULL);
	symbol_rules_free(&rs);
	CHECK_EQ_INT(rs.noutputs, 0);
}

TEST(tensor_fields_first_line_wins)
{
	static const char text[] =
		"tensor Tensor.impl 0\n"
		"tensor TensorImpl.sizes 0\n"
		"tensor TensorImpl.strides 16\n"
		"tensor TensorImpl.data 0x18\n"
		"tensor TensorImpl.dim 32\n"
		"tensor TensorImpl.numel 40\n"
		"tensor TensorImpl.type 56\n"
		"tensor TensorImpl.type 7\n";
	struct symbol_rules rs = { 0 };
	char err[256];

	CHECK_EQ_INT(parse(&rs, "tensor TensorImpl.dim 32\n", err,
			   sizeof(err)), 0);
	CHECK(!value_rules_tensor_known(&rs));
	symbol_rules_free(&rs);
	CHECK_EQ_INT(parse(&rs, text, err, sizeof(err)), 0);
	CHECK(value_rules_tensor_known(&rs));
	CHECK_EQ_INT(rs.tensor.data, 24);
	CHECK_EQ_INT(rs.tensor.type, 56);
	CHECK_EQ_INT(rs.tensor.strides, 16);
	symbol_rules_free(&rs);
}

TEST(errors_name_the_line)
{
	static const struct {
		const char *text;
		const char *why;
	} bad[] = {
		{ "outputs f", "expected outputs FUNCTION PLACE" },
		{ "outputs f ret extra", "expected outputs FUNCTION PLACE" },
		{ "\noutputs f rax", "t.rules:2: a place is ret, sret+N or none" },
		{ "outputs f sret+", "a place is ret, sret+N or none" },
		{ "outputs f sret+-1", "a place is ret, sret+N or none" },
		{ "outputs f ret,ret,ret,ret,ret", "at most 4 out tensors" },
		{ "outputs ns::{op}_out ret", "'*', not {op}" },
		{ "tensor Tensor.impl", "expected tensor TYPE.FIELD OFFSET" },
		{ "tensor TensorImpl.dim_order 8", "unknown tensor field" },
		{ "tensor TensorImpl.dim x", "OFFSET is a number of bytes" },
		{ "tensor TensorImpl.dim 65536", "OFFSET is a number of bytes" },
	};
	struct symbol_rules rs = { 0 };
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ_INT(parse(&rs, bad[i].text, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].why))
			printf("    '%s': '%s' does not say '%s'\n", bad[i].text,
			       err, bad[i].why);
		CHECK(strstr(err, bad[i].why) != NULL);
		CHECK_EQ_INT(rs.noutputs, 0);
	}
	symbol_rules_free(&rs);
}

TEST(builtin_places_executorch_kernels)
{
	const struct symbol_output_rule *r;
	struct symbol_rules rs = { 0 };
	char err[256];

	CHECK_EQ_INT(symbol_rules_load_builtin(&rs, err, sizeof(err)), 0);
	CHECK(value_rules_tensor_known(&rs));
	r = value_rules_outputs(&rs, "torch::executor::native::relu_out");
	CHECK(r != NULL && r->out.n == 1 && r->out.place[0] == ETDUMP_OUT_RET);
	/* std::tuple<Tensor&, Tensor&>(out, indices): out's address last */
	r = value_rules_outputs(
		&rs, "torch::executor::native::max_pool2d_with_indices_out");
	CHECK(r != NULL && r->out.n == 2);
	if (r && r->out.n == 2) {
		CHECK_EQ_INT(r->out.offset[0], 8);
		CHECK_EQ_INT(r->out.offset[1], 0);
	}
	CHECK(value_rules_outputs(&rs, "executorch::runtime::Method::execute") ==
	      NULL);
	symbol_rules_free(&rs);
}

int main(void)
{
	RUN(outputs_places_and_first_match);
	RUN(tensor_fields_first_line_wins);
	RUN(errors_name_the_line);
	RUN(builtin_places_executorch_kernels);
	return TEST_SUMMARY();
}
