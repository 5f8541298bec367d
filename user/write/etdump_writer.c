// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include "lib/file_io.h"
#include "model/etdump_counters.h"
#include "write/etdump_writer.h"
#include "write/fb_builder.h"

/*
 * Builder errors stick (fb_builder.h), so within one object only the last
 * call's result is checked. Within a table larger fields go first, which
 * avoids padding.
 */

/* refs for n objects, at least one so that malloc(0) is never asked */
static fb_ref *refs_alloc(size_t n)
{
	return calloc(n ? n : 1, sizeof(fb_ref));
}

static int write_tensor(struct fb_builder *b, const struct etd_tensor *t,
			fb_ref *out)
{
	fb_ref sizes, strides;

	/* the Inspector needs both vectors, even for a scalar tensor */
	fb_create_vector_i64(b, t->sizes, t->nsizes, &sizes);
	fb_create_vector_i64(b, t->strides, t->nstrides, &strides);
	fb_table_start(b);
	fb_add_i64(b, ETD_SLOT_TENSOR_OFFSET, t->offset, 0);
	fb_add_ref(b, ETD_SLOT_TENSOR_SIZES, sizes);
	fb_add_ref(b, ETD_SLOT_TENSOR_STRIDES, strides);
	fb_add_i8(b, ETD_SLOT_TENSOR_SCALAR_TYPE, t->scalar_type, 0);
	return fb_table_end(b, out);
}

static int write_tensor_list(struct fb_builder *b, const struct etd_value *v,
			     fb_ref *out)
{
	fb_ref *refs, tensors;
	uint32_t i;
	int err = 0;

	if (!v->tensors && v->ntensors)
		return -EINVAL;
	refs = refs_alloc(v->ntensors);
	if (!refs)
		return -ENOMEM;
	for (i = 0; i < v->ntensors && !err; i++)
		err = write_tensor(b, &v->tensors[i], &refs[i]);
	if (err)
		goto out;
	fb_create_vector_refs(b, refs, v->ntensors, &tensors);
	err = fb_create_ref_table(b, ETD_SLOT_TENSOR_LIST_TENSORS, tensors,
				  out);
out:
	free(refs);
	return err;
}

/* The table of the member `v->type` names; *out 0 for Null and String. */
static int write_value_member(struct fb_builder *b, const struct etd_value *v,
			      fb_ref *out)
{
	*out = 0;
	switch (v->type) {
	case ETD_VALUE_TENSOR:
		return write_tensor(b, &v->tensor, out);
	case ETD_VALUE_TENSOR_LIST:
		return write_tensor_list(b, v, out);
	case ETD_VALUE_INT:
		fb_table_start(b);
		fb_add_i64(b, ETD_SLOT_SCALAR_VAL, v->int_val, 0);
		return fb_table_end(b, out);
	case ETD_VALUE_BOOL:
		fb_table_start(b);
		fb_add_bool(b, ETD_SLOT_SCALAR_VAL, v->bool_val, false);
		return fb_table_end(b, out);
	case ETD_VALUE_FLOAT:
		fb_table_start(b);
		fb_add_f32(b, ETD_SLOT_SCALAR_VAL, v->float_val, 0);
		return fb_table_end(b, out);
	case ETD_VALUE_DOUBLE:
		fb_table_start(b);
		fb_add_f64(b, ETD_SLOT_SCALAR_VAL, v->double_val, 0);
		return fb_table_end(b, out);
	default:
		return 0;
	}
}

static int write_value(struct fb_builder *b, const struct etd_value *v,
		       fb_ref *out)
{
	fb_ref member, output = 0;
	int err;

	err = write_value_member(b, v, &member);
	if (err)
		return err;
	if (v->has_output) {
		fb_table_start(b);
		fb_add_bool(b, ETD_SLOT_SCALAR_VAL, v->output, false);
		fb_table_end(b, &output);
	}
	fb_table_start(b);
	if (member)
		fb_add_ref(b, etd_value_slot(v->type), member);
	fb_add_ref(b, ETD_SLOT_VALUE_OUTPUT, output);
	fb_add_i8(b, ETD_SLOT_VALUE_VAL, (int8_t)v->type, ETD_VALUE_NULL);
	return fb_table_end(b, out);
}

