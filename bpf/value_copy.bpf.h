/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * value_copy.bpf.h - record --values: a value's bytes copied into the ring
 * in chunks, shared by the `value` probe (capture.bpf.c) and symbol mode's
 * uretprobe (symbols.bpf.c), which reads a kernel's out tensor itself.
 * Include once, from a .bpf.c, after ring.bpf.h.
 */
#ifndef ETDUMP_VALUE_COPY_BPF_H
#define ETDUMP_VALUE_COPY_BPF_H

/*
 * What the runtime logs through the `value` probe, or what symbol mode
 * reads at a kernel's return. The descriptor (struct etdump_value_desc)
 * says what the value is and where a tensor's bytes are; those go first, in chunks staged per CPU (a chunk
 * takes only its own bytes of the ring), then the value record, which says
 * how many were copied: a value cut by the bound, by a page the probe
 * cannot read or by a full ring comes out marked, never silently short.
 */
const volatile __u64 value_max = 0;

struct value_stage {
	struct etdump_rec_value_data rec;
	__u8 slack[ETDUMP_VALUE_CHUNK];  /* lengths are masked, see batch */
	struct etdump_value_wire desc;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct value_stage);
} value_stage SEC(".maps");

#define CHUNK_MASK (ETDUMP_VALUE_CHUNK * 2 - 1)

struct value_copy {
	struct value_stage *stage;
	__u64 data;
	__u64 want;
	__u64 copied;
	__u64 ts;
	__u64 id;
	__u32 rec_flags;
};

static long copy_chunk(__u64 i, void *ctx)
{
	struct value_copy *c = ctx;
	struct etdump_rec_value_data *r = &c->stage->rec;
	__u64 off = i * ETDUMP_VALUE_CHUNK, n;
	__u32 size;

	if (off >= c->want)
		return 1;
	n = c->want - off;
	if (n > ETDUMP_VALUE_CHUNK)
		n = ETDUMP_VALUE_CHUNK;
	n &= CHUNK_MASK;
	if (bpf_probe_read_user(r->data, n, (const void *)(c->data + off))) {
		c->rec_flags |= ETDUMP_VREC_DATA_UNREAD;
		return 1;
	}
	size = (offsetof(struct etdump_rec_value_data, data) + n) &
	       (CHUNK_MASK * 2 + 1);
	r->hdr.type = ETDUMP_REC_VALUE_DATA;
	r->hdr.ncounters = 0;
	r->hdr.size = size;
	r->hdr.cpu = bpf_get_smp_processor_id();
	r->hdr.pid = c->id >> 32;
	r->hdr.tid = (__u32)c->id;
	r->hdr.ts = c->ts;
	r->offset = off;
	r->len = n;
	if (bpf_ringbuf_output(&events, r, size, wakeup_flags(bpf_ringbuf_query(
				       &events, BPF_RB_PROD_POS) + size, size))) {
		count_drops(1);
		return 1;
	}
	c->copied = off + n;
	return 0;
}

static __always_inline void value_copy_start(struct value_copy *c)
{
	c->data = c->stage->desc.data;
	c->want = c->stage->desc.nbytes < value_max ? c->stage->desc.nbytes :
						      value_max;
}

/* Copy what c->stage->desc says into VALUE_DATA records: c->copied. */
static __always_inline void copy_value_data(struct value_copy *c)
{
	value_copy_start(c);
	if (c->want)
		bpf_loop((c->want + ETDUMP_VALUE_CHUNK - 1) / ETDUMP_VALUE_CHUNK,
			 copy_chunk, c, 0);
}

/*
 * The same for a kernel without bpf_loop (before 5.17), whose program
 * must not even name a callback (5.10 refuses the instruction that loads
 * one, dead or not): a loop the verifier walks to its bound, so at most
 * VALUE_COPY_BOUNDED_CHUNKS chunks (1 MiB, record --values' default); a
 * longer value comes out cut, as by --values' own bound.
 */
#define VALUE_COPY_BOUNDED_CHUNKS 128

static __always_inline void copy_value_data_bounded(struct value_copy *c)
{
	__u32 i;

	value_copy_start(c);
	/* copied short of the value's bytes says it was cut */
	for (i = 0; i < VALUE_COPY_BOUNDED_CHUNKS; i++)
		if (copy_chunk(i, c))
			return;
}

#endif /* ETDUMP_VALUE_COPY_BPF_H */
