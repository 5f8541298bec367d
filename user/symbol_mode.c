// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "collector.h"
#include "log.h"
#include "pte_reader.h"
#include "symbol_mode.h"
#include "symbol_sites.h"
#include "symbol_translate.h"
#include "symbols.skel.h"
#include "target.h"

struct symbol_mode {
	struct symbol_mode_opts opts;
	struct symbol_rules rules;
	struct pte_plan plan;
	bool have_plan;
	struct symbol_translator *translator;
	struct symbol_sites sites;
	struct symbols_bpf *skel;
	struct bpf_link **links;
	size_t nlinks;
};

bool symbol_mode_wanted(const struct symbol_mode_opts *o,
			size_t etdump_probes)
{
	return o->force || !etdump_probes;
}

/* The translator's output: a malformed record is the collector's to count. */
static int feed_collector(void *col, const void *rec, size_t len)
{
	int err = collector_feed(col, rec, len);

	return err == -EINVAL ? 0 : err;
}

int symbol_mode_open(struct symbol_mode **out,
		     const struct symbol_mode_opts *o, struct collector *col)
{
	struct symbol_mode *sm;
	char err[512];
	int ret;

	sm = calloc(1, sizeof(*sm));
	if (!sm)
		return -ENOMEM;
	sm->opts = *o;
	ret = o->rules ? symbol_rules_load_file(&sm->rules, o->rules, err,
						sizeof(err)) : 0;
	if (!ret)
		ret = symbol_rules_load_builtin(&sm->rules, err, sizeof(err));
	if (!ret && o->program) {
		ret = pte_read_plan_file(o->program, NULL, &sm->plan, err,
					 sizeof(err));
		sm->have_plan = !ret;
	}
	if (ret) {
		p_err("%s", ret == -ENOMEM ? strerror(ENOMEM) : err);
		goto fail;
	}
	ret = symbol_translator_new(&sm->translator,
				    sm->have_plan ? &sm->plan : NULL,
				    feed_collector, col);
	if (ret)
		goto fail;
	*out = sm;
	return 0;
fail:
	symbol_mode_free(sm);
	return ret;
}

int symbol_mode_feed(struct symbol_mode *sm, const void *rec, size_t len)
{
	return symbol_translator_feed(sm->translator, rec, len);
}

/* "built-in ExecuTorch rules" or "FILE + built-in ExecuTorch rules" */
static const char *rules_origin(const struct symbol_mode *sm, char *buf,
				size_t len)
{
	snprintf(buf, len, "%s%sbuilt-in ExecuTorch rules",
		 sm->opts.rules ? sm->opts.rules : "",
		 sm->opts.rules ? " + " : "");
	return buf;
}

/*
 * Nothing to attach to: what is missing, and how to provide it, in one
 * line (it starts with what USDT mode used to say, since it is why we are
 * here).
 */
static void explain_no_site(const struct symbol_mode *sm, const char *exe,
			    bool forced)
{
	const struct elf_symbols_info *x = &sm->sites.exe;
	const char *lead = forced ? "symbol mode (--symbols)" :
				    "no 'etdump' USDT probes";
	char rules[PATH_MAX + 64], where[PATH_MAX + 128];

	rules_origin(sm, rules, sizeof(rules));
	if (!x->symtab && !x->debug_file[0]) {
		snprintf(where, sizeof(where), "%s%s%s%s%s",
			 x->build_id[0] ? "build-id " : "", x->build_id,
			 x->build_id[0] && x->debuglink[0] ? ", " : "",
			 x->debuglink[0] ? ".gnu_debuglink " : "",
			 x->debuglink);
		p_err("%s: %s, and it is stripped: no .symtab and no debug file (%s%s, looked under %s and next to it)%s; give its debug file with --debug-file FILE (objcopy --only-keep-debug makes one) or install the package's debug symbols",
		      exe, lead, where[0] ? "by " : "none to look for",
		      where, ELF_DEBUG_ROOT,
		      x->functions ? ", and none of its dynamic symbols matches a rule" : "");
		return;
	}
	p_err("%s: %s, and none of the %zu function symbols of it and its %zu libraries matches a rule (%s); add rules for this runtime with --rules FILE",
	      exe, lead, sm->sites.functions, sm->sites.objects.n - 1, rules);
}

