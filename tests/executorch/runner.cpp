/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * runner.cpp - an ExecuTorch runner with etdump-bpf's EventTracer
 * (schema/etdump_event_tracer.h) where a profiling runner passes ETDumpGen:
 * loads a .pte, feeds all-ones inputs (as ExecuTorch's executor_runner
 * does), executes it N times. Built against an ExecuTorch install
 * (EXECUTORCH_PREFIX) with the portable kernels and the XNNPACK delegate.
 *
 * usage: executorch-runner --model_path M.pte [--model_path M2.pte ...]
 *                          [--num_executions N]
 *                          [--print_output] [--no-tracer] [--wait-signal]
 *                          [--debug_level LEVEL] [--track_allocations]
 *                          [--loop-time] [--phases K] [--null-tracer]
 *                          [--stamp-tracer | --stamp-tracer-last]
 *
 * Several --model_path run in turn, each loaded, executed and let go
 * before the next (XNNPACK's runtimes deleted: symbol mode's test of
 * operators deleted while recording).
 *
 * --no-tracer loads the method with no EventTracer at all (the bench's
 * baseline); --wait-signal prints "ready PID" and waits for SIGUSR1 before
 * loading, so a recorder can attach with -p first. --debug_level sets the
 * tracer's EventTracerDebugLogLevel: none (the default), program_outputs
 * or intermediate_outputs (each kernel's outputs too), what the runtime
 * then logs through log_evalue, and record --values captures.
 * --track_allocations names the method's allocator and a temporary one
 * for the kernels to the tracer (track_allocator) and reports every
 * allocation they make (track_allocation), as a runtime that wants its
 * memory profiled does: ExecuTorch's own allocators report nothing.
 * --loop-time prints the execution loop's wall and thread CPU time to
 * stderr (executions=N loop_ns=W loop_cpu_ns=C): what inference pays for
 * a tracer, without loading, attaching or writing a file; with --phases K
 * the loop runs K times, "ready PID" printed and SIGUSR1 awaited between
 * them, so a recorder attached for some phases only is held against the
 * same process unattached. --null-tracer
 * passes a tracer whose hooks do nothing (what having a tracer at all costs
 * the runtime, XNNPACK's profiling included). --stamp-tracer passes the
 * least tracer that times each scope (StampEventTracer, below);
 * --stamp-tracer-last the same, stamping in the last phase only.
 *
 * Built with -DRUNNER_STOCK_LIB -Dmain=example_main -fPIC -shared
 * (build/libexecutorch-stock.so) it is a stock runtime as a shared library,
 * as a Python service loads ExecuTorch through ctypes: no tracer, no
 * etdump probes (etdump_event_tracer.h left out), --no-tracer always; its
 * main() is example_main(), what tests/example/dlopen_host.c calls, and
 * run(model, n) loads a model and executes it n times.
 *
 * Built with -DRUNNER_ETDUMPGEN (build/executorch-runner-etdumpgen) it
 * passes ExecuTorch's ETDumpGen instead, for the bench to set the two side
 * by side: --etdump_path P writes its ETDump there after the last execution,
 * --debug_buffer_size N gives it a debug buffer of N bytes for the values
 * it logs (--debug_buffer_path Q writes the buffer out).
 */
#include <csignal>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <unistd.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/runner_util/inputs.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#ifdef RUNNER_ETDUMPGEN
#include <executorch/devtools/etdump/etdump_flatcc.h>
#elif !defined(RUNNER_STOCK_LIB)
#include "etdump_event_tracer.h"
#endif

using executorch::extension::FileDataLoader;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

#ifndef RUNNER_ETDUMPGEN
/*
 * A tracer whose hooks do nothing: what the runtime pays for having any
 * EventTracer at all (XNNPACK then profiles every operator and hands the
 * times over at each execution), apart from the tracer's own work.
 */
class NullEventTracer : public executorch::runtime::EventTracer {
	using Entry = executorch::runtime::EventTracerEntry;
	using Tensor = executorch::aten::Tensor;

public:
	void create_event_block(const char *) override {}
	Entry start_profiling(const char *, executorch::runtime::ChainID,
			      executorch::runtime::DebugHandle) override
	{
		return Entry{};
	}
	Entry start_profiling_delegate(
		const char *, executorch::runtime::DelegateDebugIntId) override
	{
		return Entry{};
	}
	void end_profiling_delegate(Entry, const void *, size_t) override {}
	void log_profiling_delegate(const char *,
				    executorch::runtime::DelegateDebugIntId,
				    et_timestamp_t, et_timestamp_t,
				    const void *, size_t) override {}
	void end_profiling(Entry) override {}
	void track_allocation(executorch::runtime::AllocatorID, size_t) override {}
	executorch::runtime::AllocatorID track_allocator(const char *) override
	{
		return 0;
	}
	Result<bool> log_evalue(const EValue &,
				executorch::runtime::LoggedEValueType) override
	{
		return false;
	}
	Result<bool> log_intermediate_output_delegate(
		const char *, executorch::runtime::DelegateDebugIntId,
		const Tensor &) override
	{
		return false;
	}
	Result<bool> log_intermediate_output_delegate(
		const char *, executorch::runtime::DelegateDebugIntId,
		const executorch::runtime::ArrayRef<Tensor>) override
	{
		return false;
	}
	Result<bool> log_intermediate_output_delegate(
		const char *, executorch::runtime::DelegateDebugIntId,
		const int &) override
	{
		return false;
	}
	Result<bool> log_intermediate_output_delegate(
		const char *, executorch::runtime::DelegateDebugIntId,
		const bool &) override
	{
		return false;
	}
	Result<bool> log_intermediate_output_delegate(
		const char *, executorch::runtime::DelegateDebugIntId,
		const double &) override
	{
		return false;
	}
	void set_delegation_intermediate_output_filter(
		executorch::runtime::EventTracerFilterBase *) override {}
};

/*
 * The least a tracer can do for an event in this runner: a stamp at each
 * end of its scope and 16 bytes stored per stamp (the stamp, the name),
 * in a thread's buffer of 16 KiB that wraps and that nobody reads. No
 * tracer that times each scope goes below it on this machine: make
 * bench's floor for ours and ETDumpGen's cost per event.
 */
struct StampRecord {
	unsigned long long ts;
	const void *name;
};

thread_local StampRecord stamp_records[1024];
thread_local unsigned int stamp_next;
/* --stamp-tracer-last: off (hooks that return, as the null tracer's) until
 * the last phase */
static bool stamps_on = true;

class StampEventTracer : public NullEventTracer {
	using Entry = executorch::runtime::EventTracerEntry;

	static void put(const void *name, unsigned long long ts)
	{
		StampRecord &r = stamp_records[stamp_next++ & 1023];

		r.ts = ts;
		r.name = name;
	}

	static unsigned long long stamp()
	{
#if defined(__x86_64__)
		return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
		unsigned long long v;

		__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
		return v;
#else
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		return ts.tv_sec * 1000000000ull + ts.tv_nsec;
#endif
	}

	/* a scope's begin: its name is its entry, for its end */
	static Entry begin(const char *name)
	{
		Entry e{};

		if (stamps_on)
			put(name, stamp());
		e.event_id = static_cast<int64_t>(reinterpret_cast<uintptr_t>(name));
		return e;
	}

	static void end(const Entry &e)
	{
		if (stamps_on)
			put(reinterpret_cast<const void *>(
				    static_cast<uintptr_t>(e.event_id)),
			    stamp());
	}

public:
	Entry start_profiling(const char *name, executorch::runtime::ChainID,
			      executorch::runtime::DebugHandle) override
	{
		return begin(name);
	}
	void end_profiling(Entry e) override
	{
		end(e);
	}
	Entry start_profiling_delegate(
		const char *name, executorch::runtime::DelegateDebugIntId) override
	{
		return begin(name);
	}
	void end_profiling_delegate(Entry e, const void *, size_t) override
	{
		end(e);
	}
	/* the delegate timed it: its two times stored, none taken */
	void log_profiling_delegate(const char *name,
				    executorch::runtime::DelegateDebugIntId,
				    et_timestamp_t start, et_timestamp_t end,
				    const void *, size_t) override
	{
		if (stamps_on) {
			put(name, start);
			put(name, end);
		}
	}
};
#endif

struct options {
	/* --model_path repeated: each in turn, in one process */
	std::vector<const char *> models;
	long executions = 1;
	bool print_output = false;
	bool tracer = true;
	bool wait_signal = false;
	bool track_allocations = false;
	bool loop_time = false;
	/*
	 * --phases K: the executions K times over, the loop's time said after
	 * each (with --loop-time) and SIGUSR1 awaited before the next: a
	 * recorder attached for some phases only is compared with the same
	 * process unattached (scripts/bench_tracer.py)
	 */
	long phases = 1;
	bool null_tracer = false;
	bool stamp_tracer = false;
	/* ... stamping in the last phase only: its cost within one process */
	bool stamp_last = false;
	const char *etdump_path = nullptr;       /* RUNNER_ETDUMPGEN */
	const char *debug_buffer_path = nullptr;
	size_t debug_buffer_size = 0;
	executorch::runtime::EventTracerDebugLogLevel debug_level =
		executorch::runtime::EventTracerDebugLogLevel::kNoLogging;
};

void usage(FILE *f)
{
	fprintf(f, "usage: executorch-runner --model_path M.pte [--model_path M2.pte ...] "
		   "[--num_executions N] [--print_output] [--no-tracer] "
		   "[--wait-signal] [--debug_level none|program_outputs|"
		   "intermediate_outputs] [--track_allocations] "
		   "[--loop-time] [--phases K] [--null-tracer] "
		   "[--stamp-tracer | --stamp-tracer-last]\n");
}

long long ns_between(struct timespec a, struct timespec b)
{
	return (b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec);
}

/* A whole number of at least `least` for option `opt`: 0, or -1 said. */
int count_of(const char *opt, const char *s, long least, long *out)
{
	char *end;

	*out = strtol(s, &end, 10);
	if (*end || *out < least) {
		fprintf(stderr, "executorch-runner: invalid %s '%s'\n", opt, s);
		return -1;
	}
	return 0;
}

int parse(int argc, char **argv, struct options *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has_value = i + 1 < argc;

		if (!strcmp(a, "--model_path") && has_value) {
			o->models.push_back(argv[++i]);
		} else if (!strcmp(a, "--num_executions") && has_value) {
			if (count_of(a, argv[++i], 0, &o->executions))
				return -1;
		} else if (!strcmp(a, "--phases") && has_value) {
			if (count_of(a, argv[++i], 1, &o->phases))
				return -1;
		} else if (!strcmp(a, "--print_output")) {
			o->print_output = true;
		} else if (!strcmp(a, "--no-tracer")) {
			o->tracer = false;
		} else if (!strcmp(a, "--wait-signal")) {
			o->wait_signal = true;
		} else if (!strcmp(a, "--etdump_path") && has_value) {
			o->etdump_path = argv[++i];
		} else if (!strcmp(a, "--debug_buffer_path") && has_value) {
			o->debug_buffer_path = argv[++i];
		} else if (!strcmp(a, "--debug_buffer_size") && has_value) {
			o->debug_buffer_size = strtoul(argv[++i], nullptr, 0);
		} else if (!strcmp(a, "--null-tracer")) {
			o->null_tracer = true;
		} else if (!strcmp(a, "--stamp-tracer")) {
			o->stamp_tracer = true;
		} else if (!strcmp(a, "--stamp-tracer-last")) {
			o->stamp_tracer = o->stamp_last = true;
		} else if (!strcmp(a, "--loop-time")) {
			o->loop_time = true;
		} else if (!strcmp(a, "--track_allocations")) {
			o->track_allocations = true;
		} else if (!strcmp(a, "--debug_level") && has_value) {
			using executorch::runtime::EventTracerDebugLogLevel;
			const char *l = argv[++i];

			if (!strcmp(l, "none")) {
				o->debug_level = EventTracerDebugLogLevel::kNoLogging;
			} else if (!strcmp(l, "program_outputs")) {
				o->debug_level =
					EventTracerDebugLogLevel::kProgramOutputs;
			} else if (!strcmp(l, "intermediate_outputs")) {
				o->debug_level = EventTracerDebugLogLevel::
					kIntermediateOutputs;
			} else {
				fprintf(stderr, "executorch-runner: invalid "
					"--debug_level '%s'\n", l);
				return -1;
			}
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else {
			fprintf(stderr, "executorch-runner: unknown option '%s'\n",
				a);
			usage(stderr);
			return -1;
		}
	}
	if (o->models.empty()) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* An allocator that tells the tracer what it hands out. */
class TracedAllocator : public MemoryAllocator {
public:
	TracedAllocator(uint32_t size, uint8_t *base)
		: MemoryAllocator(size, base)
	{
	}

	void track(executorch::runtime::EventTracer *tracer, const char *name)
	{
		tracer_ = tracer;
		id_ = tracer->track_allocator(name);
	}

	void *allocate(size_t size, size_t alignment = kDefaultAlignment) override
	{
		void *p = MemoryAllocator::allocate(size, alignment);

		if (p && tracer_) {
			tracer_->track_allocation(id_, size);
			count_++;
			bytes_ += size;
		}
		return p;
	}

	/* what it reported, for a test to hold a recording against */
	void print_tracked(const char *name) const
	{
		fprintf(stderr, "tracked: %s %zu allocations, %zu bytes\n", name,
			count_, bytes_);
	}

private:
	executorch::runtime::EventTracer *tracer_ = nullptr;
	executorch::runtime::AllocatorID id_ = 0;
	size_t count_ = 0;
	size_t bytes_ = 0;
};

#ifdef RUNNER_ETDUMPGEN
int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(data, 1, len, f) == len;

	if (f && fclose(f))
		ok = false;
	if (!ok)
		fprintf(stderr, "executorch-runner: %s: cannot write\n", path);
	return ok ? 0 : 1;
}

int write_etdump(executorch::etdump::ETDumpGen &gen, const char *path)
{
	executorch::etdump::ETDumpResult r = gen.get_etdump_data();
	int err = r.buf ? write_file(path, r.buf, r.size) : 1;

	free(r.buf);
	return err;
}
#endif

sigset_t usr1;

/*
 * Once, before any thread starts (XNNPACK's pool starts its own as a model
 * loads), when the runner will wait for SIGUSR1: a thread that did not
 * block it would take it, and die of it.
 */
void block_sigusr1()
{
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, nullptr);
}

void wait_for_sigusr1()
{
	int sig;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sigwait(&usr1, &sig);
}

/* tensors of floats only: what the bundled models return */
void print_outputs(const Method &method)
{
	for (size_t i = 0; i < method.outputs_size(); i++) {
		const EValue &v = method.get_output(i);

		printf("Output %zu:", i);
		if (v.isTensor()) {
			const auto &t = v.toTensor();

			if (t.scalar_type() == executorch::aten::ScalarType::Float)
				for (ssize_t k = 0; k < t.numel(); k++)
					printf(" %g", t.const_data_ptr<float>()[k]);
		}
		printf("\n");
	}
}

int fail(const char *model, const char *what, Error err)
{
	fprintf(stderr, "executorch-runner: %s: %s (ExecuTorch error 0x%x)\n",
		model, what, (unsigned)err);
	return 1;
}

} /* namespace */

