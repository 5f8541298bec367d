/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perf_uprobe.h - a uprobe made as a perf event of the kernel's "uprobe"
 * PMU (Linux 4.17), a program attached by its fd: what libbpf does for a
 * struct bpf_program, for the per-site copies of site_programs.h, which
 * libbpf never saw. Such a link carries no BPF cookie, which is why
 * those copies exist.
 */
#ifndef ETDUMP_PERF_UPROBE_H
#define ETDUMP_PERF_UPROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A uprobe (retprobe: a uretprobe) at file offset of path, for process
 * pid's threads, running prog_fd: the perf event's fd (closing it takes
 * the probe out), or a negative errno.
 */
int perf_uprobe_attach(int prog_fd, pid_t pid, const char *path,
		       uint64_t offset, bool retprobe);

#endif /* ETDUMP_PERF_UPROBE_H */
