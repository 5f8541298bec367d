// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * symbols.bpf.c - symbol mode: a uprobe at the entry and a uretprobe at the
 * return of each function a rules file names (a kernel's return only while
 * the gaps after the kernels are measured: the recorder detaches them,
 * user/symbol/gap_table.h). The BPF cookie is the site's
 * index in `sites`; an entry record names it by that id alone
 * (ETDUMP_REC_FUNC_CALL), the recorder adds its description.
 *
 * The ring buffer and the drop counter are capture.bpf.c's own maps, shared
 * by fd (user/symbol/symbol_mode.c), so both kinds of record reach one collector.
 *
 * record --values: at a kernel's return, before its exit record, the out
 * tensors the rules place (schema/symbol_values.h) go out as the `value`
 * probe's records would, chain and instruction left for the translator
 * (user/symbol/symbol_translate.c), which knows the call's.
 *
 * record --allocations: an allocate site (ETDUMP_FUNC_ALLOCATE) is no
 * scope: its entry keeps the allocator and the size asked, its return
 * sends them with what it handed out, nothing when that was NULL.
 *
 * XNNPACK operators (ETDUMP_FUNC_XNN_OP): the entry is on_xnn_call, a
 * plain uprobe on the call of xnn_run_operator_with_index, the operator in the first
 * argument register; the recorder names it from the fields read there
 * (user/symbol/entry_expand.h, xnnpack_ops.h). The exit is on_func_exit
 * attached as a plain uprobe where the call returns, the entry site's id
 * its cookie.
 *
 * Without --values, --allocations and --duty each thread keeps its hits
 * and hands them over a batch at a time (bpf/hit_batch.bpf.h): the
 * values' and allocations' records go to the ring as they come, and
 * --duty must find every record of a window in the ring once its probes
 * are out.
 *
 * A kernel without BPF cookies (5.15) gets a copy of on_func_entry and
 * one of on_func_exit for each site, loaded with its id in place of
 * SYMBOL_SITE_ID_MAGIC (user/symbol/site_programs.h): a hit then costs
 * what it does with a cookie, and the load a verification per copy.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf/ring.bpf.h"
#include "schema/symbol_values.h"
#include "schema/symbol_xnnpack.h"
#include "schema/symbol_site_id.h"
#include "bpf/value_copy.bpf.h"
#include "bpf/hit_batch.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized to the number of sites */
	__type(key, __u32);
	__type(value, struct etdump_func_site);
} sites SEC(".maps");

/* The kernel has BPF cookies: else each site has its programs' copies. */
const volatile bool site_cookies = true;

/*
 * The site this hit is at. The constant is a 64-bit load the recorder
 * finds and rewrites in each site's copy; the asm keeps the compiler
 * from folding it into what uses it.
 */
static __always_inline __u32 site_id(void *ctx)
{
	__u64 id;

	if (site_cookies)
		return bpf_get_attach_cookie(ctx);
	asm volatile("%[id] = " SYMBOL_SITE_ID_MAGIC_ASM " ll" : [id] "=r"(id));
	return id;
}

/* Sites of kind ETDUMP_FUNC_ALLOCATE are attached: exits look kinds up. */
const volatile bool allocate_sites = false;
/* record --values: out tensors read at each kernel's return */
const volatile bool read_outputs = false;

/* a call in flight: its thread and site */
struct call_key {
	__u32 tid;
	__u32 id;
};

struct alloc_args {
	__u64 self;
	__u64 size;
};

/* An allocate call's arguments, from its entry to its return. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct call_key);
	__type(value, struct alloc_args);
} pending_allocs SEC(".maps");

/* allocate(this, size, ...): the first two arguments */
static __always_inline void alloc_entry(struct pt_regs *ctx, __u32 id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct call_key k = { .tid = (__u32)pid_tgid, .id = id };
	struct alloc_args a = {
		.self = PT_REGS_PARM1(ctx),
		.size = PT_REGS_PARM2(ctx),
	};

	if (is_target(pid_tgid))
		bpf_map_update_elem(&pending_allocs, &k, &a, BPF_ANY);
}

