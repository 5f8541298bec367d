/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * armed_binaries.h - record a child from its first instruction: before
 * the command leaves its gate, the files its command line names (found
 * as exec would, command_words.h) that carry etdump probes get a uprobe
 * event per probe site (tracefs_uprobes.h), opened as a perf event of the
 * held command with inherit: every process it forks from then on has the
 * event too, and the kernel places the breakpoints (and raises the
 * semaphores) in those processes only, at the exec, before the runtime
 * runs. Processes outside the command's tree are not touched. The capture
 * programs are attached to those events, their arguments read by USDT
 * specs set here (usdt_arg_spec.h), from the top of the spec ids.
 *
 * A file named no other way (its name made at run time) is attached to
 * after its exec, by follow_children.h, as before.
 */
#ifndef ETDUMP_ARMED_BINARIES_H
#define ETDUMP_ARMED_BINARIES_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct capture;

struct armed_file {
	dev_t dev;
	ino_t ino;
	char *path;              /* as the command line names it */
	int nprobes;             /* probe names attached, as capture_attach() */
};

struct armed_binaries {
	struct armed_file *v;
	size_t n;
};

/*
 * Arm the files argv names (and each of extra, nextra of them), leaving
 * out `skip` (the target's own executable, attached already; NULL: none),
 * for root and its descendants. A file is armed whole or not at all: not
 * when the kernel has no tracefs for it, its arguments are in a form not
 * read here, or a site cannot be attached (each said with -v); those are
 * attached to after exec. Negative errno: -ENOMEM, or a file of extra
 * that is no binary with etdump probes (said).
 */
int armed_binaries_arm(struct armed_binaries *out, struct capture *cap,
		       pid_t root, char *const argv[],
		       char *const extra[], size_t nextra,
		       const struct stat *skip);
/* The armed file with that inode, or NULL. */
const struct armed_file *armed_binaries_find(const struct armed_binaries *a,
					     dev_t dev, ino_t ino);
void armed_binaries_free(struct armed_binaries *a);

#endif /* ETDUMP_ARMED_BINARIES_H */
