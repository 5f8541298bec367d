/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * follow_children.bpf.h - the targets' descendants (record without
 * --no-inherit): each process forked by a followed one is followed too,
 * from the fork on (in the kernel, so that none slips through while the
 * recorder is busy); when one execs, the recorder hears it through a ring
 * of its own and looks for etdump probes in the new executable; at its
 * exit it leaves the map, so that its pid, once reused, is nobody's.
 *
 * Part of capture.bpf.c's object, loaded only when children are followed:
 * one object reads the kernel's BTF once (several megabytes, the larger
 * part of the recorder's start) where a second object read it again.
 */
#ifndef FOLLOW_CHILDREN_BPF_H
#define FOLLOW_CHILDREN_BPF_H

#include <bpf/bpf_core_read.h>
#include "schema/etdump_follow.h"
#include "bpf/followed_map.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 10);
} execs SEC(".maps");

/*
 * The files armed: an exec of one is recorded at once (FOLLOW_RECORDED).
 * Two keys a file: by its device and by its folder's (armed_binaries.h).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2 * FOLLOW_MAX_ARMED);
	__type(key, struct follow_armed_key);
	__type(value, __u8);
} armed SEC(".maps");

/*
 * A kernel without BPF cookies (before 5.15) cannot run the capture
 * programs on an armed file's uprobe events before its exec (libbpf finds
 * a site's spec by its address then): the recorder arms no events, and a
 * process that execs an armed file is stopped here instead, before its
 * first instruction, until the recorder has attached to it and sends
 * SIGCONT. Only once its exec is in the ring: one the recorder will not
 * hear of must not wait for it.
 */
const volatile bool stop_armed_at_exec = false;
#define SIGSTOP_NR 19 /* x86-64 and arm64 alike */

/* Forks not followed (the map full) and execs not heard (the ring full). */
__u64 forks_lost = 0;
__u64 execs_lost = 0;
__u64 execs_begun = 0;

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 tracked = FOLLOW_TRACKED;

	/* a new thread is its process's already */
	if (child->pid != child->tgid)
		return 0;
	if (!bpf_map_lookup_elem(&followed, &ptgid))
		return 0;
	if (bpf_map_update_elem(&followed, &ctgid, &tracked, BPF_NOEXIST))
		__sync_fetch_and_add(&forks_lost, 1);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	struct follow_armed_key key = {};
	__u32 tgid = p->tgid;
	struct follow_exec *r;
	bool is_armed;
	__u8 *f;

	f = bpf_map_lookup_elem(&followed, &tgid);
	if (!f)
		return 0;
	/*
	 * Read, not walked: the verifier looks up each pointer a program
	 * walks in the kernel's BTF by name, one scan of every type each
	 * (a fifth of the recorder's start here).
	 */
	key.dev = BPF_CORE_READ(bprm, file, f_inode, i_sb, s_dev);
	key.ino = BPF_CORE_READ(bprm, file, f_inode, i_ino);
	/*
	 * Counted before the flag (the atomic orders the two): a recorder
	 * that sees the flag and has read fewer records (or losses) than
	 * this count knows an exec is still on its way into the ring.
	 */
	__sync_fetch_and_add(&execs_begun, 1);
	/*
	 * The recorder, which alone writes the map too, sets them as well. An
	 * armed file's probes fire from its first instruction, which runs
	 * after this: its events count from the start.
	 */
	is_armed = bpf_map_lookup_elem(&armed, &key);
	*f |= FOLLOW_EXECED | (is_armed ? FOLLOW_RECORDED : 0);
	r = bpf_ringbuf_reserve(&execs, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&execs_lost, 1);
		return 0;
	}
	r->tgid = tgid;
	r->dev = key.dev;
	r->ino = key.ino;
	if (bpf_probe_read_kernel_str(r->filename, sizeof(r->filename),
				      bprm->filename) < 0)
		r->filename[0] = '\0';
	/* woken at once: every moment before the attach loses events */
	bpf_ringbuf_submit(r, BPF_RB_FORCE_WAKEUP);
	if (is_armed && stop_armed_at_exec)
		bpf_send_signal(SIGSTOP_NR);
	return 0;
}

/*
 * The last thread of a process: signal->live is decremented before this
 * tracepoint on every kernel (6.18 passes it as group_dead too).
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;

	if (BPF_CORE_READ(p, signal, live.counter))
		return 0;
	bpf_map_delete_elem(&followed, &tgid);
	return 0;
}

#endif /* FOLLOW_CHILDREN_BPF_H */
