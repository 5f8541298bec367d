// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "lib/parse.h"
#include "target/pid_list.h"

int parse_pid_list(const char *s, pid_t *pids, size_t max, size_t *n,
		   char *err, size_t errlen)
{
	char one[24];
	size_t len, i;
	int pid;

	*n = 0;
	for (;;) {
		len = strcspn(s, ",");
		if (len >= sizeof(one)) {
			snprintf(err, errlen, "invalid PID '%.*s'", 23, s);
			return -EINVAL;
		}
		memcpy(one, s, len);
		one[len] = '\0';
		if (parse_pid(one, &pid)) {
			snprintf(err, errlen, "invalid PID '%s'", one);
			return -EINVAL;
		}
		for (i = 0; i < *n; i++) {
			if (pids[i] == pid) {
				snprintf(err, errlen, "PID %d given twice", pid);
				return -EINVAL;
			}
		}
		if (*n == max) {
			snprintf(err, errlen, "at most %zu PIDs", max);
			return -EINVAL;
		}
		pids[(*n)++] = pid;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}
