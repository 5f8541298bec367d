// SPDX-License-Identifier: BSD-3-Clause
/*
 * split.c - where a symbol-mode probe's time goes (x86-64, as root): an
 * empty function of its own (first instruction a push, which the kernel
 * emulates) called in loops, bare and then with one way of probing it:
 *
 *   entry           an entry uprobe that only counts
 *   return          a uretprobe that only counts (it traps at the entry too)
 *   both            both, two links, as symbol mode attaches
 *   session         one program at entry and return (BPF_TRACE_UPROBE_SESSION)
 *   both-record     both, writing a record each as symbol mode does
 *
 *   uprobe-split MODE    prints: MODE ns_per_call=X (traced - bare)
 *
 * Each loop is 15 batches of 20,000 calls; the 4th fastest batch counts.
 * The records are read between batches, out of the time: a ring that
 * filled up would make every later record free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "split.skel.h"

#define BATCHES 15
#define CALLS 20000
/* enum bpf_attach_type and flags of Linux 6.6 and 6.12 */
#define UPROBE_MULTI 48
#define UPROBE_SESSION 57
#define MULTI_RETURN 1

__asm__(".text\n.globl split_target\n.type split_target,@function\n"
	"split_target:\n\tpush %rbp\n\tpop %rbp\n\tret\n"
	".size split_target,.-split_target\n");
void split_target(void);

/* union bpf_attr as BPF_LINK_CREATE reads it for uprobe_multi */
struct link_create {
	__u32 prog_fd, target_fd, attach_type, flags;
	__aligned_u64 path, offsets, ref_ctr_offsets, cookies;
	__u32 cnt, multi_flags, pid;
};

static char path[4096];
static unsigned long long offset;

static void attach(struct bpf_program *prog, int type, int flags)
{
	unsigned long long cookie = 0;
	struct link_create a;

	memset(&a, 0, sizeof(a));
	a.prog_fd = bpf_program__fd(prog);
	a.attach_type = type;
	a.path = (unsigned long)path;
	a.offsets = (unsigned long)&offset;
	a.cookies = (unsigned long)&cookie;
	a.cnt = 1;
	a.multi_flags = flags;
	a.pid = getpid();
	if (syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a)) < 0) {
		fprintf(stderr, "uprobe-split: cannot attach: %s\n",
			strerror(errno));
		exit(1);
	}
}

static int find_target(void)
{
	unsigned long start, end, pgoff, at = (unsigned long)split_target;
	char line[8192];
	int pos, found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		pos = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &start, &end,
			   &pgoff, &pos) < 3 || !pos || at < start || at >= end)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s", line + pos);
		offset = at - start + pgoff;
		found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int count_record(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	(*(unsigned long long *)ctx)++;
	return 0;
}

static double ns_per_call(struct ring_buffer *rb)
{
	void (*volatile call)(void) = split_target;
	double per[BATCHES], t0;
	int b, i;

	for (b = 0; b < BATCHES; b++) {
		t0 = now();
		for (i = 0; i < CALLS; i++)
			call();
		per[b] = (now() - t0) / CALLS;
		ring_buffer__consume(rb);
	}
	qsort(per, BATCHES, sizeof(per[0]), cmp);
	return per[3];
}

int main(int argc, char **argv)
{
	struct split_bpf *skel;
	const char *mode = argc > 1 ? argv[1] : "";
	unsigned long long records = 0;
	struct ring_buffer *rb;
	double bare;

	if (!find_target())
		return 1;
	skel = split_bpf__open();
	if (!skel)
		return 1;
	bpf_program__set_expected_attach_type(skel->progs.count_entry,
					      UPROBE_MULTI);
	bpf_program__set_expected_attach_type(skel->progs.count_return,
					      UPROBE_MULTI);
	bpf_program__set_expected_attach_type(skel->progs.record_entry,
					      UPROBE_MULTI);
	bpf_program__set_expected_attach_type(skel->progs.record_return,
					      UPROBE_MULTI);
	bpf_program__set_expected_attach_type(skel->progs.count_session,
					      UPROBE_SESSION);
	if (split_bpf__load(skel)) {
		fprintf(stderr, "uprobe-split: cannot load the programs\n");
		return 1;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.ring), count_record,
			      &records, NULL);
	if (!rb)
		return 1;
	bare = ns_per_call(rb);
	if (!strcmp(mode, "entry")) {
		attach(skel->progs.count_entry, UPROBE_MULTI, 0);
	} else if (!strcmp(mode, "return")) {
		attach(skel->progs.count_return, UPROBE_MULTI, MULTI_RETURN);
	} else if (!strcmp(mode, "both")) {
		attach(skel->progs.count_return, UPROBE_MULTI, MULTI_RETURN);
		attach(skel->progs.count_entry, UPROBE_MULTI, 0);
	} else if (!strcmp(mode, "session")) {
		attach(skel->progs.count_session, UPROBE_SESSION, 0);
	} else if (!strcmp(mode, "both-record")) {
		attach(skel->progs.record_return, UPROBE_MULTI, MULTI_RETURN);
		attach(skel->progs.record_entry, UPROBE_MULTI, 0);
	} else {
		fprintf(stderr, "usage: uprobe-split entry|return|both|session|both-record\n");
		return 2;
	}
	printf("%s ns_per_call=%.0f\n", mode, ns_per_call(rb) - bare);
	ring_buffer__free(rb);
	split_bpf__destroy(skel);
	return 0;
}
