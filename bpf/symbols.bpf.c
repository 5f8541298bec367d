// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * symbols.bpf.c - symbol mode: a uprobe at the entry and a uretprobe at the
 * return of each function a rules file names. The BPF cookie is the site's
 * index in `sites`, whose description each entry record carries whole.
 *
 * The ring buffer and the drop counter are capture.bpf.c's own maps, shared
 * by fd (user/symbol/symbol_mode.c), so both kinds of record reach one collector.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "ring.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized to the number of sites */
	__type(key, __u32);
	__type(value, struct etdump_func_site);
} sites SEC(".maps");

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
