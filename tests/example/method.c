// SPDX-License-Identifier: BSD-3-Clause
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "delegate.h"
#include "method.h"
#include "program.h"
#include "timings.h"

#define ALIGNMENT 64

struct method {
	struct tensor values[PROGRAM_NUM_VALUES];	/* constants placed */
	void *constants;
	struct delegate *delegate;
};

struct activations {
	struct tensor values[PROGRAM_NUM_VALUES];	/* every value placed */
	void *arena;
	int executions;
};

static size_t slot_size(const struct tensor *t)
{
	return (tensor_nbytes(t) + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1);
}

/*
 * Memory planning at its simplest: each value living in `mem` gets its
 * own slot in one buffer, which is returned.
 */
static void *place_values(struct tensor *values, enum value_mem mem)
{
	size_t size = 0;
	char *buf;

	for (int v = 0; v < PROGRAM_NUM_VALUES; v++)
		if (program_values[v].mem == mem)
			size += slot_size(&values[v]);
	buf = aligned_alloc(ALIGNMENT, size);
	if (!buf)
		return NULL;
	size = 0;
	for (int v = 0; v < PROGRAM_NUM_VALUES; v++) {
		if (program_values[v].mem != mem)
			continue;
		values[v].data = buf + size;
		size += slot_size(&values[v]);
	}
	return buf;
}

/* allocates and fills the constants, then hands the delegate its share */
EXAMPLE_TRACED static int method_init(struct method *m, struct tracer *tr)
{
	struct timing init = tracer_begin(tr, "Method::init");
	struct tensor *v = m->values;

	for (int i = 0; i < PROGRAM_NUM_VALUES; i++)
		v[i] = program_values[i].t;
	m->constants = place_values(v, MEM_CONSTANT);
	if (m->constants) {
		for (int i = 0; i < PROGRAM_NUM_VALUES; i++)
			if (program_values[i].mem == MEM_CONSTANT)
				program_fill_constant(i, &v[i]);
		m->delegate = delegate_init(&v[V_FC0_W], &v[V_FC0_B],
					    &v[V_FC2_W], &v[V_FC2_B]);
	}
	tracer_end(tr, &init);
	return m->delegate ? 0 : -1;
}

EXAMPLE_TRACED struct method *load_method(struct tracer *tr)
{
	struct method *m;
	struct timing load;

	tracer_block(tr, "Default", 0);
	load = tracer_begin(tr, "Program::load_method");
	m = calloc(1, sizeof(*m));
	if (m && method_init(m, tr)) {
		method_free(m);
		m = NULL;
	}
	tracer_end(tr, &load);
	return m;
}

void method_free(struct method *m)
{
	if (!m)
		return;
	delegate_free(m->delegate);
	free(m->constants);
	free(m);
}

struct activations *activations_new(const struct method *m)
{
	struct activations *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	for (int i = 0; i < PROGRAM_NUM_VALUES; i++)
		a->values[i] = m->values[i];
	a->arena = place_values(a->values, MEM_ACTIVATION);
	if (!a->arena) {
		free(a);
		return NULL;
	}
	program_fill_input(&a->values[V_INPUT]);
	return a;
}

void activations_free(struct activations *a)
{
	if (!a)
		return;
	free(a->arena);
	free(a);
}

static long stall_execution;
static long abandon_execution;

void method_stall_at(long n)
{
	stall_execution = n;
}

void method_abandon_at(long n)
{
	abandon_execution = n;
}

static long slow_every;

void method_slow_every(long k)
{
	slow_every = k;
}

/* a runtime stuck mid-execution, for a tracer that sees it killed there */
static void stall(void)
{
	printf("stalled\n");
	fflush(stdout);
	for (;;)
		pause();
}

static const char *slow_op;
static long slow_op_us;

void method_slow_op(const char *op, long us)
{
	slow_op = op;
	slow_op_us = us;
}

/* busy, not asleep: a slower kernel keeps its CPU */
static void spin_for(long us)
{
	uint64_t until = timings_now() + (uint64_t)us * 1000;

	while (timings_now() < until)
		;
}

static bool is_slow_op(const char *name)
{
	const char *prefix = "native_call_";

	return slow_op && !strncmp(name, prefix, strlen(prefix)) &&
	       !strcmp(name + strlen(prefix), slow_op);
}

/* codegen's kernel wrapper: the kernel inside a scope of its own */
static void call_kernel(const struct instruction *in,
			struct tensor *const *args, struct tracer *tr)
{
	struct timing op = tracer_begin(tr, in->name);

	in->kernel(args);
	if (is_slow_op(in->name))
		spin_for(slow_op_us);
	tracer_end(tr, &op);
}

/*
 * --mark-ids: each event's ids name its thread and execution, so that a
 * tracer's file can be checked for events put into a run not their own.
 */
static long long instruction_id(const struct tracer *tr,
				const struct activations *a, int k)
{
	return tr->mark < 0 ? k : (long long)a->executions * MARK_IDS_SPAN + k;
}

/* what an instruction leaves: unset, or the execution's own mark */
static void unset_instruction(struct tracer *tr, const struct activations *a)
{
	if (tr->mark < 0)
		tracer_set_instruction(tr, ETDUMP_UNSET_CHAIN,
				       ETDUMP_UNSET_DEBUG_HANDLE);
	else
		tracer_set_instruction(tr, tr->mark,
				       instruction_id(tr, a, MARK_IDS_SPAN - 1));
}

static void execute_instruction(const struct method *m, struct activations *a,
				struct tracer *tr, int k)
{
	const struct instruction *in = &program_chain[k];
	struct tensor *args[PROGRAM_MAX_ARGS];
	struct timing call;

	for (int i = 0; i < in->nargs; i++)
		args[i] = &a->values[in->args[i]];
	tracer_set_instruction(tr, tr->mark < 0 ? 0 : tr->mark,
			       instruction_id(tr, a, k));
	if (in->kind == INSTR_KERNEL_CALL) {
		call = tracer_begin(tr, "OPERATOR_CALL");
		call_kernel(in, args, tr);
	} else {
		call = tracer_begin(tr, "DELEGATE_CALL");
		if (a->executions == stall_execution)
			stall();
		if (slow_every && a->executions % slow_every == 0)
			usleep(METHOD_SLOW_MS * 1000);
		delegate_execute(m->delegate, args, tr);
	}
	tracer_end(tr, &call);
	unset_instruction(tr, a);
}

EXAMPLE_TRACED void method_execute(const struct method *m,
				   struct activations *a, struct tracer *tr)
{
	struct timing execute;

	tracer_block(tr, "Execute", ++a->executions);
	if (tr->mark >= 0)
		unset_instruction(tr, a);
	execute = tracer_begin(tr, "Method::execute");
	for (int k = 0; k < program_chain_len; k++) {
		execute_instruction(m, a, tr, k);
		/* an early return on error that forgets end_profiling */
		if (a->executions == abandon_execution)
			return;
	}
	tracer_end(tr, &execute);
}

const float *method_output(const struct activations *a)
{
	return a->values[V_PROBS].data;
}
