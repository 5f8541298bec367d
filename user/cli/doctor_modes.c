// SPDX-License-Identifier: BSD-3-Clause
/*
 * doctor_modes.c - each mode recorded for real on doctor's own target
 * (doctor_modes.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cli/doctor_modes.h"
#include "cli/doctor_target.h"
#include "lib/exit_code.h"

/* what record -p watches of the looping target */
#define ATTACHED_SECONDS "0.5"
/* record's stderr kept: its mode, attach and summary lines fit */
#define STDERR_MAX 16384
/* a mode that takes longer has hung (a TCG guest takes ~30 s at most) */
#define MODE_TIMEOUT_S 120

/*
 * Symbol mode's rules for the target's functions (user/symbol/
 * symbol_rules.h's format), as a runtime's user writes them.
 */
static const char rules_text[] =
	"block     doctor_target_execute  Method::execute  Execute\n"
	"kernel    doctor_target_op_{op}  native_call_{op}.out\n";

enum target_kind { TARGET_PLAIN, TARGET_CHILD, TARGET_RUNNING };

struct mode {
	const char *name;
	const char *what;
	const char *flags[4];
	enum target_kind target;
};

static const struct mode modes[] = {
	{ "batched", "the default: the runtime batches, one probe a flush",
	  { NULL }, TARGET_PLAIN },
	{ "--precise", "per-scope probes", { "--precise", "--no-counters" },
	  TARGET_PLAIN },
	{ "counters", "per-scope probes reading perf counters (-e)",
	  { "--precise" }, TARGET_PLAIN },
	{ "--values", "the values the runtime logs", { "--values" },
	  TARGET_PLAIN },
	{ "--allocations", "what the runtime allocates", { "--allocations" },
	  TARGET_PLAIN },
	{ "-p PID", "a process already running", { "-d", ATTACHED_SECONDS },
	  TARGET_RUNNING },
	{ "children", "-- CMD's children that exec a runtime", { NULL },
	  TARGET_CHILD },
	{ "symbol mode", "uprobes on a stock binary's functions",
	  { "--symbols", "--rules", NULL }, TARGET_PLAIN },
};

#define NMODES (int)(sizeof(modes) / sizeof(modes[0]))

struct scratch {
	char dir[PATH_MAX / 2];  /* room for the names below */
	char out[PATH_MAX];
	char rules[PATH_MAX];
	char debug[PATH_MAX];
};

static int scratch_open(struct scratch *s)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(s->dir, sizeof(s->dir), "%s/etdump-doctor.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->dir))
		return -errno;
	snprintf(s->out, sizeof(s->out), "%s/mode.etdp", s->dir);
	snprintf(s->debug, sizeof(s->debug), "%s/mode.debug.bin", s->dir);
	snprintf(s->rules, sizeof(s->rules), "%s/doctor.rules", s->dir);
	fd = open(s->rules, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		  O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, rules_text, sizeof(rules_text) - 1) !=
	    (ssize_t)sizeof(rules_text) - 1) {
		if (fd >= 0)
			close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

/* Only what this file made: the directory was created empty by us. */
static void scratch_close(struct scratch *s)
{
	unlink(s->out);
	unlink(s->debug);
	unlink(s->rules);
	rmdir(s->dir);
}

static pid_t spawn(const char *self, char *const argv[], int err_fd)
{
	pid_t pid = fork();
	int null;

	if (pid)
		return pid;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
	}
	if (err_fd >= 0)
		dup2(err_fd, STDERR_FILENO);
	execv(self, argv);
	_exit(127);
}

/* waitpid with a deadline: a hung recorder is killed and said so. */
static int wait_for(pid_t pid, int seconds, int *status)
{
	struct timespec tick = { 0, 20000000L };
	int i;

	for (i = 0; i < seconds * 50; i++) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0)
			return -errno;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return -ETIMEDOUT;
}

