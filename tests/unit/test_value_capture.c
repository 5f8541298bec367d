// SPDX-License-Identifier: BSD-3-Clause
/*
 * record --values in the collector, fed synthetic records: DebugEvents as
 * ETDumpGen writes them, tensor bytes at 64-byte aligned offsets of the
 * debug buffer, lists put back together, and a value not copied whole
 * counted as cut (zeros where bytes are missing), never passed off as whole.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "collect/collector.h"
#include "model/debug_buffer.h"
#include "schema/etdump_record.h"
#include "schema/etdump_usdt.h"
#include "collect/value_capture.h"
#include "testlib.h"

static uint64_t clock_ns = 1000;

static void hdr(struct etdump_rec_hdr *h, uint8_t type, uint16_t size)
{
	h->type = type;
	h->size = size;
	h->pid = 42;
	h->tid = 7;
	h->ts = clock_ns;
	clock_ns += 10;
}

static void block(struct collector *c)
{
	struct etdump_rec_block r = { 0 };

	hdr(&r.hdr, ETDUMP_REC_BLOCK, sizeof(r));
	r.name_len = 7;
	memcpy(r.name, "Execute", 7);
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
}

/* n bytes of a tensor, every byte its index + seed, from offset `from` */
static void data(struct collector *c, uint64_t from, uint32_t n, uint8_t seed)
{
	static struct etdump_rec_value_data r;
	uint32_t i;

	memset(&r, 0, sizeof(r));
	hdr(&r.hdr, ETDUMP_REC_VALUE_DATA,
	    offsetof(struct etdump_rec_value_data, data) + n);
	r.offset = from;
	r.len = n;
	for (i = 0; i < n; i++)
		r.data[i] = (uint8_t)(from + i + seed);
	CHECK_EQ_INT(collector_feed(c, &r, r.hdr.size), 0);
}

static void tensor(struct collector *c, uint32_t type, uint32_t index,
		   uint32_t count, uint64_t nbytes, uint64_t copied,
		   uint32_t flags, int chain, int instr)
{
	struct etdump_rec_value r = { 0 };

	hdr(&r.hdr, ETDUMP_REC_VALUE, sizeof(r));
	r.chain = chain;
	r.instr = instr;
	r.copied = copied;
	r.desc.type = type;
	r.desc.flags = flags;
	r.desc.index = index;
	r.desc.count = count;
	r.desc.scalar_type = 6; /* FLOAT */
	r.desc.dim = 2;
	r.desc.sizes[0] = 1;
	r.desc.sizes[1] = nbytes / 4;
	r.desc.strides[0] = nbytes / 4;
	r.desc.strides[1] = 1;
	r.desc.nbytes = nbytes;
	r.desc.delegate_id_int = -1;
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
}

static struct collector *finish(struct collector *c, struct etd_dump *d)
{
	struct collector_stats st;

	CHECK_EQ_INT(collector_finish(c, d, &st), 0);
	return c;
}

static const struct etd_event *debug_event(const struct etd_dump *d, size_t i)
{
	if (d->nruns != 1 || i >= d->runs[0].nevents)
		return NULL;
	return &d->runs[0].events[i];
}

TEST(tensors_get_aligned_offsets_and_their_bytes)
{
	struct collector *c = collector_new();
	const struct etd_event *ev;
	struct etd_dump d = { 0 };
	struct value_capture_stats st;
	const uint8_t *buf;
	size_t len, i;

	block(c);
	data(c, 0, 40, 1);
	tensor(c, ETDUMP_VALUE_TENSOR, 0, 0, 40, 40, 0, 0, 3);
	/* a tensor in two chunks */
	data(c, 0, 8192, 2);
	data(c, 8192, 8, 2);
	tensor(c, ETDUMP_VALUE_TENSOR, 0, 0, 8200, 8200, ETDUMP_VALUE_OUTPUT,
	       -1, 0);
	finish(c, &d);
	ev = debug_event(&d, 0);
	CHECK(ev && ev->kind == ETD_DEBUG);
	if (!ev || !debug_event(&d, 1))
		goto out;
	CHECK_EQ_INT(ev->instruction_id, 3);
	CHECK_EQ_INT(ev->debug_chain_index, 0);
	CHECK_EQ_INT(ev->debug_entry->type, ETD_VALUE_TENSOR);
	CHECK(!ev->debug_entry->has_output);
	CHECK_EQ_INT(ev->debug_entry->tensor.offset, 0);
	CHECK_EQ_INT(ev->debug_entry->tensor.sizes[1], 10);
	ev = debug_event(&d, 1);
	CHECK_EQ_INT(ev->debug_chain_index, UINT64_MAX);
	CHECK(ev->debug_entry->has_output && ev->debug_entry->output);
	CHECK_EQ_INT(ev->debug_entry->tensor.offset, 64);
	buf = value_capture_buffer(collector_values(c), &len);
	CHECK_EQ_INT(len, 64 + 8200);
	CHECK_EQ_INT(debug_buffer_cuts(buf, len, &buf), 0);
	buf = value_capture_buffer(collector_values(c), &len);
	for (i = 0; i < 40; i++)
		CHECK_EQ_INT(buf[i], (uint8_t)(i + 1));
	for (i = 40; i < 64; i++)
		CHECK_EQ_INT(buf[i], 0);
	CHECK_EQ_INT(buf[64 + 8199], (uint8_t)(8199 + 2));
	value_capture_get_stats(collector_values(c), &st);
	CHECK_EQ_INT(st.values, 2);
	CHECK_EQ_INT(st.cut, 0);
out:
	etd_dump_free(&d);
	collector_free(c);
}