static __always_inline void alloc_exit(struct pt_regs *ctx, __u32 id,
				       const struct etdump_func_site *site)
{
	struct call_key k = { .tid = (__u32)bpf_get_current_pid_tgid(),
			       .id = id };
	struct etdump_rec_func_alloc *r;
	struct alloc_args *a, args;
	__u64 ptr = PT_REGS_RC(ctx);

	a = bpf_map_lookup_elem(&pending_allocs, &k);
	if (!a)
		return;
	args = *a;
	bpf_map_delete_elem(&pending_allocs, &k);
	if (!ptr)
		return;
	r = reserve(sizeof(*r), ETDUMP_REC_FUNC_ALLOC);
	if (!r)
		return;
	r->id = id;
	r->name_len = site->name_len;
	r->flags = site->flags;
	r->self = args.self;
	r->size = args.size;
	r->ptr = ptr;
	__builtin_memcpy(r->name, site->name, sizeof(r->name));
	submit(r);
}

/*
 * Where on_xnn_call reads an operator's fields: the one layout the
 * recorder reads (user/symbol/xnnpack_ops.h), set whether or not an
 * XNNPACK is there yet (a library loaded later may bring one).
 */
const volatile struct etdump_xnn_layout xnn_layout = {};

/*
 * The recording ends: hits from now on are not recorded, so that what
 * comes while the probes go (exits whose entries' probe went first) is
 * not read as part of a run.
 */
bool hits_stopped = false;

/* hits kept per thread (above); the recorder clears it for --duty */
const volatile bool batch_hits = false;
/* record --values and --allocations send their records as they come */
#define BATCHING (batch_hits && !read_outputs && !allocate_sites)

static __always_inline __u32 read_u32(__u64 addr)
{
	__u32 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (const void *)addr);
	return v;
}

/* bytes of the operator one read may take its fields from */
#define XNN_SPAN 128

static __always_inline __u32 min_u32(__u32 a, __u32 b)
{
	return a < b ? a : b;
}

static __always_inline __u32 max_u32(__u32 a, __u32 b)
{
	return a > b ? a : b;
}

/*
 * The operator's fields the recorder names it by (entry_expand.h): one
 * read of the span that holds them where it is short (XNNPACK's: 104
 * bytes), a read each costing ~20 ns in the traced call. The layout is
 * read-only: the verifier knows the offsets, and which branch is taken,
 * so the span is left unset (the read fills what is taken from it;
 * clearing its 128 bytes cost each operator's entry ~8 ns). A field that
 * cannot be read is 0. True when the span was read whole: fields worth
 * keeping.
 */
static __always_inline bool xnn_fields(__u64 op, struct etdump_xnn_slot *x)
{
	__u32 lo = min_u32(min_u32(xnn_layout.type, xnn_layout.sub),
			   xnn_layout.ukernel);
	__u32 hi = max_u32(max_u32(xnn_layout.type, xnn_layout.sub),
			   xnn_layout.ukernel) + sizeof(__u32);
	__u8 span[XNN_SPAN];

	if (hi - lo > XNN_SPAN) {
		x->type = read_u32(op + xnn_layout.type);
		x->sub = read_u32(op + xnn_layout.sub);
		x->ukernel = read_u32(op + xnn_layout.ukernel);
		return false;
	}
	if (bpf_probe_read_user(span, hi - lo, (const void *)(op + lo))) {
		x->type = x->sub = x->ukernel = 0;
		return false;
	}
	__builtin_memcpy(&x->type, span + (xnn_layout.type - lo), 4);
	__builtin_memcpy(&x->sub, span + (xnn_layout.sub - lo), 4);
	__builtin_memcpy(&x->ukernel, span + (xnn_layout.ukernel - lo), 4);
	return true;
}

/*
 * Where XNNPACK deletes an operator (xnnpack_ops.h's forget_at): what
 * threads kept of operators before is read again, since an address may
 * now hold another. The recorder sets xnn_keep_fields once it is there.
 */
__u32 xnn_forgets = 0;
bool xnn_keep_fields = false;

