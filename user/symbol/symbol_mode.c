// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/kernel_features.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "model/run_note.h"
#include "symbol/entry_expand.h"
#include "symbol/kernel_callers.h"
#include "symbol/pte_reader.h"
#include "symbol/site_traps.h"
#include "symbol/symbol_attach.h"
#include "symbol/symbol_calibrate.h"
#include "symbol/symbol_coverage.h"
#include "symbol/symbol_mode.h"
#include "symbol/symbol_sites.h"
#include "symbol/symbol_translate.h"
#include "symbol/value_sites.h"
#include "target/process_files.h"
#include "target/target.h"

struct symbol_mode {
	struct symbol_mode_opts opts;
	struct symbol_rules rules;
	struct pte_plan plan;
	bool have_plan;
	struct symbol_translator *translator;
	struct symbol_sites sites;
	struct site_tally traps;        /* what the records took */
	struct etdump_rec_func_entry expanded;  /* symbol_mode_expand()'s */
	struct symbol_attach *attach;
	pid_t pid;              /* attached to */
	struct symbol_calibration cal;  /* measured at attach */
	struct etdump_rec_probe_time note;
	bool noted;             /* handed on, before the first record */
	/* measured again while recording: handed on before the next record */
	struct symbol_recalibration *recal;
	uint64_t recalibrated;  /* when, CLOCK_MONOTONIC ns */
	struct symbol_calibration at_attach;
	bool fed;               /* records came since the last measure */
	size_t nrecal;          /* measures since, their least and most */
	uint64_t recal_least, recal_most;
	size_t ends_at_next;    /* kernels probed at their entry alone */
	size_t callers;         /* kernels calling another: returns kept */
	uint64_t gaps_dropped_at;  /* runs that had measured, then */
	bool found;             /* sites found already: symbol_mode_find() */
	char find_err[512];     /* why symbol_mode_find() found none */
};

bool symbol_mode_wanted(const struct symbol_mode_opts *o,
			size_t etdump_probes)
{
	if (o->force || !etdump_probes)
		return true;
	if (o->rules || o->program || o->debug_file)
		p_warn("the target carries etdump probes: --rules, --program and --debug-file apply to symbol mode only (add --symbols)");
	return false;
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
				    symbol_translator_to_collector, col);
	if (ret)
		goto fail;
	*out = sm;
	return 0;
fail:
	symbol_mode_free(sm);
	return ret;
}

const void *symbol_mode_expand(struct symbol_mode *sm, const void *rec,
			       size_t *len)
{
	if (!entry_expand(&sm->sites, rec, *len, &sm->expanded))
		return rec;
	*len = sizeof(sm->expanded);
	return &sm->expanded;
}

int symbol_mode_feed(struct symbol_mode *sm, const void *rec, size_t len)
{
	int err = site_tally_feed(&sm->traps, &sm->sites, rec, len);

	sm->fed = true;
	return err ? err : symbol_translator_feed(sm->translator, rec, len);
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
			    const char *lead)
{
	const struct elf_symbols_info *x = &sm->sites.exe;
	char rules[PATH_MAX + 64], id[128] = "", link[PATH_MAX] = "";
	char label[2 * PATH_MAX + 48];

	rules_origin(sm, rules, sizeof(rules));
	process_file_label(exe, label, sizeof(label));
	exe = label;
	if (!x->symtab && !x->debug_file[0]) {
		if (x->build_id[0])
			snprintf(id, sizeof(id), "by build-id %s under %s/.build-id",
				 x->build_id, ELF_DEBUG_ROOT);
		if (x->debuglink[0])
			snprintf(link, sizeof(link), "%sby .gnu_debuglink '%s' next to it or under %s",
				 id[0] ? ", nor " : "", x->debuglink,
				 ELF_DEBUG_ROOT);
		p_err("%s: %s, and no function symbols%s: it is stripped (no .symtab) and no debug file was found (%s%s); give one with --debug-file FILE (objcopy --only-keep-debug makes it) or install its debug symbols",
		      exe, lead,
		      x->functions ? " a rule names" : "", id,
		      id[0] || link[0] ? link : "it names none: no build-id, no .gnu_debuglink");
		return;
	}
	p_err("%s: %s, and none of the %zu function symbols of it and its %zu libraries matches a rule (%s); add rules for this runtime with --rules FILE",
	      exe, lead, sm->sites.functions, symbol_sites_libraries(&sm->sites), rules);
}

