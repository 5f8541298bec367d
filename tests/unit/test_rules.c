// SPDX-License-Identifier: BSD-3-Clause
/*
 * Symbol mode's rules: the file format and its errors, matching and event
 * names, the demangled names rules see, and the built-in rules against the
 * symbols of a stock ExecuTorch executor_runner (tests/fixtures, or
 * $ETDUMP_FIXTURES): exactly the functions ETDumpGen's events come from,
 * and the allocator's allocate for record --allocations.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "target/demangle.h"
#include "symbol/symbol_rules.h"
#include "testlib.h"

static int parse(struct symbol_rules *rs, const char *text, char *err,
		 size_t errlen)
{
	err[0] = '\0';
	return symbol_rules_parse(rs, text, strlen(text), "t.rules", err,
				  errlen);
}

TEST(parse_kinds_runs_and_comments)
{
	static const char text[] =
		"# a comment\n"
		"\n"
		"block  ns::Program::load_method  Program::load_method  Default\n"
		"event\tns::Method::init\tMethod::init   # trailing\n"
		"kernel ns::native::{op}_out native_call_{op}.out\r\n"
		"delegate *Backend::execute DELEGATE_CALL";
	struct symbol_rules rs = { 0 };
	char err[256];

	CHECK_EQ_INT(parse(&rs, text, err, sizeof(err)), 0);
	CHECK_EQ_INT(rs.n, 4);
	if (rs.n == 4) {
		CHECK_EQ_INT(rs.rules[0].kind, ETDUMP_FUNC_BLOCK);
		CHECK_EQ_STR(rs.rules[0].run, "Default");
		CHECK_EQ_STR(rs.rules[0].where, "t.rules:3");
		CHECK_EQ_INT(rs.rules[1].kind, ETDUMP_FUNC_EVENT);
		CHECK(rs.rules[1].run == NULL);
		CHECK_EQ_STR(rs.rules[1].event, "Method::init");
		CHECK_EQ_INT(rs.rules[2].kind, ETDUMP_FUNC_KERNEL);
		CHECK_EQ_STR(rs.rules[2].event, "native_call_{op}.out");
		CHECK_EQ_INT(rs.rules[3].kind, ETDUMP_FUNC_DELEGATE);
		CHECK_EQ_STR(rs.rules[3].pattern, "*Backend::execute");
	}
	symbol_rules_free(&rs);
}

TEST(parse_errors_name_the_line)
{
	static const struct {
		const char *text;
		const char *why;
	} bad[] = {
		{ "func f E", "t.rules:1: unknown kind" },
		{ "\nevent f", "t.rules:2: expected KIND FUNCTION EVENT [RUN]" },
		{ "block f E", "a block rule names its run" },
		{ "event f E Run", "only a block rule takes a RUN" },
		{ "event f E a b", "expected KIND FUNCTION EVENT [RUN]" },
		{ "kernel f_{x} E", "'{' may only open {op}" },
		{ "kernel {op}_{op} E", "FUNCTION may hold {op} once" },
		{ "kernel f native_call_{op}.out", "which FUNCTION does not capture" },
		{ "block f E {op}", "'{' may only open {op}" },
		{ "event f AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		  "at most 63 bytes" },
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
		CHECK_EQ_INT(rs.n, 0);
	}
	symbol_rules_free(&rs);
}

static int match(const char *rules, const char *func, char *event)
{
	struct symbol_rules rs = { 0 };
	char err[256];
	int ret;

	CHECK_EQ_INT(parse(&rs, rules, err, sizeof(err)), 0);
	ret = symbol_rules_match(&rs, func, event);
	symbol_rules_free(&rs);
	return ret;
}

TEST(glob_and_op_capture)
{
	char ev[ETDUMP_NAME_MAX];

	CHECK_EQ_INT(match("kernel ns::{op}_out native_call_{op}.out",
			   "ns::add_out", ev), 0);
	CHECK_EQ_STR(ev, "native_call_add.out");
	/* the longest operator that leaves "_out" to match */
	CHECK_EQ_INT(match("kernel ns::{op}_out native_call_{op}.out",
			   "ns::max_pool2d_with_indices_out", ev), 0);
	CHECK_EQ_STR(ev, "native_call_max_pool2d_with_indices.out");
	/* {op} does not cross "::" */
	CHECK_EQ_INT(match("kernel ns::{op}_out E_{op}", "ns::utils::a_out",
			   ev), -ENOENT);
	/* '*' does, and needs all of the name to match */
	CHECK_EQ_INT(match("kernel *::native::{op}_out E_{op}",
			   "cadence::impl::HiFi::native::add_out", ev), 0);
	CHECK_EQ_STR(ev, "E_add");
	CHECK_EQ_INT(match("event ns::f E", "ns::f2", ev), -ENOENT);
	CHECK_EQ_INT(match("event ns::f E", "xns::f", ev), -ENOENT);
	CHECK_EQ_INT(match("event **::f** E", "a::f", ev), 0);
	CHECK_EQ_INT(match("event op_{op} {op}{op}", "op_relu", ev), 0);
	CHECK_EQ_STR(ev, "relurelu");
	CHECK_EQ_INT(match("kernel f{op} {op}", "f", ev), -ENOENT);
}

