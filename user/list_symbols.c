// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "list_symbols.h"
#include "log.h"
#include "symbol_rules.h"
#include "symbol_sites.h"

static const char *const kinds[] = {
	[ETDUMP_FUNC_EVENT] = "event",
	[ETDUMP_FUNC_BLOCK] = "block",
	[ETDUMP_FUNC_KERNEL] = "kernel",
	[ETDUMP_FUNC_DELEGATE] = "delegate",
};

int list_symbol_sites(pid_t pid, const char *exe, bool running,
		      const char *rules_file, const char *debug_file)
{
	struct symbol_rules rules = { 0 };
	struct symbol_sites sites = { 0 };
	char err[512];
	size_t i;
	int ret;

	ret = rules_file ? symbol_rules_load_file(&rules, rules_file, err,
						  sizeof(err)) : 0;
	if (!ret)
		ret = symbol_rules_load_builtin(&rules, err, sizeof(err));
	if (!ret)
		ret = symbol_sites_find(&sites, &rules, pid, exe, running,
					debug_file, err, sizeof(err));
	if (ret) {
		p_err("%s", ret == -ENOMEM ? strerror(ENOMEM) : err);
		/* what a failed find holds so far */
		symbol_sites_free(&sites);
		symbol_rules_free(&rules);
		return ret;
	}
	for (i = 0; i < sites.n; i++) {
		const struct symbol_site *s = &sites.sites[i];
		unsigned kind = s->desc.kind;

		printf("%s\t%s\t%.*s\t%s\t0x%llx\t%s\n", s->path, s->function,
		       (int)s->desc.name_len, s->desc.name,
		       kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[kind] : "?",
		       (unsigned long long)s->offset,
		       s->single_step ? "single-stepped" : "simulated");
	}
	if (sites.exe.debug_file[0])
		p_info("%s: symbols from %s", exe, sites.exe.debug_file);
	ret = sites.n;
	symbol_sites_free(&sites);
	symbol_rules_free(&rules);
	return ret;
}
