// SPDX-License-Identifier: BSD-3-Clause
#include <stdio.h>
#include <bpf/libbpf.h>
#include "lib/log.h"

int log_verbose;
int log_quiet;

static void vprint(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "etdump-bpf: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define DEFINE_PRINTER(fn, prefix, cond)                                       \
	void fn(const char *fmt, ...)                                          \
	{                                                                      \
		va_list ap;                                                    \
		if (!(cond))                                                   \
			return;                                                \
		va_start(ap, fmt);                                             \
		vprint(prefix, fmt, ap);                                       \
		va_end(ap);                                                    \
	}

DEFINE_PRINTER(p_err, "", 1)
DEFINE_PRINTER(p_warn, "warning: ", !log_quiet)
DEFINE_PRINTER(p_info, "", !log_quiet)
DEFINE_PRINTER(p_debug, "debug: ", log_verbose)

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && !log_verbose)
		return 0;
	/* libbpf explains its own failures; we print ours in one line */
	if (level == LIBBPF_WARN && !log_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
