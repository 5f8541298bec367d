// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "target/process_objects.h"
#include "target/script_interpreter.h"
#include "target/target.h"

/* at the gate: exit without running (any other byte: run) */
#define GATE_STOP 'x'

static void target_init(struct target *t)
{
	memset(t, 0, sizeof(*t));
	t->pidfd = -1;
	t->gate_fd = -1;
}

/*
 * A pidfd polls readable at the exit. Where the call is missing (valgrind
 * does not know it): -1 with errno 0 for a live process, and
 * target_has_exited() asks at each turn instead.
 */
static int pidfd_open(pid_t pid)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0 && errno == ENOSYS && !kill(pid, 0))
		errno = 0;
	return fd;
}

int target_open_pid(struct target *t, pid_t pid, char *err, size_t errlen)
{
	int e;

	target_init(t);
	t->pid = pid;
	t->pidfd = pidfd_open(pid);
	if (t->pidfd < 0 && errno) {
		e = errno;
		snprintf(err, errlen, e == ESRCH ? "no process with PID %d" :
			 "cannot open PID %d: %s", pid, strerror(e));
		return -e;
	}
	e = process_exe(pid, t->exe);
	if (e) {
		snprintf(err, errlen, "PID %d: cannot read its executable (/proc/%d/exe): %s",
			 pid, pid, strerror(-e));
		target_close(t);
	}
	return e;
}

static bool is_executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/*
 * What execvp would run, resolved now so that we attach to that very file.
 * out holds PATH_MAX bytes.
 */
static int resolve_command(const char *cmd, char *out)
{
	const char *path, *p, *colon;

	if (strchr(cmd, '/')) {
		if (!realpath(cmd, out))
			return -errno;
		return is_executable(out) ? 0 : -EACCES;
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = colon + 1) {
		char candidate[PATH_MAX];

		colon = strchrnul(p, ':');
		snprintf(candidate, sizeof(candidate), "%.*s/%s",
			 (int)(colon - p), colon == p ? "." : p, cmd);
		if (is_executable(candidate) && realpath(candidate, out))
			return 0;
		if (!*colon)
			break;
	}
	return -ENOENT;
}

/*
 * A gate never released: told not to run, then closed. A command killed
 * at the gate makes the write fail with SIGPIPE, not ours to die of.
 */
static void close_gate(struct target *t)
{
	const struct timespec now = { 0 };
	char stop = GATE_STOP;
	sigset_t pipe_sig, old;

	if (t->gate_fd < 0)
		return;
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_sig, &old);
	if (write(t->gate_fd, &stop, 1) != 1 && errno == EPIPE)
		sigtimedwait(&pipe_sig, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(t->gate_fd);
	t->gate_fd = -1;
}

int target_spawn(struct target *t, char *const argv[], char *err,
		 size_t errlen)
{
	char interpreter[PATH_MAX];
	int gate[2];
	char go;
	int ret;

	target_init(t);
	ret = resolve_command(argv[0], t->exe);
	if (ret) {
		snprintf(err, errlen, "%s: %s", argv[0],
			 ret == -ENOENT ? "command not found" : strerror(-ret));
		return ret;
	}
	ret = script_interpreter(t->exe, interpreter, err, errlen);
	if (ret < 0)
		return ret;
	if (ret) {
		memcpy(t->script, t->exe, sizeof(t->script));
		snprintf(t->exe, sizeof(t->exe), "%s", interpreter);
	}
	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	t->pid = fork();
	if (t->pid < 0) {
		ret = -errno;
		close(gate[0]);
		close(gate[1]);
		snprintf(err, errlen, "cannot fork: %s", strerror(-ret));
		return ret;
	}
	if (t->pid == 0) {
		close(gate[1]);
		/*
		 * GATE_STOP: the recorder's word not to run. The gate closed
		 * without a word: the recorder died (SIGKILL) before letting it
		 * go, and it runs untraced as it would have without one.
		 */
		if (read(gate[0], &go, 1) == 1 && go == GATE_STOP)
			_exit(127);
		close(gate[0]);
		/* exec_stop.h: stopped at the exec, for the recorder to write */
		if (go == 't' && ptrace(PTRACE_TRACEME, 0, 0, 0)) {
			fprintf(stderr, "etdump-bpf: cannot hold %s at its exec (ptrace: %s)\n",
				t->exe, strerror(errno));
			_exit(127);
		}
		execv(t->script[0] ? t->script : t->exe, argv);
		fprintf(stderr, "etdump-bpf: cannot run %s: %s\n",
			t->script[0] ? t->script : t->exe, strerror(errno));
		_exit(127);
	}
	close(gate[0]);
	t->gate_fd = gate[1];
	t->spawned = true;
	t->pidfd = pidfd_open(t->pid);
	if (t->pidfd < 0 && errno) {
		ret = -errno;
		snprintf(err, errlen, "pidfd_open: %s", strerror(-ret));
		target_close(t);
		return ret;
	}
	return 0;
}

int target_release(struct target *t)
{
	int ret = 0;

	if (t->gate_fd < 0)
		return 0;
	if (write(t->gate_fd, "g", 1) != 1)
		ret = -errno;
	close(t->gate_fd);
	t->gate_fd = -1;
	return ret;
}

/* No pidfd (see pidfd_open()): ask the process table. */
static bool exited_without_pidfd(struct target *t)
{
	if (t->spawned)
		return waitpid(t->pid, &t->wait_status, WNOHANG) == t->pid;
	return kill(t->pid, 0) && errno == ESRCH;
}

bool target_has_exited(struct target *t)
{
	struct pollfd pfd = { .fd = t->pidfd, .events = POLLIN };

	if (t->exited)
		return true;
	if (t->pidfd < 0) {
		t->exited = exited_without_pidfd(t);
		return t->exited;
	}
	if (poll(&pfd, 1, 0) <= 0)
		return false;
	if (t->spawned)
		waitpid(t->pid, &t->wait_status, 0);
	t->exited = true;
	return true;
}

void target_stop(struct target *t)
{
	if (!t->spawned || t->exited)
		return;
	if (t->gate_fd >= 0) {
		/* never released: it exits at the gate */
		close_gate(t);
	} else {
		kill(t->pid, SIGTERM);
	}
	waitpid(t->pid, &t->wait_status, 0);
	t->exited = true;
}

void target_close(struct target *t)
{
	close_gate(t);
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->gate_fd = -1;
	t->pidfd = -1;
}

/* include/linux/proc_ns.h: the initial PID namespace's inode */
#define PROC_PID_INIT_INO 0xEFFFFFFCu

void target_pid_namespace(uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	*dev = *ino = 0;
	if (!stat("/proc/self/ns/pid", &st) && st.st_ino != PROC_PID_INIT_INO) {
		*dev = st.st_dev;
		*ino = st.st_ino;
	}
}
