// SPDX-License-Identifier: BSD-3-Clause
/*
 * floor.c - bench-floor: attach bpf/bench_floor.bpf.c (count hits, nothing
 * else) to the named etdump probes of a running process, wait for it to
 * exit, print the hits. The floor `make bench` compares tracers against.
 *
 *   bench-floor -p PID PROBE...    e.g. bench-floor -p 42 profile_begin profile_end
 *   bench-floor -p PID --symbol-sites [--stamped] [--exact-returns]
 *
 * --symbol-sites: the entry and return of every function symbol mode would
 * probe in the process, at the very sites and in the links it uses: the
 * kernel's share of what symbol mode adds to a stock binary. --stamped:
 * each hit also reads the clock and stores 16 bytes, the least any
 * program that records it does. A kernel's return is probed with
 * --exact-returns only, as record probes it once the gaps after the
 * kernels are measured (user/symbol/kernel_callers.h).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include "bench_floor.skel.h"
#include "symbol/kernel_callers.h"
#include "symbol/symbol_rules.h"
#include "symbol/symbol_sites.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "capture/uprobe_multi.h"

#define MAX_PROBES 32

/*
 * One link for the probes of one kind of the n sites from `first` on, in
 * one object: a uretprobe at each function's return, a plain uprobe where
 * an XNNPACK operator's call returns, a uprobe at each entry.
 */
static int attach_kind(struct bpf_program *const progs[2], pid_t pid,
		       const struct symbol_site *first, size_t n,
		       enum symbol_probe_kind kind,
		       uint64_t *offsets, uint64_t *cookies, int *fds,
		       int *nfds)
{
	size_t m = symbol_sites_probes(first, n, kind, offsets, cookies);
	int fd;

	if (!m)
		return 0;
	fd = uprobe_multi_attach(progs[kind == SYMBOL_PROBE_ENTRY],
				 pid, first->path, offsets, cookies, m,
				 kind == SYMBOL_PROBE_RETURN);
	if (fd < 0) {
		p_err("%s: cannot attach %zu probes: %s", first->path, m,
		      strerror(-fd));
		return fd;
	}
	fds[(*nfds)++] = fd;
	return 0;
}

/*
 * The sites symbol mode would attach to (the built-in rules, allocators
 * left out as without --allocations), each object's in uprobe_multi
 * links as symbol_attach.c makes them, returns first; the fds in fds[].
 */
static int attach_symbol_sites(struct bpf_program *const progs[2], pid_t pid,
			       const char *exe, bool exact, int *fds,
			       int *nfds)
{
	struct symbol_rules rules = { 0 };
	struct symbol_sites sites = { 0 };
	uint64_t *offsets = NULL, *cookies = NULL;
	size_t i, n, callers;
	char err[512];
	int kind, ret;

	ret = symbol_rules_load_builtin(&rules, err, sizeof(err));
	if (!ret)
		ret = symbol_sites_find(&sites, &rules, pid, exe, true, NULL,
					err, sizeof(err));
	if (ret) {
		p_err("%s", err);
		goto out;
	}
	symbol_sites_drop(&sites, ETDUMP_FUNC_ALLOCATE);
	/* the kernels' returns become gap probes, which are not attached */
	if (!exact)
		kernel_sites_end_at_next(&sites, &callers);
	offsets = calloc(sites.n + 1, sizeof(*offsets));
	cookies = calloc(sites.n + 1, sizeof(*cookies));
	if (!offsets || !cookies || !sites.n) {
		ret = sites.n ? -ENOMEM : -ENOENT;
		p_err("%s: %s", exe, sites.n ? strerror(ENOMEM) :
		      "no function symbol mode would probe");
		goto out;
	}
	for (i = 0; !ret && i < sites.n; i += n) {
		for (n = 0; i + n < sites.n &&
			    sites.sites[i + n].path == sites.sites[i].path; n++)
			;
		for (kind = SYMBOL_PROBE_RETURN;
		     !ret && kind <= SYMBOL_PROBE_ENTRY && *nfds < MAX_PROBES;
		     kind++)
			ret = attach_kind(progs, pid, &sites.sites[i], n, kind,
					  offsets, cookies, fds, nfds);
	}
	if (!ret)
		p_info("%zu function(s) at symbol mode's sites", sites.n);
out:
	free(offsets);
	free(cookies);
	symbol_sites_free(&sites);
	symbol_rules_free(&rules);
	return ret;
}

static int wait_exit(pid_t pid)
{
	struct pollfd pfd = { .events = POLLIN };

	pfd.fd = syscall(SYS_pidfd_open, pid, 0);
	if (pfd.fd < 0)
		return -errno;
	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
	close(pfd.fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_link *links[MAX_PROBES] = { 0 };
	struct bench_floor_bpf *skel = NULL;
	char proc_exe[64], exe[PATH_MAX];
	int fds[MAX_PROBES], i, n = 0, nfds = 0, ret = 1;
	struct bpf_program *progs[2];
	bool functions, stamped = false, exact = false;
	ssize_t len;
	pid_t pid;

	if (argc < 4 || strcmp(argv[1], "-p") || parse_pid(argv[2], &pid))
		goto usage;
	functions = !strcmp(argv[3], "--symbol-sites");
	for (i = 4; functions && i < argc; i++) {
		if (!strcmp(argv[i], "--stamped"))
			stamped = true;
		else if (!strcmp(argv[i], "--exact-returns"))
			exact = true;
		else
			goto usage;
	}
	if (argc - 3 > MAX_PROBES)
		goto usage;
	snprintf(proc_exe, sizeof(proc_exe), "/proc/%d/exe", (int)pid);
	len = readlink(proc_exe, exe, sizeof(exe) - 1);
	if (len < 0) {
		p_err("%s: %s", proc_exe, strerror(errno));
		return 1;
	}
	exe[len] = '\0';
	log_setup_libbpf();
	skel = bench_floor_bpf__open();
	if (skel) {
		/* [0] at returns, [1] at entries */
		progs[0] = stamped ? skel->progs.stamp_return :
				     skel->progs.count_return;
		progs[1] = stamped ? skel->progs.stamp_call :
				     skel->progs.count_call;
	}
	if (!skel || (functions && (uprobe_multi_prepare(progs[0]) ||
				    uprobe_multi_prepare(progs[1]))) ||
	    bench_floor_bpf__load(skel)) {
		p_err("cannot load the floor program: %s", strerror(errno));
		goto cleanup;
	}
	if (functions &&
	    attach_symbol_sites(progs, pid, exe, exact, fds, &nfds))
		goto cleanup;
	for (i = 3; !functions && i < argc; i++) {
		links[n] = bpf_program__attach_usdt(skel->progs.count_hit, pid,
						    exe, "etdump", argv[i], NULL);
		if (!links[n]) {
			p_err("%s: cannot attach to etdump:%s: %s", exe, argv[i],
			      strerror(errno));
			goto cleanup;
		}
		n++;
	}
	p_info("attached %d probe(s) to PID %d", n + nfds, (int)pid);
	if (wait_exit(pid)) {
		p_err("cannot wait for PID %d: %s", (int)pid, strerror(errno));
		goto cleanup;
	}
	printf("hits=%llu\n", (unsigned long long)skel->bss->hits);
	ret = 0;
cleanup:
	while (n--)
		bpf_link__destroy(links[n]);
	while (nfds--)
		close(fds[nfds]);
	bench_floor_bpf__destroy(skel);
	return ret;

usage:
	fprintf(stderr, "usage: bench-floor -p PID PROBE... | -p PID --symbol-sites [--stamped] [--exact-returns]\n");
	return 2;
}
