/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kernel_registry.h - the operator names a binary registers its kernels
 * under ("aten::_softmax.out"), read from its read-only data, so that a
 * kernel whose symbol spells its operator otherwise (softmax_out for
 * _softmax.out) gets the event ETDumpGen's generated code names it
 * (native_call__softmax.out) without --program.
 */
#ifndef ETDUMP_KERNEL_REGISTRY_H
#define ETDUMP_KERNEL_REGISTRY_H

#include <stddef.h>

struct kernel_registry {
	char **names;           /* "_softmax.out", the namespace left out */
	size_t n;
};

/*
 * The names of `path`'s .rodata of the form NAMESPACE::OPERATOR.OVERLOAD.
 * 0 (none is no error), or -ENOMEM.
 */
int kernel_registry_read(struct kernel_registry *r, const char *path);
/* The same from a buffer of NUL-separated strings (len bytes). */
int kernel_registry_scan(struct kernel_registry *r, const char *data,
			 size_t len);
/*
 * A kernel's event native_call_OP.OVERLOAD whose OP.OVERLOAD is not
 * registered, but one name only that differs by leading underscores is:
 * renamed to that one, in place (event holds len bytes). Anything else is
 * left as it is.
 */
void kernel_registry_name(const struct kernel_registry *r, char *event,
			  size_t len);
void kernel_registry_free(struct kernel_registry *r);

#endif /* ETDUMP_KERNEL_REGISTRY_H */
