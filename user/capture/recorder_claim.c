// SPDX-License-Identifier: BSD-3-Clause
/*
 * recorder_claim.c - which recorder holds a process: names of abstract unix
 * sockets, listed by the kernel in /proc/net/unix.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "capture/recorder_claim.h"
#include "lib/abstract_name.h"

#define CLAIM_PREFIX "etdump-bpf/rec/"
#define TURN_PREFIX "etdump-bpf/turn/"
/* /proc/net/unix is read a line at a time, this many at most */
#define UNIX_LINES_MAX 1000000

static const char *const mode_names[] = {
	[RECORDER_BATCHED] = "batched",
	[RECORDER_PER_SCOPE] = "per-scope",
};

int recorder_claim(pid_t target, enum recorder_mode mode)
{
	char name[96];

	snprintf(name, sizeof(name), CLAIM_PREFIX "%d/%s/%d", (int)target,
		 mode_names[mode], (int)getpid());
	return abstract_name_bind(name);
}

int recorder_claim_turn(pid_t target, unsigned int wait_ms)
{
	const struct timespec step = { .tv_nsec = 1000000 };
	char name[64];
	unsigned int waited = 0;
	int fd;

	snprintf(name, sizeof(name), TURN_PREFIX "%d", (int)target);
	/* held for the microseconds of a check: polling is enough */
	while ((fd = abstract_name_bind(name)) == -EADDRINUSE &&
	       waited++ < wait_ms)
		nanosleep(&step, NULL);
	return fd;
}

/* The recorder's PID in a line of /proc/net/unix that claims this, or 0. */
static int claimant_in(const char *line, const char *want)
{
	const char *at = strstr(line, " @" CLAIM_PREFIX);
	char *end;
	long pid;

	if (!at)
		return 0;
	at += 2;
	if (strncmp(at, want, strlen(want)))
		return 0;
	pid = strtol(at + strlen(want), &end, 10);
	if (pid <= 0 || pid == getpid() || (*end != '\n' && *end != '\0'))
		return 0;
	return (int)pid;
}

int recorder_claimant(pid_t target, enum recorder_mode mode)
{
	char want[64], line[512];
	unsigned int n = 0;
	int pid = 0;
	FILE *f;

	snprintf(want, sizeof(want), CLAIM_PREFIX "%d/%s/", (int)target,
		 mode_names[mode]);
	f = fopen("/proc/net/unix", "re");
	if (!f)
		return -errno;
	while (!pid && n++ < UNIX_LINES_MAX && fgets(line, sizeof(line), f))
		pid = claimant_in(line, want);
	fclose(f);
	return pid;
}
