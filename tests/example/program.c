// SPDX-License-Identifier: BSD-3-Clause
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include "kernels.h"
#include "program.h"

#define CONV_PAD 1
#define POOL_KERNEL 2
#define POOL_STRIDE 2
#define SEED 0x5eed2024u

#define COUNT(...) ((int)(sizeof((int[]){ __VA_ARGS__ }) / sizeof(int)))

size_t tensor_numel(const struct tensor *t)
{
	size_t n = 1;

	for (int i = 0; i < t->dim; i++)
		n *= t->sizes[i];
	return n;
}

size_t tensor_nbytes(const struct tensor *t)
{
	return tensor_numel(t) * (t->dtype == DT_LONG ? 8 : 4);
}

#define VALUE(mem_, dtype_, ...)                                               \
	{ .mem = mem_,                                                         \
	  .t = { .dtype = dtype_, .dim = COUNT(__VA_ARGS__),                   \
		 .sizes = { __VA_ARGS__ } } }
#define CONST(...) VALUE(MEM_CONSTANT, DT_FLOAT, __VA_ARGS__)
#define ACT(...) VALUE(MEM_ACTIVATION, DT_FLOAT, __VA_ARGS__)

const struct value program_values[PROGRAM_NUM_VALUES] = {
	[V_INPUT] = ACT(1, 3, 32, 32),
	[V_CONV_W] = CONST(8, 3, 3, 3),
	[V_CONV_B] = CONST(8),
	[V_CONV] = ACT(1, 8, 32, 32),
	[V_RELU] = ACT(1, 8, 32, 32),
	[V_POOL] = ACT(1, 8, 16, 16),
	[V_POOL_INDICES] = VALUE(MEM_ACTIVATION, DT_LONG, 1, 8, 16, 16),
	[V_FLAT] = ACT(1, 2048),
	/* the delegate's processed data: it runs fc0, relu, fc2 */
	[V_FC0_W] = CONST(64, 2048),
	[V_FC0_B] = CONST(64),
	[V_FC2_W] = CONST(PROGRAM_CLASSES, 64),
	[V_FC2_B] = CONST(PROGRAM_CLASSES),
	[V_LOGITS] = ACT(1, PROGRAM_CLASSES),
	[V_PROBS] = ACT(1, PROGRAM_CLASSES),
	[V_PROBS_PAGES] = ACT(1, PROGRAM_CLASSES),
	[V_PROBS_YIELD] = ACT(1, PROGRAM_CLASSES),
	[V_PROBS_SPIN] = ACT(1, PROGRAM_CLASSES),
};

/*
 * Operator wrappers: what codegen generates around a portable kernel,
 * unpacking the instruction's arguments (out arguments last).
 */
EXAMPLE_TRACED static void op_convolution(struct tensor *const *a)
{
	const struct tensor *in = a[0], *w = a[1];

	conv2d(in->data, in->sizes[1], in->sizes[2], in->sizes[3], w->data,
	       a[2]->data, w->sizes[0], w->sizes[2], CONV_PAD, a[3]->data);
}

EXAMPLE_TRACED static void op_relu(struct tensor *const *a)
{
	relu(a[0]->data, tensor_numel(a[0]), a[1]->data);
}

EXAMPLE_TRACED static void op_max_pool2d_with_indices(struct tensor *const *a)
{
	const struct tensor *in = a[0];

	max_pool2d(in->data, in->sizes[1], in->sizes[2], in->sizes[3],
		   POOL_KERNEL, POOL_STRIDE, a[1]->data, a[2]->data);
}

EXAMPLE_TRACED static void op_view_copy(struct tensor *const *a)
{
	memcpy(a[1]->data, a[0]->data, tensor_nbytes(a[0]));
}

EXAMPLE_TRACED static void op_softmax(struct tensor *const *a)
{
	softmax(a[0]->data, tensor_numel(a[0]), a[1]->data);
}

/*
 * Three operators built for perf counters to tell apart (--counter-ops):
 * one faults fresh pages in, one gives up the CPU, one only computes.
 * Each passes its input through unchanged.
 */
