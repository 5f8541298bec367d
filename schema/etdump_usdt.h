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

#define ETDUMP_USDT_ABI_VERSION 4

/*
 * Batched mode's buffer, as the `flush` probe hands it over: a struct
 * etdump_batch_head, then `len` bytes of records. A record is a struct
 * etdump_batch_rec (8 bytes), then its payload; its size is a multiple of
 * 8. A NAME record gives the string of a name slot (1-320) the later records
 * of the same buffer carry: each buffer is self-contained, so a lost one
 * takes no names with it. A stamp is a 32-bit delta from the buffer's last
 * one (the head's from-anchor first); a TIME record gives a full stamp
 * when the delta does not fit.
 */
enum etdump_batch_type {
	ETDUMP_BATCH_NAME = 1,           /* slot; payload: the string, NUL */
	ETDUMP_BATCH_BLOCK = 2,          /* slot = name, dt */
	ETDUMP_BATCH_BEGIN = 3,          /* slot = name, dt; args: chain, instr */
	ETDUMP_BATCH_END = 4,            /* slot = the begin's name, dt */
	ETDUMP_BATCH_INSTRUCTION = 5,    /* args: chain, instr */
	ETDUMP_BATCH_DELEGATE_BEGIN = 6, /* slot = id_str or 0, dt;
					  * args: id_int */
	ETDUMP_BATCH_DELEGATE_END = 7,   /* dt; args: metadata bytes kept,
					  * bytes passed; then the metadata */
	ETDUMP_BATCH_DELEGATE_LOG = 8,   /* slot = id_str or 0; struct
					  * etdump_batch_log, then the
					  * metadata */
	ETDUMP_BATCH_BEGIN_AGAIN = 9,    /* a BEGIN with the chain and instr
					  * of the buffer's last BEGIN */
	ETDUMP_BATCH_TIME = 10,          /* payload: the stamp (u64) the next
					  * delta counts from */
	ETDUMP_BATCH_DELEGATE_LOG_SHORT = 11, /* a DELEGATE_LOG by its name,
					  * no metadata: slot = id_str, dt =
					  * end - start (not a stamp delta);
					  * payload: start (u64). ETB4 on */
};

/*
 * Name slots: 1-64 for literals of the executable, by their address (as
 * ETB3 had them), 65-320 for other names, by their text.
 */
#define ETDUMP_BATCH_LITERAL_SLOTS 64
#define ETDUMP_BATCH_TEXT_SLOTS 256
#define ETDUMP_BATCH_SLOTS (ETDUMP_BATCH_LITERAL_SLOTS + ETDUMP_BATCH_TEXT_SLOTS)

struct etdump_batch_rec {
	unsigned int word; /* type | size / 8 << 4 | slot << 12 (9 bits) */
	unsigned int dt;   /* this stamp less the buffer's last */
};

#define ETDUMP_BATCH_TYPE(word) ((word) & 0xf)
#define ETDUMP_BATCH_SIZE(word) ((((word) >> 4) & 0xff) * 8)
#define ETDUMP_BATCH_SLOT(word) (((word) >> 12) & 0x1ff)

struct etdump_batch_args {
	int a;
	int b;
};

struct etdump_batch_log {
	unsigned long long start; /* as given */
	unsigned long long end;
	int id_int;
	unsigned int meta_len;      /* metadata bytes kept */
	unsigned int meta_len_orig; /* ... the runtime passed */
	unsigned int pad;
};

/*
 * The stamps' clock. COUNTER: the CPU's constant-rate counter (x86-64 TSC
 * where the kernel keeps its clock on it, arm64 CNTVCT_EL0), read in a few
 * ns; the recorder turns it into CLOCK_MONOTONIC between the head's two
 * anchors, each a (counter, CLOCK_MONOTONIC) pair read together. NS:
 * CLOCK_MONOTONIC itself (clock_gettime), where no counter can be trusted.
 */
enum etdump_batch_clock {
	ETDUMP_BATCH_CLOCK_NS = 1,
	ETDUMP_BATCH_CLOCK_COUNTER = 2,
};

#define ETDUMP_BATCH_MAGIC 0x34425445u /* "ETB4": this layout */
/*
 * "ETB3": the same layout with slots 1-64, written by runtimes built with
 * this header before names took slots by their text; a recorder reads both.
 */
#define ETDUMP_BATCH_MAGIC_ETB3 0x33425445u
#define ETDUMP_BATCH_MAGIC_READ(m) \
	((m) == ETDUMP_BATCH_MAGIC || (m) == ETDUMP_BATCH_MAGIC_ETB3)

