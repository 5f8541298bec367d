/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etdump_model.h - the in-memory ETDump that record, convert and report share:
 * the collector builds one, the writer serializes it, the reader fills it
 * from any ETDump file (ours or ExecuTorch's).
 *
 * Field meanings and defaults are those of the ETDump schema
 * (schema/etdump.fbs); "absent" strings and vectors are NULL.
 */
#ifndef ETDUMP_MODEL_H
#define ETDUMP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum etd_value_type { /* schema ValueType */
	ETD_VALUE_NULL = 0,
	ETD_VALUE_INT = 1,
	ETD_VALUE_BOOL = 2,
	ETD_VALUE_FLOAT = 3,
	ETD_VALUE_DOUBLE = 4,
	ETD_VALUE_TENSOR = 5,
	ETD_VALUE_TENSOR_LIST = 6,
	ETD_VALUE_STRING = 7,
};

struct etd_tensor {
	int8_t scalar_type;    /* schema ScalarType */
	int64_t *sizes;        /* NULL = absent */
	uint32_t nsizes;
	int64_t *strides;      /* NULL = absent */
	uint32_t nstrides;
	int64_t offset;        /* into the debug buffer */
};

struct etd_value {
	enum etd_value_type type;
	struct etd_tensor tensor;          /* ETD_VALUE_TENSOR */
	struct etd_tensor *tensors;        /* ETD_VALUE_TENSOR_LIST */
	uint32_t ntensors;
	int64_t int_val;
	bool bool_val;
	float float_val;
	double double_val;
	bool has_output;                   /* Value.output present */
	bool output;                       /* its bool_val */
};

enum etd_event_kind {
	ETD_PROFILE = 0,
	ETD_DEBUG = 1,
	ETD_ALLOCATION = 2, /* read only; never written (the Inspector rejects it) */
};

/*
 * Perf counter deltas over one profile event, in the order of
 * etd_dump.counter_names. A counter whose value cannot be trusted (not
 * counting the whole time, read error, thread migrated with a per-CPU
 * counter) has valid[i] false and no number. Stored in the ETDump as
 * described in schema/COUNTERS.md.
 */
#define ETD_MAX_COUNTERS 4
struct etd_counters {
	uint32_t n;                   /* 0: no counters for this event */
	uint64_t value[ETD_MAX_COUNTERS];
	bool valid[ETD_MAX_COUNTERS];
};

struct etd_event {
	enum etd_event_kind kind;
	char *name;                   /* NULL = absent */
	int32_t instruction_id;       /* default -1 */
	int32_t delegate_id_int;      /* default -1 */
	char *delegate_id_str;        /* NULL = absent */

	/* ETD_PROFILE */
	int32_t chain_index;          /* default 0 */
	uint8_t *metadata;            /* delegate_debug_metadata */
	uint32_t metadata_len;
	bool has_metadata;            /* vector present (may be empty) */
	uint64_t start_time;
	uint64_t end_time;
	struct etd_counters counters;

	/* ETD_DEBUG */
	uint64_t debug_chain_index;   /* uint64 in the schema */
	struct etd_value *debug_entry;

	/* ETD_ALLOCATION */
	int32_t allocator_id;
	uint64_t allocation_size;

	/* not serialized: the thread that fired it, when not the run's */
	uint32_t tid;
};

/*
 * A profile event without counters, by its parts: what most events of a
 * run are, written without filling a whole etd_event
 * (etdump_write_profile()).
 */
struct etd_profile {
	const char *name;             /* NULL = absent */
	const char *delegate_id_str;  /* NULL = absent */
	int32_t instruction_id;       /* default -1 */
	int32_t delegate_id_int;      /* default -1 */
	int32_t chain_index;          /* default 0 */
	const uint8_t *metadata;
	uint32_t metadata_len;
	bool has_metadata;            /* vector present (may be empty) */
	uint64_t start_time;
	uint64_t end_time;
};

struct etd_run {
	char *name;
	int32_t bundled_input_index;  /* default -1 */
	char **allocators;
	uint32_t nallocators;
	struct etd_event *events;     /* NULL with nevents 0 = absent */
	size_t nevents;
	size_t cap;
	/* not serialized: which thread produced it, for ordering and reports */
	uint32_t tid;
	uint64_t open_time;
};