static void say_why(const struct symbol_mode *sm)
{
	char rules[PATH_MAX + 64], cost[192] = "";

	if (sm->sites.single_step)
		snprintf(cost, sizeof(cost), "; %zu of them start with an instruction the kernel must single-step (what that costs here: the next line)",
			 sm->sites.single_step);
	p_info("symbol mode (%s): %zu function(s) named by %s%s; instruction ids %s%s",
	       sm->opts.force ? "--symbols" : "no 'etdump' USDT probes in the target",
	       sm->sites.n, rules_origin(sm, rules, sizeof(rules)), cost,
	       sm->have_plan ? "from " : "in call order",
	       sm->have_plan ? sm->opts.program : "");
}

/* What the kernel does at each site, and what a probed call takes. */
static void say_sites(const struct symbol_mode *sm)
{
	char sites[512];

	site_traps_describe(&sm->sites, sites, sizeof(sites));
	p_info("symbol mode: %s (etdump-bpf list shows each)", sites);
}

/* The summary's lines about the kernels that ended at the next event. */
static void say_gaps(const struct symbol_mode *sm,
		     const struct symbol_translator_stats *st)
{
	uint64_t least, median, most;

	if (!sm->ends_at_next)
		return;
	symbol_translator_say_gaps(sm->translator);
	if (!symbol_translator_gap_range(sm->translator, &least, &median,
					 &most)) {
		p_info("symbol mode: no gap after a kernel's return was measured (no run closed with its kernels' returns probed): %llu kernel call(s) ended where the next event began, nothing taken out",
		       (unsigned long long)st->ended_at_next);
		return;
	}
	p_info("symbol mode: %llu kernel call(s) ended where the thread's next event began, less the gap measured after each kernel's return in the first %llu run(s) (%llu measures, %llu to %llu ns, median %llu, per pair of sites): %.0f ns a call taken out on average%s",
	       (unsigned long long)st->ended_at_next,
	       (unsigned long long)st->gap_runs,
	       (unsigned long long)st->gap_samples, (unsigned long long)least,
	       (unsigned long long)most, (unsigned long long)median,
	       st->ended_at_next ? (double)st->gap_taken_ns / st->ended_at_next : 0.0,
	       sm->gaps_dropped_at ? "" : "; the kernels' returns stayed probed to the end (too few runs closed)");
	if (st->gap_kept)
		p_info("symbol mode: %llu kernel call(s) lasted less than the gap measured after them: written with the time to the next event, gap included",
		       (unsigned long long)st->gap_kept);
	if (st->outside_not_written)
		p_info("symbol mode: %llu kernel call(s) on a thread in no probed call (outside Method::execute) not written: with their entry alone probed nothing ends them (record --exact-returns writes them)",
		       (unsigned long long)st->outside_not_written);
}

void symbol_mode_summary(const struct symbol_mode *sm)
{
	struct symbol_translator_stats st;
	char sites[512], runs[512];

	if (sm->at_attach.done)
		symbol_calibration_say(&sm->at_attach, "were written");
	if (sm->nrecal)
		p_info("symbol mode: the probes' time measured again %zu time(s) while recording, every %llu ms, %llu to %llu ns per probed scope, the least so far taken out of what followed",
		       sm->nrecal, SYMBOL_RECALIBRATE_NS / 1000000,
		       (unsigned long long)sm->recal_least,
		       (unsigned long long)sm->recal_most);
	symbol_translator_stats(sm->translator, &st);
	say_gaps(sm, &st);
	if (st.time_kept)
		p_info("symbol mode: %llu call(s) took less than the probes' time measured: written with the time between their probes, probes included (their metadata says %s)",
		       (unsigned long long)st.time_kept, RUN_NOTE_TIME_KEPT);
	if (!sm->sites.n)
		return;
	site_traps_describe(&sm->sites, sites, sizeof(sites));
	site_tally_describe(&sm->traps, runs, sizeof(runs));
	p_info("symbol mode: %s; %s", sites,
	       runs[0] ? runs : "no run closed: no traps a run");
	/* what this kernel lacked and how it was done instead, a line each */
	kernel_features_print_notes();
}

