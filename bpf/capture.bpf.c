// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * capture.bpf.c - one USDT program per etdump probe: stamp the event and
 * push it into the ring buffer as the record schema/etdump_record.h defines.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>
#include "etdump_record.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the collector before load. */
const volatile __u32 target_tgid = 0;
/*
 * Waking the collector per event costs microseconds; it polls on a timer
 * instead and is woken early only once this much data is waiting.
 */
const volatile __u64 wakeup_bytes = 1 << 20;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* resized by the collector */
} events SEC(".maps");

/* Reserve failures, per CPU: every lost record is counted. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

static __always_inline void *reserve(__u32 size, __u8 type)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u64 ts = bpf_ktime_get_ns();
	struct etdump_rec_hdr *hdr;
	__u32 zero = 0;
	__u64 *lost;

	if ((__u32)(id >> 32) != target_tgid)
		return NULL;
	hdr = bpf_ringbuf_reserve(&events, size, 0);
	if (!hdr) {
		lost = bpf_map_lookup_elem(&drops, &zero);
		if (lost)
			(*lost)++;
		return NULL;
	}
	hdr->type = type;
	hdr->ncounters = 0;
	hdr->size = size;
	hdr->cpu = bpf_get_smp_processor_id();
	hdr->pid = id >> 32;
	hdr->tid = (__u32)id;
	hdr->ts = ts;
	return hdr;
}

static __always_inline void submit(void *rec)
{
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(rec, flags);
}

/*
 * Bounded copy of a user string; its length without the NUL, or
 * ETDUMP_NAME_UNREAD when the page was not present (no faulting here).
 */
static __always_inline __u16 copy_name(char *dst, const char *src)
{
	long n;

	dst[0] = '\0';
	if (!src)
		return 0;
	n = bpf_probe_read_user_str(dst, ETDUMP_NAME_MAX, src);
	if (n <= 0) {
		dst[0] = '\0';
		return ETDUMP_NAME_UNREAD;
	}
	return n - 1;
}

static __always_inline __u32 copy_meta(__u8 *dst, const void *src, __u64 len)
{
	__u32 n = len > ETDUMP_META_MAX ? ETDUMP_META_MAX : len;

	if (!src || !n)
		return 0;
	if (bpf_probe_read_user(dst, n & (ETDUMP_META_MAX * 2 - 1), src))
		return 0;
	return n;
}

SEC("usdt")
int BPF_USDT(on_block, const char *name)
{
	struct etdump_rec_block *r;

	r = reserve(sizeof(*r), ETDUMP_REC_BLOCK);
	if (!r)
		return 0;
	r->name_len = copy_name(r->name, name);
	submit(r);
	return 0;
}

static __always_inline int emit_begin(__u8 type, const char *name, long chain,
				      long instr, long id_int)
{
	struct etdump_rec_begin *r;

	r = reserve(sizeof(*r), type);
	if (!r)
		return 0;
	r->token = (__u64)name;
	r->chain = chain;
	r->instr = instr;
	r->id_int = id_int;
	r->name_len = copy_name(r->name, name);
	submit(r);
	return 0;
}

static __always_inline int emit_end(__u8 type, __u64 token, const void *meta,
				    __u64 meta_len)
{
	struct etdump_rec_end *r;

	r = reserve(sizeof(*r), type);
	if (!r)
		return 0;
	r->token = token;
	r->meta_len_orig = meta_len;
	r->meta_len = copy_meta(r->meta, meta, meta_len);
	submit(r);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_profile_begin, const char *name, long chain, long instr)
{
	return emit_begin(ETDUMP_REC_PROFILE_BEGIN, name, chain, instr, -1);
}

SEC("usdt")
int BPF_USDT(on_profile_end, const char *name)
{
	return emit_end(ETDUMP_REC_PROFILE_END, (__u64)name, NULL, 0);
}

SEC("usdt")
int BPF_USDT(on_instruction, long chain, long instr)
{
	struct etdump_rec_instruction *r;

	r = reserve(sizeof(*r), ETDUMP_REC_INSTRUCTION);
	if (!r)
		return 0;
	r->chain = chain;
	r->instr = instr;
	submit(r);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_delegate_begin, const char *id_str, long id_int)
{
	return emit_begin(ETDUMP_REC_DELEGATE_BEGIN, id_str, -1, 0, id_int);
}

SEC("usdt")
int BPF_USDT(on_delegate_end, const void *meta, __u64 meta_len)
{
	return emit_end(ETDUMP_REC_DELEGATE_END, 0, meta, meta_len);
}

SEC("usdt")
int BPF_USDT(on_delegate_log, const char *id_str, long id_int, __u64 start,
	     __u64 end, const void *meta, __u64 meta_len)
{
	struct etdump_rec_delegate_log *r;

	r = reserve(sizeof(*r), ETDUMP_REC_DELEGATE_LOG);
	if (!r)
		return 0;
	r->start = start;
	r->end = end;
	r->id_int = id_int;
	r->name_len = copy_name(r->name, id_str);
	r->meta_len_orig = meta_len;
	r->meta_len = copy_meta(r->meta, meta, meta_len);
	submit(r);
	return 0;
}
