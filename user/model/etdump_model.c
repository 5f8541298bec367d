// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "model/etdump_model.h"

/*
 * Copied rather than memset: GCC turns the copy of this known constant
 * into a few vector stores, but a memset of the struct (160 bytes) or a
 * compound literal into `rep stos`, which cost 14 % of the recorder's CPU
 * (it runs for every event collected and written).
 */
static const struct etd_event blank_event = {
	.instruction_id = ETD_UNSET,
	.delegate_id_int = ETD_UNSET,
};

void etd_event_init(struct etd_event *ev, enum etd_event_kind kind)
{
	memcpy(ev, &blank_event, sizeof(*ev));
	ev->kind = kind;
}

void etd_run_init(struct etd_run *run)
{
	memset(run, 0, sizeof(*run));
	run->bundled_input_index = ETD_UNSET;
}

int etd_value_slot(enum etd_value_type type)
{
	switch (type) {
	case ETD_VALUE_TENSOR:
		return ETD_SLOT_VALUE_TENSOR;
	case ETD_VALUE_TENSOR_LIST:
		return ETD_SLOT_VALUE_TENSOR_LIST;
	case ETD_VALUE_INT:
		return ETD_SLOT_VALUE_INT;
	case ETD_VALUE_BOOL:
		return ETD_SLOT_VALUE_BOOL;
	case ETD_VALUE_FLOAT:
		return ETD_SLOT_VALUE_FLOAT;
	case ETD_VALUE_DOUBLE:
		return ETD_SLOT_VALUE_DOUBLE;
	default:
		return -1;
	}
}

/*
 * Room for one more element after n: the (possibly moved) array, or NULL
 * with the old one untouched. Doubling keeps appends amortized O(1).
 */
static void *grow(void *arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 8;
	if (ncap < *cap || ncap > SIZE_MAX / elem)
		return NULL;
	p = realloc(arr, ncap * elem);
	if (p)
		*cap = ncap;
	return p;
}

int etd_dump_add_run(struct etd_dump *dump, const char *name,
		     struct etd_run **out)
{
	struct etd_run *runs;
	char *dup = NULL;
	int err = -ENOMEM;

	if (name) {
		dup = strdup(name);
		if (!dup)
			goto err_out;
	}
	runs = grow(dump->runs, &dump->cap, dump->nruns, sizeof(*runs));
	if (!runs)
		goto err_out;
	dump->runs = runs;
	etd_run_init(&runs[dump->nruns]);
	runs[dump->nruns].name = dup;
	if (out)
		*out = &runs[dump->nruns];
	dump->nruns++;
	return 0;
err_out:
	free(dup);
	return err;
}

int etd_run_add_event(struct etd_run *run, const struct etd_event *ev)
{
	struct etd_event *events;

	events = grow(run->events, &run->cap, run->nevents, sizeof(*events));
	if (!events)
		return -ENOMEM;
	run->events = events;
	events[run->nevents++] = *ev;
	return 0;
}

static void tensor_free(struct etd_tensor *t)
{
	free(t->sizes);
	free(t->strides);
}

void etd_value_free(struct etd_value *v)
{
	uint32_t i;

	if (!v)
		return;
	tensor_free(&v->tensor);
	for (i = 0; v->tensors && i < v->ntensors; i++)
		tensor_free(&v->tensors[i]);
	free(v->tensors);
}

void etd_event_free(struct etd_event *ev)
{
	free(ev->name);
	free(ev->delegate_id_str);
	free(ev->metadata);
	etd_value_free(ev->debug_entry);
	free(ev->debug_entry);
	etd_event_init(ev, ev->kind);
}

void etd_run_free(struct etd_run *run)
{
	size_t i;

	free(run->name);
	for (i = 0; run->allocators && i < run->nallocators; i++)
		free(run->allocators[i]);
	free(run->allocators);
	for (i = 0; i < run->nevents; i++)
		etd_event_free(&run->events[i]);
	free(run->events);
	etd_run_init(run);
}