/* record's stderr: the first error, else the notes of what degraded. */
static void read_why(int fd, bool failed, char *why, size_t len)
{
	static char buf[STDERR_MAX];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *line, *save = NULL;
	size_t used = 0;

	why[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *text = strncmp(line, "etdump-bpf: ", 12) ? line :
				   line + 12;

		if (failed) {
			/* the first error said, else the last line */
			snprintf(why, len, "%s", text);
			if (strstr(line, "error") || strstr(line, "cannot") ||
			    strstr(line, "no probe"))
				return;
			continue;
		}
		/*
		 * kernel_features' notes: "X needs Linux N.M: did Y" ("X
		 * links need ...")
		 */
		if (!strstr(text, " needs Linux ") &&
		    !strstr(text, " need Linux "))
			continue;
		/* what the kernel lacks; what record does instead is its own */
		used += snprintf(why + used, used < len ? len - used : 0,
				 "%s%.*s", used ? "; " : "",
				 (int)strcspn(text, ":"), text);
	}
}

static int record_args(const struct mode *m, const char *self,
		       const struct scratch *s, pid_t running,
		       const char **argv, int max)
{
	static char pid_text[16];
	int n = 0, i;

	argv[n++] = self;
	argv[n++] = "record";
	argv[n++] = "-f";
	argv[n++] = "-o";
	argv[n++] = s->out;
	for (i = 0; i < 4 && m->flags[i]; i++)
		argv[n++] = m->flags[i];
	if (i > 1 && !strcmp(m->flags[i - 1], "--rules"))
		argv[n++] = s->rules;
	if (m->target == TARGET_RUNNING) {
		snprintf(pid_text, sizeof(pid_text), "%d", (int)running);
		argv[n++] = "-p";
		argv[n++] = pid_text;
	} else {
		argv[n++] = "--";
		argv[n++] = self;
		argv[n++] = DOCTOR_TARGET_COMMAND;
		if (m->target == TARGET_CHILD) {
			argv[n++] = "--child";
			argv[n++] = self;
		}
	}
	argv[n] = NULL;
	return n < max ? 0 : -E2BIG;
}

static void check_mode(const struct mode *m, const char *self,
		       const struct scratch *s, struct doctor_mode_result *r)
{
	const char *argv[20];
	char *const loop[] = { (char *)self, DOCTOR_TARGET_COMMAND, "--loop",
			       NULL };
	pid_t running = 0, rec;
	int err_fd, status = 0, ret;

	r->name = m->name;
	r->what = m->what;
	r->works = false;
	err_fd = open(s->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (err_fd < 0) {
		snprintf(r->why, sizeof(r->why), "not checked: %s",
			 strerror(errno));
		return;
	}
	if (m->target == TARGET_RUNNING)
		running = spawn(self, loop, -1);
	if (running < 0 ||
	    record_args(m, self, s, running, argv, 20)) {
		snprintf(r->why, sizeof(r->why), "not checked: cannot start");
		close(err_fd);
		return;
	}
	/* record's own fds are CLOEXEC; err_fd reaches it as its stderr */
	rec = spawn(self, (char *const *)argv, err_fd);
	ret = rec < 0 ? -errno : wait_for(rec, MODE_TIMEOUT_S, &status);
	if (running > 0) {
		kill(running, SIGTERM);
		waitpid(running, NULL, 0);
	}
	r->works = !ret && WIFEXITED(status) &&
		   WEXITSTATUS(status) == EXIT_OK;
	read_why(err_fd, !r->works, r->why, sizeof(r->why));
	if (!r->works && !r->why[0])
		snprintf(r->why, sizeof(r->why), "%s",
			 ret == -ETIMEDOUT ? "record did not finish" :
			 WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) :
			 WEXITSTATUS(status) == 127 ? "record could not be run" :
			 "record failed, saying nothing");
	close(err_fd);
	unlink(s->out);
	unlink(s->debug);
}

struct doctor_mode_result *doctor_modes_check(const char *self, int *n,
					      char *err, int errlen)
{
	struct doctor_mode_result *r = calloc(NMODES, sizeof(*r));
	struct scratch s;
	int i, ret;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ret = scratch_open(&s);
	if (ret) {
		snprintf(err, errlen, "cannot make a directory in %s: %s",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
			 strerror(-ret));
		free(r);
		return NULL;
	}
	for (i = 0; i < NMODES; i++)
		check_mode(&modes[i], self, &s, &r[i]);
	scratch_close(&s);
	*n = NMODES;
	return r;
}