int symbol_mode_annotate(const struct symbol_mode *sm, struct collector *col)
{
	/* the translator takes out what was measured at attach */
	return symbol_calibration_note(&sm->cal, !sm->have_plan, col);
}

const void *symbol_mode_note(struct symbol_mode *sm, const void *rec,
			     size_t len, size_t *note_len)
{
	if (!sm->cal.done || sm->noted || len < sizeof(struct etdump_rec_hdr))
		return NULL;
	sm->noted = true;
	symbol_calibration_record(&sm->cal, rec, &sm->note);
	*note_len = sizeof(sm->note);
	return &sm->note;
}

/*
 * The gaps after the kernels measured: their returns out, one trap a
 * kernel call from now on.
 */
static void drop_gap_probes(struct symbol_mode *sm)
{
	struct symbol_translator_stats st;
	uint64_t least, median, most;
	size_t links;

	if (!sm->attach || !sm->ends_at_next || sm->gaps_dropped_at)
		return;
	symbol_translator_stats(sm->translator, &st);
	if (st.gap_runs < SYMBOL_GAP_RUNS ||
	    !symbol_translator_gap_range(sm->translator, &least, &median,
					 &most))
		return;
	/* --duty takes every probe out at its window's end anyway */
	links = symbol_attach_drop_gap_probes(sm->attach, sm->opts.per_hit ?
					      GAP_DROP_AT_PAUSE :
					      GAP_DROP_BESIDE);
	sm->gaps_dropped_at = st.gap_runs;
	p_info("symbol mode: the gap between a kernel's return and the next event measured in %llu run(s) (%llu to %llu ns, median %llu): the %zu kernels' returns (%zu link(s)) taken out %s, one trap a kernel call from then on",
	       (unsigned long long)st.gap_runs, (unsigned long long)least,
	       (unsigned long long)most, (unsigned long long)median,
	       sm->ends_at_next, links,
	       sm->opts.per_hit ? "with the others at this window's end" :
				  "now");
}

void symbol_mode_recalibrate(struct symbol_mode *sm, uint64_t now)
{
	const int k = SYMBOL_ENTRY_EMULATED;
	struct symbol_calibration now_cal = sm->cal;
	uint64_t scope;

	drop_gap_probes(sm);

	/* while the target runs: an idle one costs the recorder nothing */
	if (!sm->recal || !sm->fed ||
	    now - sm->recalibrated < SYMBOL_RECALIBRATE_NS)
		return;
	sm->recalibrated = now;
	sm->fed = false;
	if (symbol_recalibrate(sm->recal, &now_cal))
		return;
	scope = now_cal.scope_ns[k];
	if (!sm->nrecal++ || scope < sm->recal_least)
		sm->recal_least = scope;
	if (scope > sm->recal_most)
		sm->recal_most = scope;
	/*
	 * Only ever less: a figure too high takes a short kernel's whole time
	 * (written as 1 ns), one too low leaves a few ns in; the least so far
	 * is what the probes were seen to need at most.
	 */
	if (scope >= sm->cal.scope_ns[k])
		return;
	sm->cal.scope_ns[k] = scope;
	if (now_cal.call_ns[k] < sm->cal.call_ns[k])
		sm->cal.call_ns[k] = now_cal.call_ns[k];
	sm->cal.call_ns[k] = symbol_call_ns(sm->cal.call_ns[k], scope);
	/* the next record takes the new figures with it */
	sm->noted = false;
}

/* One trap a kernel call, but with --exact-returns (kernel_callers.h). */
static void mark_ends_at_next(struct symbol_mode *sm)
{
	if (sm->opts.exact_returns)
		return;
	sm->ends_at_next = kernel_sites_end_at_next(&sm->sites, &sm->callers);
	if (sm->callers)
		p_debug("symbol mode: %zu kernel(s) call another site's function: their returns stay probed",
			sm->callers);
}

