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
 * programs, their arguments read by USDT specs set here (usdt_arg_spec.h)
 * from the top of the spec ids, run on every hit of the event (a uprobe
 * event runs its programs for all its perf events).
 *
 * A file named no other way (its name made at run time) is attached to
 * after its exec, by follow_children.h, as before.
 *
 * Two kernel behaviours shape the events (both seen on 6.18):
 * - An inherited event takes its parent's program along, and when a
 *   process's copy is freed (the process exits) the program is taken off
 *   the uprobe event for every process: `sh -c 'ls; runtime'` recorded
 *   nothing. So the programs go on a second event of the root's own, not
 *   inherited, and the inherited one carries none.
 * - The uprobe filter finds a process by the task each perf event was
 *   opened or inherited for, but at a context switch between two tasks
 *   whose event contexts are clones (all of one's events inherited from
 *   the other, or both from a third) the kernel swaps the two contexts;
 *   a task that exits then frees the other's events, and that one's
 *   breakpoints are removed or never placed: a parent and its child
 *   (`sh -c 'runtime &'`: 7 runs in 10 on one CPU), and a runtime's
 *   worker thread and its main thread (the runs the main thread made
 *   after the worker's exit were lost, in 1 recording in 3 of 4
 *   runtimes of 2 threads each on 2 CPUs). The tree's events sample
 *   their reads (never taken: they are disabled), which keeps the kernel
 *   from swapping any context that holds one (6.12 on). Before 6.12 the
 *   root's own event keeps its children's contexts from being clones,
 *   and each process that execs an armed file gets events of its own
 *   once record sees the exec (armed_binaries_anchor()), so a swap
 *   before then leaves it untraced until then (for good, when a thread
 *   swapped with its main thread has exited).
 */
#ifndef ETDUMP_ARMED_BINARIES_H
#define ETDUMP_ARMED_BINARIES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct capture;

struct armed_file {
	dev_t dev;
	ino_t ino;
	/*
	 * The device of its folder: overlayfs (a container's root) says a
	 * file's lower device to stat but its own to the kernel's exec, as
	 * it does for a folder.
	 */
	dev_t dir_dev;
	char *path;              /* as the command line names it */
	int nprobes;             /* probe names attached, as capture_attach() */
	uint64_t *events;        /* the uprobe event of each site armed */
	size_t nevents;          /* 0: none (no BPF cookies), stopped at exec */
};

/* Perf events held open: the root's inherited ones, or a process's own. */
struct armed_events {
	int *fds;
	size_t n;
};

struct armed_binaries {
	struct armed_file *v;
	size_t n;
	struct armed_events held;    /* the root's inherited events */
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
/*
 * Events of pid's own (disabled, not inherited: they only keep the
 * filter's hold on its address space) on every site of f. Negative errno
 * (-EMFILE, -ESRCH when it is gone); none held then.
 */
int armed_binaries_anchor(const struct armed_file *f, pid_t pid,
			  struct armed_events *out);
void armed_events_close(struct armed_events *e);
void armed_binaries_free(struct armed_binaries *a);

#endif /* ETDUMP_ARMED_BINARIES_H */