/* ProfileEvent's fields, larger first (no padding between them) */
enum { PF_START, PF_END, PF_NAME, PF_CHAIN, PF_INSTR, PF_ID_INT, PF_ID_STR,
       PF_METADATA, PF_FIELDS };

static const struct fb_table_type profile_type = {
	.id = 0,
	.n = PF_FIELDS,
	.refs = 1u << PF_NAME | 1u << PF_ID_STR | 1u << PF_METADATA,
	.slot = {
		[PF_START] = ETD_SLOT_PROFILE_START_TIME,
		[PF_END] = ETD_SLOT_PROFILE_END_TIME,
		[PF_NAME] = ETD_SLOT_PROFILE_NAME,
		[PF_CHAIN] = ETD_SLOT_PROFILE_CHAIN_INDEX,
		[PF_INSTR] = ETD_SLOT_PROFILE_INSTRUCTION_ID,
		[PF_ID_INT] = ETD_SLOT_PROFILE_DELEGATE_ID_INT,
		[PF_ID_STR] = ETD_SLOT_PROFILE_DELEGATE_ID_STR,
		[PF_METADATA] = ETD_SLOT_PROFILE_METADATA,
	},
	.size = { 8, 8, 4, 4, 4, 4, 4, 4 },
};

/* Event: a union of three tables, one field set */
static const struct fb_table_type event_type = {
	.id = 1,
	.n = 3,
	.refs = 7,
	.slot = { ETD_SLOT_EVENT_PROFILE, ETD_SLOT_EVENT_ALLOCATION,
		  ETD_SLOT_EVENT_DEBUG },
	.size = { 4, 4, 4 },
};

/*
 * The ProfileEvent table (there is one for every event); a scalar at its
 * default is left out, as fb_add_* leaves it out. `counters`, when given,
 * is the metadata written.
 */
static int write_profile_table(struct fb_builder *b,
			       const struct etd_profile *p,
			       const char *counters, int counters_len,
			       fb_ref *out)
{
	uint64_t v[PF_FIELDS];
	fb_ref name, id_str, metadata = 0;

	/* one copy of each name for the whole file */
	fb_create_shared_string(b, p->name, &name);
	fb_create_shared_string(b, p->delegate_id_str, &id_str);
	/* ETDumpGen writes it for every delegate event, empty or not */
	if (p->has_metadata)
		fb_create_vector_u8(b, p->metadata, p->metadata_len,
				    &metadata);
	if (counters)
		fb_create_vector_u8(b, (const uint8_t *)counters,
				    (size_t)counters_len, &metadata);
	v[PF_START] = p->start_time;
	v[PF_END] = p->end_time;
	v[PF_NAME] = name;
	v[PF_CHAIN] = (uint32_t)p->chain_index;
	v[PF_INSTR] = (uint32_t)p->instruction_id;
	v[PF_ID_INT] = (uint32_t)p->delegate_id_int;
	v[PF_ID_STR] = id_str;
	v[PF_METADATA] = metadata;
	return fb_table_typed(b, &profile_type,
			      (unsigned int)(p->start_time != 0) << PF_START |
			      (unsigned int)(p->end_time != 0) << PF_END |
			      (unsigned int)(p->chain_index != 0) << PF_CHAIN |
			      (unsigned int)(p->instruction_id != ETD_UNSET)
				      << PF_INSTR |
			      (unsigned int)(p->delegate_id_int != ETD_UNSET)
				      << PF_ID_INT |
			      1u << PF_NAME | 1u << PF_ID_STR |
			      1u << PF_METADATA, v, out);
}

static int write_profile_event(struct fb_builder *b,
			       const struct etd_dump *dump,
			       const struct etd_event *ev, fb_ref *out)
{
	struct etd_profile p = {
		.name = ev->name,
		.delegate_id_str = ev->delegate_id_str,
		.instruction_id = ev->instruction_id,
		.delegate_id_int = ev->delegate_id_int,
		.chain_index = ev->chain_index,
		.metadata = ev->metadata,
		.metadata_len = ev->metadata_len,
		.has_metadata = ev->has_metadata,
		.start_time = ev->start_time,
		.end_time = ev->end_time,
	};
	bool encodable = etd_counters_encodable(ev);
	char counters[512];
	int len = 0;

	if (encodable) {
		len = etd_counters_encode(dump, &ev->counters, counters,
					  sizeof(counters));
		if (len < 0)
			return len;
	}
	return write_profile_table(b, &p, encodable ? counters : NULL, len,
				   out);
}