int symbol_mode_attach(struct symbol_mode *sm, struct capture *cap,
		       const struct target *t, int *nattached)
{
	char err[512];
	int ret;

	*nattached = 0;
	ret = sm->found ? 0 :
			  symbol_sites_find(&sm->sites, &sm->rules, t->pid,
					    t->exe, !t->spawned,
					    sm->opts.debug_file, err,
					    sizeof(err));
	if (ret) {
		p_err("%s", err);
		return ret;
	}
	/* each allocation is a probed call: only when asked for */
	if (!sm->opts.allocations)
		symbol_sites_drop(&sm->sites, ETDUMP_FUNC_ALLOCATE);
	else if (symbol_sites_count(&sm->sites, ETDUMP_FUNC_ALLOCATE))
		p_info("--allocations: %zu allocate function(s) probed; an allocation the compiler inlined (gcc devirtualizes and inlines MemoryAllocator::allocate where it can) is not seen: counts and bytes are what the calls handed out, at most what was allocated",
		       symbol_sites_count(&sm->sites, ETDUMP_FUNC_ALLOCATE));
	else
		p_info("--allocations: no allocate function of the target matches a rule: no allocation is recorded");
	if (!sm->sites.n) {
		explain_no_site(sm, t->exe, sm->opts.force ?
				"symbol mode (--symbols)" :
				"no 'etdump' USDT probes");
		return -ENOENT;
	}
	symbol_coverage_report(sm->have_plan ? &sm->plan : NULL, &sm->sites,
			       sm->opts.program);
	if (sm->opts.values) {
		ret = value_sites_plan(&sm->sites, &sm->rules,
				       sm->opts.value_max);
		if (ret)
			return ret;
	}
	/* a failure is said, and the times stay as they were recorded */
	if (!symbol_calibrate(&sm->cal) &&
	    (sm->at_attach = sm->cal, ret = symbol_recalibration_open(&sm->recal)))
		p_debug("symbol mode: the probes' time is not measured again while recording: %s",
			strerror(-ret));
	mark_ends_at_next(sm);
	if (!t->spawned)
		symbol_translator_attached_mid_run(sm->translator);
	sm->pid = t->pid;
	sm->sites.per_hit = sm->opts.per_hit;
	ret = symbol_attach_open(&sm->attach, &sm->sites, cap, t->pid,
				 nattached);
	if (!ret) {
		say_why(sm);
		say_sites(sm);
		symbol_calibration_say(&sm->cal, "are written");
	}
	return ret;
}

void symbol_mode_pause(struct symbol_mode *sm)
{
	if (sm->attach)
		symbol_attach_pause(sm->attach);
}

void symbol_mode_set_start(struct symbol_mode *sm, uint64_t ts)
{
	site_tally_set_start(&sm->traps, ts);
}

void symbol_mode_gap(struct symbol_mode *sm)
{
	symbol_translator_gap(sm->translator);
	site_tally_gap(&sm->traps);
}

void symbol_mode_finish(struct symbol_mode *sm)
{
	int err;

	if (!sm->attach)
		return;
	err = symbol_attach_hand_over(sm->attach);
	if (err)
		p_warn("symbol mode: what the target's threads kept at the end is not read (%s): a run still executing is not said",
		       strerror(-err));
}

int symbol_mode_resume(struct symbol_mode *sm)
{
	return sm->attach ? symbol_attach_resume(sm->attach, &sm->sites,
						 sm->pid) : -ENOENT;
}

int symbol_mode_find(struct symbol_mode *sm, const struct target *t)
{
	char err[512];
	int ret;

	/* looked at again (a library loaded since): the last look's go */
	symbol_sites_free(&sm->sites);
	ret = symbol_sites_find(&sm->sites, &sm->rules, t->pid, t->exe,
				!t->spawned, sm->opts.debug_file, err,
				sizeof(err));
	sm->found = !ret;
	if (ret)
		snprintf(sm->find_err, sizeof(sm->find_err), "%s", err);
	return ret ? ret : (int)sm->sites.n;
}