struct etdump_batch_head {
	unsigned int magic;
	unsigned int len;      /* bytes of records after the head */
	unsigned long long seq; /* the buffer's number: from the thread's
				 * first anchor's ns, one more each flush */
	unsigned int tid;      /* the thread that wrote the records */
	unsigned int clock;    /* enum etdump_batch_clock */
	unsigned int nevents;  /* records that become an ETDump event */
	unsigned int blocks;   /* BLOCK records: a lost buffer with one took
				* a run's start with it */
	unsigned int skipped;  /* runs left out (--every) since the last flush */
	unsigned int lead;     /* events before its first BLOCK: a lost buffer
				* without took none of the run open before */
	unsigned long long from_ctr, from_ns; /* anchor before the first stamp */
	unsigned long long to_ctr, to_ns;     /* ... after the last: the flush */
};

/*
 * How long a finished run may wait in its thread's buffer while more runs
 * follow: a run that ends later than this after the last flush is handed
 * over at once. A recorder reads what an idle thread holds itself.
 */
#define ETDUMP_BATCH_BOUND_NS 20000000ull

/* Tracer state outside any instruction, as in ExecuTorch's EventTracer. */
#define ETDUMP_UNSET_CHAIN (-1)
#define ETDUMP_UNSET_DEBUG_HANDLE 0

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

#define ETDUMP_BATCH_BYTES 16384 /* one flush, head included: what the
				  * tracer copies at most */
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

#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

/*
 * The semaphores the kernel increments while a uprobe is attached: every
 * per-scope probe's note names `probes`, the flush probe's names `batch`, so
 * one 32-bit load tells a site whether anything is attached. Weak and
 * hidden: one copy per executable or shared library.
 */
struct etdump_semaphores {
	union {
		struct {
			unsigned short probes;
			unsigned short batch;
		} s;
		unsigned int any;
	};
	/*
	 * Written by a recorder (record --every N), 4 bytes past the
	 * semaphores its notes name: batched mode keeps one run in `every`
	 * (0 or 1: every run); a run left out costs its sites one check.
	 */
	unsigned int every;
};

ETDUMP__EXTERN_C_BEGIN
volatile struct etdump_semaphores etdump_semaphores
	__attribute__((weak, used, section(".probes"), visibility("hidden"),
		       aligned(8))) = { { { 0, 0 } }, 0 };
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

#define ETDUMP__ROOM (ETDUMP_BATCH_BYTES - sizeof(struct etdump_batch_head))

/*
 * What every site reads comes first, in one cache line of its own: between
 * two sites the runtime's kernels have run over their own data, and each
 * line the tracer touches again is one more fetch.
 */
struct __attribute__((aligned(64))) etdump_batch_state {
	unsigned int depth;      /* open scopes; a run ends when back at 0 */
	unsigned int registered;
	unsigned int runs;       /* blocks seen: --every; a worker has none */
	unsigned int skipping;   /* in a run --every leaves out */
	unsigned long long deadline; /* a run ending after it flushes */
	unsigned long long last;     /* the buffer's last stamp */
	int again;                   /* the buffer has a BEGIN: its args */
	int last_a, last_b;
	int state_a, state_b;        /* the instruction state the runtime set */
	int said_a, said_b;          /* ... as this buffer last said it */
	int said;                    /* this buffer said one */
	/* read where a buffer starts */
	unsigned long long bound;    /* ETDUMP_BATCH_BOUND_NS in stamps, or 0 */
	unsigned long long first_ctr, first_ns; /* the thread's first anchor */
	/* literals named in this buffer, by slot: kept small, as hot */
	const void *names[ETDUMP_BATCH_LITERAL_SLOTS];
	/* other names: where each slot's NAME record is, + 1 (0: none) */
	unsigned short text_at[ETDUMP_BATCH_TEXT_SLOTS];
	unsigned char text_len[ETDUMP_BATCH_TEXT_SLOTS]; /* ... how long */
	/* the head, then the records: what the flush probe hands over */
	unsigned long long buf[ETDUMP_BATCH_BYTES / 8] __attribute__((aligned(64)));
};

ETDUMP__EXTERN_C_BEGIN
__thread struct etdump_batch_state etdump_batch_state
	__attribute__((weak, visibility("hidden")));
pthread_once_t etdump_batch_once __attribute__((weak, visibility("hidden"))) =
	PTHREAD_ONCE_INIT;
pthread_key_t etdump_batch_key __attribute__((weak, visibility("hidden")));
unsigned int etdump_batch_clock __attribute__((weak, visibility("hidden")));
/* where names cannot change: see etdump__find_read_only */
unsigned long etdump_batch_ro_lo __attribute__((weak, visibility("hidden")));
unsigned long etdump_batch_ro_len __attribute__((weak, visibility("hidden")));
ETDUMP__EXTERN_C_END

#define etdump__head(st) ((struct etdump_batch_head *)(void *)(st)->buf)
#define etdump__records(st) ((char *)(st)->buf + sizeof(struct etdump_batch_head))

