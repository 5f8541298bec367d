/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etdump_usdt.h - USDT probes a runtime places where ExecuTorch's event
 * tracer hooks sit, so that `etdump-bpf record` can turn a run into an ETDump.
 *
 * Dependency-free: include it from C or C++; no <sys/sdt.h> needed.
 *
 * Provider: "etdump". Sites are guarded by USDT semaphores: the arguments are
 * evaluated only while a tracer is attached, so a detached site costs one
 * load and one predictable branch. Each site is a 5-byte nop on x86-64
 * (kernels >= 6.18 replace a uprobe there by a call instead of a trap).
 *
 * Two modes, chosen by the tracer when it attaches, never by a rebuild:
 *  - per-scope: the tracer attaches the probes below; each event is a probe
 *    hit, stamped in the kernel (and counters can be read there);
 *  - batched: the tracer attaches only `flush`. Sites then append compact
 *    records stamped with clock_gettime(CLOCK_MONOTONIC) to a per-thread
 *    buffer, and one `flush(buf, len, nevents)` hit hands the buffer over when
 *    a run ends (the outermost scope closes), when it fills, and when the
 *    thread or the process exits. Events of a process that dies between
 *    flushes are lost.
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
 * value             kind, desc, chain, instr           a DebugEvent (log_evalue,
 *                                                      log_intermediate_output_
 *                                                      delegate): `desc` is a
 *                                                      struct etdump_value_desc
 *                                                      (below); per-scope only
 * allocation        allocator_id, size                 an allocation the runtime
 *                                                      reports (track_allocation);
 *                                                      per-scope only
 * allocator         allocator_id, name                 the name of an allocator
 *                                                      (track_allocator); per-scope
 * flush             buf, len, nevents                  batched mode: `len` bytes of
 *                                                      records (struct
 *                                                      etdump_batch_rec) at `buf`,
 *                                                      holding `nevents` ETDump
 *                                                      events (what is lost with it)
 *
 * Strings are NUL-terminated; the tracer copies at most 63 bytes of a name and
 * 64 bytes of metadata. Delegate times are written as given, as ETDumpGen
 * writes them; they line up with the other events (stamped with
 * CLOCK_MONOTONIC) only when the delegate uses that clock too: XNNPACK's
 * profiler does not.
 *
 * Usage:
 *   ETDUMP_BLOCK("Execute");
 *   ETDUMP_PROFILE_BEGIN("Method::execute", -1, 0);
 *   ...
 *   ETDUMP_PROFILE_END("Method::execute");
 */
#ifndef ETDUMP_USDT_H
#define ETDUMP_USDT_H

#define ETDUMP_USDT_ABI_VERSION 2

/*
 * Batched mode's records, in the per-thread buffer: struct etdump_batch_rec,
 * then `size - sizeof(struct etdump_batch_rec)` payload bytes; `size` is a
 * multiple of 8. A NAME record gives the string of a pointer (`token`) the
 * later records of the same flush refer to; each flush is self-contained.
 */
enum etdump_batch_type {
	ETDUMP_BATCH_NAME = 1,           /* token; payload: the string, NUL */
	ETDUMP_BATCH_BLOCK = 2,          /* token = name, ts */
	ETDUMP_BATCH_BEGIN = 3,          /* token = name, a = chain, b = instr, ts */
	ETDUMP_BATCH_END = 4,            /* token = name, ts */
	ETDUMP_BATCH_INSTRUCTION = 5,    /* a = chain, b = instr */
	ETDUMP_BATCH_DELEGATE_BEGIN = 6, /* token = id_str or 0, a = id_int, ts */
	ETDUMP_BATCH_DELEGATE_END = 7,   /* ts, b = metadata bytes; payload */
	ETDUMP_BATCH_DELEGATE_LOG = 8,   /* token = id_str or 0, a = id_int,
					  * ts = start, b = metadata bytes;
					  * payload: u64 end, then metadata */
};

struct etdump_batch_rec {
	unsigned short type;
	unsigned short size;
	int a;
	int b;
	unsigned int b_len_orig; /* metadata bytes the runtime passed */
	unsigned long long ts;
	unsigned long long token;
};

