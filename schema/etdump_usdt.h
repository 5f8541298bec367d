/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etdump_usdt.h - USDT probes a runtime places where ExecuTorch's event
 * tracer hooks sit, so that `etdump-bpf record` can turn a run into an ETDump.
 *
 * Dependency-free: include it from C or C++; no <sys/sdt.h> needed.
 *
 * Provider: "etdump". Every probe is guarded by its own USDT semaphore: the
 * arguments are evaluated only while a tracer is attached, so a detached site
 * costs one load and one predictable branch. Each site is a 5-byte nop on
 * x86-64 (kernels >= 6.18 replace a uprobe there by a call instead of a trap).
 *
 * Every argument is passed as a 64-bit value in a register.
 *
 * Probe             Arguments                          ETDump result
 * ----------------  ---------------------------------  -------------------------------
 * block             name                               a new RunData named `name`
 *                                                      (ETDumpGen create_event_block);
 *                                                      "Default" at load_method,
 *                                                      "Execute" at each execute
 * profile_begin     name, chain, instr                 opens a ProfileEvent scope
 *                                                      (start_profiling); chain -1
 *                                                      means "use the instruction
 *                                                      state" as ETDumpGen does
 * profile_end       name                               closes the innermost scope
 *                                                      opened with the same `name`
 *                                                      pointer (end_profiling); the
 *                                                      ProfileEvent is written now
 * instruction       chain, instr                       sets the per-thread chain and
 *                                                      debug-handle state
 *                                                      (set_chain_debug_handle);
 *                                                      (-1, 0) outside instructions
 * delegate_begin    id_str, id_int                     opens a delegate scope
 *                                                      (start_profiling_delegate):
 *                                                      id_str (may be NULL) or
 *                                                      id_int (!= -1)
 * delegate_end      metadata, metadata_len             closes it
 *                                                      (end_profiling_delegate);
 *                                                      ProfileEvent with delegate ids
 * delegate_log      id_str, id_int, start, end,        one delegate ProfileEvent with
 *                   metadata, metadata_len             the delegate's own CLOCK_MONOTONIC
 *                                                      ns times (log_profiling_delegate)
 * value             kind, ptr, chain, instr            reserved: intermediate/output
 *                                                      values (log_evalue)
 * allocation        allocator_id, size                 reserved: allocation events
 *
 * Strings are NUL-terminated; the tracer copies at most 63 bytes of a name and
 * 64 bytes of metadata. Delegate times must be CLOCK_MONOTONIC nanoseconds,
 * the clock the tracer stamps every other event with.
 *
 * Usage:
 *   ETDUMP_BLOCK("Execute");
 *   ETDUMP_PROFILE_BEGIN("Method::execute", -1, 0);
 *   ...
 *   ETDUMP_PROFILE_END("Method::execute");
 */
#ifndef ETDUMP_USDT_H
#define ETDUMP_USDT_H

#define ETDUMP_USDT_ABI_VERSION 1

#if defined(ETDUMP_USDT_DISABLE) || !defined(__GNUC__) || !defined(__ELF__)

#define ETDUMP_ENABLED(probe) 0
#define ETDUMP_PROBE_SITE(probe, nargs, ...) do { } while (0)

#else

#ifdef __cplusplus
#define ETDUMP__EXTERN_C_BEGIN extern "C" {
#define ETDUMP__EXTERN_C_END }
#else
#define ETDUMP__EXTERN_C_BEGIN
#define ETDUMP__EXTERN_C_END
#endif

/*
 * One semaphore per probe. Weak and hidden: every translation unit that
 * includes this header shares one copy per executable or shared library,
 * which is what the kernel increments while a uprobe is attached there.
 */
#define ETDUMP__SEMAPHORE(probe) etdump_##probe##_semaphore
#define ETDUMP__DECLARE_SEMAPHORE(probe)                                      \
	volatile unsigned short ETDUMP__SEMAPHORE(probe)                       \
		__attribute__((weak, used, section(".probes"),                \
			       visibility("hidden"))) = 0

