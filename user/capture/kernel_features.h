/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kernel_features.h - what the running kernel's BPF has, found by trying
 * each thing (a map created, a helper verified, a link made), never by its
 * version number: one place answers "does this kernel have X?" for record,
 * symbol mode and doctor. Probed once, on first use, and cached.
 *
 * ETDUMP_KERNEL_LACKS=name,name... (the names of kernel_feature_table)
 * makes a feature the kernel has count as missing, so that a fallback can
 * be run, and tested, on a kernel that would not need it.
 *
 * A fallback taken says so in one line of the record summary:
 * kernel_features_note() collects the lines, kernel_features_notes() gives
 * them back.
 */
#ifndef ETDUMP_KERNEL_FEATURES_H
#define ETDUMP_KERNEL_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

struct kernel_features {
	bool ringbuf;           /* BPF_MAP_TYPE_RINGBUF (5.8) */
	bool ns_pid;            /* bpf_get_ns_current_pid_tgid (5.7) */
	bool task_storage;      /* BPF_MAP_TYPE_TASK_STORAGE (5.11) */
	bool current_task_btf;  /* bpf_get_current_task_btf (5.11) */
	bool bpf_cookie;        /* bpf_get_attach_cookie, perf links (5.15) */
	bool bpf_loop;          /* bpf_loop (5.17) */
	bool uprobe_multi;      /* BPF_TRACE_UPROBE_MULTI links (6.6) */
	/* append new probes here, and a row to kernel_feature_table */
};

/* Each feature by name (ETDUMP_KERNEL_LACKS's), and where it arrived. */
struct kernel_feature_info {
	const char *name;       /* "task_storage" */
	const char *what;       /* "task storage maps" */
	const char *since;      /* "5.11": the first mainline kernel with it */
	size_t offset;          /* of its bool in struct kernel_features */
};

extern const struct kernel_feature_info kernel_feature_table[];
extern const size_t kernel_feature_count;

/* The running kernel's, probed at the first call (needs CAP_BPF). */
const struct kernel_features *kernel_features(void);
bool kernel_feature_has(const struct kernel_features *kf,
			const struct kernel_feature_info *info);

/*
 * One line of the record summary for a fallback taken ("task storage needs
 * Linux 5.11: ..."); the same line noted twice is kept once.
 */
void kernel_features_note(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* The lines noted, in order: *n of them. */
const char *const *kernel_features_notes(size_t *n);
/* Print each line noted and not yet printed (p_info). */
void kernel_features_print_notes(void);

#endif /* ETDUMP_KERNEL_FEATURES_H */
