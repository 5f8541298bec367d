/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * attach_at_exec.h - a command's probes attached at its exec, for a kernel
 * without BPF cookies (before 5.15). There libbpf finds a USDT site's
 * argument spec by the site's address in the process, which it reads from
 * /proc/PID/maps: a command held at its gate has mapped nothing yet. So it
 * is let go under ptrace (exec_stop.h), and each of its files with probes
 * is attached (and its --every word written) once it is mapped, at the
 * exec or after the loader's system call that mapped it: still before any
 * of its code runs.
 */
#ifndef ETDUMP_ATTACH_AT_EXEC_H
#define ETDUMP_ATTACH_AT_EXEC_H

#include <stddef.h>
#include <stdint.h>

struct capture;
struct probe_objects;
struct target;

/*
 * Release t (spawned, at its gate) and attach objs as they are mapped;
 * every > 1: write their --every words too. *nattached as capture_attach().
 * A file still unmapped when the loader is done (a dlopen() later) is
 * attached to then, its runs before lost: said. Negative errno, the
 * reason in err; -ECHILD, unsaid, when the command exited at once.
 */
int capture_attach_at_exec(struct capture *cap, struct target *t,
			   const struct probe_objects *objs, uint32_t every,
			   int *nattached, char *err, size_t errlen);

#endif /* ETDUMP_ATTACH_AT_EXEC_H */