ETDUMP__EXTERN_C_BEGIN
ETDUMP__DECLARE_SEMAPHORE(block);
ETDUMP__DECLARE_SEMAPHORE(profile_begin);
ETDUMP__DECLARE_SEMAPHORE(profile_end);
ETDUMP__DECLARE_SEMAPHORE(instruction);
ETDUMP__DECLARE_SEMAPHORE(delegate_begin);
ETDUMP__DECLARE_SEMAPHORE(delegate_end);
ETDUMP__DECLARE_SEMAPHORE(delegate_log);
ETDUMP__DECLARE_SEMAPHORE(value);
ETDUMP__DECLARE_SEMAPHORE(allocation);
ETDUMP__EXTERN_C_END

#define ETDUMP_ENABLED(probe) __builtin_expect(ETDUMP__SEMAPHORE(probe) != 0, 0)

#if defined(__x86_64__)
/* nopl 0x0(%rax,%rax,1): the one nop the kernel optimizes uprobes on */
#define ETDUMP__NOP ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"
#else
#define ETDUMP__NOP "nop"
#endif
#define ETDUMP__ARG(n) "8@%" #n

/*
 * The stapsdt note (type 3, owner "stapsdt") that libbpf, bpftrace, perf and
 * gdb read: probe address, .stapsdt.base address, semaphore address, then
 * provider, name and argument spec as NUL-terminated strings.
 */
#define ETDUMP__NOTE(probe, argspec)                                           \
	"990:	" ETDUMP__NOP "\n"                                             \
	".pushsection .note.stapsdt,\"?\",\"note\"\n"                           \
	".balign 4\n"                                                          \
	".4byte 992f-991f, 994f-993f, 3\n"                                     \
	"991:	.asciz \"stapsdt\"\n"                                          \
	"992:	.balign 4\n"                                                   \
	"993:	.8byte 990b\n"                                                 \
	".8byte _.stapsdt.base\n"                                              \
	".8byte etdump_" #probe "_semaphore\n"                                 \
	".asciz \"etdump\"\n"                                                  \
	".asciz \"" #probe "\"\n"                                              \
	".asciz \"" argspec "\"\n"                                             \
	"994:	.balign 4\n"                                                   \
	".popsection\n"                                                        \
	".ifndef _.stapsdt.base\n"                                             \
	".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
	".weak _.stapsdt.base\n"                                               \
	".hidden _.stapsdt.base\n"                                             \
	"_.stapsdt.base: .space 1\n"                                           \
	".size _.stapsdt.base, 1\n"                                            \
	".popsection\n"                                                        \
	".endif\n"

#define ETDUMP__U64(x) ((unsigned long long)(x))

#define ETDUMP__SITE0(probe)                                                   \
	__asm__ __volatile__(ETDUMP__NOTE(probe, "") ::: "memory")
#define ETDUMP__SITE1(probe, a)                                                \
	__asm__ __volatile__(ETDUMP__NOTE(probe, ETDUMP__ARG(0))               \
			     :: "r"(ETDUMP__U64(a)) : "memory")
#define ETDUMP__SITE2(probe, a, b)                                             \
	__asm__ __volatile__(ETDUMP__NOTE(probe, ETDUMP__ARG(0) " "            \
					  ETDUMP__ARG(1))                       \
			     :: "r"(ETDUMP__U64(a)), "r"(ETDUMP__U64(b))        \
			     : "memory")
#define ETDUMP__SITE3(probe, a, b, c)                                          \
	__asm__ __volatile__(ETDUMP__NOTE(probe, ETDUMP__ARG(0) " "            \
					  ETDUMP__ARG(1) " " ETDUMP__ARG(2))    \
			     :: "r"(ETDUMP__U64(a)), "r"(ETDUMP__U64(b)),       \
				"r"(ETDUMP__U64(c)) : "memory")
