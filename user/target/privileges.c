// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "target/privileges.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool has_cap(const struct __user_cap_data_struct *data, int cap)
{
	return data[cap / 32].effective & (1u << (cap % 32));
}

int privileges_check_record(char *msg, size_t len)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &hdr, data))
		return 0; /* cannot tell: let the kernel decide */
	/*
	 * CAP_BPF and CAP_PERFMON load the programs, but uprobe perf events
	 * need CAP_SYS_ADMIN on this kernel.
	 */
	if (has_cap(data, CAP_SYS_ADMIN))
		return 0;
	snprintf(msg, len,
		 "attaching uprobes needs CAP_SYS_ADMIN, which this process lacks%s; run as root or grant it (e.g. sudo)",
		 has_cap(data, CAP_BPF) && has_cap(data, CAP_PERFMON) ?
			 " (CAP_BPF and CAP_PERFMON alone are not enough)" :
			 "");
	return -EPERM;
}
