// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture/kernel_features.h"
#include "lib/load_retry.h"
#include "lib/log.h"

#define FEATURE(field, what, since)                                          \
	{ #field, what, since, offsetof(struct kernel_features, field) }

const struct kernel_feature_info kernel_feature_table[] = {
	FEATURE(ringbuf, "BPF ring buffers", "5.8"),
	FEATURE(ns_pid, "bpf_get_ns_current_pid_tgid", "5.7"),
	FEATURE(task_storage, "task storage maps", "5.11"),
	FEATURE(current_task_btf, "bpf_get_current_task_btf", "5.11"),
	FEATURE(bpf_cookie, "BPF cookies", "5.15"),
	FEATURE(bpf_loop, "bpf_loop", "5.17"),
	FEATURE(uprobe_multi, "uprobe_multi links", "6.6"),
};
const size_t kernel_feature_count =
	sizeof(kernel_feature_table) / sizeof(kernel_feature_table[0]);

bool kernel_feature_has(const struct kernel_features *kf,
			const struct kernel_feature_info *info)
{
	return *(const bool *)((const char *)kf + info->offset);
}

static bool has_map(enum bpf_map_type type)
{
	return libbpf_probe_bpf_map_type(type, NULL) == 1;
}

/* Helpers are probed for kprobe programs: what USDT programs are. */
static bool has_helper(enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, id, NULL) == 1;
}

/* enum bpf_attach_type's BPF_TRACE_UPROBE_MULTI (6.6; Debian 12's uapi predates it) */
#define ATTACH_UPROBE_MULTI 48

/* A program that returns 0, for a uprobe_multi link: its fd or -errno. */
static int load_ret0(void *ctx, bool last)
{
	struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = ATTACH_UPROBE_MULTI);

	(void)ctx;
	(void)last;     /* a refusal is the kernel's answer: nothing to say */
	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", ret0, 2, &opts);
}

/*
 * A uprobe_multi link on "/": a kernel that has them looks the path up
 * and refuses a directory with EBADF; one that has not refuses the
 * attach type (EINVAL) first. No link is ever made. The program's load
 * retried as every load is: a signal there is no kernel without them.
 */
static bool has_uprobe_multi(void)
{
	/* BPF_LINK_CREATE's attr as uprobe_multi reads it */
	struct {
		__u32 prog_fd, target_fd, attach_type, flags;
		__aligned_u64 path, offsets, ref_ctr_offsets, cookies;
		__u32 cnt, multi_flags, pid;
	} attr;
	__u64 offset = 0;
	int prog, link, err;

	prog = load_retry(load_ret0, NULL, NULL);
	if (prog < 0)
		return false;
	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = prog;
	attr.attach_type = ATTACH_UPROBE_MULTI;
	attr.path = (uintptr_t)"/";
	attr.offsets = (uintptr_t)&offset;
	attr.cnt = 1;
	link = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	err = link < 0 ? errno : 0;
	if (link >= 0)
		close(link);
	close(prog);
	return err == EBADF;
}

static void probe(struct kernel_features *kf)
{
	kf->ringbuf = has_map(BPF_MAP_TYPE_RINGBUF);
	kf->ns_pid = has_helper(BPF_FUNC_get_ns_current_pid_tgid);
	kf->task_storage = has_map(BPF_MAP_TYPE_TASK_STORAGE);
	kf->current_task_btf = has_helper(BPF_FUNC_get_current_task_btf);
	kf->bpf_cookie = has_helper(BPF_FUNC_get_attach_cookie);
	kf->bpf_loop = has_helper(BPF_FUNC_loop);
	kf->uprobe_multi = has_uprobe_multi();
}

/* ETDUMP_KERNEL_LACKS: what the tests make this kernel go without. */
static void forget_forced(struct kernel_features *kf)
{
	const char *env = getenv("ETDUMP_KERNEL_LACKS");
	char *list, *name, *save = NULL;
	size_t i;

	if (!env || !*env)
		return;
	list = strdup(env);
	if (!list)
		return;
	for (name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < kernel_feature_count; i++)
			if (!strcmp(name, kernel_feature_table[i].name))
				break;
		if (i == kernel_feature_count) {
			p_warn("ETDUMP_KERNEL_LACKS: no kernel feature '%s'", name);
			continue;
		}
		*(bool *)((char *)kf + kernel_feature_table[i].offset) = false;
	}
	free(list);
}

const struct kernel_features *kernel_features(void)
{
	static struct kernel_features kf;
	static bool probed;

	if (!probed) {
		probe(&kf);
		forget_forced(&kf);
		probed = true;
	}
	return &kf;
}

#define MAX_NOTES 16

static char *notes[MAX_NOTES];
static size_t nnotes, nprinted;

void kernel_features_note(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (i = 0; i < nnotes; i++)
		if (!strcmp(notes[i], line))
			return;
	if (nnotes < MAX_NOTES && (notes[nnotes] = strdup(line)))
		nnotes++;
}

const char *const *kernel_features_notes(size_t *n)
{
	*n = nnotes;
	return (const char *const *)notes;
}

void kernel_features_print_notes(void)
{
	for (; nprinted < nnotes; nprinted++)
		p_info("%s", notes[nprinted]);
}
