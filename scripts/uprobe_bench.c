// SPDX-License-Identifier: BSD-3-Clause
/*
 * uprobe_bench.c - what a symbol-mode probe costs per call, by the first
 * instruction of the function it sits on (x86-64). Each f_<kind> is an
 * empty function written in assembly so that its first instruction is
 * exactly <kind>; bench_run() calls one N times and times the loop.
 *
 *   uprobe-bench KIND N     prints: kind=KIND calls=N ns_per_call=X
 *
 * scripts/bench-uprobes.sh runs it bare and under etdump-bpf's symbol
 * mode; the difference is the cost of one entry uprobe and one uretprobe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FUNC(name, body)                                                       \
	".globl " #name "\n.type " #name ",@function\n" #name ":\n" body       \
	"ret\n.size " #name ",.-" #name "\n"

__asm__(".text\n"
	FUNC(f_push_rbp, "push %rbp\npop %rbp\n")
	FUNC(f_push_r12, "push %r12\npop %r12\n")
	FUNC(f_nop1, "nop\n")
	/* nopl 0x0(%rax,%rax,1), spelled out: as would shorten it */
	FUNC(f_nop5, ".byte 0x0f,0x1f,0x44,0x00,0x00\n")
	FUNC(f_endbr64_push, "endbr64\npush %rbp\npop %rbp\n")
	FUNC(f_mov, "mov %rdi,%rax\n")
	FUNC(f_sub_rsp, "sub $8,%rsp\nadd $8,%rsp\n")
	FUNC(f_endbr64_mov, "endbr64\nmov %rdi,%rax\n"));

#define KIND(name) { #name, f_##name }
void f_push_rbp(void), f_push_r12(void), f_nop1(void), f_nop5(void),
	f_endbr64_push(void), f_mov(void), f_sub_rsp(void),
	f_endbr64_mov(void);

static const struct {
	const char *name;
	void (*fn)(void);
} kinds[] = {
	KIND(push_rbp), KIND(push_r12), KIND(nop1), KIND(nop5),
	KIND(endbr64_push), KIND(mov), KIND(sub_rsp), KIND(endbr64_mov),
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One run for the tracer (a block rule names it); the calls inside. */
__attribute__((noinline)) double bench_run(void (*fn)(void), long n)
{
	double start = now_ns();

	for (long i = 0; i < n; i++)
		fn();
	return now_ns() - start;
}

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[2]) : 0;
	size_t i;

	for (i = 0; n > 0 && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(argv[1], kinds[i].name))
			continue;
		printf("kind=%s calls=%ld ns_per_call=%.1f\n", kinds[i].name,
		       n, bench_run(kinds[i].fn, n) / n);
		return 0;
	}
	fprintf(stderr, "usage: uprobe-bench KIND N\nkinds:");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		fprintf(stderr, " %s", kinds[i].name);
	fprintf(stderr, "\n");
	return 2;
}
