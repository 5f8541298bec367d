/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ETDUMP_RECORDER_CLAIM_H
#define ETDUMP_RECORDER_CLAIM_H

#include <sys/types.h>

/*
 * A recorder says which process it records and how, so that a recorder
 * that must refuse to share that process can name it: an abstract unix
 * socket "etdump-bpf/rec/<target>/<mode>/<recorder>", bound for as long as
 * the recorder (or a helper it forked) holds the fd. Nothing in any file
 * system, nothing left behind by a recorder killed.
 */
enum recorder_mode { RECORDER_BATCHED, RECORDER_PER_SCOPE };

/* Its fd (keep it open while recording), or a negative errno. */
int recorder_claim(pid_t target, enum recorder_mode mode);
/*
 * Recorders of one process take turns from their check of the others to
 * their claim, so that of two started at once the later sees the earlier's
 * claim: a name only one may bind. Its fd (close it once claimed), waiting
 * up to wait_ms for the one that holds it; -EADDRINUSE after that, or a
 * negative errno.
 */
int recorder_claim_turn(pid_t target, unsigned int wait_ms);
/*
 * The PID of a recorder (not this one) that claimed target in mode: 0 when
 * none did (another kind of tracer, or a recorder of an older version), or
 * a negative errno.
 */
int recorder_claimant(pid_t target, enum recorder_mode mode);

#endif /* ETDUMP_RECORDER_CLAIM_H */