static inline unsigned long long etdump__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The counter is trusted where it runs at one rate on every CPU and the
 * kernel itself keeps CLOCK_MONOTONIC on it (x86-64: invariant TSC and the
 * "tsc" clocksource, or "kvm-clock" read in the vDSO; arm64: always). ETDUMP_BATCH_CLOCK=ns in the
 * environment keeps clock_gettime.
 */
static inline unsigned int etdump__choose_clock(void)
{
	const char *env = getenv("ETDUMP_BATCH_CLOCK");

	if (env && !strcmp(env, "ns"))
		return ETDUMP_BATCH_CLOCK_NS;
#if defined(__x86_64__)
	{
		unsigned int a, b, c, d;
		char cs[16];
		ssize_t n;
		int fd;

		if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8)))
			return ETDUMP_BATCH_CLOCK_NS;
		fd = open("/sys/devices/system/clocksource/clocksource0/"
			  "current_clocksource", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return ETDUMP_BATCH_CLOCK_NS;
		n = read(fd, cs, sizeof(cs));
		close(fd);
		if (n == 4 && !memcmp(cs, "tsc\n", 4))
			return ETDUMP_BATCH_CLOCK_COUNTER;
		/*
		 * kvm-clock is the TSC scaled; its vDSO reads it only while
		 * the host says it is stable on every vCPU, else the clock
		 * is a system call, hundreds of ns at least.
		 */
		if (n == 10 && !memcmp(cs, "kvm-clock\n", 10)) {
			unsigned long long c0, fastest = ~0ull;
			struct timespec ts;
			int i;

			for (i = 0; i < 3; i++) {
				c0 = __builtin_ia32_rdtsc();
				clock_gettime(CLOCK_MONOTONIC, &ts);
				c0 = __builtin_ia32_rdtsc() - c0;
				fastest = c0 < fastest ? c0 : fastest;
			}
			if (fastest < 1000)
				return ETDUMP_BATCH_CLOCK_COUNTER;
		}
		return ETDUMP_BATCH_CLOCK_NS;
	}
#elif defined(__aarch64__)
	return ETDUMP_BATCH_CLOCK_COUNTER;
#else
	return ETDUMP_BATCH_CLOCK_NS;
#endif
}

static inline unsigned long long etdump__stamp(void)
{
#if defined(__x86_64__)
	if (__builtin_expect(etdump_batch_clock == ETDUMP_BATCH_CLOCK_COUNTER, 1))
		return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	if (__builtin_expect(etdump_batch_clock == ETDUMP_BATCH_CLOCK_COUNTER, 1)) {
		unsigned long long v;

		__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
		return v;
	}
#endif
	return etdump__now();
}

/*
 * A (counter, CLOCK_MONOTONIC) pair: the counter halfway around the clock,
 * the narrowest of three reads (one the thread was preempted in is wide).
 */
static inline void etdump__anchor(unsigned long long *ctr,
				  unsigned long long *ns)
{
	unsigned long long c0, c1, n, width = ~0ull;
	int i;

	for (i = 0; i < 3; i++) {
		c0 = etdump__stamp();
		n = etdump__now();
		c1 = etdump__stamp();
		if (c1 - c0 < width) {
			width = c1 - c0;
			*ctr = c0 + width / 2;
			*ns = n;
		}
	}
}

/*
 * The bound in stamps, measured once the thread's anchors are 1 ms apart;
 * until then every run's end flushes.
 */
static inline void etdump__next_deadline(struct etdump_batch_state *st,
					 unsigned long long ctr,
					 unsigned long long ns)
{
	if (!st->bound && ns - st->first_ns >= 1000000ull)
		st->bound = (unsigned long long)((double)(ctr - st->first_ctr) /
			(double)(ns - st->first_ns) * (double)ETDUMP_BATCH_BOUND_NS);
	st->deadline = st->bound ? ctr + st->bound : 0;
}

/*
 * Hand the buffer over and start the next. The sequence number moves
 * before any record is overwritten, so a recorder reading the buffer from
 * outside (at its end, or from an idle thread) can tell a torn read.
 */
static inline void etdump__flush(struct etdump_batch_state *st)
{
	struct etdump_batch_head *h = etdump__head(st);

	/* a buffer filled while attached is stale once the tracer is gone */
	if (h->len && etdump_semaphores.s.batch) {
		etdump__anchor(&h->to_ctr, &h->to_ns);
		ETDUMP__SITE3(flush, st->buf, sizeof(*h) + h->len, h->nevents);
		etdump__next_deadline(st, h->to_ctr, h->to_ns);
		h->from_ctr = h->to_ctr;
		h->from_ns = h->to_ns;
	}
	h->seq++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	h->len = 0;
	h->nevents = 0;
	h->blocks = 0;
	h->skipped = 0;
	h->lead = 0;
	st->last = h->from_ctr;
	st->again = 0;
	st->said = 0;
	memset(st->names, 0, sizeof(st->names));
	memset(st->text_at, 0, sizeof(st->text_at));
}

