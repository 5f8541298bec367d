// SPDX-License-Identifier: BSD-3-Clause
/*
 * The writer, and what ExecuTorch's Inspector sees of what we build: our
 * buffers decoded by the real flatc (`flatc --size-prefixed --json
 * --strict-json --defaults-json`, as ExecuTorch runs it) against
 * schema/etdump.fbs. flatc's JSON, with the whitespace outside strings
 * removed, is compared to the text expected here, written with ' for " to
 * stay readable. Then the layout rules flatc does not check (alignment,
 * defaults left out), the runs left out, refusals, and the file replaced
 * whole.
 *
 * usage: test_etdump_writer [REPO_ROOT]; $FLATC names another flatc,
 * $ETDUMP_FIXTURES another fixture folder.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "read/etdump_reader.h"
#include "write/etdump_writer.h"
#include "write/fb_builder.h"
#include "read/fb_reader.h"
#include "testlib.h"

extern char **environ;

/* the repository, for schema/ and tests/fixtures */
static const char *root;

/* Drop whitespace outside strings: flatc's indentation is not the point. */
static void compact(char *s)
{
	bool in_string = false, escaped = false;
	char *out = s;

	for (; *s; s++) {
		if (in_string) {
			*out++ = *s;
			if (escaped)
				escaped = false;
			else if (*s == '\\')
				escaped = true;
			else if (*s == '"')
				in_string = false;
		} else if (!strchr(" \n\t\r", *s)) {
			*out++ = *s;
			in_string = *s == '"';
		}
	}
	*out = 0;
}

