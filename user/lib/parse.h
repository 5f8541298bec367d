/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * parse.h - numbers from the command line, strictly: the whole string must
 * be the number, in range, or the call fails with -EINVAL / -ERANGE.
 */
#ifndef ETDUMP_PARSE_H
#define ETDUMP_PARSE_H

#include <stdint.h>

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A process id: 1 .. INT32_MAX. */
int parse_pid(const char *s, int *out);
/* Seconds with an optional fraction ("2", "0.5"), to nanoseconds. */
int parse_seconds(const char *s, uint64_t *ns);
/* Bytes with an optional K, M or G suffix (powers of 1024). */
int parse_size(const char *s, uint64_t *bytes);
/* A duration: a decimal number with s (the default), ms, us, min or h. */
int parse_duration(const char *s, uint64_t *ns);

#endif /* ETDUMP_PARSE_H */