static inline void etdump__flush_thread(void *p)
{
	struct etdump_batch_state *st = (struct etdump_batch_state *)p;

	etdump__flush(st);
	etdump__head(st)->magic = 0; /* a reader from outside: gone */
	st->registered = 0;
}

/*
 * The other threads' buffers are read by the recorder's BPF program as
 * each thread exits (the process's exit ends them all), in their memory.
 */
static inline void etdump__flush_at_exit(void)
{
	etdump__flush(&etdump_batch_state);
}

#if defined(__LP64__)
typedef Elf64_Phdr etdump__phdr;
#else
typedef Elf32_Phdr etdump__phdr;
#endif

/*
 * The read-only part of the executable, when this code is built into it
 * (not into a library): the longest run of its loaded segments that no
 * writable one interrupts. The gaps between segments are the executable's
 * own reservation, so nothing else lies there. A name in it is a literal
 * that cannot change under its pointer, and is not compared with what the
 * buffer said; other names are (a runtime may build names in one reused
 * buffer).
 */
static inline void etdump__find_read_only(void)
{
	const etdump__phdr *ph = (const etdump__phdr *)getauxval(AT_PHDR);
	unsigned long n = getauxval(AT_PHNUM), bias = 0, i, at;
	unsigned long lo = 0, hi = 0, best_lo = 0, best_hi = 0;
	unsigned long self = (unsigned long)&etdump_batch_clock;
	int ours = 0;

	if (!ph)
		return;
	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			bias = (unsigned long)ph - ph[i].p_vaddr;
	for (i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		at = bias + ph[i].p_vaddr;
		if (self - at < ph[i].p_memsz)
			ours = 1;
		if (ph[i].p_flags & PF_W) {
			lo = hi = 0;
			continue;
		}
		if (!lo)
			lo = at;
		hi = at + ph[i].p_memsz;
		if (hi - lo > best_hi - best_lo) {
			best_lo = lo;
			best_hi = hi;
		}
	}
	if (ours) {
		etdump_batch_ro_lo = best_lo;
		etdump_batch_ro_len = best_hi - best_lo;
	}
}

static inline void etdump__batch_init(void)
{
	etdump_batch_clock = etdump__choose_clock();
	etdump__find_read_only();
	pthread_key_create(&etdump_batch_key, etdump__flush_thread);
	atexit(etdump__flush_at_exit);
}

/* A thread's first batched site: its head, first anchor, exit flush. */
static __attribute__((noinline, cold, unused)) void
etdump__register(struct etdump_batch_state *st)
{
	struct etdump_batch_head *h = etdump__head(st);

	pthread_once(&etdump_batch_once, etdump__batch_init);
	pthread_setspecific(etdump_batch_key, st);
	memset(h, 0, sizeof(*h));
	h->tid = (unsigned int)syscall(SYS_gettid);
	h->clock = etdump_batch_clock;
	etdump__anchor(&h->from_ctr, &h->from_ns);
	/* above any number a thread before it at this address reached */
	h->seq = h->from_ns;
	st->first_ctr = h->from_ctr;
	st->first_ns = h->from_ns;
	st->last = h->from_ctr;
	st->again = 0;
	st->deadline = 0;
	st->bound = 0;
	st->depth = 0;
	st->state_a = ETDUMP_UNSET_CHAIN;
	st->state_b = ETDUMP_UNSET_DEBUG_HANDLE;
	st->said = 0;
	memset(st->names, 0, sizeof(st->names));
	memset(st->text_at, 0, sizeof(st->text_at));
	__atomic_store_n(&h->magic, ETDUMP_BATCH_MAGIC, __ATOMIC_RELEASE);
	st->registered = 1;
}

static inline struct etdump_batch_state *etdump__state(void)
{
	struct etdump_batch_state *st = &etdump_batch_state;

	if (__builtin_expect(!st->registered, 0))
		etdump__register(st);
	return st;
}

static inline unsigned int etdump__rec_size(unsigned int payload)
{
	return (sizeof(struct etdump_batch_rec) + payload + 7) & ~7u;
}

/* The next record's place; etdump__publish makes it readable. */
static inline struct etdump_batch_rec *
etdump__next(struct etdump_batch_state *st, unsigned int type,
	     unsigned int size, unsigned int slot)
{
	struct etdump_batch_rec *r = (struct etdump_batch_rec *)(void *)
		(etdump__records(st) + etdump__head(st)->len);

	r->word = type | (size / 8) << 4 | slot << 12;
	return r;
}

/*
 * The record's bytes are written before the length that covers them, so
 * that a reader from outside never sees a record half written.
 */
static inline void etdump__publish(struct etdump_batch_state *st,
				   unsigned int size, unsigned int events)
{
	struct etdump_batch_head *h = etdump__head(st);

	h->nevents += events;
	if (!h->blocks)
		h->lead += events;
	__atomic_store_n(&h->len, h->len + size, __ATOMIC_RELEASE);
}

