/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * program.h - the model, as an exported program would describe it: a table
 * of values (tensors, constant or per-thread), their deterministic contents,
 * and chain 0, the execution plan of instructions over those values.
 */
#ifndef EXAMPLE_PROGRAM_H
#define EXAMPLE_PROGRAM_H

#include <stddef.h>

/*
 * A function etdump-bpf's symbol mode traces by name (example.rules): never
 * inlined, in either build, so that each call enters its symbol.
 */
#define EXAMPLE_TRACED __attribute__((noinline))

enum dtype { DT_FLOAT, DT_LONG };

struct tensor {
	enum dtype dtype;
	int dim;
	int sizes[4];
	void *data;
};

size_t tensor_numel(const struct tensor *t);
size_t tensor_nbytes(const struct tensor *t);

/* Constants are shared by every thread; activations are per thread. */
enum value_mem { MEM_CONSTANT, MEM_ACTIVATION };

struct value {
	enum value_mem mem;
	struct tensor t;	/* data is placed by the method */
};

enum program_value {
	V_INPUT, V_CONV_W, V_CONV_B, V_CONV, V_RELU, V_POOL, V_POOL_INDICES,
	V_FLAT, V_FC0_W, V_FC0_B, V_FC2_W, V_FC2_B, V_LOGITS, V_PROBS,
	V_PROBS_PAGES, V_PROBS_YIELD, V_PROBS_SPIN,
	PROGRAM_NUM_VALUES
};

#define PROGRAM_CLASSES 10
/* the most arguments any instruction of the plan takes */
#define PROGRAM_MAX_ARGS 4

enum instr_kind { INSTR_KERNEL_CALL, INSTR_DELEGATE_CALL };

struct instruction {
	enum instr_kind kind;
	/* KernelCall: the codegen'd wrapper's scope, "native_call_<op>" */
	const char *name;
	void (*kernel)(struct tensor *const *args);
	const int *args;	/* enum program_value */
	int nargs;
};

extern const struct value program_values[PROGRAM_NUM_VALUES];
extern const struct instruction program_chain[];
extern int program_chain_len;

/* Append touch_pages, yield and spin: operators counters tell apart. */
void program_enable_counter_ops(void);

/* fixed-seed weights, the same in every process */
void program_fill_constant(enum program_value v, struct tensor *t);
void program_fill_input(struct tensor *t);

#endif /* EXAMPLE_PROGRAM_H */
