// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "symbol/perf_uprobe.h"

#define PMU_DIR "/sys/bus/event_source/devices/uprobe/"

/* A number read from a sysfs file of the PMU, after prefix. */
static int read_pmu_number(const char *file, const char *prefix, int *out)
{
	char line[64];
	FILE *f = fopen(file, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(line, sizeof(line), f) &&
	     !strncmp(line, prefix, strlen(prefix)) &&
	     sscanf(line + strlen(prefix), "%d", out) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

/* The PMU's type, and the bit of config that makes a uretprobe. */
static int uprobe_pmu(int *type, int *ret_bit)
{
	static int pmu_type = -1, pmu_ret_bit = -1;
	int err = 0;

	if (pmu_type < 0) {
		err = read_pmu_number(PMU_DIR "type", "", &pmu_type);
		if (!err)
			err = read_pmu_number(PMU_DIR "format/retprobe",
					      "config:", &pmu_ret_bit);
		if (err)
			pmu_type = -1;
	}
	*type = pmu_type;
	*ret_bit = pmu_ret_bit;
	return err;
}

int perf_uprobe_attach(int prog_fd, pid_t pid, const char *path,
		       uint64_t offset, bool retprobe)
{
	struct perf_event_attr attr;
	int type, ret_bit, err, fd;

	err = uprobe_pmu(&type, &ret_bit);
	if (err)
		return err;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = retprobe ? 1ull << ret_bit : 0;
	attr.uprobe_path = (uintptr_t)path;
	attr.probe_offset = offset;
	/* every thread of the process: a uprobe's filter is its memory */
	fd = syscall(__NR_perf_event_open, &attr, pid < 0 ? -1 : pid,
		     pid < 0 ? 0 : -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}