/*
 * 8 bytes of a name's text from `p` as a little-endian word; with `near`
 * (the 64 bytes from the text's start cross into another page), bytes
 * one at a time up to its NUL, so that none past it is read: from the NUL
 * on they are 0.
 */
__attribute__((no_sanitize_address)) static inline unsigned long long
etdump__text_word(const char *p, int near)
{
	unsigned long long w = 0;
	unsigned int i;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (!near) {
		memcpy(&w, p, 8);
		return w;
	}
#endif
	for (i = 0; i < 8 && p[i]; i++)
		w |= (unsigned long long)(unsigned char)p[i] << (8 * i);
	return w;
}

/*
 * A name that is not a literal, by its text: its first 64 bytes as words,
 * 0 from its NUL on and past ETDUMP_BATCH_NAME_MAX bytes; its length; and
 * its slot, in one pass of 8-byte loads. A runtime may build its names in
 * one reused buffer: XNNPACK's profiler formats each operator's name in a
 * std::string of a loop, so every operator's name had one address, and
 * slots by address said each name again in every execution (a third of
 * xnn_mlp.pte's buffer). A slot two names share costs a NAME record,
 * never a wrong name: the text is compared.
 */
__attribute__((no_sanitize_address)) static inline unsigned int
etdump__text_slot(const char *name, unsigned long long words[8],
		  unsigned int *len)
{
	const unsigned long long ones = 0x0101010101010101ull;
	int near = ((unsigned long)name & 4095) > 4096 - 64;
	unsigned long long h = 0, w, nul;
	unsigned int k, b;

	/*
	 * The loads past a short text are meant: hide where `name` points
	 * from a compiler that inlined a literal here and would say so.
	 */
	__asm__("" : "+r"(name));
	*len = ETDUMP_BATCH_NAME_MAX;
	for (k = 0; k < 8; k++) {
		w = etdump__text_word(name + 8 * k, near);
		/* the lowest byte flagged is the first 0 byte */
		nul = (w - ones) & ~w & (ones << 7);
		if (nul) {
			b = (unsigned int)__builtin_ctzll(nul) / 8;
			w &= b ? ~0ull >> (64 - 8 * b) : 0;
			*len = 8 * k + b;
		}
		if (k == 7)
			w &= ~0ull >> 8;
		words[k] = w;
		h = (h << 13 | h >> 51) ^ w;
		if (nul)
			break;
	}
	/* the top bits of the product with 2^64 / phi */
	return (unsigned int)((h * 0x9e3779b97f4a7c15ull) >> 56);
}

/* A name's length not known yet: a literal, found by its address. */
#define ETDUMP__LEN_UNKNOWN (~0u)

/*
 * Whether this buffer has said `name`, and its slot (0-319). A literal of
 * the executable has a slot by its address and is said when the slot
 * holds that address. Any other name has a slot by its text (*len set:
 * its length) and is said when the slot holds that text: a NAME record's
 * text is 8-byte aligned and 0 from its NUL to the record's end.
 */
static inline __attribute__((always_inline)) int
etdump__said(const struct etdump_batch_state *st, const void *name,
	     unsigned int *slot, unsigned int *len)
{
	unsigned long long words[8], x;
	const char *said;
	unsigned int k;

	if ((unsigned long)name - etdump_batch_ro_lo < etdump_batch_ro_len) {
		*slot = ((unsigned long)name >> 3) % ETDUMP_BATCH_LITERAL_SLOTS;
		*len = ETDUMP__LEN_UNKNOWN;
		return st->names[*slot] == name;
	}
	k = etdump__text_slot((const char *)name, words, len);
	*slot = ETDUMP_BATCH_LITERAL_SLOTS + k;
	if (!st->text_at[k] || st->text_len[k] != *len)
		return 0;
	said = etdump__records(st) + st->text_at[k] - 1 +
	       sizeof(struct etdump_batch_rec);
	for (k = 0; k <= *len / 8; k++) {
		x = etdump__text_word(said + 8 * k, 0);
		if (k == 7)
			x &= ~0ull >> 8;
		if (x != words[k])
			return 0;
	}
	return 1;
}

/* A name's length, read where its slot did not give it. */
static inline unsigned int etdump__name_len(const void *name, unsigned int *n)
{
	if (*n == ETDUMP__LEN_UNKNOWN)
		*n = (unsigned int)strnlen((const char *)name,
					   ETDUMP_BATCH_NAME_MAX);
	return *n;
}

/* A TIME record and room for it: a delta that does not fit 32 bits. */
#define ETDUMP__TIME_BYTES 16

/*
 * Room for one record of `size` bytes naming `name`, a TIME record before
 * it, and the NAME record that must precede it in the same buffer when
 * this buffer has not said it; the name's slot (1-320), or 0 for none.
 */