/*
 * What the `value` probe points at: one value the runtime logs, described
 * in plain C so that the tracer needs no knowledge of the runtime's types.
 * A list of tensors is one probe hit per tensor, `index` 0 to `count` - 1.
 * The tracer copies the descriptor, then at most its own bound of the
 * `nbytes` at `data`.
 */
enum etdump_value_type {          /* as the ETDump schema's ValueType */
	ETDUMP_VALUE_NULL = 0,
	ETDUMP_VALUE_INT = 1,
	ETDUMP_VALUE_BOOL = 2,
	ETDUMP_VALUE_FLOAT = 3,
	ETDUMP_VALUE_DOUBLE = 4,
	ETDUMP_VALUE_TENSOR = 5,
	ETDUMP_VALUE_TENSOR_LIST = 6, /* each tensor: type TENSOR_LIST */
};

#define ETDUMP_VALUE_OUTPUT 1u     /* flags: a program output */
#define ETDUMP_VALUE_DIM_MAX 16    /* ExecuTorch's kTensorDimensionLimit */

struct etdump_value_desc {
	unsigned int type;         /* enum etdump_value_type */
	unsigned int flags;
	unsigned int index;        /* in a tensor list */
	unsigned int count;        /* tensors in the list */
	int scalar_type;           /* the schema's ScalarType */
	unsigned int dim;          /* entries of sizes and strides */
	long long sizes[ETDUMP_VALUE_DIM_MAX];
	long long strides[ETDUMP_VALUE_DIM_MAX];
	const void *data;          /* the tensor's bytes */
	unsigned long long nbytes;
	long long int_val;         /* INT, BOOL */
	double double_val;         /* DOUBLE, FLOAT */
	const char *delegate_id_str; /* a delegate's intermediate, or NULL */
	long long delegate_id_int; /* ... or its int id, else -1 */
};

#define ETDUMP_BATCH_BYTES 4096  /* one flush: what the tracer copies at most */
#define ETDUMP_BATCH_NAME_MAX 63 /* as the per-scope probes copy names */
#define ETDUMP_BATCH_META_MAX 64

#if defined(ETDUMP_USDT_DISABLE) || !defined(__GNUC__) || !defined(__ELF__)

#define ETDUMP_ENABLED(probe) 0
#define ETDUMP__EVENT(batched, probe, nargs, ...) do { } while (0)

#else

#ifdef __cplusplus
#define ETDUMP__EXTERN_C_BEGIN extern "C" {
#define ETDUMP__EXTERN_C_END }
#else
#define ETDUMP__EXTERN_C_BEGIN
#define ETDUMP__EXTERN_C_END
#endif

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * The semaphores the kernel increments while a uprobe is attached: every
 * per-scope probe's note names `probes`, the flush probe's names `batch`, so
 * one 32-bit load tells a site whether anything is attached. Weak and
 * hidden: one copy per executable or shared library.
 */
union etdump_semaphores {
	struct {
		unsigned short probes;
		unsigned short batch;
	} s;
	unsigned int any;
};

ETDUMP__EXTERN_C_BEGIN
volatile union etdump_semaphores etdump_semaphores
	__attribute__((weak, used, section(".probes"), visibility("hidden"),
		       aligned(4))) = { { 0, 0 } };
ETDUMP__EXTERN_C_END

