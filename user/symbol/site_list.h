/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * site_list.h - the sites symbol mode attaches at (symbol_sites.h finds
 * them, xnnpack_sites.h adds XNNPACK's), each with the event it becomes.
 */
#ifndef ETDUMP_SITE_LIST_H
#define ETDUMP_SITE_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "schema/etdump_record.h"
#include "schema/symbol_values.h"
#include "symbol/xnnpack_ops.h"
#include "target/elf_symbols.h"
#include "target/process_objects.h"

/* exits of one site at most: an aarch64 function with more keeps its
   uretprobe */
#define SYMBOL_SITE_EXITS 16

/*
 * An object's XNNPACK, named from its own tables (xnnpack_sites.h): each
 * object that links it in has its own, a library loaded later too.
 */
struct xnn_object {
	const char *path;       /* the object, in symbol_sites.objects */
	struct xnn_ops ops;
	/* its xnn_delete_operator's file offset; 0: none */
	uint64_t forget_offset;
};

struct symbol_site {
	const char *path;       /* the object, in symbol_sites.objects */
	uint64_t offset;        /* file offset to attach at: the entry, just
				   after its endbr64, past its guard
				   (symbol_guard.h), or an aarch64
				   function's first simulated instruction
				   (arm64_exits.h) */
	uint64_t start;         /* file offset of the function's first
				   instruction: its aliases are the same site */
	uint64_t size;          /* the function's bytes, 0 when not known */
	/* a kernel that calls another site's function directly
	   (kernel_callers.h): it keeps its return probed */
	bool calls_site;
	/* ETDUMP_FUNC_ENDS_AT_NEXT: its return probes (a uretprobe, or its
	   exits) are the gap ones, detached once the gaps are measured */
	bool ends_at_next;
	char *function;         /* the name the rule matched */
	/* the kernel must single-step its first instruction: ~10x the cost */
	bool single_step;
	/* its first instruction is the 5-byte nop x86-64 kernels from 6.18
	   turn into a call of their uprobe trampoline: no trap after the
	   first hit (site_traps.h) */
	bool optimized;
	/* aarch64 code, whose uprobes "simulate" what they do not step */
	bool aarch64;
	/* the exit_offsets' instructions are single-stepped */
	bool exit_stepped;
	/* not 0: the exit is a plain uprobe at each of these file offsets,
	   not a uretprobe: where an XNNPACK operator's call returns, each
	   `ret` of an aarch64 function (arm64_exits.h); a call passes one */
	size_t nexits;
	uint64_t exit_offsets[SYMBOL_SITE_EXITS];
	/* an XNNPACK operator's (ETDUMP_FUNC_XNN_OP): its object's XNNPACK,
	   which names it; in symbol_sites.xnn */
	const struct xnn_object *xnn;
	struct etdump_func_site desc;  /* id = index in symbol_sites.sites */
	/* record --values: its out tensors at return (value_sites.h) */
	struct etdump_func_outputs outputs;
};

struct symbol_sites {
	struct symbol_site *sites;      /* one object's after another's */
	size_t n;
	struct path_list objects;
	struct elf_symbols_info exe;   /* where the executable's came from */
	size_t functions;              /* symbols looked at, all objects */
	size_t single_step;            /* sites that must be single-stepped */
	/* record --values: read out tensors, at most value_max bytes each */
	bool values;
	uint64_t value_max;
	struct etdump_tensor_layout tensor;
	/* the objects with XNNPACK, each apart: where symbol_site.xnn point */
	struct xnn_object **xnn;
	size_t nxnn;
	/* every hit into the ring as it comes (--duty), not kept per thread */
	bool per_hit;
};

/*
 * One more site, zeroed but for its id; NULL when out of memory. Its
 * function is freed with the sites.
 */
struct symbol_site *symbol_sites_new(struct symbol_sites *s);
/*
 * The probes a site has: a uretprobe at its function's return, or a plain
 * uprobe at each of its exit_offsets; a uprobe at its entry.
 */
enum symbol_probe_kind {
	SYMBOL_PROBE_RETURN,
	SYMBOL_PROBE_EXIT_AT,
	SYMBOL_PROBE_ENTRY,
	/* the returns, or exits, of the sites that end at the next event,
	   probed only while the gaps are measured (gap_table.h) */
	SYMBOL_PROBE_GAP_RETURN,
	SYMBOL_PROBE_GAP_EXIT_AT,
	/* the entry of an XNNPACK operator's site, which runs a program of
	   its own (the others' entries are SYMBOL_PROBE_ENTRY) */
	SYMBOL_PROBE_XNN_CALL,
	SYMBOL_PROBE_KINDS
};

/*
 * The offsets of the probes of a kind of the n sites from `first` on, and
 * their sites' ids as cookies: how many. NULL offsets and cookies: only
 * how many.
 */
size_t symbol_sites_probes(const struct symbol_site *first, size_t n,
			   enum symbol_probe_kind kind, uint64_t *offsets,
			   uint64_t *cookies);
/* How many sites are of this kind (enum etdump_func_kind). */
size_t symbol_sites_count(const struct symbol_sites *s, int kind);
/* Leave out the sites of a kind, the others renumbered (desc.id). */
void symbol_sites_drop(struct symbol_sites *s, int kind);
void symbol_sites_free(struct symbol_sites *s);

#endif /* ETDUMP_SITE_LIST_H */
