/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * load_retry.h - a BPF load tried anew, whole, while the verifier gives up
 * on signals. The verifier stops with -EAGAIN when a signal comes to the
 * loader, a stop among them (Ctrl-Z, a debugger, a job's SIGSTOP): libbpf
 * tries a program again a few times at once, and a recorder stopped and
 * continued all along its start outlasts them (5 of test_loss_property's
 * 300 seeds did, when only capture.c tried again). A skeleton that failed
 * is no longer loadable (libbpf loads an object once): a try opens it
 * anew. Every load of the recorder goes through here, so that no one of
 * them is the weak one.
 */
#ifndef ETDUMP_LOAD_RETRY_H
#define ETDUMP_LOAD_RETRY_H

#include <stdbool.h>

/*
 * Each try is libbpf's 5 a program at the least: to fail, a load must meet
 * 80 signals at the worst moments, which no stops by hand come near.
 */
#define LOAD_TRIES 16

/*
 * One try: 0 (or an fd) or -errno. last: no try follows, so an -EAGAIN
 * is for the try to say; the tries before it keep quiet about theirs.
 */
typedef int (*load_try_fn)(void *ctx, bool last);
/* What a try that met a signal left (a half-loaded object), freed. */
typedef void (*load_undo_fn)(void *ctx);

/*
 * try() until it gives anything but -EAGAIN, LOAD_TRIES times at most,
 * with undo() (NULL: nothing to undo) between: what the last try gave.
 */
int load_retry(load_try_fn try, load_undo_fn undo, void *ctx);

#endif /* ETDUMP_LOAD_RETRY_H */