static int write_debug_event(struct fb_builder *b, const struct etd_event *ev,
			     fb_ref *out)
{
	fb_ref entry, id_str, name;
	int err;

	/* the Inspector fails on a DebugEvent without debug_entry */
	if (!ev->debug_entry)
		return -EINVAL;
	err = write_value(b, ev->debug_entry, &entry);
	if (err)
		return err;
	fb_create_string(b, ev->delegate_id_str, &id_str);
	fb_create_string(b, ev->name, &name);
	fb_table_start(b);
	fb_add_u64(b, ETD_SLOT_DEBUG_CHAIN_INDEX, ev->debug_chain_index, 0);
	fb_add_ref(b, ETD_SLOT_DEBUG_ENTRY, entry);
	fb_add_i32(b, ETD_SLOT_DEBUG_INSTRUCTION_ID, ev->instruction_id,
		   ETD_UNSET);
	fb_add_i32(b, ETD_SLOT_DEBUG_DELEGATE_ID_INT, ev->delegate_id_int,
		   ETD_UNSET);
	fb_add_ref(b, ETD_SLOT_DEBUG_DELEGATE_ID_STR, id_str);
	fb_add_ref(b, ETD_SLOT_DEBUG_NAME, name);
	return fb_table_end(b, out);
}

static int write_allocation_event(struct fb_builder *b,
				  const struct etd_event *ev, fb_ref *out)
{
	fb_table_start(b);
	fb_add_u64(b, ETD_SLOT_ALLOCATION_SIZE, ev->allocation_size, 0);
	fb_add_i32(b, ETD_SLOT_ALLOCATION_ALLOCATOR_ID, ev->allocator_id, 0);
	return fb_table_end(b, out);
}

/* record --allocations keeps them for report and the timeline only. */
static bool written(const struct etd_dump *dump, const struct etd_event *ev)
{
	return ev->kind != ETD_ALLOCATION ||
	       dump->allocations != ETD_ALLOCATIONS_LEAVE_OUT;
}

size_t etdump_events_written(const struct etd_dump *dump,
			     const struct etd_run *run)
{
	size_t i, n = 0;

	for (i = 0; i < run->nevents; i++)
		n += written(dump, &run->events[i]);
	return n;
}

/* The Event over its one member, in `slot` */
static int event_table(struct fb_builder *b, unsigned int slot, fb_ref member,
		       fb_ref *out)
{
	uint64_t v[3] = { 0 };

	v[slot] = member;
	return fb_table_typed(b, &event_type, 1u << slot, v, out);
}

static int write_event(struct fb_builder *b, const struct etd_dump *dump,
		       const struct etd_event *ev, fb_ref *out)
{
	unsigned int slot;
	fb_ref member;
	int err;

	switch (ev->kind) {
	case ETD_PROFILE:
		err = write_profile_event(b, dump, ev, &member);
		slot = ETD_SLOT_EVENT_PROFILE;
		break;
	case ETD_DEBUG:
		err = write_debug_event(b, ev, &member);
		slot = ETD_SLOT_EVENT_DEBUG;
		break;
	case ETD_ALLOCATION:
		/* the Inspector cannot load a file holding one: only if asked */
		if (dump->allocations != ETD_ALLOCATIONS_WRITE)
			return -EINVAL;
		err = write_allocation_event(b, ev, &member);
		slot = ETD_SLOT_EVENT_ALLOCATION;
		break;
	default:
		return -EINVAL;
	}
	return err ? err : event_table(b, slot, member, out);
}