TEST(a_tensor_short_of_bytes_is_cut_and_zero_filled)
{
	struct collector *c = collector_new();
	struct value_capture_stats st;
	struct etd_dump d = { 0 };
	const uint8_t *buf, *cuts;
	size_t len;

	block(c);
	/* the bound let 16 of 64 bytes through */
	data(c, 0, 16, 0);
	tensor(c, ETDUMP_VALUE_TENSOR, 0, 0, 64, 16, 0, 0, 0);
	/* the second chunk was lost: what runs on from 0 is kept */
	data(c, 0, 8192, 0);
	tensor(c, ETDUMP_VALUE_TENSOR, 0, 0, 9000, 9000, 0, 0, 1);
	finish(c, &d);
	value_capture_get_stats(collector_values(c), &st);
	CHECK_EQ_INT(st.values, 2);
	CHECK_EQ_INT(st.cut, 2);
	CHECK_EQ_INT(st.cut_bytes, 48 + 808);
	buf = value_capture_buffer(collector_values(c), &len);
	/* the blobs, then the trailer that marks both cut */
	CHECK_EQ_INT(len, 64 + 9024 + 2 * 16 + 16);
	CHECK_EQ_INT(debug_buffer_cuts(buf, len, &cuts), 2);
	if (cuts) {
		uint64_t v[4];

		memcpy(v, cuts, sizeof(v));
		CHECK_EQ_INT(v[0], 0);
		CHECK_EQ_INT(v[1], 16);
		CHECK_EQ_INT(v[2], 64);
		CHECK_EQ_INT(v[3], 8192);
	}
	CHECK_EQ_INT(buf[15], 15);
	CHECK_EQ_INT(buf[16], 0);
	CHECK_EQ_INT(buf[64 + 8191], (uint8_t)8191);
	CHECK_EQ_INT(buf[64 + 8192], 0);
	etd_dump_free(&d);
	collector_free(c);
}

/* found by fuzz_collector: an empty chunk before any byte (UBSan) */
TEST(an_empty_chunk_first_adds_nothing)
{
	struct collector *c = collector_new();
	struct value_capture_stats st;
	struct etd_dump d = { 0 };

	block(c);
	data(c, 0, 0, 0);
	data(c, 0, 16, 0);
	tensor(c, ETDUMP_VALUE_TENSOR, 0, 0, 16, 16, 0, 0, 0);
	finish(c, &d);
	value_capture_get_stats(collector_values(c), &st);
	CHECK_EQ_INT(st.values, 1);
	CHECK_EQ_INT(st.cut, 0);
	etd_dump_free(&d);
	collector_free(c);
}

TEST(a_list_is_one_event_and_a_broken_one_is_lost)
{
	struct collector *c = collector_new();
	struct value_capture_stats st;
	struct etd_dump d = { 0 };
	const struct etd_event *ev;

	block(c);
	data(c, 0, 4, 0);
	tensor(c, ETDUMP_VALUE_TENSOR_LIST, 0, 2, 4, 4, 0, 0, 5);
	data(c, 0, 8, 0);
	tensor(c, ETDUMP_VALUE_TENSOR_LIST, 1, 2, 8, 8, 0, 0, 5);
	/* member 1 of 3 never came */
	tensor(c, ETDUMP_VALUE_TENSOR_LIST, 0, 3, 0, 0, 0, 0, 6);
	tensor(c, ETDUMP_VALUE_TENSOR_LIST, 2, 3, 0, 0, 0, 0, 6);
	/* an empty list is a list */
	tensor(c, ETDUMP_VALUE_TENSOR_LIST, 0, 0, 0, 0, 0, 0, 7);
	finish(c, &d);
	CHECK_EQ_INT(d.nruns ? d.runs[0].nevents : 0, 2);
	ev = debug_event(&d, 0);
	if (ev) {
		CHECK_EQ_INT(ev->debug_entry->type, ETD_VALUE_TENSOR_LIST);
		CHECK_EQ_INT(ev->debug_entry->ntensors, 2);
		CHECK_EQ_INT(ev->debug_entry->tensors[1].offset, 64);
	}
	ev = debug_event(&d, 1);
	if (ev) {
		CHECK_EQ_INT(ev->instruction_id, 7);
		CHECK_EQ_INT(ev->debug_entry->ntensors, 0);
	}
	value_capture_get_stats(collector_values(c), &st);
	CHECK_EQ_INT(st.lost, 2); /* the broken list, its stray member */
	etd_dump_free(&d);
	collector_free(c);
}