struct etd_dump {
	uint32_t version;
	struct etd_run *runs;
	size_t nruns;
	size_t cap;
	/* not a schema field: the counters events carry (perf's names) */
	char *counter_names[ETD_MAX_COUNTERS];
	uint32_t ncounters;
	/*
	 * Not a schema field: what the writer does with allocation events,
	 * which the Inspector cannot load: refuse the dump (the default),
	 * leave them out (record --allocations keeps them for report and the
	 * timeline), or write them (record --allocations-in-etdump).
	 */
	enum etd_allocations {
		ETD_ALLOCATIONS_REFUSE = 0,
		ETD_ALLOCATIONS_LEAVE_OUT,
		ETD_ALLOCATIONS_WRITE,
	} allocations;
};

/*
 * Field slots of schema/etdump.fbs (declaration order), shared by the
 * writer and the reader.
 */
enum { ETD_SLOT_ETDUMP_VERSION, ETD_SLOT_ETDUMP_RUN_DATA };
enum { ETD_SLOT_RUN_NAME, ETD_SLOT_RUN_BUNDLED_INPUT_INDEX,
       ETD_SLOT_RUN_ALLOCATORS, ETD_SLOT_RUN_EVENTS };
enum { ETD_SLOT_ALLOCATOR_NAME };
enum { ETD_SLOT_EVENT_PROFILE, ETD_SLOT_EVENT_ALLOCATION,
       ETD_SLOT_EVENT_DEBUG };
enum { ETD_SLOT_PROFILE_NAME, ETD_SLOT_PROFILE_CHAIN_INDEX,
       ETD_SLOT_PROFILE_INSTRUCTION_ID, ETD_SLOT_PROFILE_DELEGATE_ID_INT,
       ETD_SLOT_PROFILE_DELEGATE_ID_STR, ETD_SLOT_PROFILE_METADATA,
       ETD_SLOT_PROFILE_START_TIME, ETD_SLOT_PROFILE_END_TIME };
enum { ETD_SLOT_ALLOCATION_ALLOCATOR_ID, ETD_SLOT_ALLOCATION_SIZE };
enum { ETD_SLOT_DEBUG_CHAIN_INDEX, ETD_SLOT_DEBUG_INSTRUCTION_ID,
       ETD_SLOT_DEBUG_ENTRY, ETD_SLOT_DEBUG_DELEGATE_ID_INT,
       ETD_SLOT_DEBUG_DELEGATE_ID_STR, ETD_SLOT_DEBUG_NAME };
enum { ETD_SLOT_VALUE_VAL, ETD_SLOT_VALUE_TENSOR, ETD_SLOT_VALUE_TENSOR_LIST,
       ETD_SLOT_VALUE_INT, ETD_SLOT_VALUE_FLOAT, ETD_SLOT_VALUE_DOUBLE,
       ETD_SLOT_VALUE_BOOL, ETD_SLOT_VALUE_OUTPUT };
enum { ETD_SLOT_TENSOR_SCALAR_TYPE, ETD_SLOT_TENSOR_SIZES,
       ETD_SLOT_TENSOR_STRIDES, ETD_SLOT_TENSOR_OFFSET };
enum { ETD_SLOT_TENSOR_LIST_TENSORS };
/* Int, Bool, Float and Double have one field each */
enum { ETD_SLOT_SCALAR_VAL };

/* The Value slot holding a value of this type; -1 for Null and String. */
int etd_value_slot(enum etd_value_type type);

/* default of instruction_id, delegate_debug_id_int, bundled_input_index */
#define ETD_UNSET (-1)
#define ETD_FILE_IDENTIFIER "ED00"

/* Initializers carrying the schema defaults. */
void etd_event_init(struct etd_event *ev, enum etd_event_kind kind);
void etd_run_init(struct etd_run *run);

/* Append; the container takes ownership of heap pointers in *ev / the run. */
int etd_dump_add_run(struct etd_dump *dump, const char *name, struct etd_run **out);
int etd_run_add_event(struct etd_run *run, const struct etd_event *ev);

/* Free what it owns (not the struct itself). */
void etd_value_free(struct etd_value *v);
void etd_event_free(struct etd_event *ev);
void etd_run_free(struct etd_run *run);
void etd_dump_free(struct etd_dump *dump);

/*
 * Same serialized content (what a write then a read keeps): names, ids,
 * times, values, allocators, counters; not tid, open_time or capacities.
 */
bool etd_dump_equal(const struct etd_dump *a, const struct etd_dump *b);

#endif /* ETDUMP_MODEL_H */
