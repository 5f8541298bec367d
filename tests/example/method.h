/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * method.h - load_method -> Method::init -> Method::execute, with the
 * tracer hooks where ExecuTorch's runtime calls them (ETDUMP.md 5.3).
 *
 * A loaded method (plan, constants, delegate) is read-only and shared;
 * each executing thread brings its own activations.
 */
#ifndef EXAMPLE_METHOD_H
#define EXAMPLE_METHOD_H

#include "tracer.h"

struct method;
struct activations;

/* Program::load_method, in a "Default" block; NULL when out of memory */
struct method *load_method(struct tracer *tr);
void method_free(struct method *m);

/* one thread's values, its input filled in; NULL when out of memory */
struct activations *activations_new(const struct method *m);
void activations_free(struct activations *a);

/* Method::execute, in an "Execute" block of its own */
void method_execute(const struct method *m, struct activations *a,
		    struct tracer *tr);
/*
 * For fault tests: each thread's execution n stops inside its DelegateCall,
 * prints "stalled", and waits to be killed. 0 (the default): never.
 */
void method_stall_at(long n);
/* execution n of each thread returns after its first instruction, its
 * Method::execute scope never ended */
void method_abandon_at(long n);
/*
 * For tail-latency tests: every k-th execution of each thread spends
 * SLOW_MS more inside its DelegateCall. 0 (the default): none.
 */
#define METHOD_SLOW_MS 20
void method_slow_every(long k);
/*
 * For diff tests: every call of native_call_<op> spins us microseconds
 * more inside its scope, as a slower kernel would.
 */
void method_slow_op(const char *op, long us);
/*
 * --mark-ids: instruction k of a thread's execution e (from 1) is recorded
 * as chain = the thread's index, instruction = e * MARK_IDS_SPAN + k; the
 * scopes outside any instruction (Method::execute) take instruction
 * e * MARK_IDS_SPAN + MARK_IDS_SPAN - 1. Set tracer.mark to the index.
 */
#define MARK_IDS_SPAN 16
/* the class probabilities of the last execution */
const float *method_output(const struct activations *a);

#endif /* EXAMPLE_METHOD_H */
