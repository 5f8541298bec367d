/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * testlib.h - the unit tests' harness: TEST() defines a case, CHECK() fails
 * it with the expression and location, RUN() runs one. A binary prints one
 * line per case and a closing "N passed, N failed" that tests/run.py sums.
 */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <stdio.h>
#include <string.h>

static int testlib_failed_checks;
static int testlib_passed, testlib_failed;

#define TEST(name) static void test_##name(void)

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("    %s:%d: CHECK(%s) failed\n", __FILE__,      \
			       __LINE__, #cond);                               \
			testlib_failed_checks++;                               \
		}                                                              \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                     \
	do {                                                                   \
		long long testlib_a = (long long)(a), testlib_b = (long long)(b); \
		if (testlib_a != testlib_b) {                                  \
			printf("    %s:%d: %s == %lld, expected %s == %lld\n", \
			       __FILE__, __LINE__, #a, testlib_a, #b,          \
			       testlib_b);                                     \
			testlib_failed_checks++;                               \
		}                                                              \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                     \
	do {                                                                   \
		const char *testlib_a = (a), *testlib_b = (b);                 \
		if (!testlib_a || !testlib_b || strcmp(testlib_a, testlib_b)) { \
			printf("    %s:%d: %s == \"%s\", expected \"%s\"\n",   \
			       __FILE__, __LINE__, #a,                         \
			       testlib_a ? testlib_a : "(null)",               \
			       testlib_b ? testlib_b : "(null)");              \
			testlib_failed_checks++;                               \
		}                                                              \
	} while (0)

#define RUN(name)                                                              \
	do {                                                                   \
		int testlib_before = testlib_failed_checks;                    \
		test_##name();                                                 \
		if (testlib_failed_checks == testlib_before) {                 \
			printf("ok - %s\n", #name);                            \
			testlib_passed++;                                      \
		} else {                                                       \
			printf("FAIL - %s\n", #name);                          \
			testlib_failed++;                                      \
		}                                                              \
		fflush(stdout);                                                \
	} while (0)

#define TEST_SUMMARY()                                                         \
	(printf("%d passed, %d failed\n", testlib_passed, testlib_failed),    \
	 testlib_failed ? 1 : 0)

#endif /* TESTLIB_H */