SEC("uprobe")
int on_xnn_forget(void *ctx)
{
	__sync_fetch_and_add(&xnn_forgets, 1);
	return 0;
}

/*
 * The fields of operator op, the index-th of its runtime: as the thread
 * read them at an earlier run when none was deleted since, which saves
 * each run the read (~35 ns an operator's entry, bpf_stats, xnn_mlp.pte).
 * XNNPACK's profiler names operators once, when their runtime is made:
 * fields kept from the first run name them as it does.
 */
static __always_inline void xnn_fields_kept(struct hit_batch *b, __u64 op,
					    __u64 index,
					    struct etdump_xnn_slot *x)
{
	/* before the read: a deletion during it makes the next run read */
	__u32 forgets = *(volatile __u32 *)&xnn_forgets;
	struct xnn_kept *k = &b->kept[((op >> 6) ^ index) & (XNN_KEPT - 1)];

	if (xnn_keep_fields && k->op == op && k->forgets == forgets) {
		x->type = k->type;
		x->sub = k->sub;
		x->ukernel = k->ukernel;
		return;
	}
	if (!xnn_fields(op, x) || !xnn_keep_fields)
		return;
	k->op = op;
	k->forgets = forgets;
	k->type = x->type;
	k->sub = x->sub;
	k->ukernel = x->ukernel;
}

/*
 * xnn_run_operator_with_index(op, opdata_index, object_index, ...): the
 * operator's fields, and which object of which operator this is.
 */
static __always_inline void xnn_entry(struct pt_regs *ctx, __u32 id)
{
	struct etdump_xnn_slot x = {
		.part = (PT_REGS_PARM3(ctx) & 7) | (PT_REGS_PARM2(ctx) << 3),
	};
	struct etdump_rec_xnn_call *r;
	struct hit_batch *b;

	if (BATCHING && is_target(bpf_get_current_pid_tgid()) &&
	    (b = thread_batch(true))) {
		xnn_fields_kept(b, PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx), &x);
		batch_xnn_call(b, id, &x);
		return;
	}
	xnn_fields(PT_REGS_PARM1(ctx), &x);
	r = reserve(sizeof(*r), ETDUMP_REC_XNN_CALL);
	if (!r)
		return;
	r->id = id;
	r->part = x.part;
	r->pad = 0;
	r->type = x.type;
	r->sub = x.sub;
	r->ukernel = x.ukernel;
	r->pad2 = 0;
	submit(r);
}

/* record --values: the tensors' layout, and each site's out tensors */
const volatile struct etdump_tensor_layout tensor_layout = {};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized to the number of sites */
	__type(key, __u32);
	__type(value, struct etdump_func_outputs);
} site_outputs SEC(".maps");

/*
 * arm64 passes the address of a result returned in memory in x8 and
 * nothing gives it back at the return (x86-64 returns it in rax): the
 * entry of a kernel whose out tensors are in such a result keeps it for
 * the return. Kernels do not call themselves: one a thread and site.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct call_key);
	__type(value, __u64);
} result_places SEC(".maps");

static __always_inline void keep_result_place(struct pt_regs *ctx, __u32 id)
{
#if defined(__TARGET_ARCH_arm64)
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct call_key k = { .tid = (__u32)pid_tgid, .id = id };
	__u64 x8 = ((const volatile struct user_pt_regs *)ctx)->regs[8];
	const struct etdump_func_outputs *o;

	if (!is_target(pid_tgid))
		return;
	o = bpf_map_lookup_elem(&site_outputs, &id);
	if (o && etdump_outputs_in_memory(o))
		bpf_map_update_elem(&result_places, &k, &x8, BPF_ANY);
#else
	(void)ctx;
	(void)id;
#endif
}

/*
 * Where the result in memory of site id's call is at its return: 0 where
 * none was kept; the return register on x86-64.
 */
