// SPDX-License-Identifier: BSD-3-Clause
/*
 * tracer.c - where an event of batched mode goes, in the runtime's own
 * thread: the sites of schema/etdump_usdt.h in the pattern of one
 * execution of cnn.pte (a block, Method::execute around ten instructions,
 * each an OPERATOR_CALL around its kernel: 21 events) and of xnn_mlp.pte
 * (execution_xnn), with the `batch`
 * semaphore set by hand and no probe attached, so a flush costs what the
 * runtime does around it but no trap. make bench's tracer row sets this
 * beside the same pattern recorded for real.
 *
 *   bench-tracer [-n EXECUTIONS]
 *
 * Prints one line of key=value pairs, ns per event (21 a pattern) unless
 * said: detached (semaphores clear), attached (all the runtime's work),
 * the same two for xnn_mlp.pte's pattern (detached_xnn, attached_xnn: 8
 * events, four of them XNNPACK operators logged with their own times),
 * stamp_ns (one stamp; an event takes two), name_ns (the check that a
 * name was given in this buffer, for a literal of the executable; one an
 * event), text_ns (the same check for a name elsewhere, by its text),
 * clock (counter or ns); then attached_cold and attached_xnn_cold, what
 * the tracer adds an event when the pattern's kernels touch a level-1
 * data cache's worth of bytes (l1_bytes) between its sites, as the
 * runtime's do: the tracer's lines are fetched again each time; floor and
 * floor_cold, the same two for the floor's shape (a stamp and 16 bytes a
 * site in a ring, no lookups) in cnn.pte's pattern.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "schema/etdump_usdt.h"

#define EVENTS 21

static const char *const kernels[10] = {
	"native_call_convolution.out", "native_call_relu.out",
	"native_call_max_pool2d_with_indices.out",
	"native_call_convolution.out", "native_call_relu.out",
	"native_call_max_pool2d_with_indices.out", "native_call_view_copy.out",
	"native_call_permute_copy.out", "native_call_addmm.out",
	"native_call__softmax.out",
};

/* bytes a kernel touches between sites: 0 (warm), or the L1 data cache */
static long kernel_bytes;
static volatile unsigned char *kernel_data;

