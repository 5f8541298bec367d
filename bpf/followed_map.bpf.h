/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The processes followed (etdump_follow.h): one map for bpf/ring.bpf.h's
 * filter and bpf/follow_children.bpf.h's tracepoints, both in
 * capture.bpf.c's object.
 */
#ifndef FOLLOWED_MAP_BPF_H
#define FOLLOWED_MAP_BPF_H

#include "schema/etdump_follow.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FOLLOW_MAX_PROCESSES);
	__type(key, __u32);
	__type(value, __u8);
} followed SEC(".maps");

#endif /* FOLLOWED_MAP_BPF_H */