static int run_flatc(const char *dir, const char *in)
{
	const char *flatc = getenv("FLATC") ? getenv("FLATC") : "flatc";
	char schema[4096];
	char *argv[] = { (char *)flatc, "--size-prefixed", "--json",
			 "--strict-json", "--defaults-json", "-o", (char *)dir,
			 schema, "--", (char *)in, NULL };
	int status;
	pid_t pid;

	snprintf(schema, sizeof(schema), "%s/schema/etdump.fbs", root);
	if (posix_spawnp(&pid, flatc, NULL, NULL, argv, environ))
		return -1;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* flatc's JSON for buf, compacted, malloc'd; NULL (and a note) on failure. */
static char *flatc_json(const void *buf, size_t len)
{
	char dir[] = "/tmp/etdump-flatc-XXXXXX", in[64], out[64];
	char *json = NULL;
	void *text = NULL;
	size_t n;
	FILE *f;

	if (!mkdtemp(dir))
		return NULL;
	snprintf(in, sizeof(in), "%s/in.etdp", dir);
	snprintf(out, sizeof(out), "%s/in.json", dir);
	f = fopen(in, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		printf("    cannot write %s\n", in);
		goto out;
	}
	if (run_flatc(dir, in)) {
		printf("    flatc failed on %s\n", in);
		goto out;
	}
	if (etdump_load_file(out, &text, &n))
		goto out;
	json = malloc(n + 1);
	if (json) {
		memcpy(json, text, n);
		json[n] = 0;
		compact(json);
	}
out:
	free(text);
	unlink(out);
	unlink(in);
	rmdir(dir);
	return json;
}

/* expect is flatc's compact JSON with ' for ". */
static void check_json(const void *buf, size_t len, const char *expect)
{
	char *want = strdup(expect), *got, *p;

	for (p = want; *p; p++)
		if (*p == '\'')
			*p = '"';
	got = flatc_json(buf, len);
	CHECK(got != NULL);
	if (got && strcmp(got, want)) {
		size_t at = 0;

		while (got[at] && got[at] == want[at])
			at++;
		at = at > 60 ? at - 60 : 0;
		printf("    flatc's JSON differs:\n    got:  ...%.160s\n    want: ...%.160s\n",
		       got + at, want + at);
		CHECK(!"flatc JSON as expected");
	}
	free(got);
	free(want);
}

/* Each table the schema has, every field set to a non-default value. */
static fb_ref build_every_field(struct fb_builder *b)
{
	static const uint8_t meta[] = { 0, 127, 255 };
	static const int64_t sizes[] = { 2, -3 }, strides[] = { 3, 1 };
	fb_ref s, v1, v2, t, tensor, list, value, flag, ev[4], runs, allocs;

	/* Allocator, AllocationEvent */
	fb_create_string(b, "arena", &s);
	fb_create_ref_table(b, ETD_SLOT_ALLOCATOR_NAME, s, &t);
	fb_create_vector_refs(b, &t, 1, &allocs);
	fb_table_start(b);
	fb_add_u64(b, ETD_SLOT_ALLOCATION_SIZE, 4096, 0);
	fb_add_i32(b, ETD_SLOT_ALLOCATION_ALLOCATOR_ID, 1, 0);
	fb_table_end(b, &t);
	fb_create_ref_table(b, ETD_SLOT_EVENT_ALLOCATION, t, &ev[0]);

	/* ProfileEvent: [ubyte], uint64 at its maximum, int32 */
	fb_create_string(b, "op", &s);
	fb_create_string(b, "delegate", &v1);
	fb_create_vector_u8(b, meta, 3, &v2);
	fb_table_start(b);
	fb_add_u64(b, ETD_SLOT_PROFILE_START_TIME, 1, 0);
	fb_add_u64(b, ETD_SLOT_PROFILE_END_TIME, UINT64_MAX, 0);
	fb_add_ref(b, ETD_SLOT_PROFILE_NAME, s);
	fb_add_i32(b, ETD_SLOT_PROFILE_CHAIN_INDEX, -2, 0);
	fb_add_i32(b, ETD_SLOT_PROFILE_INSTRUCTION_ID, 5, -1);
	fb_add_i32(b, ETD_SLOT_PROFILE_DELEGATE_ID_INT, 9, -1);
	fb_add_ref(b, ETD_SLOT_PROFILE_DELEGATE_ID_STR, v1);
	fb_add_ref(b, ETD_SLOT_PROFILE_METADATA, v2);
	fb_table_end(b, &t);
	fb_create_ref_table(b, ETD_SLOT_EVENT_PROFILE, t, &ev[1]);

	/* DebugEvent: Tensor ([long], int64, enum byte), output Bool */
	fb_create_vector_i64(b, sizes, 2, &v1);
	fb_create_vector_i64(b, strides, 2, &v2);
	fb_table_start(b);
	fb_add_i64(b, ETD_SLOT_TENSOR_OFFSET, -64, 0);
	fb_add_ref(b, ETD_SLOT_TENSOR_SIZES, v1);
	fb_add_ref(b, ETD_SLOT_TENSOR_STRIDES, v2);
	fb_add_i8(b, ETD_SLOT_TENSOR_SCALAR_TYPE, 6, 0);
	fb_table_end(b, &tensor);
	fb_table_start(b);
	fb_add_bool(b, ETD_SLOT_SCALAR_VAL, true, false);
	fb_table_end(b, &flag);
	fb_table_start(b);
	fb_add_ref(b, ETD_SLOT_VALUE_TENSOR, tensor);
	fb_add_ref(b, ETD_SLOT_VALUE_OUTPUT, flag);
	fb_add_i8(b, ETD_SLOT_VALUE_VAL, ETD_VALUE_TENSOR, 0);
	fb_table_end(b, &value);
	fb_create_string(b, "dbg", &s);
	fb_table_start(b);
	fb_add_u64(b, ETD_SLOT_DEBUG_CHAIN_INDEX, UINT64_MAX, 0);
	fb_add_ref(b, ETD_SLOT_DEBUG_ENTRY, value);
	fb_add_i32(b, ETD_SLOT_DEBUG_INSTRUCTION_ID, 3, -1);
	fb_add_i32(b, ETD_SLOT_DEBUG_DELEGATE_ID_INT, 4, -1);
	fb_add_ref(b, ETD_SLOT_DEBUG_NAME, s);
	fb_table_end(b, &t);
	fb_create_ref_table(b, ETD_SLOT_EVENT_DEBUG, t, &ev[2]);

	/* a Value with every member: TensorList, Int, Float, Double, Bool */
	fb_create_vector_refs(b, &tensor, 1, &v1);
	fb_create_ref_table(b, ETD_SLOT_TENSOR_LIST_TENSORS, v1, &list);
	fb_table_start(b);
	fb_add_i64(b, ETD_SLOT_SCALAR_VAL, INT64_MIN, 0);
	fb_table_end(b, &v1);
	fb_table_start(b);
	fb_add_f32(b, ETD_SLOT_SCALAR_VAL, 1.5f, 0);
	fb_table_end(b, &v2);
	fb_table_start(b);
	fb_add_f64(b, ETD_SLOT_SCALAR_VAL, -2.25, 0);
	fb_table_end(b, &t);
	fb_table_start(b);
	fb_add_ref(b, ETD_SLOT_VALUE_TENSOR_LIST, list);
	fb_add_ref(b, ETD_SLOT_VALUE_INT, v1);
	fb_add_ref(b, ETD_SLOT_VALUE_FLOAT, v2);
	fb_add_ref(b, ETD_SLOT_VALUE_DOUBLE, t);
	fb_add_ref(b, ETD_SLOT_VALUE_BOOL, flag);
	fb_add_i8(b, ETD_SLOT_VALUE_VAL, ETD_VALUE_TENSOR_LIST, 0);
	fb_table_end(b, &value);
	fb_create_ref_table(b, ETD_SLOT_DEBUG_ENTRY, value, &t);
	fb_create_ref_table(b, ETD_SLOT_EVENT_DEBUG, t, &ev[3]);

	/* RunData, ETDump */
	fb_create_vector_refs(b, ev, 4, &v1);
	fb_create_string(b, "Run", &s);
	fb_table_start(b);
	fb_add_ref(b, ETD_SLOT_RUN_NAME, s);
	fb_add_i32(b, ETD_SLOT_RUN_BUNDLED_INPUT_INDEX, 7, -1);
	fb_add_ref(b, ETD_SLOT_RUN_ALLOCATORS, allocs);
	fb_add_ref(b, ETD_SLOT_RUN_EVENTS, v1);
	fb_table_end(b, &t);
	fb_create_vector_refs(b, &t, 1, &runs);
	fb_table_start(b);
	fb_add_u32(b, ETD_SLOT_ETDUMP_VERSION, 4000000000u, 0);
	fb_add_ref(b, ETD_SLOT_ETDUMP_RUN_DATA, runs);
	fb_table_end(b, &t);
	return t;
}

TEST(builder_every_field_type_decodes_in_flatc)
{
	struct fb_builder b;
	void *buf = NULL;
	size_t len = 0;

	fb_builder_init(&b);
	fb_finish(&b, build_every_field(&b), ETD_FILE_IDENTIFIER);
	CHECK_EQ_INT(fb_detach(&b, &buf, &len), 0);
	check_json(buf, len, "{'version':4000000000,'run_data':[{'name':'Run','bundled_input_index':7,"
		"'allocators':[{'name':'arena'}],'events':["
		"{'allocation_event':{'allocator_id':1,'allocation_size':4096}},"
		"{'profile_event':{'name':'op','chain_index':-2,'instruction_id':5,'delegate_debug_id_int':9,"
		"'delegate_debug_id_str':'delegate','delegate_debug_metadata':[0,127,255],"
		"'start_time':1,'end_time':18446744073709551615}},"
		"{'debug_event':{'chain_index':18446744073709551615,'instruction_id':3,"
		"'debug_entry':{'val':'Tensor','tensor':{'scalar_type':'FLOAT','sizes':[2,-3],'strides':[3,1],'offset':-64},"
		"'output':{'bool_val':true}},'delegate_debug_id_int':4,'name':'dbg'}},"
		"{'debug_event':{'chain_index':0,'instruction_id':-1,"
		"'debug_entry':{'val':'TensorList','tensor_list':{'tensors':[{'scalar_type':'FLOAT','sizes':[2,-3],'strides':[3,1],'offset':-64}]},"
		"'int_value':{'int_val':-9223372036854775808},'float_value':{'float_val':1.5},"
		"'double_value':{'double_val':-2.25},'bool_value':{'bool_val':true}},"
		"'delegate_debug_id_int':-1}}]}]}");
	free(buf);
}

static void add_profile(struct etd_run *run, const char *name, int chain,
			int instr, uint64_t start, uint64_t end)
{
	struct etd_event ev;

	etd_event_init(&ev, ETD_PROFILE);
	ev.name = name ? strdup(name) : NULL;
	ev.chain_index = chain;
	ev.instruction_id = instr;
	ev.start_time = start;
	ev.end_time = end;
	CHECK_EQ_INT(etd_run_add_event(run, &ev), 0);
}

static void add_delegate(struct etd_run *run, int id, const char *id_str,
			 const char *meta, uint64_t start, uint64_t end)
{
	struct etd_event ev;

	etd_event_init(&ev, ETD_PROFILE);
	ev.instruction_id = 1;
	ev.delegate_id_int = id;
	ev.delegate_id_str = id_str ? strdup(id_str) : NULL;
	ev.has_metadata = true;
	ev.metadata_len = strlen(meta);
	ev.metadata = (uint8_t *)strdup(meta);
	ev.start_time = start;
	ev.end_time = end;
	CHECK_EQ_INT(etd_run_add_event(run, &ev), 0);
}

static void set_tensor(struct etd_tensor *t, int64_t offset)
{
	static const int64_t sizes[] = { 2, 2 }, strides[] = { 2, 1 };

	t->scalar_type = 6; /* FLOAT */
	t->sizes = malloc(sizeof(sizes));
	t->strides = malloc(sizeof(strides));
	memcpy(t->sizes, sizes, sizeof(sizes));
	memcpy(t->strides, strides, sizeof(strides));
	t->nsizes = t->nstrides = 2;
	t->offset = offset;
}

/* A debug event holding a fresh value of `type`, returned for filling. */
static struct etd_value *add_debug(struct etd_run *run, uint64_t chain,
				   int instr, enum etd_value_type type)
{
	struct etd_event ev;

	etd_event_init(&ev, ETD_DEBUG);
	ev.debug_chain_index = chain;
	ev.instruction_id = instr;
	ev.debug_entry = calloc(1, sizeof(*ev.debug_entry));
	ev.debug_entry->type = type;
	CHECK_EQ_INT(etd_run_add_event(run, &ev), 0);
	return run->events[run->nevents - 1].debug_entry;
}

/* What record would write for a load and one execution of a small model. */
static void build_dump(struct etd_dump *d)
{
	struct etd_value *v;
	struct etd_run *run;

	memset(d, 0, sizeof(*d));
	CHECK_EQ_INT(etd_dump_add_run(d, "Default", &run), 0);
	add_profile(run, "Method::init", -1, 0, 100, 200);
	add_profile(run, "Program::load_method", -1, 0, 50, 250);
	CHECK_EQ_INT(etd_dump_add_run(d, "Execute", &run), 0);
	/* an intermediate, then the kernel's own events */
	set_tensor(&add_debug(run, 0, 0, ETD_VALUE_TENSOR)->tensor, 64);
	add_profile(run, "native_call_add.out", 0, 0, 1000, 1900);
	add_profile(run, "OPERATOR_CALL", 0, 0, 990, 2000);
	add_delegate(run, 7, NULL, "\x01\x02", 2100, 2200);
	add_delegate(run, -1, "conv #1", "", 2200, 2300);
	add_debug(run, 0, 1, ETD_VALUE_INT)->int_val = -5;
	add_debug(run, 0, 1, ETD_VALUE_BOOL)->bool_val = true;
	add_debug(run, 0, 1, ETD_VALUE_DOUBLE)->double_val = 0.5;
	add_debug(run, 0, 1, ETD_VALUE_FLOAT)->float_val = -4.0f;
	v = add_debug(run, 0, 1, ETD_VALUE_TENSOR_LIST);
	v->tensors = calloc(2, sizeof(*v->tensors));
	v->ntensors = 2;
	set_tensor(&v->tensors[0], 128);
	set_tensor(&v->tensors[1], 192);
	add_profile(run, "DELEGATE_CALL", 0, 1, 2050, 2400);
	add_profile(run, "Method::execute", -1, 0, 900, 2500);
	/* a program output, logged after Method::execute ends */
	v = add_debug(run, UINT64_MAX, 0, ETD_VALUE_TENSOR);
	set_tensor(&v->tensor, 256);
	v->has_output = v->output = true;
	/* a block that saw no event: left out */
	CHECK_EQ_INT(etd_dump_add_run(d, "Execute", NULL), 0);
}

#define TENSOR_JSON(offset)                                                    \
	"{'scalar_type':'FLOAT','sizes':[2,2],'strides':[2,1],'offset':" #offset "}"
#define PROFILE_JSON(name, chain, instr, start, end)                           \
	"{'profile_event':{'name':'" name "','chain_index':" #chain            \
	",'instruction_id':" #instr ",'delegate_debug_id_int':-1,"              \
	"'start_time':" #start ",'end_time':" #end "}}"
#define DEBUG_JSON(chain, instr, entry)                                        \
	"{'debug_event':{'chain_index':" #chain ",'instruction_id':" #instr    \
	",'debug_entry':{" entry "},'delegate_debug_id_int':-1}}"

TEST(writer_dump_decodes_in_flatc)
{
	struct etd_dump d;
	void *buf = NULL;
	size_t len = 0;

	build_dump(&d);
	CHECK_EQ_INT(etdump_write(&d, &buf, &len), 0);
	check_json(buf, len, "{'version':0,'run_data':["
		"{'name':'Default','bundled_input_index':-1,'events':["
		PROFILE_JSON("Method::init", -1, 0, 100, 200) ","
		PROFILE_JSON("Program::load_method", -1, 0, 50, 250) "]},"
		"{'name':'Execute','bundled_input_index':-1,'events':["
		DEBUG_JSON(0, 0, "'val':'Tensor','tensor':" TENSOR_JSON(64)) ","
		PROFILE_JSON("native_call_add.out", 0, 0, 1000, 1900) ","
		PROFILE_JSON("OPERATOR_CALL", 0, 0, 990, 2000) ","
		"{'profile_event':{'chain_index':0,'instruction_id':1,'delegate_debug_id_int':7,"
		"'delegate_debug_metadata':[1,2],'start_time':2100,'end_time':2200}},"
		"{'profile_event':{'chain_index':0,'instruction_id':1,'delegate_debug_id_int':-1,"
		"'delegate_debug_id_str':'conv #1','delegate_debug_metadata':[],'start_time':2200,'end_time':2300}},"
		DEBUG_JSON(0, 1, "'val':'Int','int_value':{'int_val':-5}") ","
		DEBUG_JSON(0, 1, "'val':'Bool','bool_value':{'bool_val':true}") ","
		DEBUG_JSON(0, 1, "'val':'Double','double_value':{'double_val':0.5}") ","
		DEBUG_JSON(0, 1, "'val':'Float','float_value':{'float_val':-4.0}") ","
		DEBUG_JSON(0, 1, "'val':'TensorList','tensor_list':{'tensors':["
			   TENSOR_JSON(128) "," TENSOR_JSON(192) "]}") ","
		PROFILE_JSON("DELEGATE_CALL", 0, 1, 2050, 2400) ","
		PROFILE_JSON("Method::execute", -1, 0, 900, 2500) ","
		DEBUG_JSON(18446744073709551615, 0, "'val':'Tensor','tensor':" TENSOR_JSON(256)
			   ",'output':{'bool_val':true}")
		"]}]}");
	free(buf);
	etd_dump_free(&d);
}

TEST(dump_without_runs_decodes_in_flatc)
{
	struct etd_dump d = { 0 };
	void *buf = NULL;
	size_t len = 0;

	CHECK_EQ_INT(etdump_write(&d, &buf, &len), 0);
	check_json(buf, len, "{'version':0,'run_data':[]}");
	free(buf);
}

/* Drop the trailing run build_dump() adds without events. */
static void drop_empty_run(struct etd_dump *d)
{
	CHECK_EQ_INT(d->runs[d->nruns - 1].nevents, 0);
	etd_run_free(&d->runs[--d->nruns]);
}

static void open_root(struct fb_reader *r, const void *buf, size_t len,
		      struct fb_table *root)
{
	fb_reader_init(r, buf, len);
	CHECK_EQ_INT(fb_reader_root(r, 4, root), 0);
}

/* Element i of vector-of-tables field `slot`. */
static void nth(const struct fb_table *t, unsigned int slot, uint32_t i,
		struct fb_table *out)
{
	struct fb_vector v;

	CHECK_EQ_INT(fb_read_vector(t, slot, 4, &v), 1);
	CHECK_EQ_INT(fb_vector_table(&v, i, out), 0);
}

static void check_field_aligned(const struct fb_table *t, unsigned int slot,
				size_t size)
{
	size_t pos = fb_field_pos(t, slot);

	if (pos % size)
		printf("    field %u of the table at %zu is at %zu\n", slot,
		       t->pos, pos);
	CHECK_EQ_INT(pos % size, 0);
}

static void check_longs_aligned(const struct fb_table *t, unsigned int slot)
{
	struct fb_vector v;

	CHECK_EQ_INT(fb_read_vector(t, slot, 8, &v), 1);
	CHECK_EQ_INT(v.pos % 8, 0);
}

static void check_tensor_aligned(const struct fb_table *t)
{
	check_field_aligned(t, ETD_SLOT_TENSOR_OFFSET, 8);
	check_longs_aligned(t, ETD_SLOT_TENSOR_SIZES);
	check_longs_aligned(t, ETD_SLOT_TENSOR_STRIDES);
}

static void check_value_aligned(const struct fb_table *value)
{
	struct fb_table m, t;

	if (fb_read_table(value, ETD_SLOT_VALUE_TENSOR, &m) == 1)
		check_tensor_aligned(&m);
	if (fb_read_table(value, ETD_SLOT_VALUE_TENSOR_LIST, &m) == 1) {
		nth(&m, ETD_SLOT_TENSOR_LIST_TENSORS, 1, &t);
		check_tensor_aligned(&t);
	}
	if (fb_read_table(value, ETD_SLOT_VALUE_INT, &m) == 1)
		check_field_aligned(&m, ETD_SLOT_SCALAR_VAL, 8);
	if (fb_read_table(value, ETD_SLOT_VALUE_DOUBLE, &m) == 1)
		check_field_aligned(&m, ETD_SLOT_SCALAR_VAL, 8);
	if (fb_read_table(value, ETD_SLOT_VALUE_FLOAT, &m) == 1)
		check_field_aligned(&m, ETD_SLOT_SCALAR_VAL, 4);
}

static void check_event_aligned(const struct fb_table *event)
{
	struct fb_table m, value;

	if (fb_read_table(event, ETD_SLOT_EVENT_PROFILE, &m) == 1) {
		check_field_aligned(&m, ETD_SLOT_PROFILE_START_TIME, 8);
		check_field_aligned(&m, ETD_SLOT_PROFILE_END_TIME, 8);
		check_field_aligned(&m, ETD_SLOT_PROFILE_INSTRUCTION_ID, 4);
	}
	if (fb_read_table(event, ETD_SLOT_EVENT_DEBUG, &m) == 1) {
		check_field_aligned(&m, ETD_SLOT_DEBUG_CHAIN_INDEX, 8);
		CHECK_EQ_INT(fb_read_table(&m, ETD_SLOT_DEBUG_ENTRY, &value),
			     1);
		check_value_aligned(&value);
	}
}

TEST(output_is_prefixed_and_aligned_from_byte_zero)
{
	struct fb_table root, run, ev;
	struct fb_reader r;
	struct etd_dump d;
	uint32_t i, j;
	uint8_t *buf;
	size_t len;

	build_dump(&d);
	CHECK_EQ_INT(etdump_write(&d, (void **)&buf, &len), 0);
	CHECK_EQ_INT(len % 8, 0);
	CHECK_EQ_INT(buf[0] | buf[1] << 8 | buf[2] << 16 |
			     (uint32_t)buf[3] << 24, len - 4);
	CHECK(!memcmp(buf + 8, "ED00", 4));
	open_root(&r, buf, len, &root);
	for (i = 0; i < 2; i++) {
		nth(&root, ETD_SLOT_ETDUMP_RUN_DATA, i, &run);
		for (j = 0; j < d.runs[i].nevents; j++) {
			nth(&run, ETD_SLOT_RUN_EVENTS, j, &ev);
			check_event_aligned(&ev);
		}
	}
	CHECK_EQ_INT(r.error, 0);
	free(buf);
	etd_dump_free(&d);
}

/* Event j of run i, as its member table (profile or debug). */
static void event_member(const struct fb_table *root, uint32_t i, uint32_t j,
			 unsigned int slot, struct fb_table *out)
{
	struct fb_table run, ev;

	nth(root, ETD_SLOT_ETDUMP_RUN_DATA, i, &run);
	nth(&run, ETD_SLOT_RUN_EVENTS, j, &ev);
	CHECK_EQ_INT(fb_read_table(&ev, slot, out), 1);
}

TEST(scalars_equal_to_their_default_are_left_out)
{
	struct fb_table root, run, t;
	struct fb_vector v;
	struct fb_reader r;
	struct etd_dump d;
	size_t len;
	void *buf;

	build_dump(&d);
	CHECK_EQ_INT(etdump_write(&d, &buf, &len), 0);
	open_root(&r, buf, len, &root);
	CHECK(!fb_field_pos(&root, ETD_SLOT_ETDUMP_VERSION));
	nth(&root, ETD_SLOT_ETDUMP_RUN_DATA, 0, &run);
	CHECK(!fb_field_pos(&run, ETD_SLOT_RUN_BUNDLED_INPUT_INDEX));
	CHECK(!fb_field_pos(&run, ETD_SLOT_RUN_ALLOCATORS));
	/* Method::init: chain -1 and instruction 0 are not defaults */
	event_member(&root, 0, 0, ETD_SLOT_EVENT_PROFILE, &t);
	CHECK(fb_field_pos(&t, ETD_SLOT_PROFILE_CHAIN_INDEX));
	CHECK(fb_field_pos(&t, ETD_SLOT_PROFILE_INSTRUCTION_ID));
	CHECK(!fb_field_pos(&t, ETD_SLOT_PROFILE_DELEGATE_ID_INT));
	CHECK(!fb_field_pos(&t, ETD_SLOT_PROFILE_DELEGATE_ID_STR));
	CHECK(!fb_field_pos(&t, ETD_SLOT_PROFILE_METADATA));
	/* native_call_add.out in chain 0 */
	event_member(&root, 1, 1, ETD_SLOT_EVENT_PROFILE, &t);
	CHECK(!fb_field_pos(&t, ETD_SLOT_PROFILE_CHAIN_INDEX));
	/* the int-id delegate event: no name, metadata */
	event_member(&root, 1, 3, ETD_SLOT_EVENT_PROFILE, &t);
	CHECK(!fb_field_pos(&t, ETD_SLOT_PROFILE_NAME));
	CHECK(fb_field_pos(&t, ETD_SLOT_PROFILE_DELEGATE_ID_INT));
	/* the string-id one: an empty metadata vector, present */
	event_member(&root, 1, 4, ETD_SLOT_EVENT_PROFILE, &t);
	CHECK(!fb_field_pos(&t, ETD_SLOT_PROFILE_DELEGATE_ID_INT));
	CHECK(fb_read_vector(&t, ETD_SLOT_PROFILE_METADATA, 1, &v) == 1 &&
	      v.count == 0);
	/* debug events: chain 0 left out, 2^64-1 kept */
	event_member(&root, 1, 0, ETD_SLOT_EVENT_DEBUG, &t);
	CHECK(!fb_field_pos(&t, ETD_SLOT_DEBUG_CHAIN_INDEX));
	CHECK(!fb_field_pos(&t, ETD_SLOT_DEBUG_DELEGATE_ID_INT));
	event_member(&root, 1, 12, ETD_SLOT_EVENT_DEBUG, &t);
	CHECK(fb_field_pos(&t, ETD_SLOT_DEBUG_CHAIN_INDEX));
	CHECK_EQ_INT(r.error, 0);
	free(buf);
	etd_dump_free(&d);
}

TEST(what_is_written_reads_back_equal)
{
	struct etd_dump d, back;
	char err[256] = "";
	size_t len;
	void *buf;

	build_dump(&d);
	drop_empty_run(&d);
	d.version = 3;
	d.runs[1].bundled_input_index = 2;
	CHECK_EQ_INT(etdump_write(&d, &buf, &len), 0);
	CHECK_EQ_INT(etdump_read(buf, len, &back, err, sizeof(err)), 0);
	CHECK_EQ_STR(err, "");
	CHECK(etd_dump_equal(&d, &back));
	free(buf);
	etd_dump_free(&back);
	etd_dump_free(&d);
}

TEST(runs_without_events_are_left_out)
{
	struct fb_table root;
	struct fb_reader r;
	struct fb_vector v;
	struct etd_dump d;
	char err[256];
	size_t len;
	void *buf;

	build_dump(&d);
	CHECK_EQ_INT(d.nruns, 3);
	CHECK_EQ_INT(etdump_write(&d, &buf, &len), 0);
	etd_dump_free(&d);
	CHECK_EQ_INT(etdump_read(buf, len, &d, err, sizeof(err)), 0);
	CHECK_EQ_INT(d.nruns, 2);
	etd_dump_free(&d);
	free(buf);

	/* only empty runs: run_data is there, empty */
	memset(&d, 0, sizeof(d));
	CHECK_EQ_INT(etd_dump_add_run(&d, "Execute", NULL), 0);
	CHECK_EQ_INT(etdump_write(&d, &buf, &len), 0);
	open_root(&r, buf, len, &root);
	CHECK(fb_read_vector(&root, ETD_SLOT_ETDUMP_RUN_DATA, 4, &v) == 1 &&
	      v.count == 0);
	free(buf);
	etd_dump_free(&d);
}

TEST(missing_names_are_written_empty)
{
	struct etd_dump d = { 0 }, back;
	struct etd_run *run;
	char err[256];
	size_t len;
	void *buf;

	CHECK_EQ_INT(etd_dump_add_run(&d, NULL, &run), 0);
	add_profile(run, NULL, 0, 0, 1, 2);
	run->allocators = calloc(2, sizeof(*run->allocators));
	run->allocators[1] = strdup("pool");
	run->nallocators = 2;
	CHECK_EQ_INT(etdump_write(&d, &buf, &len), 0);
	CHECK_EQ_INT(etdump_read(buf, len, &back, err, sizeof(err)), 0);
	CHECK_EQ_STR(back.runs[0].name, "");
	CHECK(back.runs[0].events[0].name == NULL);
	CHECK_EQ_INT(back.runs[0].nallocators, 2);
	CHECK_EQ_STR(back.runs[0].allocators[0], "");
	CHECK_EQ_STR(back.runs[0].allocators[1], "pool");
	free(buf);
	etd_dump_free(&back);
	etd_dump_free(&d);
}

TEST(events_the_inspector_cannot_load_are_refused)
{
	struct etd_dump d = { 0 };
	struct etd_event ev;
	struct etd_run *run;
	void *buf = (void *)1;
	size_t len = 1;

	CHECK_EQ_INT(etd_dump_add_run(&d, "Execute", &run), 0);
	add_profile(run, "OPERATOR_CALL", 0, 0, 1, 2);
	etd_event_init(&ev, ETD_ALLOCATION);
	CHECK_EQ_INT(etd_run_add_event(run, &ev), 0);
	CHECK_EQ_INT(etdump_write(&d, &buf, &len), -EINVAL);
	CHECK(buf == NULL && len == 0);
	/* a debug event without a value */
	run->events[1].kind = ETD_DEBUG;
	CHECK_EQ_INT(etdump_write(&d, &buf, &len), -EINVAL);
	etd_dump_free(&d);
}

/* Entries in dir other than . and .. */
static int count_entries(const char *dir)
{
	struct dirent *e;
	int n = 0;
	DIR *dp;

	dp = opendir(dir);
	if (!dp)
		return -1;
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

static void check_file_holds(const char *path, const struct etd_dump *want)
{
	struct etd_dump got;
	char err[256] = "";

	CHECK_EQ_INT(etdump_read_file(path, &got, err, sizeof(err)), 0);
	CHECK_EQ_STR(err, "");
	CHECK(etd_dump_equal(&got, want));
	etd_dump_free(&got);
}

/* as record -f writes its output */
static int write_file(const struct etd_dump *d, const char *path)
{
	char *kept;
	int err = etdump_write_file(d, path, true, &kept);

	free(kept);
	return err;
}

TEST(write_file_replaces_the_file_whole)
{
	char dir[] = "/tmp/etdump-writer-XXXXXX", path[64], missing[80];
	struct etd_dump d1, d2 = { 0 };
	struct etd_event ev;
	struct etd_run *run;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/out.etdp", dir);
	snprintf(missing, sizeof(missing), "%s/no/such/dir.etdp", dir);
	build_dump(&d1);
	drop_empty_run(&d1);
	CHECK_EQ_INT(etd_dump_add_run(&d2, "Execute", &run), 0);
	add_profile(run, "Method::execute", -1, 0, 5, 6);

	CHECK_EQ_INT(write_file(&d1, path), 0);
	check_file_holds(path, &d1);
	CHECK_EQ_INT(write_file(&d2, path), 0);
	check_file_holds(path, &d2);
	CHECK_EQ_INT(count_entries(dir), 1);

	/* a failed write leaves the old file and no temporary one */
	etd_event_init(&ev, ETD_ALLOCATION);
	CHECK_EQ_INT(etd_run_add_event(run, &ev), 0);
	CHECK_EQ_INT(write_file(&d2, path), -EINVAL);
	run->nevents--;
	check_file_holds(path, &d2);
	CHECK_EQ_INT(count_entries(dir), 1);
	CHECK_EQ_INT(write_file(&d2, missing), -ENOENT);
	CHECK_EQ_INT(count_entries(dir), 1);

	unlink(path);
	rmdir(dir);
	etd_dump_free(&d1);
	etd_dump_free(&d2);
}

/*
 * What is at the path when the file is written decides: a symbolic link
 * planted there is neither followed nor replaced, with or without force; a
 * file that appeared without force is kept. The output is then kept in the
 * temporary file beside, which the error names.
 */
TEST(write_file_never_follows_a_link_nor_takes_a_new_file)
{
	char dir[] = "/tmp/etdump-writer-XXXXXX", path[64], victim[64];
	struct etd_dump d = { 0 };
	struct etd_run *run;
	struct stat st;
	char *kept;
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/out.etdp", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	CHECK_EQ_INT(etd_dump_add_run(&d, "Execute", &run), 0);
	add_profile(run, "Method::execute", -1, 0, 5, 6);
	fd = open(victim, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ_INT(symlink(victim, path), 0);

	for (int force = 0; force < 2; force++) {
		CHECK_EQ_INT(etdump_write_file(&d, path, force, &kept), -ELOOP);
		CHECK(kept != NULL);
		check_file_holds(kept, &d);
		CHECK_EQ_INT(unlink(kept), 0);
		free(kept);
		CHECK_EQ_INT(lstat(path, &st), 0);
		CHECK(S_ISLNK(st.st_mode));
		CHECK_EQ_INT(stat(victim, &st), 0);
		CHECK_EQ_INT((int)st.st_size, 0);
	}
	unlink(path);

	/* no force: a file that appeared stays as it is */
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ_INT(etdump_write_file(&d, path, false, &kept), -EEXIST);
	CHECK(kept != NULL);
	CHECK_EQ_INT(stat(path, &st), 0);
	CHECK_EQ_INT((int)st.st_size, 0);
	unlink(kept);
	free(kept);
	unlink(path);

	/* no force and nothing there: written, nothing else left */
	CHECK_EQ_INT(etdump_write_file(&d, path, false, &kept), 0);
	CHECK(kept == NULL);
	check_file_holds(path, &d);
	CHECK_EQ_INT(count_entries(dir), 2);

	unlink(path);
	unlink(victim);
	rmdir(dir);
	etd_dump_free(&d);
}

/* Every fixture: ExecuTorch's files decode the same once rewritten by us. */
TEST(rewritten_fixtures_decode_like_the_originals)
{
	const char *dir = getenv("ETDUMP_FIXTURES");
	char pattern[4096], err[256], *want, *got;
	void *orig = NULL, *buf = NULL;
	size_t i, orig_len, len;
	struct etd_dump d;
	glob_t g;

	if (dir)
		snprintf(pattern, sizeof(pattern), "%s/*.etdp", dir);
	else
		snprintf(pattern, sizeof(pattern), "%s/tests/fixtures/*.etdp",
			 root);
	CHECK_EQ_INT(glob(pattern, 0, NULL, &g), 0);
	CHECK(g.gl_pathc >= 6);
	for (i = 0; i < g.gl_pathc; i++) {
		CHECK_EQ_INT(etdump_load_file(g.gl_pathv[i], &orig,
					      &orig_len), 0);
		CHECK_EQ_INT(etdump_read(orig, orig_len, &d, err,
					 sizeof(err)), 0);
		CHECK_EQ_INT(etdump_write(&d, &buf, &len), 0);
		want = flatc_json(orig, orig_len);
		got = flatc_json(buf, len);
		CHECK(want && got && !strcmp(want, got));
		free(want);
		free(got);
		free(buf);
		free(orig);
		etd_dump_free(&d);
	}
	globfree(&g);
}

int main(int argc, char **argv)
{
	root = argc > 1 ? argv[1] : ".";
	RUN(builder_every_field_type_decodes_in_flatc);
	RUN(writer_dump_decodes_in_flatc);
	RUN(dump_without_runs_decodes_in_flatc);
	RUN(rewritten_fixtures_decode_like_the_originals);
	RUN(output_is_prefixed_and_aligned_from_byte_zero);
	RUN(scalars_equal_to_their_default_are_left_out);
	RUN(what_is_written_reads_back_equal);
	RUN(runs_without_events_are_left_out);
	RUN(missing_names_are_written_empty);
	RUN(events_the_inspector_cannot_load_are_refused);
	RUN(write_file_replaces_the_file_whole);
	RUN(write_file_never_follows_a_link_nor_takes_a_new_file);
	return TEST_SUMMARY();
}
