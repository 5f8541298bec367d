// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "lib/log.h"
#include "symbol/kernel_callers.h"
#include "symbol/symbol_mode.h"
#include "symbol/site_traps.h"
#include "symbol/symbol_preview.h"
#include "symbol/symbol_rules.h"
#include "symbol/symbol_sites.h"
#include "target/process_files.h"

static const char *const kind_names[] = {
	[ETDUMP_FUNC_EVENT] = "event",
	[ETDUMP_FUNC_BLOCK] = "block",
	[ETDUMP_FUNC_KERNEL] = "kernel",
	[ETDUMP_FUNC_DELEGATE] = "delegate",
	[ETDUMP_FUNC_ALLOCATE] = "allocate",
	[ETDUMP_FUNC_XNN_OP] = "xnnpack",
};

static const char *kind_name(unsigned int kind)
{
	return kind < sizeof(kind_names) / sizeof(*kind_names) &&
			       kind_names[kind] ? kind_names[kind] : "?";
}

/* Where the executable's function symbols come from, for the summary. */
static void symbols_origin(const struct elf_symbols_info *x, char *buf,
			   size_t len)
{
	if (x->symtab)
		snprintf(buf, len, "its own .symtab");
	else if (x->debug_file[0])
		snprintf(buf, len, "debug file %s", x->debug_file);
	else
		snprintf(buf, len, "none: stripped, and no debug file found (give --debug-file FILE)");
}

/*
 * What a run a block site opens takes: its own traps, and each kernel's
 * and delegate's call in it (a kernel's the most of its sites').
 */
static void say_run_traps(const struct symbol_sites *s, size_t callers)
{
	unsigned int block = 0, kernel = 0, exact = 0, delegate = 0, xnn = 0;
	unsigned int xnn_exact = 0, t;
	const char *run = NULL;
	char caller[64] = "", delegates[32] = "", ops[40] = "", ops_exact[40] = "";
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct symbol_site *site = &s->sites[i];

		t = site_traps_per_call(site);
		if (site->desc.kind == ETDUMP_FUNC_BLOCK &&
		    !strcmp(site->desc.arg, "Execute")) {
			run = site->desc.arg;
			block = t > block ? t : block;
		} else if (site->desc.kind == ETDUMP_FUNC_KERNEL &&
			   site->ends_at_next) {
			kernel = t > kernel ? t : kernel;
		} else if (site->desc.kind == ETDUMP_FUNC_KERNEL) {
			exact = t > exact ? t : exact;
		} else if (site->desc.kind == ETDUMP_FUNC_DELEGATE) {
			delegate = t > delegate ? t : delegate;
		} else if (site->desc.kind == ETDUMP_FUNC_XNN_OP) {
			xnn = t > xnn ? t : xnn;
			xnn_exact = site->ends_at_next ? t + 1 : t;
		}
	}
	if (!run || (!kernel && !exact))
		return;
	if (callers && kernel)
		snprintf(caller, sizeof(caller), " (%u for a kernel that calls another)",
			 exact);
	if (delegate)
		snprintf(delegates, sizeof(delegates), ", %u a delegate call",
			 delegate);
	if (xnn) {
		snprintf(ops, sizeof(ops), ", %u an XNNPACK operator", xnn);
		snprintf(ops_exact, sizeof(ops_exact), ", %u an XNNPACK operator",
			 xnn_exact);
	}
	p_info("an '%s' run takes %u trap(s) of its own, %u a kernel call%s%s%s; in the runs that measure the gaps after the kernels' returns (the first %d at least), and with record --exact-returns: %u a kernel call%s",
	       run, block, kernel ? kernel : exact, caller, delegates, ops,
	       SYMBOL_GAP_RUNS, kernel ? kernel + 1 : exact, ops_exact);
}

/* What the kernel does at its entry and return, and the traps a call takes. */
static void print_traps(const struct symbol_site *site)
{
	printf("\t%s\t%s\t%u\n", site_treatment_name(site_traps_entry(site)),
	       site_treatment_name(site_traps_exit(site)),
	       site_traps_per_call(site));
}

static void print_sites(const struct symbol_sites *s)
{
	const struct symbol_site *site;
	size_t i;

	printf("FILE\tKIND\tFUNCTION\tEVENT\tENTRY\tRETURN\tTRAPS\n");
	for (i = 0; i < s->n; i++) {
		site = &s->sites[i];
		if (site->desc.kind == ETDUMP_FUNC_BLOCK)
			printf("%s\t%s\t%s\t%s (opens a run '%s')",
			       site->path, kind_name(site->desc.kind),
			       site->function, site->desc.name,
			       site->desc.arg);
		else if (site->desc.kind == ETDUMP_FUNC_ALLOCATE)
			printf("%s\t%s\t%s\t%s (record --allocations only)",
			       site->path, kind_name(site->desc.kind),
			       site->function, site->desc.name);
		else
			printf("%s\t%s\t%s\t%s", site->path,
			       kind_name(site->desc.kind), site->function,
			       site->desc.name);
		print_traps(site);
	}
}

int symbol_preview(pid_t pid, const char *exe, bool running,
		   const char *rules_file, const char *debug_file)
{
	struct symbol_rules rules = { 0 };
	struct symbol_sites sites = { 0 };
	char err[512], origin[PATH_MAX + 96], traps[512];
	char label[2 * PATH_MAX + 48];
	size_t callers = 0;
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
		goto out;
	}
	symbols_origin(&sites.exe, origin, sizeof(origin));
	if (!sites.n) {
		process_file_label(exe, label, sizeof(label));
		p_err("%s: no 'etdump' USDT probes, and none of the %zu function symbols of it and its %zu libraries matches a rule (its symbols: %s); add rules with --rules FILE",
		      label, sites.functions, symbol_sites_libraries(&sites), origin);
		goto out;
	}
	kernel_sites_end_at_next(&sites, &callers);
	print_sites(&sites);
	say_run_traps(&sites, callers);
	site_traps_describe(&sites, traps, sizeof(traps));
	p_info("%s: no 'etdump' USDT probes: `record` would use symbol mode, with uprobes on these %zu function(s) named by %s%sthe built-in ExecuTorch rules (symbols: %s; %s); kernel calls get instruction ids in call order unless record --program PTE gives the plan",
	       exe, sites.n, rules_file ? rules_file : "",
	       rules_file ? " + " : "", origin, traps);
	ret = (int)sites.n;
out:
	symbol_sites_free(&sites);
	symbol_rules_free(&rules);
	return ret;
}
