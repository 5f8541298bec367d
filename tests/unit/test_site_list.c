// SPDX-License-Identifier: BSD-3-Clause
/*
 * test_site_list.c - the probes of symbol-mode sites (user/symbol/
 * site_list.h): an entry each, and a uretprobe or a plain uprobe at each
 * exit of its own, all with the site's id as cookie.
 */
#include <string.h>
#include "symbol/site_list.h"
#include "testlib.h"

TEST(each_exit_a_probe_with_its_sites_id)
{
	struct symbol_site sites[3];
	uint64_t offsets[8], cookies[8];
	size_t i;

	memset(sites, 0, sizeof(sites));
	for (i = 0; i < 3; i++) {
		sites[i].desc.id = 10 + i;
		sites[i].offset = 0x1000 * (i + 1);
	}
	/* an aarch64 function probed on its two rets */
	sites[1].nexits = 2;
	sites[1].exit_offsets[0] = 0x2040;
	sites[1].exit_offsets[1] = 0x2080;
	CHECK_EQ_INT(symbol_sites_probes(sites, 3, SYMBOL_PROBE_ENTRY, NULL,
					 NULL), 3);
	CHECK_EQ_INT(symbol_sites_probes(sites, 3, SYMBOL_PROBE_RETURN,
					 offsets, cookies), 2);
	CHECK_EQ_INT(offsets[0], 0x1000);
	CHECK_EQ_INT(offsets[1], 0x3000);
	CHECK_EQ_INT(cookies[1], 12);
	CHECK_EQ_INT(symbol_sites_probes(sites, 3, SYMBOL_PROBE_EXIT_AT,
					 offsets, cookies), 2);
	CHECK_EQ_INT(offsets[0], 0x2040);
	CHECK_EQ_INT(offsets[1], 0x2080);
	CHECK_EQ_INT(cookies[0], 11);
	CHECK_EQ_INT(cookies[1], 11);
	/* an XNNPACK operator's entry runs a program of its own */
	sites[2].desc.kind = ETDUMP_FUNC_XNN_OP;
	CHECK_EQ_INT(symbol_sites_probes(sites, 3, SYMBOL_PROBE_XNN_CALL,
					 offsets, cookies), 1);
	CHECK(offsets[0] == 0x3000 && cookies[0] == 12);
	CHECK_EQ_INT(symbol_sites_probes(sites, 3, SYMBOL_PROBE_ENTRY, NULL,
					 NULL), 2);
}

int main(void)
{
	RUN(each_exit_a_probe_with_its_sites_id);
	return TEST_SUMMARY();
}