TEST(first_match_wins_and_long_names)
{
	static const char rules[] =
		"kernel op_softmax native_call__softmax.out\n"
		"kernel op_{op} native_call_{op}.out\n";
	char ev[ETDUMP_NAME_MAX];

	CHECK_EQ_INT(match(rules, "op_softmax", ev), 0);
	CHECK_EQ_STR(ev, "native_call__softmax.out");
	CHECK_EQ_INT(match(rules, "op_relu", ev), 1);
	CHECK_EQ_STR(ev, "native_call_relu.out");
	CHECK_EQ_INT(match(rules, "op_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			   ev), -ENAMETOOLONG);
}

TEST(rules_file_errors)
{
	struct symbol_rules rs = { 0 };
	char err[256] = "";

	CHECK_EQ_INT(symbol_rules_load_file(&rs, "/nonexistent.rules", err,
					    sizeof(err)), -ENOENT);
	CHECK(strstr(err, "/nonexistent.rules") != NULL);
	CHECK_EQ_INT(symbol_rules_load_file(&rs, "tests/example/example.rules",
					    err, sizeof(err)), 0);
	CHECK_EQ_INT(rs.n, 6);
	symbol_rules_free(&rs);
}

static void check_demangled(const char *symbol, const char *want)
{
	char *got = demangle_function(symbol);

	if (want)
		CHECK_EQ_STR(got, want);
	else
		CHECK(got == NULL && errno == EINVAL);
	free(got);
}

TEST(demangled_names)
{
	check_demangled("op_relu", "op_relu");
	check_demangled("main", "main");
	check_demangled("_ZN10executorch7runtime6Method7executeEv",
			"executorch::runtime::Method::execute");
	check_demangled("_ZNK10executorch7runtime7Program11load_methodEPKcPNS0_13MemoryManagerEPNS0_11EventTracerEPKNS0_12NamedDataMapEPKNS0_21LoadBackendOptionsMapENS0_4SpanIKNS0_6KernelEEE",
			"executorch::runtime::Program::load_method");
	/* a template's return type goes, its arguments stay */
	check_demangled("_ZN5torch8executor6native5utils8internal17convert_and_storeIffEEvT0_Pv",
			"torch::executor::native::utils::internal::convert_and_store<float, float>");
	check_demangled("_ZN10executorch7runtime12_GLOBAL__N_118get_execution_planEPKN21executorch_flatbuffer7ProgramEPKc",
			"executorch::runtime::(anonymous namespace)::get_execution_plan");
	check_demangled("_ZNSt6vectorIiSaIiEEixEm",
			"std::vector<int, std::allocator<int> >::operator[]");
	check_demangled("_ZN1AclEv", "A::operator()");
	check_demangled("_ZN1AltERKS_", "A::operator<");
	/* not a function's entry as the source names it */
	check_demangled("_ZN10executorch7runtime6Method7executeEv.cold", NULL);
	check_demangled("node_done.part.0", NULL);
	check_demangled("_ZZN5torch8executor6native7add_outERN10executorch7runtime20KernelRuntimeContextERKNS2_7etensor6TensorES9_RKNS5_6ScalarERS7_ENKUlvE_clEv",
			NULL);
	check_demangled("_ZThn8_N1B1fEv", NULL);
	/* not mangled after all: kept as it is */
	check_demangled("_Zfoo", "_Zfoo");
}

/* The fixture: `nm` output, "ADDRESS TYPE SYMBOL" or "TYPE SYMBOL". */
static FILE *open_symbols(void)
{
	const char *dir = getenv("ETDUMP_FIXTURES");
	char path[4096];

	snprintf(path, sizeof(path), "%s/executor_runner.symbols.txt",
		 dir ? dir : "tests/fixtures");
	return fopen(path, "r");
}

TEST(builtin_rules_find_executorch_events)
{
	static const struct {
		const char *function, *event, *run;
		int kind;
	} want[] = {
		{ "executorch::runtime::Method::init", "Method::init", NULL,
		  ETDUMP_FUNC_EVENT },
		{ "executorch::runtime::Method::execute", "Method::execute",
		  "Execute", ETDUMP_FUNC_BLOCK },
		{ "executorch::runtime::Program::load_method",
		  "Program::load_method", "Default", ETDUMP_FUNC_BLOCK },
		{ "torch::executor::native::add_out", "native_call_add.out", NULL,
		  ETDUMP_FUNC_KERNEL },
		{ "torch::executor::native::mul_out", "native_call_mul.out", NULL,
		  ETDUMP_FUNC_KERNEL },
		/* record --allocations only: symbol_mode.c drops it otherwise */
		{ "executorch::runtime::MemoryAllocator::allocate",
		  "MemoryAllocator", NULL, ETDUMP_FUNC_ALLOCATE },
	};
	const size_t nwant = sizeof(want) / sizeof(want[0]);
	struct symbol_rules rs = { 0 };
	char line[4096], sym[4096], type, ev[ETDUMP_NAME_MAX], err[256];
	size_t found[6] = { 0 }, i, matched = 0, functions = 0;
	FILE *f = open_symbols();
	char *name;
	int rule;

	CHECK(f != NULL);
	CHECK_EQ_INT(symbol_rules_load_builtin(&rs, err, sizeof(err)), 0);
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %c %4095s", &type, sym) != 2 ||
		    !strchr("TtWw", type))
			continue;
		functions++;
		name = demangle_function(sym);
		rule = name ? symbol_rules_match(&rs, name, ev) : -ENOENT;
		for (i = 0; rule >= 0 && i < nwant; i++) {
			if (strcmp(name, want[i].function))
				continue;
			found[i]++;
			CHECK_EQ_STR(ev, want[i].event);
			CHECK_EQ_INT(rs.rules[rule].kind, want[i].kind);
			if (want[i].run)
				CHECK_EQ_STR(rs.rules[rule].run, want[i].run);
		}
		if (rule >= 0 && ++matched > nwant)
			printf("    unexpected match: %s -> %s\n", name, ev);
		free(name);
	}
	CHECK(functions > 400);
	/* one symbol each: no lambda, clone or alias of them matched */
	CHECK_EQ_INT(matched, nwant);
	for (i = 0; i < nwant; i++)
		CHECK_EQ_INT(found[i], 1);
	if (f)
		fclose(f);
	symbol_rules_free(&rs);
}

int main(void)
{
	RUN(parse_kinds_runs_and_comments);
	RUN(parse_errors_name_the_line);
	RUN(glob_and_op_capture);
	RUN(first_match_wins_and_long_names);
	RUN(rules_file_errors);
	RUN(demangled_names);
	RUN(builtin_rules_find_executorch_events);
	return TEST_SUMMARY();
}