static int write_allocators(struct fb_builder *b, const struct etd_run *run,
			    fb_ref *refs, fb_ref *out)
{
	fb_ref name;
	uint32_t i;

	*out = 0;
	if (!run->nallocators)
		return 0;
	if (!run->allocators)
		return -EINVAL;
	for (i = 0; i < run->nallocators; i++) {
		fb_create_string(b, run->allocators[i] ? run->allocators[i] : "",
				 &name);
		fb_create_ref_table(b, ETD_SLOT_ALLOCATOR_NAME, name, &refs[i]);
	}
	return fb_create_vector_refs(b, refs, run->nallocators, out);
}

int etdump_write_event(struct fb_builder *b, const struct etd_dump *dump,
			const struct etd_event *ev, fb_ref *out)
{
	*out = 0;
	return written(dump, ev) ? write_event(b, dump, ev, out) : 0;
}

int etdump_write_profile(struct fb_builder *b, const struct etd_profile *p,
			 fb_ref *out)
{
	fb_ref member;
	int err;

	*out = 0;
	err = write_profile_table(b, p, NULL, 0, &member);
	return err ? err : event_table(b, ETD_SLOT_EVENT_PROFILE, member, out);
}

int etdump_write_run_table(struct fb_builder *b, const struct etd_run *run,
			   fb_ref *refs, size_t n, fb_ref *out)
{
	fb_ref events, allocators, name;
	int err;

	fb_create_vector_refs(b, refs, n, &events);
	/* refs is spent: the allocators' tables reuse it */
	err = write_allocators(b, run, refs, &allocators);
	if (err)
		return err;
	fb_create_string(b, run->name ? run->name : "", &name);
	fb_table_start(b);
	fb_add_ref(b, ETD_SLOT_RUN_NAME, name);
	fb_add_i32(b, ETD_SLOT_RUN_BUNDLED_INPUT_INDEX,
		   run->bundled_input_index, ETD_UNSET);
	fb_add_ref(b, ETD_SLOT_RUN_ALLOCATORS, allocators);
	fb_add_ref(b, ETD_SLOT_RUN_EVENTS, events);
	return fb_table_end(b, out);
}

int etdump_write_run(struct fb_builder *b, const struct etd_dump *dump,
		     const struct etd_run *run, fb_ref *out)
{
	fb_ref *refs;
	size_t i, n = 0;
	int err = 0;

	refs = refs_alloc(run->nevents > run->nallocators ? run->nevents :
							    run->nallocators);
	if (!refs)
		return -ENOMEM;
	for (i = 0; i < run->nevents && !err; i++)
		if (written(dump, &run->events[i]))
			err = write_event(b, dump, &run->events[i], &refs[n++]);
	if (!err)
		err = etdump_write_run_table(b, run, refs, n, out);
	free(refs);
	return err;
}

int etdump_write_root(struct fb_builder *b, uint32_t version,
		      const fb_ref *runs, size_t n)
{
	fb_ref run_data, root;

	fb_create_vector_refs(b, runs, n, &run_data);
	fb_table_start(b);
	fb_add_u32(b, ETD_SLOT_ETDUMP_VERSION, version, 0);
	fb_add_ref(b, ETD_SLOT_ETDUMP_RUN_DATA, run_data);
	fb_table_end(b, &root);
	return fb_finish(b, root, ETD_FILE_IDENTIFIER);
}

int etdump_write(const struct etd_dump *dump, void **buf, size_t *len)
{
	fb_ref *runs;
	struct fb_builder b;
	size_t i, n = 0;
	int err = 0;

	*buf = NULL;
	*len = 0;
	fb_builder_init(&b);
	runs = refs_alloc(dump->nruns);
	if (!runs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < dump->nruns && !err; i++)
		if (etdump_events_written(dump, &dump->runs[i]))
			err = etdump_write_run(&b, dump, &dump->runs[i],
					       &runs[n++]);
	if (err)
		goto out;
	etdump_write_root(&b, dump->version, runs, n);
	err = fb_detach(&b, buf, len);
out:
	free(runs);
	fb_builder_free(&b);
	return err;
}

int etdump_write_file(const struct etd_dump *dump, const char *path,
		      bool force, char **kept)
{
	void *buf = NULL;
	size_t len;
	int err;

	err = etdump_write(dump, &buf, &len);
	if (!err)
		err = file_replace(path, buf, len, force, kept);
	else
		*kept = NULL;
	free(buf);
	return err;
}