#define ETDUMP__SITE4(probe, a, b, c, d)                                       \
	__asm__ __volatile__(ETDUMP__NOTE(probe, ETDUMP__ARG(0) " "            \
					  ETDUMP__ARG(1) " " ETDUMP__ARG(2) " " \
					  ETDUMP__ARG(3))                       \
			     :: "r"(ETDUMP__U64(a)), "r"(ETDUMP__U64(b)),       \
				"r"(ETDUMP__U64(c)), "r"(ETDUMP__U64(d))        \
			     : "memory")
#define ETDUMP__SITE6(probe, a, b, c, d, e, f)                                 \
	__asm__ __volatile__(ETDUMP__NOTE(probe, ETDUMP__ARG(0) " "            \
					  ETDUMP__ARG(1) " " ETDUMP__ARG(2) " " \
					  ETDUMP__ARG(3) " " ETDUMP__ARG(4) " " \
					  ETDUMP__ARG(5))                       \
			     :: "r"(ETDUMP__U64(a)), "r"(ETDUMP__U64(b)),       \
				"r"(ETDUMP__U64(c)), "r"(ETDUMP__U64(d)),       \
				"r"(ETDUMP__U64(e)), "r"(ETDUMP__U64(f))        \
			     : "memory")

/* A guarded site: arguments are evaluated only while a tracer is attached. */
#define ETDUMP_PROBE_SITE(probe, nargs, ...)                                   \
	do {                                                                   \
		if (ETDUMP_ENABLED(probe))                                     \
			ETDUMP__SITE##nargs(probe, __VA_ARGS__);               \
	} while (0)

/*
 * The tracer reads strings and metadata from inside the probe, where it
 * cannot fault a page in: a constant the program never touched itself is
 * unreadable there. Touch the first byte so its page is present. Only
 * evaluated while attached.
 */
static inline const void *etdump__present(const void *p)
{
	if (p)
		(void)*(const volatile char *)p;
	return p;
}

#endif /* probes compiled in */

/* Tracer state outside any instruction, as in ExecuTorch's EventTracer. */
#define ETDUMP_UNSET_CHAIN (-1)
#define ETDUMP_UNSET_DEBUG_HANDLE 0

#define ETDUMP_BLOCK(name) ETDUMP_PROBE_SITE(block, 1, etdump__present(name))
#define ETDUMP_PROFILE_BEGIN(name, chain, instr)                               \
	ETDUMP_PROBE_SITE(profile_begin, 3, etdump__present(name),             \
			  (long long)(chain),                                  \
			  (long long)(instr))
#define ETDUMP_PROFILE_END(name) ETDUMP_PROBE_SITE(profile_end, 1, (name))
#define ETDUMP_INSTRUCTION(chain, instr)                                       \
	ETDUMP_PROBE_SITE(instruction, 2, (long long)(chain),                  \
			  (long long)(instr))
#define ETDUMP_DELEGATE_BEGIN(id_str, id_int)                                  \
	ETDUMP_PROBE_SITE(delegate_begin, 2, etdump__present(id_str),          \
			  (long long)(id_int))
#define ETDUMP_DELEGATE_END(metadata, metadata_len)                            \
	ETDUMP_PROBE_SITE(delegate_end, 2, etdump__present(metadata),          \
			  (metadata_len))
#define ETDUMP_DELEGATE_LOG(id_str, id_int, start_ns, end_ns, metadata,        \
			    metadata_len)                                      \
	ETDUMP_PROBE_SITE(delegate_log, 6, etdump__present(id_str),            \
			  (long long)(id_int), (start_ns), (end_ns),           \
			  etdump__present(metadata), (metadata_len))
#define ETDUMP_VALUE(kind, ptr, chain, instr)                                  \
	ETDUMP_PROBE_SITE(value, 4, (kind), (ptr), (long long)(chain),         \
			  (long long)(instr))
#define ETDUMP_ALLOCATION(allocator_id, size)                                  \
	ETDUMP_PROBE_SITE(allocation, 2, (allocator_id), (size))

#endif /* ETDUMP_USDT_H */