/* One model: loaded, executed, and all of it let go before the next. */
static int run_model(const struct options &o, const char *model)
{
	Result<FileDataLoader> loader = FileDataLoader::from(model);
	if (!loader.ok())
		return fail(model, "cannot be read", loader.error());
	Result<Program> program = Program::load(&loader.get());
	if (!program.ok())
		return fail(model, "is not a program this runtime loads",
			    program.error());
	Result<const char *> name = program->get_method_name(0);
	if (!name.ok())
		return fail(model, "has no method", name.error());
	Result<MethodMeta> meta = program->method_meta(*name);
	if (!meta.ok())
		return fail(model, "has no metadata for its method",
			    meta.error());

	/* what the method allocates as it loads, and its planned memory */
	static uint8_t method_pool[16 << 20], temp_pool[1 << 20];
	TracedAllocator method_allocator(sizeof(method_pool), method_pool);
	TracedAllocator temp_allocator(sizeof(temp_pool), temp_pool);
	std::vector<std::unique_ptr<uint8_t[]>> planned;
	std::vector<Span<uint8_t>> spans;
	for (size_t i = 0; i < meta->num_memory_planned_buffers(); i++) {
		size_t size = (size_t)meta->memory_planned_buffer_size(i).get();

		planned.emplace_back(new uint8_t[size]);
		spans.emplace_back(planned.back().get(), size);
	}
	HierarchicalAllocator planned_memory({ spans.data(), spans.size() });
	MemoryManager memory_manager(&method_allocator, &planned_memory,
				     &temp_allocator);

#ifdef RUNNER_ETDUMPGEN
	executorch::etdump::ETDumpGen tracer;
	std::unique_ptr<uint8_t[]> debug_buffer;
	if (o.debug_buffer_size) {
		debug_buffer.reset(new uint8_t[o.debug_buffer_size]());
		tracer.set_debug_buffer({ debug_buffer.get(), o.debug_buffer_size });
	}
#elif defined(RUNNER_STOCK_LIB)
	NullEventTracer tracer;     /* never passed: no tracer at all */
#else
	etdump_bpf::UsdtEventTracer tracer;
#endif
	if (o.track_allocations) {
		method_allocator.track(&tracer, "method_allocator");
		temp_allocator.track(&tracer, "temp_allocator");
	}
	tracer.set_event_tracer_debug_level(o.debug_level);
#ifdef RUNNER_STOCK_LIB
	executorch::runtime::EventTracer *chosen = nullptr;
#else
	executorch::runtime::EventTracer *chosen = o.tracer ? &tracer : nullptr;
#endif
#ifndef RUNNER_ETDUMPGEN
	NullEventTracer null_tracer;
	StampEventTracer stamp_tracer;

	if (o.null_tracer)
		chosen = &null_tracer;
	if (o.stamp_tracer)
		chosen = &stamp_tracer;
#endif
	Result<Method> method = program->load_method(*name, &memory_manager,
						     chosen);
	if (!method.ok())
		return fail(model, "cannot be loaded (an operator or backend "
			    "this runner lacks?)", method.error());
	auto inputs = executorch::extension::prepare_input_tensors(*method);
	if (!inputs.ok())
		return fail(model, "inputs cannot be prepared", inputs.error());

	for (long phase = 0; phase < o.phases; phase++) {
		struct timespec wall0, cpu0, wall1, cpu1;

		if (phase)
			wait_for_sigusr1();
#ifndef RUNNER_ETDUMPGEN
		if (o.stamp_last)
			stamps_on = phase == o.phases - 1;
#endif
		clock_gettime(CLOCK_MONOTONIC, &wall0);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
		for (long i = 0; i < o.executions; i++) {
			Error err = method->execute();

			if (err != Error::Ok)
				return fail(model, "execution failed", err);
		}
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
		clock_gettime(CLOCK_MONOTONIC, &wall1);
		if (o.loop_time)
			fprintf(stderr, "executions=%ld loop_ns=%lld loop_cpu_ns=%lld\n",
				o.executions, ns_between(wall0, wall1),
				ns_between(cpu0, cpu1));
	}
	if (o.print_output)
		print_outputs(*method);
	if (o.track_allocations) {
		method_allocator.print_tracked("method_allocator");
		temp_allocator.print_tracked("temp_allocator");
	}
#ifdef RUNNER_ETDUMPGEN
	if (o.etdump_path && write_etdump(tracer, o.etdump_path))
		return 1;
	if (o.debug_buffer_path &&
	    write_file(o.debug_buffer_path, debug_buffer.get(),
		       o.debug_buffer_size))
		return 1;
#endif
	return 0;
}

#ifdef RUNNER_STOCK_LIB
/* main is example_main here (-Dmain=example_main): the host's entry */
extern "C" __attribute__((visibility("default"))) int main(int argc,
							   char **argv);

extern "C" __attribute__((visibility("default"))) int run(const char *model,
							  int n)
{
	struct options o;

	o.executions = n;
	executorch::runtime::runtime_init();
	return run_model(o, model);
}
#endif

int main(int argc, char **argv)
{
	struct options o;

	if (parse(argc, argv, &o))
		return 2;
	if (o.wait_signal || o.phases > 1)
		block_sigusr1();
	if (o.wait_signal)
		wait_for_sigusr1();
	executorch::runtime::runtime_init();
	for (const char *model : o.models) {
		int err = run_model(o, model);

		if (err)
			return err;
	}
	return 0;
}