static __always_inline __u64 result_place(struct pt_regs *ctx, __u32 id,
					  const struct etdump_func_outputs *o)
{
#if defined(__TARGET_ARCH_arm64)
	struct call_key k = { .tid = (__u32)bpf_get_current_pid_tgid(),
			       .id = id };
	__u64 *kept, at;

	(void)ctx;
	if (!etdump_outputs_in_memory(o))
		return 0;
	kept = bpf_map_lookup_elem(&result_places, &k);
	if (!kept)
		return 0;
	at = *kept;
	bpf_map_delete_elem(&result_places, &k);
	return at;
#else
	(void)id;
	(void)o;
	return PT_REGS_RC(ctx);
#endif
}

SEC("uprobe")
int on_func_entry(struct pt_regs *ctx)
{
	__u32 id = site_id(ctx);
	struct etdump_rec_func_call *r;
	struct etdump_func_site *site;
	struct hit_batch *b;

	if (hits_stopped)
		return 0;
	/* the sites that are more than an entry are looked up */
	if (allocate_sites) {
		site = bpf_map_lookup_elem(&sites, &id);
		if (!site)
			return 0;
		if (site->kind == ETDUMP_FUNC_ALLOCATE) {
			alloc_entry(ctx, id);
			return 0;
		}
	}
	if (read_outputs)
		keep_result_place(ctx, id);
	if (BATCHING && is_target(bpf_get_current_pid_tgid()) &&
	    (b = thread_batch(true))) {
		batch_call(b, id);
		return 0;
	}
	/* the recorder has the description: the id says which */
	r = reserve(sizeof(*r), ETDUMP_REC_FUNC_CALL);
	if (!r)
		return 0;
	r->id = id;
	r->pad = 0;
	submit(r);
	return 0;
}

/*
 * An XNNPACK operator's entry (ETDUMP_FUNC_XNN_OP): a program of its own,
 * attached at those sites alone, so that no other entry looks its site
 * up, and loaded whether or not an XNNPACK is there at the start (a
 * library loaded later may bring one).
 */
SEC("uprobe")
int on_xnn_call(struct pt_regs *ctx)
{
	__u32 id = site_id(ctx);

	if (!hits_stopped)
		xnn_entry(ctx, id);
	return 0;
}

/* Bytes of an element of the schema's ScalarType; 0 for one unknown. */
static __always_inline __u64 element_bytes(__s8 type)
{
	switch (type) {
	case 0: case 1: case 11: case 12: case 13: case 16: case 17:
	case 23: case 24: case 25: case 26:
		return 1;   /* BYTE, CHAR, BOOL, QINT8, QUINT8, QUINT4X2, ... */
	case 2: case 5: case 15: case 22: case 27:
		return 2;   /* SHORT, HALF, BFLOAT16, BITS16, UINT16 */
	case 3: case 6: case 8: case 14: case 28:
		return 4;   /* INT, FLOAT, COMPLEXHALF, QINT32, UINT32 */
	case 4: case 7: case 9: case 29:
		return 8;   /* LONG, DOUBLE, COMPLEXFLOAT, UINT64 */
	case 10:
		return 16;  /* COMPLEXDOUBLE */
	}
	return 0;
}

static __always_inline int read_u64(__u64 *dst, __u64 addr)
{
	return bpf_probe_read_user(dst, sizeof(*dst), (const void *)addr);
}

/*
 * The tensor at `t` described into the stage's descriptor (sizes and
 * strides widened from int32): 0, or -1 when some field could not be read.
 */
static __always_inline int describe_tensor(struct etdump_value_wire *d,
					   __u64 t)
{
	__s32 sizes[ETDUMP_VALUE_DIM_MAX_REC], strides[ETDUMP_VALUE_DIM_MAX_REC];
	__u64 impl, sizes_at, strides_at, data, dim, numel, size;
	__s8 type;
	__u32 i;

	if (read_u64(&impl, t + tensor_layout.impl) ||
	    read_u64(&sizes_at, impl + tensor_layout.sizes) ||
	    read_u64(&strides_at, impl + tensor_layout.strides) ||
	    read_u64(&data, impl + tensor_layout.data) ||
	    read_u64(&dim, impl + tensor_layout.dim) ||
	    read_u64(&numel, impl + tensor_layout.numel) ||
	    bpf_probe_read_user(&type, 1,
				(const void *)(impl + tensor_layout.type)))
		return -1;
	if (dim > ETDUMP_VALUE_DIM_MAX_REC || (__s64)numel < 0)
		return -1;
	size = dim * sizeof(__s32);
	if (size > sizeof(sizes))
		return -1;
	if (bpf_probe_read_user(sizes, size, (const void *)sizes_at) ||
	    bpf_probe_read_user(strides, size, (const void *)strides_at))
		return -1;
	d->type = 5; /* ETDUMP_VALUE_TENSOR */
	d->scalar_type = type;
	d->dim = dim;
	for (i = 0; i < ETDUMP_VALUE_DIM_MAX_REC; i++) {
		d->sizes[i] = i < dim ? sizes[i] : 0;
		d->strides[i] = i < dim ? strides[i] : 0;
	}
	d->data = data;
	d->nbytes = numel * element_bytes(type);
	/* a dtype this does not know the size of: nothing is passed off */
	return element_bytes(type) ? 0 : -1;
}

