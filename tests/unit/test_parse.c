// SPDX-License-Identifier: BSD-3-Clause
/* Command-line numbers: the whole string is the number, or it is refused. */
#include <errno.h>
#include "lib/parse.h"
#include "testlib.h"

TEST(pid)
{
	int pid = 0;

	CHECK_EQ_INT(parse_pid("1234", &pid), 0);
	CHECK_EQ_INT(pid, 1234);
	CHECK_EQ_INT(parse_pid("0", &pid), -ERANGE);
	CHECK_EQ_INT(parse_pid("-5", &pid), -EINVAL);
	CHECK_EQ_INT(parse_pid(" 5", &pid), -EINVAL);
	CHECK_EQ_INT(parse_pid("5 ", &pid), -EINVAL);
	CHECK_EQ_INT(parse_pid("12x", &pid), -EINVAL);
	CHECK_EQ_INT(parse_pid("", &pid), -EINVAL);
	CHECK_EQ_INT(parse_pid("2147483648", &pid), -ERANGE);
	CHECK_EQ_INT(parse_pid("99999999999999999999999", &pid), -ERANGE);
}

TEST(seconds)
{
	uint64_t ns = 0;

	CHECK_EQ_INT(parse_seconds("2", &ns), 0);
	CHECK_EQ_INT(ns, 2000000000ull);
	CHECK_EQ_INT(parse_seconds("0.25", &ns), 0);
	CHECK_EQ_INT(ns, 250000000ull);
	CHECK_EQ_INT(parse_seconds("1.0000000019", &ns), 0);
	CHECK_EQ_INT(ns, 1000000001ull);
	CHECK_EQ_INT(parse_seconds("1.", &ns), -EINVAL);
	CHECK_EQ_INT(parse_seconds(".5", &ns), -EINVAL);
	CHECK_EQ_INT(parse_seconds("1s", &ns), -EINVAL);
	CHECK_EQ_INT(parse_seconds("-1", &ns), -EINVAL);
	CHECK_EQ_INT(parse_seconds("99999999999999999999", &ns), -ERANGE);
}

TEST(size)
{
	uint64_t b = 0;

	CHECK_EQ_INT(parse_size("4096", &b), 0);
	CHECK_EQ_INT(b, 4096);
	CHECK_EQ_INT(parse_size("8M", &b), 0);
	CHECK_EQ_INT(b, 8u << 20);
	CHECK_EQ_INT(parse_size("64k", &b), 0);
	CHECK_EQ_INT(b, 65536);
	CHECK_EQ_INT(parse_size("1G", &b), 0);
	CHECK_EQ_INT(b, 1u << 30);
	CHECK_EQ_INT(parse_size("1MB", &b), -EINVAL);
	CHECK_EQ_INT(parse_size("M", &b), -EINVAL);
	CHECK_EQ_INT(parse_size("18446744073709551615G", &b), -ERANGE);
}

int main(void)
{
	RUN(pid);
	RUN(seconds);
	RUN(size);
	return TEST_SUMMARY();
}