#define ETDUMP_ENABLED(probe) __builtin_expect(etdump_semaphores.any != 0, 0)

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
#define ETDUMP__NOTE(probe, semaphore, argspec)                                \
	"990:	" ETDUMP__NOP "\n"                                             \
	".pushsection .note.stapsdt,\"?\",\"note\"\n"                           \
	".balign 4\n"                                                          \
	".4byte 992f-991f, 994f-993f, 3\n"                                     \
	"991:	.asciz \"stapsdt\"\n"                                          \
	"992:	.balign 4\n"                                                   \
	"993:	.8byte 990b\n"                                                 \
	".8byte _.stapsdt.base\n"                                              \
	".8byte " semaphore "\n"                                               \
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
/* which semaphore a probe's note names */
#define ETDUMP__SEM(probe) ETDUMP__SEM_##probe
#define ETDUMP__SEM_flush "etdump_semaphores+2"
#define ETDUMP__SEM_block "etdump_semaphores"
#define ETDUMP__SEM_profile_begin "etdump_semaphores"
#define ETDUMP__SEM_profile_end "etdump_semaphores"
#define ETDUMP__SEM_instruction "etdump_semaphores"
#define ETDUMP__SEM_delegate_begin "etdump_semaphores"
#define ETDUMP__SEM_delegate_end "etdump_semaphores"
#define ETDUMP__SEM_delegate_log "etdump_semaphores"
#define ETDUMP__SEM_value "etdump_semaphores"
#define ETDUMP__SEM_allocation "etdump_semaphores"
#define ETDUMP__SEM_allocator "etdump_semaphores"

#define ETDUMP__SITE0(probe)                                                   \
	__asm__ __volatile__(ETDUMP__NOTE(probe, ETDUMP__SEM(probe), "") ::: "memory")
#define ETDUMP__SITE1(probe, a)                                                \
	__asm__ __volatile__(ETDUMP__NOTE(probe, ETDUMP__SEM(probe), ETDUMP__ARG(0))               \
			     :: "r"(ETDUMP__U64(a)) : "memory")
#define ETDUMP__SITE2(probe, a, b)                                             \
	__asm__ __volatile__(ETDUMP__NOTE(probe, ETDUMP__SEM(probe), ETDUMP__ARG(0) " "            \
					  ETDUMP__ARG(1))                       \
			     :: "r"(ETDUMP__U64(a)), "r"(ETDUMP__U64(b))        \
			     : "memory")
#define ETDUMP__SITE3(probe, a, b, c)                                          \
	__asm__ __volatile__(ETDUMP__NOTE(probe, ETDUMP__SEM(probe), ETDUMP__ARG(0) " "            \
					  ETDUMP__ARG(1) " " ETDUMP__ARG(2))    \
			     :: "r"(ETDUMP__U64(a)), "r"(ETDUMP__U64(b)),       \
				"r"(ETDUMP__U64(c)) : "memory")
#define ETDUMP__SITE4(probe, a, b, c, d)                                       \
	__asm__ __volatile__(ETDUMP__NOTE(probe, ETDUMP__SEM(probe), ETDUMP__ARG(0) " "            \
					  ETDUMP__ARG(1) " " ETDUMP__ARG(2) " " \
					  ETDUMP__ARG(3))                       \
			     :: "r"(ETDUMP__U64(a)), "r"(ETDUMP__U64(b)),       \
				"r"(ETDUMP__U64(c)), "r"(ETDUMP__U64(d))        \
			     : "memory")
#define ETDUMP__SITE6(probe, a, b, c, d, e, f)                                 \
	__asm__ __volatile__(ETDUMP__NOTE(probe, ETDUMP__SEM(probe), ETDUMP__ARG(0) " "            \
					  ETDUMP__ARG(1) " " ETDUMP__ARG(2) " " \
					  ETDUMP__ARG(3) " " ETDUMP__ARG(4) " " \
					  ETDUMP__ARG(5))                       \
			     :: "r"(ETDUMP__U64(a)), "r"(ETDUMP__U64(b)),       \
				"r"(ETDUMP__U64(c)), "r"(ETDUMP__U64(d)),       \
				"r"(ETDUMP__U64(e)), "r"(ETDUMP__U64(f))        \
			     : "memory")

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

/* ---- batched mode: the runtime's side ---------------------------------- */

#define ETDUMP__NAME_SLOTS 64

struct etdump_batch_state {
	unsigned int len;        /* bytes used in buf */
	unsigned int nevents;    /* records that become an ETDump event */
	unsigned int depth;      /* open scopes; a run ends when back at 0 */
	unsigned int registered;
	const void *names[ETDUMP__NAME_SLOTS]; /* pointers named in this flush */
	unsigned short name_at[ETDUMP__NAME_SLOTS]; /* ... where, in buf */
	unsigned long long buf[ETDUMP_BATCH_BYTES / 8];
};

