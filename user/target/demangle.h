/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * demangle.h - the name symbol-mode rules match: a symbol demangled by the
 * toolchain's own demangler (libstdc++'s abi::__cxa_demangle), without its
 * return type, parameters and qualifiers. C names are kept as they are.
 */
#ifndef ETDUMP_DEMANGLE_H
#define ETDUMP_DEMANGLE_H

/*
 * "_ZNK10executorch7runtime7Program11load_methodEPKc..." ->
 * "executorch::runtime::Program::load_method". NULL, with errno set, for a
 * symbol that is not the entry of a function as the source names it
 * (EINVAL: a lambda or other local entity, a thunk, a compiler-made part or
 * clone such as "foo.cold"), or ENOMEM. The caller frees the result.
 */
char *demangle_function(const char *symbol);

#endif /* ETDUMP_DEMANGLE_H */
