// SPDX-License-Identifier: BSD-3-Clause
/*
 * exit_probes.c - a function of its own that returns by one of two rets,
 * attached as symbol mode attaches an aarch64 function probed on its rets
 * (user/symbol/arm64_exits.h): an entry uprobe, a plain uprobe on each
 * ret, the site's id as cookie (symbol_attach.h); beside it a function
 * with its usual uretprobe. Each call must give one entry and one exit,
 * in that order, whichever ret it leaves by. Needs root and uprobes: run
 * by tests/e2e/test_exit_probes.py. Prints what it counted; exit status
 * 0 when each call had its pair.
 *
 * usage: exit-probes [CALLS]
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "schema/etdump_record.h"
#include "symbol/site_list.h"
#include "symbol/func_batch.h"
#include "symbol/symbol_attach.h"
#include "target/self_offset.h"

/* two_rets(x): 1 by its first ret when x, else 0 by its second */
#if defined(__x86_64__)
__asm__(".text\n"
	".globl two_rets, two_rets_first, two_rets_second, one_ret\n"
	".type two_rets, @function\n"
	"two_rets: push %rbp\n"
	"	test %edi, %edi\n"
	"	je 1f\n"
	"	mov $1, %eax\n"
	"	pop %rbp\n"
	"two_rets_first: ret\n"
	"1:	xor %eax, %eax\n"
	"	pop %rbp\n"
	"two_rets_second: ret\n"
	".size two_rets, .-two_rets\n"
	".type one_ret, @function\n"
	"one_ret: push %rbp\n"
	"	mov %edi, %eax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size one_ret, .-one_ret\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl two_rets, two_rets_first, two_rets_second, one_ret\n"
	".type two_rets, %function\n"
	"two_rets: cbz w0, 1f\n"
	"	mov w0, #1\n"
	"two_rets_first: ret\n"
	"1:	mov w0, #0\n"
	"two_rets_second: ret\n"
	".size two_rets, .-two_rets\n"
	".type one_ret, %function\n"
	"one_ret: b 1f\n"
	"1:	ret\n"
	".size one_ret, .-one_ret\n");
#else
#error "two_rets: x86-64 and aarch64 only"
#endif

int two_rets(int x);
int one_ret(int x);
extern const char two_rets_first[], two_rets_second[];

enum { TWO_RETS, ONE_RET, SITES };

struct seen {
	uint64_t entries[SITES], exits[SITES], unpaired, other;
	int open[SITES];
};

static int on_one_record(void *ctx, const void *data, size_t len)
{
	const struct etdump_rec_hdr *h = data;
	struct seen *s = ctx;
	uint32_t id;

	if (len < sizeof(*h) + sizeof(uint32_t))
		return 0;
	id = *(const uint32_t *)(h + 1);
	if (id >= SITES ||
	    (h->type != ETDUMP_REC_FUNC_CALL && h->type != ETDUMP_REC_FUNC_EXIT)) {
		s->other++;
		return 0;
	}
	/* a call's entry, then its exit: never two of one in a row */
	if ((h->type == ETDUMP_REC_FUNC_CALL) == s->open[id])
		s->unpaired++;
	s->open[id] = h->type == ETDUMP_REC_FUNC_CALL;
	if (s->open[id])
		s->entries[id]++;
	else
		s->exits[id]++;
	return 0;
}

/* a thread's hits come batched: each as the probe saw it */
static int on_record(void *ctx, void *data, size_t len)
{
	int err;

	if (func_batch_each(data, len, on_one_record, ctx, &err))
		return err;
	return on_one_record(ctx, data, len);
}

static int site_at(struct symbol_site *site, uint32_t id, const void *fn,
		   char *path)
{
	static const char name[] = "exit probes";

	site->desc.id = id;
	site->desc.kind = ETDUMP_FUNC_EVENT;
	site->desc.name_len = sizeof(name) - 1;
	memcpy(site->desc.name, name, sizeof(name) - 1);
	site->function = (char *)name;
	site->path = path;
	return self_offset(fn, path, PATH_MAX, &site->offset);
}

static int sites_of_mine(struct symbol_site *site, char *path)
{
	static char other[PATH_MAX];
	int err;

	memset(site, 0, SITES * sizeof(*site));
	err = site_at(&site[TWO_RETS], TWO_RETS, (const void *)two_rets, path);
	if (!err)
		err = site_at(&site[ONE_RET], ONE_RET, (const void *)one_ret,
			      other);
	if (!err)
		err = self_offset(two_rets_first, other, PATH_MAX,
				  &site[TWO_RETS].exit_offsets[0]);
	if (!err)
		err = self_offset(two_rets_second, other, PATH_MAX,
				  &site[TWO_RETS].exit_offsets[1]);
	/* one object: one link per kind of probe */
	site[ONE_RET].path = path;
	site[TWO_RETS].nexits = 2;
	return err;
}

int main(int argc, char **argv)
{
	static char path[PATH_MAX];
	struct symbol_site site[SITES];
	struct symbol_sites sites = { .sites = site, .n = SITES };
	struct symbol_attach *a = NULL;
	struct ring_buffer *rb = NULL;
	struct seen s = { 0 };
	int calls = argc > 1 ? atoi(argv[1]) : 1000, ones = 0, i, err;
	int ring_fd, drops_fd, nprobes = 0;

	err = sites_of_mine(site, path);
	ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "exit_ring", 0, 0,
				 1 << 24, NULL);
	drops_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "exit_drops",
				  sizeof(__u32), sizeof(__u64), 1, NULL);
	if (!err && (ring_fd < 0 || drops_fd < 0))
		err = ring_fd < 0 ? ring_fd : drops_fd;
	if (!err)
		err = symbol_attach_to_ring(&a, &sites, ring_fd, drops_fd,
					    getpid(), &nprobes);
	if (!err) {
		rb = ring_buffer__new(ring_fd, on_record, &s, NULL);
		err = rb ? 0 : -errno;
	}
	if (err) {
		fprintf(stderr, "exit-probes: %s\n", strerror(-err));
		return 2;
	}
	for (i = 0; i < calls; i++) {
		ones += two_rets(i & 1);
		one_ret(i);
		if (i % 1024 == 1023)
			ring_buffer__consume(rb);
	}
	ring_buffer__consume(rb);
	symbol_attach_close(a);
	ring_buffer__free(rb);
	printf("%d probes; %d calls (%d by the first ret): two rets %llu entries %llu exits, one ret %llu entries %llu exits, %llu unpaired, %llu other\n",
	       nprobes, calls, ones, (unsigned long long)s.entries[TWO_RETS],
	       (unsigned long long)s.exits[TWO_RETS],
	       (unsigned long long)s.entries[ONE_RET],
	       (unsigned long long)s.exits[ONE_RET],
	       (unsigned long long)s.unpaired, (unsigned long long)s.other);
	return !(s.entries[TWO_RETS] == (uint64_t)calls &&
		 s.exits[TWO_RETS] == (uint64_t)calls &&
		 s.entries[ONE_RET] == (uint64_t)calls &&
		 s.exits[ONE_RET] == (uint64_t)calls && !s.unpaired &&
		 !s.other);
}