ETDUMP__EXTERN_C_BEGIN
__thread struct etdump_batch_state etdump_batch_state
	__attribute__((weak, visibility("hidden")));
pthread_once_t etdump_batch_once __attribute__((weak, visibility("hidden"))) =
	PTHREAD_ONCE_INIT;
pthread_key_t etdump_batch_key __attribute__((weak, visibility("hidden")));
ETDUMP__EXTERN_C_END

static inline unsigned long long etdump__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void etdump__flush(struct etdump_batch_state *st)
{
	/* a buffer filled while attached is stale once the tracer is gone */
	if (st->len && etdump_semaphores.s.batch)
		ETDUMP__SITE3(flush, st->buf, st->len, st->nevents);
	st->len = 0;
	st->nevents = 0;
	memset(st->names, 0, sizeof(st->names));
}

static inline void etdump__flush_thread(void *st)
{
	etdump__flush((struct etdump_batch_state *)st);
}

static inline void etdump__flush_at_exit(void)
{
	etdump__flush(&etdump_batch_state);
}

static inline void etdump__batch_init(void)
{
	pthread_key_create(&etdump_batch_key, etdump__flush_thread);
	atexit(etdump__flush_at_exit);
}

/* Flush at thread exit too: the key's destructor sees this thread's state. */
static inline struct etdump_batch_state *etdump__state(void)
{
	struct etdump_batch_state *st = &etdump_batch_state;

	if (__builtin_expect(!st->registered, 0)) {
		pthread_once(&etdump_batch_once, etdump__batch_init);
		pthread_setspecific(etdump_batch_key, st);
		st->registered = 1;
	}
	return st;
}

static inline unsigned int etdump__rec_size(unsigned int payload)
{
	return (sizeof(struct etdump_batch_rec) + payload + 7) & ~7u;
}

static inline struct etdump_batch_rec *
etdump__put(struct etdump_batch_state *st, unsigned short type,
	    unsigned int size)
{
	struct etdump_batch_rec *r =
		(struct etdump_batch_rec *)((char *)st->buf + st->len);

	r->type = type;
	r->size = (unsigned short)size;
	st->len += size;
	/* an ETDump event is written where a scope ends or a delegate logs */
	st->nevents += type == ETDUMP_BATCH_END ||
		       type == ETDUMP_BATCH_DELEGATE_END ||
		       type == ETDUMP_BATCH_DELEGATE_LOG;
	return r;
}

/*
 * Room for one record of `payload` bytes naming `name`, plus the NAME record
 * that must precede it in the same flush when this flush has not named it.
 */
/*
 * Whether this flush has named `name` already, with the text it holds now: a
 * runtime may build different names in one buffer (a std::string reused in
 * a loop), so the pointer alone does not say.
 */
static inline int etdump__named(const struct etdump_batch_state *st,
				const void *name, unsigned int slot)
{
	const char *said;

	if (st->names[slot] != name)
		return 0;
	said = (const char *)st->buf + st->name_at[slot] +
	       sizeof(struct etdump_batch_rec);
	return !strncmp(said, (const char *)name, ETDUMP_BATCH_NAME_MAX);
}

static inline void etdump__room(struct etdump_batch_state *st,
				const void *name, unsigned int payload)
{
	unsigned int slot = ((unsigned long)name >> 3) % ETDUMP__NAME_SLOTS;
	unsigned int need = etdump__rec_size(payload);
	struct etdump_batch_rec *r;
	int named = !name || etdump__named(st, name, slot);
	size_t n = 0;

	if (!named) {
		n = strnlen((const char *)name, ETDUMP_BATCH_NAME_MAX);
		need += etdump__rec_size(n + 1);
	}
	if (st->len + need > ETDUMP_BATCH_BYTES) {
		etdump__flush(st);
		if (name && named) {
			named = 0;
			n = strnlen((const char *)name, ETDUMP_BATCH_NAME_MAX);
		}
	}
	if (!named) {
		st->name_at[slot] = (unsigned short)st->len;
		r = etdump__put(st, ETDUMP_BATCH_NAME, etdump__rec_size(n + 1));
		r->token = (unsigned long long)name;
		memcpy(r + 1, name, n);
		((char *)(r + 1))[n] = '\0';
		st->names[slot] = name;
	}
}