static inline __attribute__((always_inline)) unsigned int
etdump__room(struct etdump_batch_state *st, const void *name, unsigned int size)
{
	unsigned int slot = 0, n = ETDUMP__LEN_UNKNOWN;
	unsigned int need = size + ETDUMP__TIME_BYTES, nsize;
	struct etdump_batch_rec *r;
	int named = !name || etdump__said(st, name, &slot, &n);
	unsigned int k;

	/*
	 * An empty buffer of a thread that idled: a fresh first anchor, so
	 * that its stamps lie within about a bound of both anchors.
	 */
	if (!etdump__head(st)->len && st->bound &&
	    etdump__stamp() - etdump__head(st)->from_ctr > st->bound) {
		etdump__anchor(&etdump__head(st)->from_ctr,
			       &etdump__head(st)->from_ns);
		st->last = etdump__head(st)->from_ctr;
	}

	if (!named)
		need += etdump__rec_size(etdump__name_len(name, &n) + 1);
	if (etdump__head(st)->len + need > ETDUMP__ROOM) {
		etdump__flush(st);
		named = !name; /* a fresh buffer has said nothing */
	}
	if (!name)
		return 0;
	if (!named) {
		nsize = etdump__rec_size(etdump__name_len(name, &n) + 1);
		if (slot >= ETDUMP_BATCH_LITERAL_SLOTS) {
			k = slot - ETDUMP_BATCH_LITERAL_SLOTS;
			st->text_at[k] = (unsigned short)
				(etdump__head(st)->len + 1);
			st->text_len[k] = (unsigned char)n;
		} else {
			st->names[slot] = name;
		}
		r = etdump__next(st, ETDUMP_BATCH_NAME, nsize, slot + 1);
		r->dt = 0;
		memcpy(r + 1, name, n);
		memset((char *)(r + 1) + n, 0, nsize - sizeof(*r) - n);
		etdump__publish(st, nsize, 0);
	}
	return slot + 1;
}

/*
 * A stamp as the delta from the buffer's last one, after a TIME record
 * when it does not fit (an idle thread, or a stamp read before a flush
 * whose anchor is later).
 */
static inline unsigned int etdump__delta(struct etdump_batch_state *st,
					 unsigned long long ts)
{
	unsigned long long d = ts - st->last;
	struct etdump_batch_rec *r;

	st->last = ts;
	if (__builtin_expect(!(d >> 32), 1))
		return (unsigned int)d;
	r = etdump__next(st, ETDUMP_BATCH_TIME, ETDUMP__TIME_BYTES, 0);
	r->dt = 0;
	memcpy(r + 1, &ts, sizeof(ts));
	etdump__publish(st, ETDUMP__TIME_BYTES, 0);
	return 0;
}

/*
 * A run ended: hand it over if the last flush is older than the bound. A
 * thread that opens no run (a worker of a pool) hands over each scope at
 * once: the recorder puts its events into the run open in the process
 * when they ended, which must still be open when they arrive.
 */
static inline void etdump__scope_closed(struct etdump_batch_state *st,
					unsigned long long ts)
{
	if (st->depth)
		st->depth--;
	if (!st->depth && (ts >= st->deadline || !st->runs))
		etdump__flush(st);
}

/* An INSTRUCTION record: its header and its args. */
#define ETDUMP__STATE_BYTES 16

/*
 * The recorder takes the instruction state (chain, instruction) from the
 * last INSTRUCTION record before a record that needs it: a delegate's
 * begin or log, or a begin whose chain the tracer left unset. The runtime
 * sets the state before each delegate event and unsets it after: said as
 * it came, each XNNPACK operator took two more records and two calls.
 * The state is kept here instead, and said before a record that takes it
 * when this buffer has not said it yet (a buffer stands alone: a lost one
 * must not leave the next without it) or said another. The caller made
 * room for it.
 */
static inline __attribute__((always_inline)) void
etdump__say_state(struct etdump_batch_state *st)
{
	struct etdump_batch_rec *r;
	struct etdump_batch_args *arg;

	if (st->said && st->said_a == st->state_a && st->said_b == st->state_b)
		return;
	r = etdump__next(st, ETDUMP_BATCH_INSTRUCTION, ETDUMP__STATE_BYTES, 0);
	r->dt = 0;
	arg = (struct etdump_batch_args *)(void *)(r + 1);
	arg->a = st->said_a = st->state_a;
	arg->b = st->said_b = st->state_b;
	st->said = 1;
	etdump__publish(st, ETDUMP__STATE_BYTES, 0);
}

