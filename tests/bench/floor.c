// SPDX-License-Identifier: BSD-3-Clause
/*
 * floor.c - bench-floor: attach bpf/bench_floor.bpf.c (count hits, nothing
 * else) to the named etdump probes of a running process, wait for it to
 * exit, print the hits. The floor `make bench` compares tracers against.
 *
 *   bench-floor -p PID PROBE...    e.g. bench-floor -p 42 profile_begin profile_end
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include "bench_floor.skel.h"
#include "log.h"
#include "parse.h"

#define MAX_PROBES 16

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
	int i, n = 0, ret = 1;
	ssize_t len;
	pid_t pid;

	if (argc < 4 || strcmp(argv[1], "-p") || parse_pid(argv[2], &pid) ||
	    argc - 3 > MAX_PROBES) {
		fprintf(stderr, "usage: bench-floor -p PID PROBE...\n");
		return 2;
	}
	snprintf(proc_exe, sizeof(proc_exe), "/proc/%d/exe", (int)pid);
	len = readlink(proc_exe, exe, sizeof(exe) - 1);
	if (len < 0) {
		p_err("%s: %s", proc_exe, strerror(errno));
		return 1;
	}
	exe[len] = '\0';
	log_setup_libbpf();
	skel = bench_floor_bpf__open_and_load();
	if (!skel) {
		p_err("cannot load the floor program: %s", strerror(errno));
		return 1;
	}
	for (i = 3; i < argc; i++) {
		links[n] = bpf_program__attach_usdt(skel->progs.count_hit, pid,
						    exe, "etdump", argv[i], NULL);
		if (!links[n]) {
			p_err("%s: cannot attach to etdump:%s: %s", exe, argv[i],
			      strerror(errno));
			goto cleanup;
		}
		n++;
	}
	p_info("attached %d probe(s) to PID %d", n, (int)pid);
	if (wait_exit(pid)) {
		p_err("cannot wait for PID %d: %s", (int)pid, strerror(errno));
		goto cleanup;
	}
	printf("hits=%llu\n", (unsigned long long)skel->bss->hits);
	ret = 0;
cleanup:
	while (n--)
		bpf_link__destroy(links[n]);
	bench_floor_bpf__destroy(skel);
	return ret;
}