static inline void etdump__batch(unsigned short type, const void *name,
				 long long a, long long b)
{
	struct etdump_batch_state *st = etdump__state();
	unsigned long long ts = etdump__now();
	struct etdump_batch_rec *r;

	/*
	 * A new run while scopes are open: the last run left one unclosed
	 * (an early return), or the runtime opened a scope around it. Either
	 * way the last run has ended: hand it over now rather than when the
	 * buffer fills, and count depth from this run.
	 */
	if (type == ETDUMP_BATCH_BLOCK && st->depth) {
		etdump__flush(st);
		st->depth = 0;
	}
	/* END carries the pointer only to pair with its BEGIN */
	etdump__room(st, type == ETDUMP_BATCH_END ? NULL : name, 0);
	r = etdump__put(st, type, etdump__rec_size(0));
	r->a = (int)a;
	r->b = (int)b;
	r->ts = ts;
	r->token = (unsigned long long)name;
	if (type == ETDUMP_BATCH_BEGIN || type == ETDUMP_BATCH_DELEGATE_BEGIN) {
		st->depth++;
	} else if (type == ETDUMP_BATCH_END) {
		if (st->depth)
			st->depth--;
		if (!st->depth)
			etdump__flush(st);
	}
}

static inline void etdump__batch_delegate(unsigned short type,
					  const void *id_str, long long id_int,
					  unsigned long long start,
					  unsigned long long end,
					  const void *meta,
					  unsigned long long meta_len)
{
	struct etdump_batch_state *st = etdump__state();
	unsigned long long ts = type == ETDUMP_BATCH_DELEGATE_END ?
		etdump__now() : start;
	unsigned int head = type == ETDUMP_BATCH_DELEGATE_LOG ? 8 : 0;
	unsigned int n = meta_len > ETDUMP_BATCH_META_MAX ?
		ETDUMP_BATCH_META_MAX : (unsigned int)meta_len;
	struct etdump_batch_rec *r;

	if (!meta)
		n = 0;
	etdump__room(st, id_str, head + n);
	r = etdump__put(st, type, etdump__rec_size(head + n));
	r->a = (int)id_int;
	r->b = (int)n;
	r->b_len_orig = (unsigned int)meta_len;
	r->ts = ts;
	r->token = (unsigned long long)id_str;
	if (head)
		memcpy(r + 1, &end, 8);
	if (n)
		memcpy((char *)(r + 1) + head, meta, n);
	if (type == ETDUMP_BATCH_DELEGATE_END) {
		if (st->depth)
			st->depth--;
		if (!st->depth)
			etdump__flush(st);
	}
}

/*
 * A child forked while a tracer is attached inherits the patched probe
 * sites and the semaphores that say a tracer listens, but no tracer asked
 * for the child: on x86-64 from kernel 6.18 a patched 5-byte site is a
 * call into a uprobe trampoline mapped in the parent only, and the child
 * died of SIGSEGV at its next site. The child forgets the semaphores (a
 * tracer attaching to it later sets them again), so its sites are not
 * run, and the records its parent had buffered. Registered once per
 * executable or library before main(); a child made by vfork shares the
 * parent's memory, trampoline included. A raw clone() without CLONE_VM
 * runs no fork handlers and is not covered.
 */
static inline void etdump__forget_in_child(void)
{
	etdump_semaphores.any = 0;
	etdump_batch_state.len = 0;
	etdump_batch_state.nevents = 0;
	etdump_batch_state.depth = 0;
}

ETDUMP__EXTERN_C_BEGIN
int etdump_atfork_registered __attribute__((weak, visibility("hidden")));

