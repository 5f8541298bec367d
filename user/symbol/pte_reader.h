/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pte_reader.h - the execution plan of an ExecuTorch program (.pte, the
 * FlatBuffer of ExecuTorch's schema/program.fbs, file identifier "ET12"):
 * just what symbol mode needs to give an observed kernel call its chain
 * and instruction, read through our bounds-checked fb_reader.
 */
#ifndef ETDUMP_PTE_READER_H
#define ETDUMP_PTE_READER_H

#include <stddef.h>
#include <stdint.h>

/* program.fbs's union InstructionArguments, in its order. */
enum pte_instr_kind {
	PTE_INSTR_NONE = 0,
	PTE_INSTR_KERNEL_CALL = 1,
	PTE_INSTR_DELEGATE_CALL = 2,
	PTE_INSTR_MOVE_CALL = 3,
	PTE_INSTR_JUMP_FALSE_CALL = 4,
	PTE_INSTR_FREE_CALL = 5,
};

struct pte_instruction {
	uint8_t kind;           /* enum pte_instr_kind */
	int32_t op_index;       /* kernel calls: into pte_plan.ops */
};

struct pte_chain {
	struct pte_instruction *instr;
	uint32_t n;
};

struct pte_operator {
	char *name;             /* "aten::add" */
	char *overload;         /* "out" */
};

struct pte_plan {
	char *method;           /* "forward" */
	struct pte_chain *chains;
	uint32_t nchains;
	struct pte_operator *ops;
	uint32_t nops;
};

/*
 * Read execution plan `method` (NULL: the first, as executor_runner runs)
 * from a program in memory. -EINVAL with the reason in err for what is not
 * an ET12 program or breaks its schema (an op_index out of range
 * included), -ENOENT for no such method, -ENOMEM.
 */
int pte_read_plan(const void *data, size_t len, const char *method,
		  struct pte_plan *out, char *err, size_t errlen);
int pte_read_plan_file(const char *path, const char *method,
		       struct pte_plan *out, char *err, size_t errlen);
/*
 * The name ETDumpGen's codegen gives a kernel call's scope:
 * "native_call_" + operator name without namespace + "." + overload, e.g.
 * "native_call_add.out". -ENAMETOOLONG when it does not fit in len.
 */
int pte_kernel_event_name(const struct pte_plan *p,
			  const struct pte_instruction *in, char *buf,
			  size_t len);
void pte_plan_free(struct pte_plan *p);

#endif /* ETDUMP_PTE_READER_H */