void etd_dump_free(struct etd_dump *dump)
{
	size_t i;

	for (i = 0; i < dump->nruns; i++)
		etd_run_free(&dump->runs[i]);
	free(dump->runs);
	for (i = 0; i < dump->ncounters; i++)
		free(dump->counter_names[i]);
	memset(dump, 0, sizeof(*dump));
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool bytes_eq(const void *a, size_t na, const void *b, size_t nb)
{
	return na == nb && (!na || !memcmp(a, b, na));
}

/* Arrays where NULL (absent) differs from present and empty. */
static bool array_eq(const void *a, size_t na, const void *b, size_t nb,
		     size_t elem)
{
	return !a == !b && bytes_eq(a, na * elem, b, nb * elem);
}

static bool tensor_eq(const struct etd_tensor *a, const struct etd_tensor *b)
{
	return a->scalar_type == b->scalar_type && a->offset == b->offset &&
	       array_eq(a->sizes, a->nsizes, b->sizes, b->nsizes,
			sizeof(*a->sizes)) &&
	       array_eq(a->strides, a->nstrides, b->strides, b->nstrides,
			sizeof(*a->strides));
}

/* Only the member the type names is serialized, so only it counts. */
static bool value_eq(const struct etd_value *a, const struct etd_value *b)
{
	uint32_t i;

	if (!a || !b)
		return a == b;
	if (a->type != b->type || a->has_output != b->has_output ||
	    (a->has_output && a->output != b->output))
		return false;
	switch (a->type) {
	case ETD_VALUE_INT:
		return a->int_val == b->int_val;
	case ETD_VALUE_BOOL:
		return a->bool_val == b->bool_val;
	case ETD_VALUE_FLOAT:
		return !memcmp(&a->float_val, &b->float_val, sizeof(float));
	case ETD_VALUE_DOUBLE:
		return !memcmp(&a->double_val, &b->double_val, sizeof(double));
	case ETD_VALUE_TENSOR:
		return tensor_eq(&a->tensor, &b->tensor);
	case ETD_VALUE_TENSOR_LIST:
		if (!a->tensors != !b->tensors || a->ntensors != b->ntensors)
			return false;
		for (i = 0; a->tensors && i < a->ntensors; i++)
			if (!tensor_eq(&a->tensors[i], &b->tensors[i]))
				return false;
		return true;
	default:
		return true;
	}
}

/* An invalid counter has no number: only validity counts then. */
static bool counters_eq(const struct etd_counters *a,
			const struct etd_counters *b)
{
	uint32_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n && i < ETD_MAX_COUNTERS; i++)
		if (a->valid[i] != b->valid[i] ||
		    (a->valid[i] && a->value[i] != b->value[i]))
			return false;
	return true;
}

static bool event_eq(const struct etd_event *a, const struct etd_event *b)
{
	if (a->kind != b->kind || !str_eq(a->name, b->name) ||
	    a->instruction_id != b->instruction_id ||
	    a->delegate_id_int != b->delegate_id_int ||
	    !str_eq(a->delegate_id_str, b->delegate_id_str))
		return false;
	switch (a->kind) {
	case ETD_PROFILE:
		return a->chain_index == b->chain_index &&
		       a->has_metadata == b->has_metadata &&
		       bytes_eq(a->metadata, a->metadata_len, b->metadata,
				b->metadata_len) &&
		       a->start_time == b->start_time &&
		       a->end_time == b->end_time &&
		       counters_eq(&a->counters, &b->counters);
	case ETD_DEBUG:
		return a->debug_chain_index == b->debug_chain_index &&
		       value_eq(a->debug_entry, b->debug_entry);
	default:
		return a->allocator_id == b->allocator_id &&
		       a->allocation_size == b->allocation_size;
	}
}

static bool run_eq(const struct etd_run *a, const struct etd_run *b)
{
	size_t i;

	if (!str_eq(a->name, b->name) ||
	    a->bundled_input_index != b->bundled_input_index ||
	    a->nallocators != b->nallocators || a->nevents != b->nevents)
		return false;
	for (i = 0; i < a->nallocators; i++)
		if (!str_eq(a->allocators[i], b->allocators[i]))
			return false;
	for (i = 0; i < a->nevents; i++)
		if (!event_eq(&a->events[i], &b->events[i]))
			return false;
	return true;
}

bool etd_dump_equal(const struct etd_dump *a, const struct etd_dump *b)
{
	size_t i;

	if (a->version != b->version || a->nruns != b->nruns ||
	    a->ncounters != b->ncounters)
		return false;
	for (i = 0; i < a->ncounters && i < ETD_MAX_COUNTERS; i++)
		if (!str_eq(a->counter_names[i], b->counter_names[i]))
			return false;
	for (i = 0; i < a->nruns; i++)
		if (!run_eq(&a->runs[i], &b->runs[i]))
			return false;
	return true;
}