TEST(bad_value_records_are_refused)
{
	struct collector *c = collector_new();
	struct etdump_rec_value r = { 0 };
	struct etdump_rec_value_data dr = { 0 };

	hdr(&r.hdr, ETDUMP_REC_VALUE, sizeof(r));
	r.desc.type = ETDUMP_VALUE_TENSOR;
	r.desc.dim = 17;
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), -EINVAL);
	r.desc.dim = 1;
	r.desc.nbytes = 4;
	r.copied = 8; /* more than the tensor holds */
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), -EINVAL);
	r.copied = 0;
	r.desc.type = 99;
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), -EINVAL);
	r.desc.type = ETDUMP_VALUE_TENSOR_LIST;
	r.desc.count = 2;
	r.desc.index = 2;
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), -EINVAL);
	r.desc.type = ETDUMP_VALUE_TENSOR;
	r.desc.nbytes = 1ull << 50;
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), -EINVAL);
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r) - 8), -EINVAL);
	hdr(&dr.hdr, ETDUMP_REC_VALUE_DATA,
	    offsetof(struct etdump_rec_value_data, data) + 8);
	dr.len = 9;
	CHECK_EQ_INT(collector_feed(c, &dr, dr.hdr.size), -EINVAL);
	collector_free(c);
}

TEST(scalars_and_delegate_ids)
{
	struct collector *c = collector_new();
	struct etdump_rec_value r = { 0 };
	struct etd_dump d = { 0 };
	const struct etd_event *ev;
	double x = 2.5;

	block(c);
	hdr(&r.hdr, ETDUMP_REC_VALUE, sizeof(r));
	r.desc.type = ETDUMP_VALUE_DOUBLE;
	memcpy(&r.desc.double_bits, &x, sizeof(x));
	r.desc.delegate_id_int = 4;
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
	r.desc.type = ETDUMP_VALUE_BOOL;
	r.desc.int_val = 1;
	r.name_len = 3;
	memcpy(r.name, "fc1", 3);
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
	finish(c, &d);
	ev = debug_event(&d, 0);
	if (ev) {
		CHECK_EQ_INT(ev->debug_entry->type, ETD_VALUE_DOUBLE);
		CHECK(ev->debug_entry->double_val == 2.5);
		CHECK_EQ_INT(ev->delegate_id_int, 4);
	}
	ev = debug_event(&d, 1);
	if (ev) {
		CHECK(ev->debug_entry->bool_val);
		CHECK_EQ_STR(ev->delegate_id_str, "fc1");
		CHECK_EQ_INT(ev->delegate_id_int, -1);
	}
	etd_dump_free(&d);
	collector_free(c);
}

/*
 * A value its thread logged before its first block belongs to no run:
 * counted outside, its name and tensor freed (the leak check holds it).
 */
TEST(a_value_before_the_first_block_is_outside_any_run)
{
	struct collector *c = collector_new();
	struct etdump_rec_value r = { 0 };
	struct collector_stats st;
	struct etd_dump d = { 0 };

	hdr(&r.hdr, ETDUMP_REC_VALUE, sizeof(r));
	r.desc.type = ETDUMP_VALUE_INT;
	r.desc.int_val = 3;
	r.name_len = 3;
	memcpy(r.name, "fc1", 3);
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
	block(c);
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
	CHECK_EQ_INT(collector_finish(c, &d, &st), 0);
	CHECK_EQ_INT(st.outside_run, 1);
	CHECK_EQ_INT(d.nruns, 1);
	etd_dump_free(&d);
	collector_free(c);
}

TEST(debug_buffer_beside_the_etdump)
{
	char *p = debug_buffer_path_for("out/run.etdp");

	CHECK_EQ_STR(p, "out/run.debug.bin");
	free(p);
	p = debug_buffer_path_for("run");
	CHECK_EQ_STR(p, "run.debug.bin");
	free(p);
	p = debug_buffer_path_for(".etdp");
	CHECK_EQ_STR(p, ".etdp.debug.bin");
	free(p);
}

int main(void)
{
	RUN(tensors_get_aligned_offsets_and_their_bytes);
	RUN(a_tensor_short_of_bytes_is_cut_and_zero_filled);
	RUN(an_empty_chunk_first_adds_nothing);
	RUN(a_list_is_one_event_and_a_broken_one_is_lost);
	RUN(bad_value_records_are_refused);
	RUN(scalars_and_delegate_ids);
	RUN(a_value_before_the_first_block_is_outside_any_run);
	RUN(debug_buffer_beside_the_etdump);
	return TEST_SUMMARY();
}