/*
 * Where the rules place out tensor i: the return register, or the
 * result in memory at mem.
 */
static __always_inline int out_tensor(const struct etdump_func_outputs *o,
				      __u32 i, __u64 ret, __u64 mem, __u64 *t)
{
	if (o->place[i] == ETDUMP_OUT_RET) {
		*t = ret;
		return 0;
	}
	if (o->place[i] == ETDUMP_OUT_SRET && mem)
		return read_u64(t, mem + o->offset[i]);
	return -1;
}

/*
 * One out tensor as a VALUE record after its VALUE_DATA: one the probe
 * cannot read goes out marked unread (the collector counts it lost).
 */
static __always_inline void out_value(const struct etdump_func_outputs *o,
				      __u32 i, __u64 ret, __u64 mem,
				      const bool bounded)
{
	struct value_copy c = { .ts = bpf_ktime_get_ns() };
	struct etdump_rec_value *r;
	__u32 zero = 0;
	__u64 t;

	c.id = bpf_get_current_pid_tgid();
	c.stage = bpf_map_lookup_elem(&value_stage, &zero);
	if (!c.stage)
		return;
	__builtin_memset(&c.stage->desc, 0, sizeof(c.stage->desc));
	c.stage->desc.delegate_id_int = -1;
	if (out_tensor(o, i, ret, mem, &t) ||
	    describe_tensor(&c.stage->desc, t)) {
		__builtin_memset(&c.stage->desc, 0, sizeof(c.stage->desc));
		c.rec_flags = ETDUMP_VREC_UNREAD;
	} else if (bounded) {
		copy_value_data_bounded(&c);
	} else {
		copy_value_data(&c);
	}
	r = reserve_at(sizeof(*r), ETDUMP_REC_VALUE, c.ts);
	if (!r)
		return;
	r->kind = 0;
	r->rec_flags = c.rec_flags | ETDUMP_VREC_AT_RETURN;
	r->chain = -1; /* the translator's to set */
	r->instr = 0;
	r->copied = c.copied;
	r->name_len = 0;
	r->desc = c.stage->desc;
	submit(r);
}

static __always_inline void out_values(struct pt_regs *ctx, __u32 id,
				       const bool bounded)
{
	const struct etdump_func_outputs *o;
	__u64 ret = PT_REGS_RC(ctx), mem;
	__u32 i;

	o = bpf_map_lookup_elem(&site_outputs, &id);
	if (!o)
		return;
	mem = result_place(ctx, id, o);
	for (i = 0; i < ETDUMP_OUT_MAX; i++) {
		if (i >= o->n)
			break;
		out_value(o, i, ret, mem, bounded);
	}
}

/*
 * Without cookies and with --values, a site's copy of the exit is
 * on_func_exit_stub, not the whole exit: a copy holding value_copy's
 * bounded loop took the verifier ~0.5 s here (seconds in a slow guest),
 * the stub a fraction of a ms. It stamps the return, leaves the site in
 * the thread's entry of exit_hits and jumps to the one exit program.
 * By thread: a per-CPU slot could be another's by then where the kernel
 * preempts BPF programs.
 */
const volatile bool exit_by_stub = false;

