// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/commands.h"
#include "cli/record_repeat.h"
#include "lib/file_io.h"
#include "lib/log.h"
#include "model/debug_buffer.h"
#include "write/run_sink.h"

#define NAME_MAX_LEN 4096

static volatile sig_atomic_t stopped;
static volatile sig_atomic_t recording;  /* the recording's PID, or 0 */

/* Stop as record stops: the recording at hand writes its files. */
static void on_stop(int sig)
{
	stopped = 1;
	if (recording)
		kill(recording, sig);
}

/* The i-th recording's name of `path`, into buf; said when too long. */
static int numbered(const char *path, unsigned int i, char *buf)
{
	if (!path)
		return 0;
	if (file_series_name(path, i, buf, NAME_MAX_LEN)) {
		p_err("%s: the recordings' names are too long", path);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Every name of one command's recordings, numbered 1..n, free to write. */
static int check_series(const struct record_repeat *r, const char *output,
			const char *raw)
{
	char name[NAME_MAX_LEN], *debug;
	unsigned int i;
	int err = 0;

	for (i = 1; !err && i <= r->n; i++) {
		err = numbered(output, i, name);
		if (!err && output)
			err = output_check(name, r->force);
		if (!err && output && r->values) {
			debug = debug_buffer_path_for(name);
			err = debug ? output_check(debug, r->force) : -ENOMEM;
			free(debug);
		}
		if (!err)
			err = numbered(raw, i, name);
		if (!err && raw)
			err = output_check(name, r->force);
	}
	return err;
}

static int check_names(const struct record_repeat *r)
{
	int err = check_series(r, r->output, r->raw);

	return err || !r->alternate ? err : check_series(r, r->alternate, NULL);
}

/* One recording's exit status, or EXIT_FAIL when it did not exit. */
static int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return EXIT_FAIL;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	p_err("recording process %d killed by signal %d", pid,
	      WTERMSIG(status));
	return EXIT_FAIL;
}

int record_repeat(const struct record_repeat *r, const char **output,
		  const char **raw, bool *second)
{
	static char out_name[NAME_MAX_LEN], raw_name[NAME_MAX_LEN];
	struct sigaction sa = { .sa_handler = on_stop }, old_int, old_term;
	unsigned int sides = r->alternate ? 2 : 1, total = r->n * sides, k;
	int status, ret = EXIT_OK;
	bool alt;
	pid_t pid;

	if (check_names(r))
		return EXIT_FAIL;
	/* the terminal's Ctrl-C reaches the recording: it stops, we stop */
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	for (k = 0; k < total && !stopped; k++) {
		alt = k % sides;
		if (numbered(alt ? r->alternate : r->output, k / sides + 1,
			     out_name) ||
		    numbered(alt ? NULL : r->raw, k / sides + 1, raw_name))
			return EXIT_FAIL;
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			p_err("cannot start recording %u of %u: %s", k + 1,
			      total, strerror(errno));
			ret = EXIT_FAIL;
			break;
		}
		if (!pid) {
			sigaction(SIGINT, &old_int, NULL);
			sigaction(SIGTERM, &old_term, NULL);
			/* stopped before it began: nothing to record */
			if (stopped)
				exit(EXIT_OK);
			*output = r->output ? out_name : NULL;
			*raw = r->raw && !alt ? raw_name : NULL;
			*second = alt;
			if (r->alternate)
				p_info("recording %u of %u: %s", k + 1, total,
				       out_name);
			else
				p_info("recording %u of %u", k + 1, total);
			return RECORD_REPEAT_CHILD;
		}
		recording = pid;
		/* a signal before the line above did not reach it */
		if (stopped)
			kill(pid, SIGINT);
		status = wait_status(pid);
		recording = 0;
		if (status == EXIT_LOST) {
			ret = EXIT_LOST;
		} else if (status != EXIT_OK) {
			if (k + 1 < total)
				p_err("recording %u of %u failed: the %u after it not made",
				      k + 1, total, total - k - 1);
			ret = status;
			break;
		}
	}
	if (stopped && k < total)
		p_info("stopped: %u of %u recordings made", k,
		       total);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return ret;
}
