/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etdump_follow.h - following a recording's children (record without
 * --no-inherit): the map of the processes descended from the targets,
 * shared by bpf/follow_children.bpf.h (which fills it at fork and empties it at
 * exit), bpf/ring.bpf.h (whose filter lets a recorded one's events in) and
 * user/capture/follow_children.c (which marks the ones it attached to), and
 * the record bpf/follow_children.bpf.h sends when one of them execs.
 */
#ifndef ETDUMP_FOLLOW_H
#define ETDUMP_FOLLOW_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Descendants followed at once; a fork beyond it is counted, not followed. */
#define FOLLOW_MAX_PROCESSES 8192

/* The map's value, by tgid. */
#define FOLLOW_TRACKED 0x1   /* a target or a descendant: its forks are too */
#define FOLLOW_RECORDED 0x2  /* its probes are attached (or armed): its events count */
#define FOLLOW_EXECED 0x4    /* it exec'd since its fork (not a subshell) */

#define FOLLOW_FILENAME_MAX 256

/*
 * A followed process exec'd: the recorder looks at its new executable.
 * The file as exec'd (its inode, its name as given to execve, cut at
 * FOLLOW_FILENAME_MAX - 1) tells, when the process is gone before it is
 * looked at, whether a runtime with probes was missed.
 */
struct follow_exec {
	__u32 tgid;
	__u32 dev;        /* the kernel's dev_t: major << 20 | minor */
	__u64 ino;
	char filename[FOLLOW_FILENAME_MAX];
};

/*
 * A file armed before the command started (armed_binaries.h): a followed
 * process that execs it is recorded from its exec on, by the kernel.
 */
#define FOLLOW_MAX_ARMED 64

struct follow_armed_key {
	__u32 dev;        /* the kernel's dev_t, as in struct follow_exec */
	__u32 pad;
	__u64 ino;
};

#endif /* ETDUMP_FOLLOW_H */
