/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uprobe_multi.h - many uprobes of one BPF program in one link
 * (BPF_TRACE_UPROBE_MULTI, Linux 6.6), which libbpf 1.1 cannot make.
 * Removing a uprobe waits for a grace period, and the kernel removes
 * them one at a time (~0.1 s each here): a link per probe makes a
 * recording of hundreds of kernels take minutes to end; one link waits
 * once for all of its probes.
 */
#ifndef ETDUMP_UPROBE_MULTI_H
#define ETDUMP_UPROBE_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bpf_program;

/* Before the object is loaded: the program will attach this way. */
int uprobe_multi_prepare(struct bpf_program *prog);
/*
 * One link for n probes at offsets of path, for process pid; cookies[i]
 * is the cookie of offsets[i]; retprobe: at the function's return. The
 * link's fd (close it to detach), or a negative errno: -EINVAL or
 * -EOPNOTSUPP when the kernel predates uprobe_multi links.
 */
int uprobe_multi_attach(const struct bpf_program *prog, pid_t pid,
			const char *path, const uint64_t *offsets,
			const uint64_t *cookies, size_t n, bool retprobe);

#endif /* ETDUMP_UPROBE_MULTI_H */
