/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * late_followed.h - the libraries the followed processes load after
 * their exec (record -- CMD's children: a script whose Python host, a
 * child of its shell, loads the runtime through ctypes), looked at as the
 * command's own are (late_libraries.h, one each, the same lines). A
 * process is watched from its exec (follow_children_on_exec()) until it
 * exits, LATE_FOLLOWED_MAX of them at once: the maps of a process that is
 * gone are never read again, and a command that forks many does not have
 * each one's maps read every look (one beyond is said once, not
 * watched).
 */
#ifndef ETDUMP_LATE_FOLLOWED_H
#define ETDUMP_LATE_FOLLOWED_H

#include "capture/capture.h"
#include "capture/follow_children.h"
#include "capture/late_libraries.h"

#define LATE_FOLLOWED_MAX 32

struct late_followed;

/*
 * Watch fc's processes from their next exec on; a library without
 * etdump probes is handed to fn (late_libraries_on_stock()). -ENOMEM.
 */
int late_followed_open(struct late_followed **out, struct follow_children *fc,
		       late_stock_fn fn, void *ctx);
/*
 * A look at each live process's maps (late_libraries_check()), those that
 * exited let go. 0, or a negative errno said with p_err().
 */
int late_followed_check(struct late_followed *lf, struct capture *cap);
void late_followed_close(struct late_followed *lf);

#endif /* ETDUMP_LATE_FOLLOWED_H */
