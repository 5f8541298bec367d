// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "capture/uprobe_multi.h"

/* From Linux 6.6's uapi <linux/bpf.h>; Debian 12's headers predate it. */
#define TRACE_UPROBE_MULTI 48           /* enum bpf_attach_type */
#define F_UPROBE_MULTI_RETURN (1U << 0)

/* union bpf_attr as BPF_LINK_CREATE reads it for uprobe_multi. */
struct link_create_uprobe_multi {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__aligned_u64 path;
	__aligned_u64 offsets;
	__aligned_u64 ref_ctr_offsets;
	__aligned_u64 cookies;
	__u32 cnt;
	__u32 multi_flags;
	__u32 pid;
};

int uprobe_multi_prepare(struct bpf_program *prog)
{
	return bpf_program__set_expected_attach_type(prog, TRACE_UPROBE_MULTI);
}

int uprobe_multi_attach(const struct bpf_program *prog, pid_t pid,
			const char *path, const uint64_t *offsets,
			const uint64_t *cookies, size_t n, bool retprobe)
{
	struct link_create_uprobe_multi attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = bpf_program__fd(prog);
	attr.attach_type = TRACE_UPROBE_MULTI;
	attr.path = (uintptr_t)path;
	attr.offsets = (uintptr_t)offsets;
	attr.cookies = (uintptr_t)cookies;
	attr.cnt = n;
	attr.multi_flags = retprobe ? F_UPROBE_MULTI_RETURN : 0;
	attr.pid = pid;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : (int)fd;
}
