/* SPDX-License-Identifier: BSD-3-Clause */
/* pid_list.h - `-p PID[,PID...]`, as perf takes several processes. */
#ifndef ETDUMP_PID_LIST_H
#define ETDUMP_PID_LIST_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Comma-separated PIDs into pids (at most max): 0, or -EINVAL with the
 * reason in err (a PID that is no number, one given twice, too many).
 */
int parse_pid_list(const char *s, pid_t *pids, size_t max, size_t *n,
		   char *err, size_t errlen);

#endif /* ETDUMP_PID_LIST_H */