static inline void kernel_runs(void)
{
	long k;

	for (k = 0; k < kernel_bytes; k += 64)
		kernel_data[k]++;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

__attribute__((noinline)) static void execution(void)
{
	int i;

	ETDUMP_BLOCK("Execute");
	ETDUMP_PROFILE_BEGIN("Method::execute", -1, 0);
	for (i = 0; i < 10; i++) {
		ETDUMP_PROFILE_BEGIN("OPERATOR_CALL", 0, i);
		ETDUMP_PROFILE_BEGIN(kernels[i], 0, i);
		__asm__ __volatile__("" ::: "memory");
		kernel_runs();
		ETDUMP_PROFILE_END(kernels[i]);
		ETDUMP_PROFILE_END("OPERATOR_CALL");
	}
	ETDUMP_PROFILE_END("Method::execute");
}

/*
 * The floor's shape in the same pattern: each site a stamp and 16 bytes
 * stored in a thread's ring that nobody reads (as the runner's
 * --stamp-tracer does), for the same loop warm and cold.
 */
struct floor_record {
	unsigned long long ts;
	const void *name;
};

static __thread struct floor_record floor_ring[1024];
static __thread unsigned int floor_next;

static inline void floor_site(const void *name)
{
	struct floor_record *r = &floor_ring[floor_next++ & 1023];

	r->ts = etdump__stamp();
	r->name = name;
}

__attribute__((noinline)) static void execution_floor(void)
{
	int i;

	floor_site("Execute");
	floor_site("Method::execute");
	for (i = 0; i < 10; i++) {
		floor_site("OPERATOR_CALL");
		floor_site(kernels[i]);
		__asm__ __volatile__("" ::: "memory");
		kernel_runs();
		floor_site(kernels[i]);
		floor_site("OPERATOR_CALL");
	}
	floor_site("Method::execute");
}

/*
 * XNNPACK's operators are named at run time: its profiler formats each
 * name in a std::string of its loop, so every name is at one address
 * (the string's buffer, reused) and is compared by its text.
 */
static const char *const xnn_ops[4] = {
	"Fully Connected (NC, F32) GEMM #1", "Add (ND) #1", "Clamp (NC) #1",
	"Fully Connected (NC, F32) GEMM #2",
};
static char xnn_name[64];

/*
 * One execution of xnn_mlp.pte: Method::execute around its delegate call,
 * whose four operators XNNPACK's profiler logs with its own times, then
 * the softmax kernel: 8 events, as the EventTracer fires them.
 */
__attribute__((noinline)) static void execution_xnn(void)
{
	int i;

	ETDUMP_BLOCK("Execute");
	ETDUMP_PROFILE_BEGIN("Method::execute", -1, 0);
	ETDUMP_PROFILE_BEGIN("DELEGATE_CALL", 0, 0);
	kernel_runs(); /* the four operators, logged after */
	for (i = 0; i < 4; i++) {
		ETDUMP_INSTRUCTION(0, 0);
		strcpy(xnn_name, xnn_ops[i]);
		ETDUMP_DELEGATE_LOG(xnn_name, -1, 1000 * i, 1000 * i + 500,
				    NULL, 0);
		ETDUMP_INSTRUCTION(ETDUMP_UNSET_CHAIN,
				   ETDUMP_UNSET_DEBUG_HANDLE);
	}
	ETDUMP_PROFILE_END("DELEGATE_CALL");
	ETDUMP_PROFILE_BEGIN("OPERATOR_CALL", 0, 1);
	ETDUMP_PROFILE_BEGIN("native_call__softmax.out", 0, 1);
	__asm__ __volatile__("" ::: "memory");
	kernel_runs();
	ETDUMP_PROFILE_END("native_call__softmax.out");
	ETDUMP_PROFILE_END("OPERATOR_CALL");
	ETDUMP_PROFILE_END("Method::execute");
}

static double per_event(void (*run)(void), long n, int events)
{
	double t0;
	long i;

	for (i = 0; i < n / 10 + 1; i++)
		run();
	t0 = now_ns();
	for (i = 0; i < n; i++)
		run();
	return (now_ns() - t0) / n / events;
}

static volatile unsigned long long sink;

int main(int argc, char **argv)
{
	long n = 200000, i;
	double detached, attached, stamp, name, text, t0;
	double detached_xnn, attached_xnn, floor;
	double detached_cold, detached_xnn_cold, cold, cold_xnn, floor_cold;
	struct etdump_batch_state *st;
	unsigned int slot, len;
	char *copy;

	if (argc == 3 && !strcmp(argv[1], "-n"))
		n = atol(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: bench-tracer [-n EXECUTIONS]\n");
		return 2;
	}
	detached = per_event(execution, n, EVENTS);
	detached_xnn = per_event(execution_xnn, n, 8);
	etdump_semaphores.s.batch = 1;
	attached = per_event(execution, n, EVENTS);
	attached_xnn = per_event(execution_xnn, n, 8);
	/* after the first batched site: the clock is chosen */
	floor = per_event(execution_floor, n, EVENTS) - detached;

	t0 = now_ns();
	for (i = 0; i < n * EVENTS; i++)
		sink += etdump__stamp();
	stamp = (now_ns() - t0) / (n * EVENTS);

	/* the longest name, said in the buffer: a literal, then a copy */
	st = etdump__state();
	etdump__room(st, kernels[2], 16);
	t0 = now_ns();
	for (i = 0; i < n * EVENTS; i++) {
		__asm__ __volatile__("" ::: "memory");
		sink += etdump__said(st, kernels[2], &slot, &len);
	}
	name = (now_ns() - t0) / (n * EVENTS);
	copy = strdup(kernels[2]);
	etdump__room(st, copy, 16);
	t0 = now_ns();
	for (i = 0; i < n * EVENTS; i++) {
		__asm__ __volatile__("" ::: "memory");
		sink += etdump__said(st, copy, &slot, &len);
	}
	text = (now_ns() - t0) / (n * EVENTS);
	free(copy);
	etdump_semaphores.s.batch = 0;

	kernel_bytes = sysconf(_SC_LEVEL1_DCACHE_SIZE);
	if (kernel_bytes <= 0)
		kernel_bytes = 48 * 1024;
	kernel_data = calloc(1, kernel_bytes);
	if (!kernel_data)
		return 1;
	detached_cold = per_event(execution, n / 10, EVENTS);
	detached_xnn_cold = per_event(execution_xnn, n / 10, 8);
	floor_cold = per_event(execution_floor, n / 10, EVENTS) - detached_cold;
	etdump_semaphores.s.batch = 1;
	cold = per_event(execution, n / 10, EVENTS) - detached_cold;
	cold_xnn = per_event(execution_xnn, n / 10, 8) - detached_xnn_cold;
	etdump_semaphores.s.batch = 0;
	free((void *)kernel_data);
	printf("detached=%.2f attached=%.2f detached_xnn=%.2f "
	       "attached_xnn=%.2f stamp_ns=%.2f name_ns=%.2f "
	       "text_ns=%.2f clock=%s attached_cold=%.2f "
	       "attached_xnn_cold=%.2f l1_bytes=%ld floor=%.2f "
	       "floor_cold=%.2f\n", detached, attached, detached_xnn,
	       attached_xnn, stamp, name, text,
	       etdump_batch_clock == ETDUMP_BATCH_CLOCK_COUNTER ? "counter" :
								  "ns",
	       cold, cold_xnn, kernel_bytes, floor, floor_cold);
	return 0;
}