#define TOUCH_PAGES 64
#define YIELD_NS 200000
#define SPIN_ROUNDS 200000

EXAMPLE_TRACED static void op_touch_pages(struct tensor *const *a)
{
	long page = 4096;
	char *p = mmap(NULL, TOUCH_PAGES * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED) {
		for (int i = 0; i < TOUCH_PAGES; i++)
			p[i * page] = (char)i;
		munmap(p, TOUCH_PAGES * page);
	}
	memcpy(a[1]->data, a[0]->data, tensor_nbytes(a[0]));
}

EXAMPLE_TRACED static void op_yield(struct tensor *const *a)
{
	struct timespec ts = { 0, YIELD_NS };

	nanosleep(&ts, NULL);
	memcpy(a[1]->data, a[0]->data, tensor_nbytes(a[0]));
}

EXAMPLE_TRACED static void op_spin(struct tensor *const *a)
{
	volatile float sink;
	float x = 1.0f;

	for (int i = 0; i < SPIN_ROUNDS; i++)
		x = x * 1.0000001f + 1e-7f;
	sink = x;
	(void)sink;
	memcpy(a[1]->data, a[0]->data, tensor_nbytes(a[0]));
}

#define KERNEL_CALL(op, fn, ...)                                               \
	{ .kind = INSTR_KERNEL_CALL, .name = "native_call_" #op,               \
	  .kernel = fn, .args = (const int[]){ __VA_ARGS__ },                  \
	  .nargs = COUNT(__VA_ARGS__) }
#define DELEGATE_CALL(...)                                                     \
	{ .kind = INSTR_DELEGATE_CALL, .args = (const int[]){ __VA_ARGS__ },   \
	  .nargs = COUNT(__VA_ARGS__) }

const struct instruction program_chain[] = {
	KERNEL_CALL(convolution.out, op_convolution,
		    V_INPUT, V_CONV_W, V_CONV_B, V_CONV),
	KERNEL_CALL(relu.out, op_relu, V_CONV, V_RELU),
	KERNEL_CALL(max_pool2d_with_indices.out, op_max_pool2d_with_indices,
		    V_RELU, V_POOL, V_POOL_INDICES),
	KERNEL_CALL(view_copy.out, op_view_copy, V_POOL, V_FLAT),
	DELEGATE_CALL(V_FLAT, V_LOGITS),
	KERNEL_CALL(_softmax.out, op_softmax, V_LOGITS, V_PROBS),
	/* only with --counter-ops */
	KERNEL_CALL(touch_pages.out, op_touch_pages, V_PROBS, V_PROBS_PAGES),
	KERNEL_CALL(yield.out, op_yield, V_PROBS_PAGES, V_PROBS_YIELD),
	KERNEL_CALL(spin.out, op_spin, V_PROBS_YIELD, V_PROBS_SPIN),
};

#define MODEL_LEN 6
int program_chain_len = MODEL_LEN;

void program_enable_counter_ops(void)
{
	program_chain_len = sizeof(program_chain) / sizeof(program_chain[0]);
}

/* splitmix64: tiny, and the same sequence on every platform */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* uniform in [-scale, scale), from a stream of its own per value */
static void fill_uniform(float *data, size_t n, uint64_t stream, float scale)
{
	uint64_t state = SEED ^ (stream << 32);

	for (size_t i = 0; i < n; i++) {
		float u = (float)(next_random(&state) >> 40) / (1 << 24);

		data[i] = (2.0f * u - 1.0f) * scale;
	}
}

void program_fill_constant(enum program_value v, struct tensor *t)
{
	size_t n = tensor_numel(t);
	/* He-uniform weights keep activations in range through the relus */
	float scale = t->dim > 1 ? sqrtf(6.0f * t->sizes[0] / n) : 0.1f;

	fill_uniform(t->data, n, v, scale);
}

void program_fill_input(struct tensor *t)
{
	fill_uniform(t->data, tensor_numel(t), V_INPUT, 1.0f);
}