static int load_program(struct symbol_mode *sm, struct capture *cap,
			pid_t pid)
{
	struct symbols_bpf *skel;
	size_t i;
	int err;

	skel = sm->skel = symbols_bpf__open();
	if (!skel) {
		err = -errno;
		p_err("cannot open the symbol-mode BPF object: %s",
		      strerror(-err));
		return err;
	}
	skel->rodata->target_tgid = pid;
	err = bpf_map__set_max_entries(skel->maps.sites, sm->sites.n);
	/* capture.bpf.c's ring and drop counter: one stream, one count */
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.events,
					capture_ring_map_fd(cap));
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.drops,
					capture_drops_map_fd(cap));
	if (err) {
		p_err("cannot set up the symbol-mode maps: %s", strerror(-err));
		return err;
	}
	skel->rodata->wakeup_bytes = bpf_map__max_entries(skel->maps.events) / 4;
	err = symbols_bpf__load(skel);
	if (err) {
		p_err("cannot load the symbol-mode BPF programs: %s (run with -v for the verifier's log)",
		      strerror(-err));
		return err;
	}
	for (i = 0; i < sm->sites.n && !err; i++) {
		__u32 key = i;

		err = bpf_map__update_elem(skel->maps.sites, &key, sizeof(key),
					   &sm->sites.sites[i].desc,
					   sizeof(sm->sites.sites[i].desc), 0);
	}
	if (err)
		p_err("cannot fill the symbol-mode site table: %s",
		      strerror(-err));
	return err;
}

/* An entry uprobe or a return uprobe on one site; cookie = its id. */
static int attach_one(struct symbol_mode *sm, const struct symbol_site *s,
		      pid_t pid, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = s->desc.id,
		    .retprobe = ret);
	struct bpf_program *prog = ret ? sm->skel->progs.on_func_exit :
					 sm->skel->progs.on_func_entry;
	struct bpf_link **links, *link;
	int err;

	links = realloc(sm->links, (sm->nlinks + 1) * sizeof(*links));
	if (!links)
		return -ENOMEM;
	sm->links = links;
	link = bpf_program__attach_uprobe_opts(prog, pid, s->path, s->offset,
					       &opts);
	if (!link) {
		err = -errno;
		p_err("%s: cannot attach a %s to %s (offset 0x%llx): %s (run with -v for libbpf's log)",
		      s->path, ret ? "uretprobe" : "uprobe", s->function,
		      (unsigned long long)s->offset, strerror(-err));
		return err;
	}
	sm->links[sm->nlinks++] = link;
	return 0;
}

static void say_why(const struct symbol_mode *sm)
{
	char rules[PATH_MAX + 64], cost[128] = "";

	if (sm->sites.single_step)
		snprintf(cost, sizeof(cost), "; %zu of them start with an instruction the kernel must single-step (~10x the cost)",
			 sm->sites.single_step);
	p_info("symbol mode (%s): %zu function(s) named by %s%s; instruction ids %s%s",
	       sm->opts.force ? "--symbols" : "no 'etdump' USDT probes in the target",
	       sm->sites.n, rules_origin(sm, rules, sizeof(rules)), cost,
	       sm->have_plan ? "from " : "in call order",
	       sm->have_plan ? sm->opts.program : "");
}

int symbol_mode_attach(struct symbol_mode *sm, struct capture *cap,
		       const struct target *t, int *nattached)
{
	char err[512];
	size_t i;
	int ret;

	*nattached = 0;
	ret = symbol_sites_find(&sm->sites, &sm->rules, t->pid, t->exe,
				!t->spawned, sm->opts.debug_file, err,
				sizeof(err));
	if (ret) {
		p_err("%s", err);
		return ret;
	}
	if (!sm->sites.n) {
		explain_no_site(sm, t->exe, sm->opts.force);
		return -ENOENT;
	}
	ret = load_program(sm, cap, t->pid);
	for (i = 0; !ret && i < sm->sites.n; i++) {
		ret = attach_one(sm, &sm->sites.sites[i], t->pid, false);
		if (!ret)
			ret = attach_one(sm, &sm->sites.sites[i], t->pid, true);
	}
	if (ret)
		return ret;
	*nattached = sm->nlinks;
	say_why(sm);
	return 0;
}

void symbol_mode_free(struct symbol_mode *sm)
{
	size_t i;

	if (!sm)
		return;
	for (i = 0; i < sm->nlinks; i++)
		bpf_link__destroy(sm->links[i]);
	free(sm->links);
	symbols_bpf__destroy(sm->skel);
	symbol_translator_free(sm->translator);
	symbol_sites_free(&sm->sites);
	pte_plan_free(&sm->plan);
	symbol_rules_free(&sm->rules);
	free(sm);
}
