/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * follow_children.h - record the targets' descendants (record without
 * --no-inherit, as perf and uftrace do): bpf/follow_children.bpf.h follows every
 * process forked from a target or a followed one; when one execs a binary
 * carrying etdump probes, the same USDT programs are attached to it, as
 * for -p PID, and its threads get their own runs. One without probes (a
 * shell) stays followed for its own children. A file the command line
 * names is armed before the command starts (follow_children_arm()): its
 * runs are recorded from the first; events another child fires before
 * its attach completes are lost, as when attaching mid-run.
 */
#ifndef ETDUMP_FOLLOW_CHILDREN_H
#define ETDUMP_FOLLOW_CHILDREN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "capture/capture.h"

struct follow_children;

/*
 * Load and attach the fork/exec/exit programs, sharing cap's map of
 * followed processes (cap opened with follow_children); roots (nroots)
 * are the targets. Negative errno, said with p_err().
 */
int follow_children_open(struct follow_children **out, struct capture *cap,
			 const pid_t *roots, size_t nroots);
/*
 * Before the command leaves its gate: arm the files its command line
 * names (argv), and extra (nextra of them), but not skip_exe (the
 * target's, attached already; NULL: none), so that a descendant that
 * execs one is recorded from its first instruction (armed_binaries.h).
 * Negative errno, said.
 */
int follow_children_arm(struct follow_children *fc, char *const argv[],
			char *const extra[], size_t nextra,
			const char *skip_exe);
/*
 * A line said just before the first child is attached (what record
 * records when its command has no probes): said then, or never.
 */
int follow_children_first_note(struct follow_children *fc, const char *line);
/*
 * Whether the file (stat) is armed: the kernel records it in the command's
 * tree wherever it is mapped, also by a dlopen (NULL fc: none is).
 */
bool follow_children_is_armed(const struct follow_children *fc,
			      const struct stat *st);
/*
 * Told of each descendant's exec (the targets' own aside), once the
 * exec is looked at: 0, or -ENOMEM, which stops the recording.
 */
typedef int (*follow_exec_fn)(void *ctx, pid_t pid);
void follow_children_on_exec(struct follow_children *fc, follow_exec_fn fn,
			     void *ctx);
/*
 * A descendant recorded after its exec by someone else (a library it
 * loaded later: late_libraries.h): waited for and named as the others;
 * with events, its probes' events count from now on (marked in the map,
 * as follow_children's own attaches are; symbol mode's programs take a
 * process of their own instead). Before its probes go in. 0 (a target:
 * nothing to do), -ESRCH gone, -ENOMEM.
 */
int follow_children_record(struct follow_children *fc, pid_t pid,
			   bool events);
/* How many processes were attached to since the start. */
size_t follow_children_count(const struct follow_children *fc);
/*
 * How many exec'd a binary with etdump probes and exited before their
 * attach was done (a runtime that ends that soon is not recorded); the
 * executable is checked, not the libraries it loads.
 */
size_t follow_children_missed(const struct follow_children *fc);
/*
 * A target record attached to itself: its exec of that file (a command
 * leaving the gate) is no news.
 */
int follow_children_attached(struct follow_children *fc, pid_t pid,
			     const char *exe);
/* Polls readable when a followed process exec'd. */
int follow_children_fd(const struct follow_children *fc);
/*
 * Look at every process that exec'd since, attach to those whose new
 * executable carries etdump probes, each said in one line. A failure for
 * one process is said and the recording goes on; -ENOMEM stops it.
 */
int follow_children_consume(struct follow_children *fc);
/*
 * Whether every descendant attached to has exited (the targets aside), and
 * every one that has not exec'd since its fork (a subshell, which may
 * start a runtime yet).
 */
bool follow_children_exited(struct follow_children *fc);
/*
 * The summary's line: the processes followed and recorded, what was lost;
 * nothing when no child was recorded and nothing lost.
 */
void follow_children_summary(const struct follow_children *fc);
void follow_children_free(struct follow_children *fc);

#endif /* ETDUMP_FOLLOW_CHILDREN_H */