static inline __attribute__((always_inline)) void
etdump__batch(unsigned short type, const void *name, long long a, long long b)
{
	struct etdump_batch_state *st = etdump__state();
	int args = type != ETDUMP_BATCH_BLOCK && type != ETDUMP_BATCH_END;
	unsigned int size = sizeof(struct etdump_batch_rec) +
		(args ? sizeof(struct etdump_batch_args) : 0);
	unsigned long long ts = 0;
	unsigned int slot, dt, kind = type;
	struct etdump_batch_rec *r;
	int takes_state = type == ETDUMP_BATCH_DELEGATE_BEGIN ||
			  (type == ETDUMP_BATCH_BEGIN && (int)a == ETDUMP_UNSET_CHAIN);

	/*
	 * A new run while scopes are open: the last run left one unclosed
	 * (an early return), or the runtime opened a scope around it. Either
	 * way the last run has ended: hand it over now, and count depth from
	 * this run.
	 */
	if (type == ETDUMP_BATCH_BLOCK) {
		unsigned int every = etdump_semaphores.every;

		if (st->depth) {
			etdump__flush(st);
			st->depth = 0;
		}
		st->skipping = every > 1 && st->runs % every;
		st->runs++;
		if (st->skipping) {
			etdump__head(st)->skipped++;
			return;
		}
	} else if (st->skipping) {
		return;
	}
	/* an end is stamped before any flush, a begin after */
	if (type == ETDUMP_BATCH_END) {
		ts = etdump__stamp();
		slot = etdump__room(st, name, size);
	} else {
		slot = etdump__room(st, name, size + (takes_state ?
					 ETDUMP__STATE_BYTES : 0));
		if (takes_state)
			etdump__say_state(st);
		ts = etdump__stamp();
	}
	/* most begins take the instruction state the one before took */
	if (type == ETDUMP_BATCH_BEGIN) {
		if (st->again && st->last_a == (int)a && st->last_b == (int)b) {
			kind = ETDUMP_BATCH_BEGIN_AGAIN;
			args = 0;
			size = sizeof(*r);
		}
		st->again = 1;
		st->last_a = (int)a;
		st->last_b = (int)b;
	}
	dt = etdump__delta(st, ts);
	r = etdump__next(st, kind, size, slot);
	r->dt = dt;
	if (args) {
		struct etdump_batch_args *arg =
			(struct etdump_batch_args *)(void *)(r + 1);

		arg->a = (int)a;
		arg->b = (int)b;
	}
	etdump__head(st)->blocks += type == ETDUMP_BATCH_BLOCK;
	etdump__publish(st, size, type == ETDUMP_BATCH_END);
	if (type == ETDUMP_BATCH_BEGIN || type == ETDUMP_BATCH_DELEGATE_BEGIN)
		st->depth++;
	else if (type == ETDUMP_BATCH_END)
		etdump__scope_closed(st, ts);
}

/*
 * One function per kind of site, each with its kind folded in: a site is a
 * call with no branch on what it is.
 */
static __attribute__((noinline, unused)) void
etdump__batch_begin(const void *name, long long chain, long long instr)
{
	etdump__batch(ETDUMP_BATCH_BEGIN, name, chain, instr);
}

static __attribute__((noinline, unused)) void etdump__batch_end(const void *name)
{
	etdump__batch(ETDUMP_BATCH_END, name, 0, 0);
}

static __attribute__((noinline, unused)) void
etdump__batch_block(const void *name)
{
	etdump__batch(ETDUMP_BATCH_BLOCK, name, 0, 0);
}

/* kept, not said: etdump__say_state says it where a record takes it */
static inline __attribute__((unused)) void
etdump__batch_instruction(long long chain, long long instr)
{
	struct etdump_batch_state *st = etdump__state();

	st->state_a = (int)chain;
	st->state_b = (int)instr;
}

static __attribute__((noinline, unused)) void
etdump__batch_delegate_begin(const void *id_str, long long id_int)
{
	etdump__batch(ETDUMP_BATCH_DELEGATE_BEGIN, id_str, id_int, 0);
}

