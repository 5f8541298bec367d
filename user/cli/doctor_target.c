// SPDX-License-Identifier: BSD-3-Clause
/*
 * doctor_target.c - the process doctor records to tell whether each mode
 * works here: a few executions of a two-kernel method behind the etdump
 * probes (per-scope or batched, as the attached recorder chose), a value
 * and an allocation each kernel, and functions symbol mode's rules can name
 * (doctor_modes.c writes them). Inside etdump-bpf itself, so a device with
 * only the static binary checks every mode with nothing else copied.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "cli/doctor_target.h"
#include "lib/exit_code.h"
#include "schema/etdump_usdt.h"

#define EXECUTIONS 3
#define KERNELS 2
/* -p: executions this often until the recorder is done with it */
#define LOOP_PAUSE_NS 2000000L

static volatile sig_atomic_t stop;

/* The kernels: out-of-line, so symbol mode has a call to probe. */
__attribute__((noinline)) int doctor_target_op_add(int *out, const int *in)
{
	out[0] = in[0] + in[1];
	__asm__ volatile("" : : "r"(out) : "memory");
	return 0;
}

__attribute__((noinline)) int doctor_target_op_mul(int *out, const int *in)
{
	out[0] = in[0] * in[1];
	__asm__ volatile("" : : "r"(out) : "memory");
	return 0;
}

static void log_value(int *out, int instr)
{
	struct etdump_value_desc d = {
		.type = ETDUMP_VALUE_TENSOR,
		.count = 1,
		.scalar_type = 3, /* Int */
		.dim = 1,
		.sizes = { 1 },
		.strides = { 1 },
		.data = out,
		.nbytes = sizeof(*out),
		.delegate_id_int = -1,
	};

	ETDUMP_VALUE(0, &d, 0, instr);
}

__attribute__((noinline)) int doctor_target_execute(int *state)
{
	static const char *const names[KERNELS] = {
		"native_call_add.out", "native_call_mul.out",
	};
	int (*const ops[KERNELS])(int *, const int *) = {
		doctor_target_op_add, doctor_target_op_mul,
	};
	int in[2] = { state[0], 3 }, i;

	ETDUMP_PROFILE_BEGIN("Method::execute", ETDUMP_UNSET_CHAIN,
			     ETDUMP_UNSET_DEBUG_HANDLE);
	for (i = 0; i < KERNELS; i++) {
		ETDUMP_INSTRUCTION(0, i);
		ETDUMP_PROFILE_BEGIN(names[i], 0, i);
		ETDUMP_ALLOCATION(1, 64);
		ops[i](state, in);
		ETDUMP_PROFILE_END(names[i]);
		log_value(state, i);
	}
	ETDUMP_PROFILE_END("Method::execute");
	return 0;
}

static void executions(int n)
{
	int state[1] = { 1 };

	ETDUMP_ALLOCATOR(1, "doctor");
	while (n-- > 0 && !stop) {
		ETDUMP_BLOCK("Execute");
		doctor_target_execute(state);
	}
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* The same target once more in a child: what -- CMD's following sees. */
static int child(const char *self)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return EXIT_FAIL;
	if (!pid) {
		execl(self, self, DOCTOR_TARGET_COMMAND, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return EXIT_FAIL;
	return WEXITSTATUS(status);
}

int doctor_target(int argc, char **argv)
{
	struct timespec pause = { 0, LOOP_PAUSE_NS };

	signal(SIGTERM, on_term);
	if (argc > 1 && !strcmp(argv[1], "--loop")) {
		/* record -p: ready once the recorder has something to find */
		while (!stop) {
			executions(1);
			nanosleep(&pause, NULL);
		}
		return EXIT_OK;
	}
	executions(EXECUTIONS);
	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child(argv[2]);
	return EXIT_OK;
}
