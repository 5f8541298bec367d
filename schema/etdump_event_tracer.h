/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etdump_event_tracer.h - a drop-in ExecuTorch EventTracer that fires the
 * probes of etdump_usdt.h, so that `etdump-bpf record` turns a real
 * ExecuTorch runner's executions into the ETDump ETDumpGen would write.
 *
 * Header-only C++17. Pass it where a runner passes ETDumpGen:
 *
 *   #include "etdump_event_tracer.h"
 *   etdump_bpf::UsdtEventTracer tracer;
 *   auto method = program->load_method("forward", &memory_manager, &tracer);
 *
 * The runtime must be built with ET_EVENT_TRACER_ENABLED (as for ETDumpGen)
 * so that it calls its EventTracer at all. Unlike ETDumpGen it holds no
 * buffer and writes no file: while nobody records, each hook is one load
 * and one predictable branch (the probes' semaphores); a recorder chooses
 * batched or per-scope capture when it attaches.
 *
 * Hook                               probe (etdump_usdt.h)
 * ---------------------------------  ------------------------------------
 * create_event_block                 block
 * start_profiling / end_profiling    profile_begin / profile_end; the
 *                                    chain and debug handle are resolved
 *                                    here, as ETDumpGen does at start
 * start/end_profiling_delegate       instruction, delegate_begin /
 *                                    delegate_end (with metadata)
 * log_profiling_delegate             instruction, delegate_log
 * log_evalue,                        value, with a struct etdump_value_desc
 * log_intermediate_output_delegate   (per-scope capture only; one hit per
 *                                    tensor of a list)
 * track_allocator                    an id, as ETDumpGen numbers them,
 *                                    and allocator (its name)
 * track_allocation                   allocation (per-scope only)
 *
 * set_chain_debug_handle is not virtual: the runtime sets the instruction
 * state in the base class, and this tracer hands it to the probes where a
 * delegate event needs it (the instruction probe) or resolves it into the
 * begin of a scope.
 */
#ifndef ETDUMP_EVENT_TRACER_H
#define ETDUMP_EVENT_TRACER_H

#include <atomic>
#include <cstdint>

#include <executorch/runtime/core/event_tracer.h>

#include "etdump_usdt.h"

namespace etdump_bpf {

/*
 * Which hook logged a value, the value probe's `kind`; its pointer is
 * always a struct etdump_value_desc (etdump_usdt.h) describing the value.
 */
enum UsdtValueKind : int {
	kUsdtValueEValue = 1,         /* log_evalue */
	kUsdtValueTensor = 2,         /* log_intermediate_output_delegate: */
	kUsdtValueTensorList = 3,     /*   a tensor, a list of them, */
	kUsdtValueInt = 4,            /*   an int, */
	kUsdtValueBool = 5,           /*   a bool, */
	kUsdtValueDouble = 6,         /*   a double */
	kUsdtValueOutputFlag = 0x100, /* or-ed in: a program output */
};

class UsdtEventTracer : public ::executorch::runtime::EventTracer {
	using ChainID = ::executorch::runtime::ChainID;
	using DebugHandle = ::executorch::runtime::DebugHandle;
	using DelegateDebugIntId = ::executorch::runtime::DelegateDebugIntId;
	using AllocatorID = ::executorch::runtime::AllocatorID;
	using Entry = ::executorch::runtime::EventTracerEntry;
	using EValue = ::executorch::runtime::EValue;
	using LoggedEValueType = ::executorch::runtime::LoggedEValueType;
	using Tensor = ::executorch::aten::Tensor;
	template <typename T>
	using ArrayRef = ::executorch::runtime::ArrayRef<T>;
	template <typename T>
	using Result = ::executorch::runtime::Result<T>;

public:
	UsdtEventTracer() = default;

	void create_event_block(const char *name) override
	{
		ETDUMP_BLOCK(name);
	}

	Entry start_profiling(const char *name,
			      ChainID chain_id = ::executorch::runtime::kUnsetChainId,
			      DebugHandle debug_handle =
				      ::executorch::runtime::kUnsetDebugHandle) override
	{
		if (chain_id == ::executorch::runtime::kUnsetChainId) {
			chain_id = chain_id_;
			debug_handle = debug_handle_;
		}
		ETDUMP_PROFILE_BEGIN(name, chain_id, debug_handle);
		return entry(name, chain_id, debug_handle,
			     ::executorch::runtime::DelegateDebugIdType::kNone);
	}

	void end_profiling(Entry prof_entry) override
	{
		/* the probes pair a scope's end with its begin by the name */
		ETDUMP_PROFILE_END(reinterpret_cast<const char *>(
			static_cast<uintptr_t>(prof_entry.event_id)));
	}

	Entry start_profiling_delegate(const char *name,
				       DelegateDebugIntId delegate_debug_index) override
	{
		ETDUMP_INSTRUCTION(chain_id_, debug_handle_);
		ETDUMP_DELEGATE_BEGIN(name, name ? -1 : delegate_debug_index);
		unset_instruction();
		return entry(name, chain_id_, debug_handle_,
			     name ? ::executorch::runtime::DelegateDebugIdType::kStr
				  : ::executorch::runtime::DelegateDebugIdType::kInt);
	}

	void end_profiling_delegate(Entry event_tracer_entry,
				    const void *metadata = nullptr,
				    size_t metadata_len = 0) override
	{
		(void)event_tracer_entry;
		ETDUMP_DELEGATE_END(metadata, metadata ? metadata_len : 0);
	}

	void log_profiling_delegate(const char *name,
				    DelegateDebugIntId delegate_debug_index,
				    et_timestamp_t start_time,
				    et_timestamp_t end_time,
				    const void *metadata = nullptr,
				    size_t metadata_len = 0) override
	{
		ETDUMP_INSTRUCTION(chain_id_, debug_handle_);
		ETDUMP_DELEGATE_LOG(name, name ? -1 : delegate_debug_index,
				    start_time, end_time, metadata,
				    metadata ? metadata_len : 0);
		unset_instruction();
	}

	void track_allocation(AllocatorID id, size_t size) override
	{
		ETDUMP_ALLOCATION(id, size);
	}

	/* ids from 1, in the order allocators are named, as ETDumpGen gives */
	AllocatorID track_allocator(const char *name) override
	{
		AllocatorID id = ++allocators_;

		ETDUMP_ALLOCATOR(id, name);
		return id;
	}

	Result<bool> log_evalue(const EValue &evalue,
				LoggedEValueType evalue_type) override
	{
		unsigned int flags = 0;
		int kind = kUsdtValueEValue;

		if (!values_wanted())
			return false;
		if (evalue_type == LoggedEValueType::kProgramOutput) {
			kind |= kUsdtValueOutputFlag;
			flags = ETDUMP_VALUE_OUTPUT;
		}
		if (evalue.isTensor())
			return tensor(kind, flags, evalue.toTensor(), nullptr, -1);
		if (evalue.isTensorList())
			return tensors(kind, flags, evalue.toTensorList(),
				       nullptr, -1);
		if (evalue.isInt())
			return scalar(kind, ETDUMP_VALUE_INT, evalue.toInt(), 0,
				      nullptr, -1);
		if (evalue.isBool())
			return scalar(kind, ETDUMP_VALUE_BOOL, evalue.toBool(),
				      0, nullptr, -1);
		if (evalue.isDouble())
			return scalar(kind, ETDUMP_VALUE_DOUBLE, 0,
				      evalue.toDouble(), nullptr, -1);
		/* ETDumpGen refuses other tags too */
		return false;
	}

	Result<bool> log_intermediate_output_delegate(
		const char *name, DelegateDebugIntId delegate_debug_index,
		const Tensor &output) override
	{
		if (!values_wanted())
			return false;
		return tensor(kUsdtValueTensor, 0, output, name,
			      name ? -1 : delegate_debug_index);
	}

	Result<bool> log_intermediate_output_delegate(
		const char *name, DelegateDebugIntId delegate_debug_index,
		const ArrayRef<Tensor> output) override
	{
		if (!values_wanted())
			return false;
		return tensors(kUsdtValueTensorList, 0, output, name,
			       name ? -1 : delegate_debug_index);
	}

	Result<bool> log_intermediate_output_delegate(
		const char *name, DelegateDebugIntId delegate_debug_index,
		const int &output) override
	{
		if (!values_wanted())
			return false;
		return scalar(kUsdtValueInt, ETDUMP_VALUE_INT, output, 0, name,
			      name ? -1 : delegate_debug_index);
	}

	Result<bool> log_intermediate_output_delegate(
		const char *name, DelegateDebugIntId delegate_debug_index,
		const bool &output) override
	{
		if (!values_wanted())
			return false;
		return scalar(kUsdtValueBool, ETDUMP_VALUE_BOOL, output, 0, name,
			      name ? -1 : delegate_debug_index);
	}

	Result<bool> log_intermediate_output_delegate(
		const char *name, DelegateDebugIntId delegate_debug_index,
		const double &output) override
	{
		if (!values_wanted())
			return false;
		return scalar(kUsdtValueDouble, ETDUMP_VALUE_DOUBLE, 0, output,
			      name, name ? -1 : delegate_debug_index);
	}

	/* a recorder filters what it keeps; nothing to filter here */
	void set_delegation_intermediate_output_filter(
		::executorch::runtime::EventTracerFilterBase *filter) override
	{
		(void)filter;
	}

private:
	static Entry entry(const char *name, ChainID chain, DebugHandle handle,
			   ::executorch::runtime::DelegateDebugIdType type)
	{
		Entry e{};

		e.event_id = static_cast<int64_t>(reinterpret_cast<uintptr_t>(name));
		e.chain_id = chain;
		e.debug_handle = handle;
		e.start_time = 0; /* the probes stamp time, not the runtime */
		e.delegate_event_id_type = type;
		return e;
	}

	/*
	 * A delegate event takes the instruction state the probes hold; it
	 * is set just before one and unset just after, so every other scope,
	 * whose begin passes its chain resolved here, sees what ETDumpGen's
	 * state was (the runtime unsets it after each instruction, in the
	 * base class, where no probe sees it).
	 */
	static void unset_instruction()
	{
		ETDUMP_INSTRUCTION(ETDUMP_UNSET_CHAIN, ETDUMP_UNSET_DEBUG_HANDLE);
	}

	/*
	 * Described only while per-scope probes are attached (the value
	 * probe has no batched form): otherwise a hook costs one load.
	 */
	static bool values_wanted()
	{
		return ETDUMP_ENABLED(value) && etdump_semaphores.s.probes;
	}

	void fire(int kind, etdump_value_desc &d, const char *name,
		  DelegateDebugIntId id)
	{
		d.delegate_id_str =
			static_cast<const char *>(etdump__present(name));
		d.delegate_id_int = id;
		ETDUMP_VALUE(kind, &d, chain_id_, debug_handle_);
	}

	Result<bool> scalar(int kind, unsigned int type, long long i, double f,
			    const char *name, DelegateDebugIntId id)
	{
		etdump_value_desc d{};

		d.type = type;
		d.int_val = i;
		d.double_val = f;
		fire(kind, d, name, id);
		return true;
	}

	static void describe(etdump_value_desc &d, const Tensor &t)
	{
		auto sizes = t.sizes();
		auto strides = t.strides();

		d.scalar_type = static_cast<int>(t.scalar_type());
		d.dim = sizes.size() < ETDUMP_VALUE_DIM_MAX ?
				sizes.size() : ETDUMP_VALUE_DIM_MAX;
		for (unsigned int k = 0; k < d.dim; k++) {
			d.sizes[k] = sizes[k];
			d.strides[k] = k < strides.size() ? strides[k] : 0;
		}
		d.data = t.const_data_ptr();
		d.nbytes = t.nbytes();
	}

	Result<bool> tensor(int kind, unsigned int flags, const Tensor &t,
			    const char *name, DelegateDebugIntId id)
	{
		etdump_value_desc d{};

		d.type = ETDUMP_VALUE_TENSOR;
		d.flags = flags;
		describe(d, t);
		fire(kind, d, name, id);
		return true;
	}

	/* one probe hit per tensor; the recorder puts them back together */
	Result<bool> tensors(int kind, unsigned int flags,
			     const ArrayRef<Tensor> list, const char *name,
			     DelegateDebugIntId id)
	{
		etdump_value_desc d{};

		d.type = ETDUMP_VALUE_TENSOR_LIST;
		d.flags = flags;
		d.count = list.size();
		if (!d.count) {
			fire(kind, d, name, id);
			return true;
		}
		for (size_t k = 0; k < list.size(); k++) {
			d.index = k;
			describe(d, list[k]);
			fire(kind, d, name, id);
		}
		return true;
	}

	std::atomic<AllocatorID> allocators_{0};
};

} /* namespace etdump_bpf */

#endif /* ETDUMP_EVENT_TRACER_H */