/* inlined into its two sites, each of one kind */
static inline __attribute__((always_inline)) void
etdump__batch_delegate(unsigned short type, const void *id_str, long long id_int,
		       unsigned long long start, unsigned long long end,
		       const void *meta, unsigned long long meta_len)
{
	struct etdump_batch_state *st = etdump__state();
	int log = type == ETDUMP_BATCH_DELEGATE_LOG;
	unsigned long long ts;
	unsigned int head, n, size, slot, dt = 0;
	struct etdump_batch_rec *r;

	if (st->skipping)
		return;
	ts = log ? 0 : etdump__stamp();
	head = log ? sizeof(struct etdump_batch_log) :
		     sizeof(struct etdump_batch_args);
	n = meta_len > ETDUMP_BATCH_META_MAX ? ETDUMP_BATCH_META_MAX :
					       (unsigned int)meta_len;
	if (!meta)
		n = 0;
	size = etdump__rec_size(head + n);
	slot = etdump__room(st, id_str, size + (log ? ETDUMP__STATE_BYTES : 0));
	if (log)
		etdump__say_state(st);
	else
		dt = etdump__delta(st, ts);
	/*
	 * XNNPACK's profiler logs each operator by its name, no metadata,
	 * microseconds apart: 16 bytes instead of 40.
	 */
	if (log && slot && id_int == -1 && !meta_len && end >= start &&
	    !((end - start) >> 32)) {
		r = etdump__next(st, ETDUMP_BATCH_DELEGATE_LOG_SHORT, 16, slot);
		r->dt = (unsigned int)(end - start);
		memcpy(r + 1, &start, sizeof(start));
		etdump__publish(st, 16, 1);
		return;
	}
	r = etdump__next(st, type, size, slot);
	r->dt = dt;
	if (log) {
		struct etdump_batch_log *l =
			(struct etdump_batch_log *)(void *)(r + 1);

		l->start = start;
		l->end = end;
		l->id_int = (int)id_int;
		l->meta_len = n;
		l->meta_len_orig = (unsigned int)meta_len;
		l->pad = 0;
	} else {
		struct etdump_batch_args *args =
			(struct etdump_batch_args *)(void *)(r + 1);

		args->a = (int)n;
		args->b = (int)meta_len;
	}
	if (n)
		memcpy((char *)(r + 1) + head, meta, n);
	etdump__publish(st, size, 1);
	if (type == ETDUMP_BATCH_DELEGATE_END)
		etdump__scope_closed(st, ts);
}

/*
 * A child forked while a tracer is attached inherits the patched probe
 * sites and the semaphores that say a tracer listens, but no tracer asked
 * for the child: on x86-64 from kernel 6.18 a patched 5-byte site is a
 * call into a uprobe trampoline mapped in the parent only, and the child
 * died of SIGSEGV at its next site. The child forgets the semaphores (a
 * tracer attaching to it later sets them again) and the records its
 * parent had buffered. Registered once per executable or library before
 * main(); a child made
 * by vfork shares the parent's memory, trampoline included. A raw clone()
 * without CLONE_VM runs no fork handlers and is not covered.
 */
static inline void etdump__forget_in_child(void)
{
	etdump_semaphores.any = 0;
	etdump_semaphores.every = 0;
	etdump_batch_state.skipping = 0;
	memset(etdump__head(&etdump_batch_state), 0,
	       sizeof(struct etdump_batch_head));
	etdump_batch_state.depth = 0;
	etdump_batch_state.registered = 0;
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
 * the tracer attached `flush`, else the probe itself. In a run record
 * --every leaves out, a batched site is this one check.
 */
#define ETDUMP__KEPT(batched)                                                  \
	(__builtin_expect(etdump_batch_state.skipping, 0) ? (void)0 :          \
							    (void)(batched))
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

#define ETDUMP_BLOCK(name)                                                     \
	ETDUMP__EVENT(etdump__batch_block(name), block, 1,                     \
		      etdump__present(name))
#define ETDUMP_PROFILE_BEGIN(name, chain, instr)                               \
	ETDUMP__EVENT(ETDUMP__KEPT(etdump__batch_begin((name), (chain),        \
						       (instr))),              \
		      profile_begin, 3, etdump__present(name),                 \
		      (long long)(chain), (long long)(instr))
#define ETDUMP_PROFILE_END(name)                                               \
	ETDUMP__EVENT(ETDUMP__KEPT(etdump__batch_end(name)),                   \
		      profile_end, 1, (name))
#define ETDUMP_INSTRUCTION(chain, instr)                                       \
	ETDUMP__EVENT(ETDUMP__KEPT(etdump__batch_instruction((chain),          \
							     (instr))),        \
		      instruction, 2, (long long)(chain), (long long)(instr))
#define ETDUMP_DELEGATE_BEGIN(id_str, id_int)                                  \
	ETDUMP__EVENT(ETDUMP__KEPT(etdump__batch_delegate_begin((id_str),      \
								(id_int))),    \
		      delegate_begin, 2, etdump__present(id_str),              \
		      (long long)(id_int))
#define ETDUMP_DELEGATE_END(metadata, metadata_len)                            \
	ETDUMP__EVENT(ETDUMP__KEPT(etdump__batch_delegate(                     \
			      ETDUMP_BATCH_DELEGATE_END, 0, -1, 0, 0,          \
			      (metadata), (metadata_len))),                    \
		      delegate_end, 2, etdump__present(metadata),              \
		      (metadata_len))
#define ETDUMP_DELEGATE_LOG(id_str, id_int, start_ns, end_ns, metadata,        \
			    metadata_len)                                      \
	ETDUMP__EVENT(ETDUMP__KEPT(etdump__batch_delegate(                     \
			      ETDUMP_BATCH_DELEGATE_LOG, (id_str), (id_int),   \
			      (start_ns), (end_ns), (metadata),                \
			      (metadata_len))),                                \
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