struct exit_hit {
	__u64 ts;
	__u32 id;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct exit_hit);
} exit_hits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} exit_program SEC(".maps");

SEC("uretprobe")
int on_func_exit_stub(struct pt_regs *ctx)
{
	struct exit_hit h = { .ts = bpf_ktime_get_ns() };
	__u32 tid = bpf_get_current_pid_tgid();
	__u64 id;

	if (hits_stopped)
		return 0;
	asm volatile("%[id] = " SYMBOL_SITE_ID_MAGIC_ASM " ll" : [id] "=r"(id));
	h.id = id;
	if (bpf_map_update_elem(&exit_hits, &tid, &h, BPF_ANY))
		return 0;
	bpf_tail_call(ctx, &exit_program, 0);
	return 0;
}

/*
 * bounded: the values' bytes copied without bpf_loop (value_copy.bpf.h),
 * where the kernel has none, and in the per-site copies, which a kernel
 * refuses a callback in without the BTF that libbpf alone holds.
 */
static __always_inline int func_exit(struct pt_regs *ctx, const bool bounded)
{
	__u64 ts = bpf_ktime_get_ns();
	__u32 id, tid = bpf_get_current_pid_tgid();
	struct etdump_func_site *site;
	struct etdump_rec_func_exit *r;
	struct exit_hit *h;
	struct hit_batch *b;

	if (hits_stopped)
		return 0;
	if (exit_by_stub) {
		h = bpf_map_lookup_elem(&exit_hits, &tid);
		if (!h)
			return 0;
		ts = h->ts;
		id = h->id;
	} else {
		id = site_id(ctx);
	}
	if (allocate_sites) {
		site = bpf_map_lookup_elem(&sites, &id);
		if (site && site->kind == ETDUMP_FUNC_ALLOCATE) {
			alloc_exit(ctx, id, site);
			return 0;
		}
	}

	/*
	 * before the exit record: inside the kernel's scope, as ETDumpGen
	 * logs them; the exit keeps the time the kernel returned, so the
	 * copy does not lengthen the kernel
	 */
	if (read_outputs && is_target(bpf_get_current_pid_tgid()))
		out_values(ctx, id, bounded);
	/* no buffer: the thread's entries went to the ring too */
	if (BATCHING && is_target(bpf_get_current_pid_tgid()) &&
	    (b = thread_batch(false))) {
		batch_exit(b, id, ts);
		return 0;
	}
	r = reserve_at(sizeof(*r), ETDUMP_REC_FUNC_EXIT, ts);
	if (!r)
		return 0;
	r->id = id;
	r->pad = 0;
	submit(r);
	return 0;
}

SEC("uretprobe")
int on_func_exit(struct pt_regs *ctx)
{
	return func_exit(ctx, false);
}

/* The recorder loads one of the two: a 5.10 kernel refuses the other. */
SEC("uretprobe")
int on_func_exit_bounded(struct pt_regs *ctx)
{
	return func_exit(ctx, true);
}

/*
 * The recording ends, its probes out: what the target's threads still
 * keep (calls open, a run executing) into the ring, after all they sent.
 */
SEC("iter/task")
int hand_over_kept(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct hit_batch *b;

	if (!BATCHING || !task || !is_target_tgid(task->tgid))
		return 0;
	b = batch_task_storage ? bpf_task_storage_get(&hit_batches, task, 0, 0) :
				 tid_batch(task->tgid, task->pid, false);
	if (b)
		batch_flush_claimed(b, task->tgid, task->pid);
	return 0;
}

/*
 * A thread that exits with hits kept (a run cut short, a crash): they go
 * in as the ring would have had them. After the recording's end the
 * hand-over may be at the same buffer (hit_batch.bpf.h), and a hash
 * map's entry may be in its hands: it stays.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_thread_exit)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct hit_batch *b;

	if (!BATCHING || !is_target(id))
		return 0;
	b = thread_batch(false);
	if (!b)
		return 0;
	if (hits_stopped) {
		batch_flush_claimed(b, id >> 32, (__u32)id);
		return 0;
	}
	batch_flush(b, id >> 32, (__u32)id);
	batch_forget((__u32)id);
	return 0;
}
