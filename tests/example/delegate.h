/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * delegate.h - a backend that runs a fused subgraph (linear, relu, linear)
 * as one DelegateCall and profiles its own nodes, as XNNPACK does: each
 * node is logged with its own start and end times under a string id, and
 * the whole call is a delegate scope with an int id.
 */
#ifndef EXAMPLE_DELEGATE_H
#define EXAMPLE_DELEGATE_H

#include "program.h"
#include "tracer.h"

struct delegate;

/* Method::init time: takes the weights of both linear nodes */
struct delegate *delegate_init(const struct tensor *fc0_w,
			       const struct tensor *fc0_b,
			       const struct tensor *fc2_w,
			       const struct tensor *fc2_b);
/* args: the flat input, the logits out; safe from several threads */
void delegate_execute(const struct delegate *d, struct tensor *const *args,
		      struct tracer *tr);
void delegate_free(struct delegate *d);

#endif /* EXAMPLE_DELEGATE_H */