__attribute__((weak, visibility("hidden"), constructor)) void
etdump__register_atfork(void)
{
	if (!etdump_atfork_registered) {
		etdump_atfork_registered = 1;
		pthread_atfork(NULL, NULL, etdump__forget_in_child);
	}
}
ETDUMP__EXTERN_C_END

/*
 * A site: nothing unless a tracer is attached; then the batched call when
 * the tracer attached `flush`, else the probe itself.
 */
#define ETDUMP__EVENT(batched, probe, nargs, ...)                              \
	do {                                                                   \
		if (ETDUMP_ENABLED(probe)) {                                   \
			if (etdump_semaphores.s.batch)                         \
				batched;                                       \
			else                                                   \
				ETDUMP__SITE##nargs(probe, __VA_ARGS__);       \
		}                                                              \
	} while (0)

#endif /* probes compiled in */

/* Tracer state outside any instruction, as in ExecuTorch's EventTracer. */
#define ETDUMP_UNSET_CHAIN (-1)
#define ETDUMP_UNSET_DEBUG_HANDLE 0

#define ETDUMP_BLOCK(name)                                                     \
	ETDUMP__EVENT(etdump__batch(ETDUMP_BATCH_BLOCK, (name), 0, 0), block, \
		      1, etdump__present(name))
#define ETDUMP_PROFILE_BEGIN(name, chain, instr)                               \
	ETDUMP__EVENT(etdump__batch(ETDUMP_BATCH_BEGIN, (name), (chain),       \
				    (instr)),                                  \
		      profile_begin, 3, etdump__present(name),                 \
		      (long long)(chain), (long long)(instr))
#define ETDUMP_PROFILE_END(name)                                               \
	ETDUMP__EVENT(etdump__batch(ETDUMP_BATCH_END, (name), 0, 0),           \
		      profile_end, 1, (name))
#define ETDUMP_INSTRUCTION(chain, instr)                                       \
	ETDUMP__EVENT(etdump__batch(ETDUMP_BATCH_INSTRUCTION, 0, (chain),      \
				    (instr)),                                  \
		      instruction, 2, (long long)(chain), (long long)(instr))
#define ETDUMP_DELEGATE_BEGIN(id_str, id_int)                                  \
	ETDUMP__EVENT(etdump__batch(ETDUMP_BATCH_DELEGATE_BEGIN, (id_str),     \
				    (id_int), 0),                              \
		      delegate_begin, 2, etdump__present(id_str),              \
		      (long long)(id_int))
#define ETDUMP_DELEGATE_END(metadata, metadata_len)                            \
	ETDUMP__EVENT(etdump__batch_delegate(ETDUMP_BATCH_DELEGATE_END, 0, -1, \
					     0, 0, (metadata),                 \
					     (metadata_len)),                  \
		      delegate_end, 2, etdump__present(metadata),              \
		      (metadata_len))
#define ETDUMP_DELEGATE_LOG(id_str, id_int, start_ns, end_ns, metadata,        \
			    metadata_len)                                      \
	ETDUMP__EVENT(etdump__batch_delegate(ETDUMP_BATCH_DELEGATE_LOG,        \
					     (id_str), (id_int), (start_ns),   \
					     (end_ns), (metadata),             \
					     (metadata_len)),                  \
		      delegate_log, 6, etdump__present(id_str),                \
		      (long long)(id_int), (start_ns), (end_ns),               \
		      etdump__present(metadata), (metadata_len))
/* per-scope probes only: `desc` is a struct etdump_value_desc */
#define ETDUMP_VALUE(kind, desc, chain, instr)                                 \
	ETDUMP__EVENT((void)0, value, 4, (kind), (desc), (long long)(chain),   \
		      (long long)(instr))
#define ETDUMP_ALLOCATION(allocator_id, size)                                  \
	ETDUMP__EVENT((void)0, allocation, 2, (allocator_id), (size))
#define ETDUMP_ALLOCATOR(allocator_id, name)                                   \
	ETDUMP__EVENT((void)0, allocator, 2, (allocator_id),                   \
		      etdump__present(name))

#endif /* ETDUMP_USDT_H */
