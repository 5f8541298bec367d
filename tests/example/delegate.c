// SPDX-License-Identifier: BSD-3-Clause
#include <stdint.h>
#include <stdlib.h>
#include "delegate.h"
#include "kernels.h"
#include "pool.h"

/* the id the whole call is profiled under (delegate_debug_id_int) */
#define DELEGATE_ID 7
/* scratch lives on the executing thread's stack */
#define MAX_HIDDEN 256

struct delegate {
	const float *fc0_w, *fc0_b, *fc2_w, *fc2_b;
	int n_in, n_hidden, n_out;
};

struct delegate *delegate_init(const struct tensor *fc0_w,
			       const struct tensor *fc0_b,
			       const struct tensor *fc2_w,
			       const struct tensor *fc2_b)
{
	struct delegate *d;

	/* what a real backend checks when it accepts processed data */
	if (fc0_w->sizes[0] > MAX_HIDDEN || fc2_w->sizes[1] != fc0_w->sizes[0])
		return NULL;
	d = malloc(sizeof(*d));
	if (!d)
		return NULL;
	*d = (struct delegate){
		.fc0_w = fc0_w->data, .fc0_b = fc0_b->data,
		.fc2_w = fc2_w->data, .fc2_b = fc2_b->data,
		.n_in = fc0_w->sizes[1], .n_hidden = fc0_w->sizes[0],
		.n_out = fc2_w->sizes[0],
	};
	return d;
}

void delegate_free(struct delegate *d)
{
	free(d);
}

static uint64_t node_start(bool timed)
{
	return timed ? timings_now() : 0;
}

/* metadata: the node's multiply-accumulates, 8 bytes little-endian */
static void node_done(struct tracer *tr, bool timed, const char *id,
		      uint64_t start_ns, uint64_t macs)
{
	uint64_t end_ns;
	uint8_t metadata[8];

	if (!timed)
		return;
	end_ns = timings_now();
	for (int i = 0; i < 8; i++)
		metadata[i] = macs >> (8 * i);
	tracer_delegate_log(tr, id, -1, start_ns, end_ns, metadata,
			    sizeof(metadata));
}

struct relu_job {
	float *x;
	int n;
};

static void relu_on_worker(void *arg)
{
	struct relu_job *job = arg;

	relu(job->x, job->n, job->x);
}

EXAMPLE_TRACED void delegate_execute(const struct delegate *d,
				     struct tensor *const *args,
				     struct tracer *tr)
{
	static const char fp32[4] = { 'f', 'p', '3', '2' };
	bool timed = tracer_delegate_timed(tr);
	struct timing call = tracer_delegate_begin(tr, NULL, DELEGATE_ID);
	float hidden[MAX_HIDDEN];
	uint64_t t;

	t = node_start(timed);
	linear(args[0]->data, d->n_in, d->fc0_w, d->fc0_b, d->n_hidden,
	       hidden);
	node_done(tr, timed, "linear #0", t, (uint64_t)d->n_in * d->n_hidden);

	t = node_start(timed);
	if (pool_started()) {
		struct relu_job job = { hidden, d->n_hidden };

		pool_run(relu_on_worker, &job, tr);
	} else {
		relu(hidden, d->n_hidden, hidden);
	}
	node_done(tr, timed, "relu #1", t, 0);

	t = node_start(timed);
	linear(hidden, d->n_hidden, d->fc2_w, d->fc2_b, d->n_out,
	       args[1]->data);
	node_done(tr, timed, "linear #2", t, (uint64_t)d->n_hidden * d->n_out);

	tracer_delegate_end(tr, &call, fp32, sizeof(fp32));
}
