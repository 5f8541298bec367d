/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * maps_digest.h - one number for the files a process maps executable: a
 * hash of every line of /proc/PID/maps whose mapping of a file can run
 * code (its range, offset, device, inode and name). Two equal digests are the same files at
 * the same places, so whoever looked at them last has nothing new to look
 * at; reading the maps is a fraction of looking at each of their files.
 */
#ifndef ETDUMP_MAPS_DIGEST_H
#define ETDUMP_MAPS_DIGEST_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The digest of pid's executable mappings into out: 0 or -errno. */
int maps_digest(pid_t pid, uint64_t *out);
/*
 * The same from /proc/PID/maps opened once and read again from its start
 * (a look every 200 ms opened it each time: a path walk in /proc). After
 * an exec the file reads empty: the digest moves, and the caller opens it
 * anew.
 */
int maps_digest_file(FILE *maps, uint64_t *out);

#endif /* ETDUMP_MAPS_DIGEST_H */
