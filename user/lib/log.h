/* SPDX-License-Identifier: BSD-3-Clause */
/* log.h - the one way etdump-bpf prints errors, warnings and progress. */
#ifndef ETDUMP_LOG_H
#define ETDUMP_LOG_H

#include <stdarg.h>
#include <stdbool.h>

/* -v: libbpf's own log and our debug lines */
extern int log_verbose;
/* -q: errors only, no progress, summary or warnings */
extern int log_quiet;

/* "etdump-bpf: <message>" on stderr, newline added. */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void p_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void p_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void p_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Route libbpf's messages through us: warnings always, debug with -v. */
void log_setup_libbpf(void);

#endif /* ETDUMP_LOG_H */
