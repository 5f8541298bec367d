/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * late_libraries.h - a runtime a recorded process loads after the attach
 * (dlopen: a Python host through ctypes, an app through JNI's
 * System.loadLibrary): its maps are looked at while recording, and each
 * library that appears there with etdump probes is attached as the first
 * ones were. A uprobe belongs to the file's inode, so the same library
 * unloaded and loaded again keeps its probes (the kernel places them at
 * each mapping); a second copy of the runtime (another file) is a library
 * of its own. What an exec brings (the executable and the libraries it
 * needs) is whoever follows the exec's (follow_children.h), never here,
 * and so is a file armed for the command (the kernel records it wherever
 * the command's tree maps it). A library without etdump probes is handed
 * to symbol mode (late_libraries_on_stock()).
 */
#ifndef ETDUMP_LATE_LIBRARIES_H
#define ETDUMP_LATE_LIBRARIES_H

#include <stddef.h>
#include <sys/types.h>
#include "capture/capture.h"
#include "capture/follow_children.h"
#include "target/probe_objects.h"

struct late_libraries;

/* pid's files so far: those attached (objs), and what is mapped now. */
int late_libraries_open(struct late_libraries **out, pid_t pid,
			const struct probe_objects *objs);
/*
 * Each new library without etdump probes handed to fn (symbol mode's, a
 * layer above: the recording's), path as the recorder reaches it, label
 * as messages name it: 1 recorded, 0 not, -ENOMEM stops the recording.
 */
typedef int (*late_stock_fn)(void *ctx, pid_t pid, const char *path,
			     const char *label);
void late_libraries_on_stock(struct late_libraries *l, late_stock_fn fn,
			     void *ctx);
/*
 * A look at the maps: each new library with etdump probes attached (said
 * in one line; a followed child's events counted from then on:
 * follow_children_record()). 0, or a negative errno said with p_err().
 */
int late_libraries_check(struct late_libraries *l, struct capture *cap,
			 struct follow_children *fc);
void late_libraries_close(struct late_libraries *l);

#endif /* ETDUMP_LATE_LIBRARIES_H */
