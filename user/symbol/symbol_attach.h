/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbol_attach.h - bpf/symbols.bpf.c loaded to write into a capture's
 * ring buffer and attached at every site (symbol_sites.h), an entry
 * uprobe and a uretprobe each, or a plain uprobe at each exit of its own
 * (site_list.h), the site's id as cookie; the returns of the kernels that
 * end at the next event in links of their own, taken out once the gaps
 * after them are measured: one link per object and kind
 * of probe where the kernel has uprobe_multi links (Linux 6.6,
 * uprobe_multi.h), else one link per probe. Where it has no cookies
 * (5.15), each site's probes run a copy of the programs of their own
 * (site_programs.h) through a perf event (perf_uprobe.h); where it has no
 * task storage (5.11), the hits a thread keeps are in a hash map by
 * thread id (bpf/hit_batch.bpf.h). Each way taken is a line of the
 * summary (kernel_features_note()).
 */
#ifndef ETDUMP_SYMBOL_ATTACH_H
#define ETDUMP_SYMBOL_ATTACH_H

#include <sys/types.h>

struct capture;
struct symbol_attach;
struct symbol_sites;

/* Says why with p_err(); negative errno. *nprobes: probes attached. */
int symbol_attach_open(struct symbol_attach **out,
		       const struct symbol_sites *sites, struct capture *cap,
		       pid_t pid, int *nprobes);
/*
 * The same into a ring buffer and a per-CPU drop counter of one's own
 * (ring.bpf.h's `events` and `drops`): the probes' calibration.
 */
int symbol_attach_to_ring(struct symbol_attach **out,
			  const struct symbol_sites *sites, int ring_fd,
			  int drops_fd, pid_t pid, int *nprobes);
/*
 * A library the target loaded later: the sites from `first` on (its own,
 * appended to sites) into the site table and attached, as the first
 * ones were, into the same programs. Their kernels' returns are probed
 * while the gaps are still measured (they go with the others), not once
 * they were. -ENOSPC when the table has no room left; else as
 * symbol_attach_open() (a probe that failed is said).
 */
int symbol_attach_add(struct symbol_attach *a,
		      const struct symbol_sites *sites, size_t first,
		      pid_t pid, int *nprobes);
/*
 * record --duty: every probe taken out, the programs and maps kept; then
 * put back at the same sites (says why with p_err(); negative errno, no
 * probe left then).
 */
void symbol_attach_pause(struct symbol_attach *a);
/*
 * The recording ends: no hit recorded from now on, every probe taken out,
 * then the hits the target's threads keep (bpf/hit_batch.bpf.h) into the
 * ring: 0 or negative errno.
 */
int symbol_attach_hand_over(struct symbol_attach *a);
/*
 * The gaps after the kernels that end at the next event are measured
 * (gap_table.h): their return probes out for good, --duty's attaches
 * included; how many links or perf events go.
 */
enum gap_drop {
	GAP_DROP_NOW,           /* out when this returns */
	/* in a thread of its own, beside the caller (a grace period per
	   link: a second and more without uprobe_multi) */
	GAP_DROP_BESIDE,
	GAP_DROP_AT_PAUSE,      /* with the others at the next pause */
};
size_t symbol_attach_drop_gap_probes(struct symbol_attach *a,
				     enum gap_drop when);
/*
 * The probes put back after a pause: 0 or negative errno, -ESRCH unsaid
 * (the target exited meanwhile: the caller's to tell).
 */
int symbol_attach_resume(struct symbol_attach *a,
			 const struct symbol_sites *sites, pid_t pid);
void symbol_attach_close(struct symbol_attach *a);

#endif /* ETDUMP_SYMBOL_ATTACH_H */