/*
 * What a library added later cannot have: the programs were loaded for
 * the first sites' layouts (values', allocations'). --duty's recording
 * looks for none (cmd_record.c).
 */
static const char *cannot_add(const struct symbol_mode *sm)
{
	if (sm->opts.values)
		return "--values";
	if (sm->opts.allocations)
		return "--allocations";
	return NULL;
}

/* The sites from `first` on forgotten: a library not recorded. */
static void forget_from(struct symbol_mode *sm, size_t first)
{
	while (sm->sites.n > first) {
		struct symbol_site *s = &sm->sites.sites[--sm->sites.n];

		sm->sites.single_step -= s->single_step;
		free(s->function);
	}
}

int symbol_mode_add_library(struct symbol_mode *sm, pid_t pid,
			    const char *path, const char *label, int *nprobes)
{
	size_t first = sm->sites.n;
	char err[512];
	int ret;

	*nprobes = 0;
	if (!sm->attach)
		return 0;
	/*
	 * Another process (a child followed): the programs take one
	 * process's hits (bpf/ring.bpf.h's target); its file stays unread,
	 * for the process recorded to load it yet.
	 */
	if (pid != sm->pid) {
		ret = symbol_mode_names(sm, path);
		if (ret > 0)
			p_warn("PID %d loaded %s, whose %d function(s) rules name, after the attach: not recorded (symbol mode records PID %d alone)",
			       (int)pid, label, ret, (int)sm->pid);
		return ret == -ENOMEM ? ret : 0;
	}
	ret = symbol_sites_add_object(&sm->sites, &sm->rules, path, err,
				      sizeof(err));
	if (ret < 0 && ret != -ENOMEM)
		p_debug("symbol mode: %s", err);
	if (ret <= 0)
		return ret == -ENOMEM ? ret : 0;
	if (cannot_add(sm)) {
		p_warn("PID %d loaded %s, whose %zu function(s) rules name, after the attach: not recorded (symbol mode adds a library loaded later without %s; attach with -p once it is loaded)",
		       (int)pid, label, sm->sites.n - first, cannot_add(sm));
		forget_from(sm, first);
		return 0;
	}
	/* as at attach: without --allocations (the first sites have none) */
	symbol_sites_drop(&sm->sites, ETDUMP_FUNC_ALLOCATE);
	if (sm->sites.n == first)
		return 0;
	mark_ends_at_next(sm);
	ret = symbol_attach_add(sm->attach, &sm->sites, first, pid, nprobes);
	if (ret == -ENOSPC)
		p_warn("PID %d loaded %s after the attach: its %zu function(s) not recorded (the site table is full)",
		       (int)pid, label, sm->sites.n - first);
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	p_info("PID %d loaded %s after the attach: attached %d probe(s) to %zu function(s) in symbol mode",
	       (int)pid, label, *nprobes, sm->sites.n - first);
	return 1;
}

size_t symbol_mode_sites(const struct symbol_mode *sm)
{
	return sm->sites.n;
}

int symbol_mode_names(const struct symbol_mode *sm, const char *path)
{
	struct symbol_sites one = { 0 };
	char err[512];
	int n = symbol_sites_add_object(&one, &sm->rules, path, err,
					sizeof(err));

	symbol_sites_free(&one);
	return n;
}

void symbol_mode_explain(const struct symbol_mode *sm, const char *exe)
{
	if (sm->find_err[0])
		p_err("%s (and no process it started exec'd a binary with etdump probes)",
		      sm->find_err);
	else
		explain_no_site(sm, exe, "no 'etdump' USDT probes, nor in a process it started");
}

bool symbol_mode_asked(const struct symbol_mode_opts *o)
{
	return o->force || o->rules || o->program || o->debug_file;
}

void symbol_mode_free(struct symbol_mode *sm)
{
	if (!sm)
		return;
	symbol_attach_close(sm->attach);
	symbol_recalibration_close(sm->recal);
	symbol_translator_free(sm->translator);
	symbol_sites_free(&sm->sites);
	site_tally_free(&sm->traps);
	pte_plan_free(&sm->plan);
	symbol_rules_free(&sm->rules);
	free(sm);
}
