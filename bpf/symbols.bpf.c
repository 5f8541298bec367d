// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * symbols.bpf.c - symbol mode: a uprobe at the entry and a uretprobe at the
 * return of each function a rules file names. The BPF cookie is the site's
 * index in `sites`, whose description each entry record carries whole.
 *
 * The ring buffer and the drop counter are capture.bpf.c's own maps, shared
 * by fd (user/symbol_mode.c), so both kinds of record reach one collector.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "etdump_record.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set before load. */
const volatile __u32 target_tgid = 0;
const volatile __u64 wakeup_bytes = 1 << 20;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096); /* replaced by capture's ring */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized to the number of sites */
	__type(key, __u32);
	__type(value, struct etdump_func_site);
} sites SEC(".maps");

/*
 * The uprobe's pid filter already limits hits to the target; the check
 * here also keeps out its children, which share the probed file.
 */
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
	__builtin_memset(hdr, 0, sizeof(*hdr));
	hdr->type = type;
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

SEC("uprobe")
int on_func_entry(struct pt_regs *ctx)
{
	__u32 id = bpf_get_attach_cookie(ctx);
	struct etdump_rec_func_entry *r;
	struct etdump_func_site *site;

	site = bpf_map_lookup_elem(&sites, &id);
	if (!site)
		return 0;
	r = reserve(sizeof(*r), ETDUMP_REC_FUNC_ENTRY);
	if (!r)
		return 0;
	__builtin_memcpy(&r->site, site, sizeof(*site));
	submit(r);
	return 0;
}

SEC("uretprobe")
int on_func_exit(struct pt_regs *ctx)
{
	struct etdump_rec_func_exit *r;

	r = reserve(sizeof(*r), ETDUMP_REC_FUNC_EXIT);
	if (!r)
		return 0;
	r->id = bpf_get_attach_cookie(ctx);
	r->pad = 0;
	submit(r);
	return 0;
}
