// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/file_io.h"
#include "model/etdump_counters.h"
#include "read/etdump_reader.h"
#include "read/fb_reader.h"
#include "read/file_kind.h"

/*
 * Offsets may be shared, so a small file can name the same events or
 * vectors many times over. ExecuTorch's files take about a third of the
 * memory they fill; allowing 64 times the file size (plus 1 MiB) passes
 * any real file and stops a hostile one long before memory runs out.
 */
#define EXPANSION 64
#define EXPANSION_SLACK (1u << 20)
/* uoffsets are 32-bit */
#define MAX_FILE_SIZE 0x80000000u
#define HEADER_SIZE 12

struct rd {
	struct fb_reader fb;
	size_t budget;          /* bytes the model may still take */
	size_t limit;
	char path[160];         /* where we are, e.g. run_data[1].events[3] */
	size_t path_len;
};

typedef int (*read_fn)(struct rd *rd, const struct fb_table *t, void *elem);

static __attribute__((format(printf, 3, 4)))
void say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Append to the path; path_pop(mark) undoes it. Left as is on errors. */
static __attribute__((format(printf, 2, 3)))
size_t path_push(struct rd *rd, const char *fmt, ...)
{
	size_t mark = rd->path_len, room = sizeof(rd->path) - mark;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rd->path + mark, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		rd->path_len += (size_t)n < room ? (size_t)n : room - 1;
	return mark;
}

static void path_pop(struct rd *rd, size_t mark)
{
	rd->path_len = mark;
	rd->path[mark] = 0;
}

/* A zeroed array, charged to the budget; never NULL when it succeeds. */
static void *alloc_array(struct rd *rd, size_t count, size_t size)
{
	if (count > rd->budget / size) {
		fb_reader_fail(&rd->fb, "the data would fill more than %zu bytes of memory, far more than its %zu bytes can hold: offsets are shared or looping",
			       rd->limit, rd->fb.len);
		return NULL;
	}
	rd->budget -= count * size;
	return calloc(count ? count : 1, size);
}

/* Why alloc_array() failed. */
static int alloc_error(const struct rd *rd)
{
	return rd->fb.error ? rd->fb.error : -ENOMEM;
}

/* ret if it is an error, else the first failure of a scalar read, or 0. */
static int done(const struct rd *rd, int ret)
{
	return ret < 0 ? ret : rd->fb.error;
}

/* A copy of a string field, or NULL when absent: 1, 0 or < 0. */
static int get_string(struct rd *rd, const struct fb_table *t,
		      unsigned int slot, char **out)
{
	const char *s;
	uint32_t n;
	int ret;

	ret = fb_read_string(t, slot, &s, &n);
	if (ret <= 0)
		return ret;
	*out = alloc_array(rd, (size_t)n + 1, 1);
	if (!*out)
		return alloc_error(rd);
	memcpy(*out, s, n);
	return 1;
}

/* A copy of a [ubyte] field, NULL when absent, non-NULL when empty. */
static int get_bytes(struct rd *rd, const struct fb_table *t,
		     unsigned int slot, uint8_t **out, uint32_t *count)
{
	struct fb_vector v;
	int ret;

	ret = fb_read_vector(t, slot, 1, &v);
	if (ret <= 0)
		return ret;
	*out = alloc_array(rd, v.count, 1);
	if (!*out)
		return alloc_error(rd);
	if (v.count)
		memcpy(*out, fb_vector_bytes(&v), v.count);
	*count = v.count;
	return 1;
}

/* A copy of a [long] field, NULL when absent, non-NULL when empty. */
static int get_longs(struct rd *rd, const struct fb_table *t,
		     unsigned int slot, int64_t **out, uint32_t *count)
{
	struct fb_vector v;
	uint32_t i;
	int ret;

	ret = fb_read_vector(t, slot, sizeof(**out), &v);
	if (ret <= 0)
		return ret;
	*out = alloc_array(rd, v.count, sizeof(**out));
	if (!*out)
		return alloc_error(rd);
	for (i = 0; i < v.count; i++)
		(*out)[i] = (int64_t)fb_vector_scalar(&v, i);
	*count = v.count;
	return 1;
}

/*
 * A vector of tables into a new zeroed array of elem_size elements, each
 * filled by fn. *arr and *count are set before the elements are read, so
 * that the caller frees what a failure leaves. 1, 0 when absent, or < 0.
 */
static int read_tables(struct rd *rd, const struct fb_table *t,
		       unsigned int slot, const char *name, size_t elem_size,
		       read_fn fn, void **arr, size_t *count)
{
	struct fb_table elem;
	struct fb_vector v;
	uint32_t i;
	size_t mark;
	char *p;
	int ret;

	*arr = NULL;
	*count = 0;
	/* after a failure the path must stay where it happened */
	if (rd->fb.error)
		return rd->fb.error;
	ret = fb_read_vector(t, slot, 4, &v);
	if (ret <= 0)
		return ret;
	p = alloc_array(rd, v.count, elem_size);
	if (!p)
		return alloc_error(rd);
	*arr = p;
	*count = v.count;
	for (i = 0; i < v.count; i++) {
		mark = path_push(rd, "%s[%u]", name, i);
		ret = fb_vector_table(&v, i, &elem);
		if (!ret)
			ret = fn(rd, &elem, p + i * elem_size);
		if (ret < 0)
			return ret;
		path_pop(rd, mark);
	}
	return 1;
}

/* Read the table in `slot`, if present, with fn; path names it `name`. */
static int read_member(struct rd *rd, const struct fb_table *t,
		       unsigned int slot, const char *name, read_fn fn,
		       void *out)
{
	struct fb_table m;
	size_t mark;
	int ret;

	if (rd->fb.error)
		return rd->fb.error;
	ret = fb_read_table(t, slot, &m);
	if (ret <= 0)
		return ret;
	mark = path_push(rd, ".%s", name);
	ret = fn(rd, &m, out);
	if (ret < 0)
		return ret;
	path_pop(rd, mark);
	return 1;
}

static int read_tensor(struct rd *rd, const struct fb_table *t, void *elem)
{
	struct etd_tensor *ts = elem;
	int ret;

	fb_read_i8(t, ETD_SLOT_TENSOR_SCALAR_TYPE, 0, &ts->scalar_type);
	fb_read_i64(t, ETD_SLOT_TENSOR_OFFSET, 0, &ts->offset);
	ret = get_longs(rd, t, ETD_SLOT_TENSOR_SIZES, &ts->sizes, &ts->nsizes);
	if (ret >= 0)
		ret = get_longs(rd, t, ETD_SLOT_TENSOR_STRIDES, &ts->strides,
				&ts->nstrides);
	return done(rd, ret);
}

/* The member table of a Value, by type (v->type is set). */
static int read_value_member(struct rd *rd, const struct fb_table *t,
			     void *elem)
{
	struct etd_value *v = elem;
	size_t n;
	void *p;
	int ret;

	switch (v->type) {
	case ETD_VALUE_TENSOR:
		return read_tensor(rd, t, &v->tensor);
	case ETD_VALUE_TENSOR_LIST:
		ret = read_tables(rd, t, ETD_SLOT_TENSOR_LIST_TENSORS,
				  ".tensors", sizeof(*v->tensors), read_tensor,
				  &p, &n);
		v->tensors = p;
		v->ntensors = n;
		return done(rd, ret);
	case ETD_VALUE_INT:
		fb_read_i64(t, ETD_SLOT_SCALAR_VAL, 0, &v->int_val);
		break;
	case ETD_VALUE_BOOL:
		fb_read_bool(t, ETD_SLOT_SCALAR_VAL, false, &v->bool_val);
		break;
	case ETD_VALUE_FLOAT:
		fb_read_f32(t, ETD_SLOT_SCALAR_VAL, 0, &v->float_val);
		break;
	default:
		fb_read_f64(t, ETD_SLOT_SCALAR_VAL, 0, &v->double_val);
		break;
	}
	return rd->fb.error;
}

static int read_output_flag(struct rd *rd, const struct fb_table *t,
			    void *elem)
{
	struct etd_value *v = elem;

	v->has_output = true;
	fb_read_bool(t, ETD_SLOT_SCALAR_VAL, false, &v->output);
	return rd->fb.error;
}

/* Value's field name for each type, for messages */
static const char *const value_members[] = {
	[ETD_VALUE_TENSOR] = "tensor",
	[ETD_VALUE_TENSOR_LIST] = "tensor_list",
	[ETD_VALUE_INT] = "int_value",
	[ETD_VALUE_BOOL] = "bool_value",
	[ETD_VALUE_FLOAT] = "float_value",
	[ETD_VALUE_DOUBLE] = "double_value",
};

static int read_value(struct rd *rd, const struct fb_table *t, void *elem)
{
	struct etd_value *v = elem;
	int8_t type;
	int ret = 0;

	fb_read_i8(t, ETD_SLOT_VALUE_VAL, ETD_VALUE_NULL, &type);
	/* out of range, it could not even be stored in the enum */
	if (type < ETD_VALUE_NULL || type > ETD_VALUE_STRING)
		return fb_reader_fail(&rd->fb, "Value.val is %d, not a ValueType (0..%d)",
				      type, ETD_VALUE_STRING);
	v->type = type;
	if (etd_value_slot(v->type) >= 0)
		ret = read_member(rd, t, etd_value_slot(v->type),
				  value_members[v->type], read_value_member, v);
	if (ret >= 0)
		ret = read_member(rd, t, ETD_SLOT_VALUE_OUTPUT, "output",
				  read_output_flag, v);
	return done(rd, ret);
}

static int read_debug_entry(struct rd *rd, const struct fb_table *t,
			    void *elem)
{
	struct etd_event *ev = elem;

	ev->debug_entry = alloc_array(rd, 1, sizeof(*ev->debug_entry));
	if (!ev->debug_entry)
		return alloc_error(rd);
	return read_value(rd, t, ev->debug_entry);
}

static int read_profile_event(struct rd *rd, const struct fb_table *t,
			      void *elem)
{
	struct etd_event *ev = elem;
	int ret;

	etd_event_init(ev, ETD_PROFILE);
	fb_read_i32(t, ETD_SLOT_PROFILE_CHAIN_INDEX, 0, &ev->chain_index);
	fb_read_i32(t, ETD_SLOT_PROFILE_INSTRUCTION_ID, ETD_UNSET,
		    &ev->instruction_id);
	fb_read_i32(t, ETD_SLOT_PROFILE_DELEGATE_ID_INT, ETD_UNSET,
		    &ev->delegate_id_int);
	fb_read_u64(t, ETD_SLOT_PROFILE_START_TIME, 0, &ev->start_time);
	fb_read_u64(t, ETD_SLOT_PROFILE_END_TIME, 0, &ev->end_time);
	ret = get_string(rd, t, ETD_SLOT_PROFILE_NAME, &ev->name);
	if (ret >= 0)
		ret = get_string(rd, t, ETD_SLOT_PROFILE_DELEGATE_ID_STR,
				 &ev->delegate_id_str);
	if (ret >= 0)
		ret = get_bytes(rd, t, ETD_SLOT_PROFILE_METADATA,
				&ev->metadata, &ev->metadata_len);
	ev->has_metadata = ev->metadata != NULL;
	return done(rd, ret);
}

static int read_debug_event(struct rd *rd, const struct fb_table *t,
			    void *elem)
{
	struct etd_event *ev = elem;
	int ret;

	etd_event_init(ev, ETD_DEBUG);
	fb_read_u64(t, ETD_SLOT_DEBUG_CHAIN_INDEX, 0, &ev->debug_chain_index);
	fb_read_i32(t, ETD_SLOT_DEBUG_INSTRUCTION_ID, ETD_UNSET,
		    &ev->instruction_id);
	fb_read_i32(t, ETD_SLOT_DEBUG_DELEGATE_ID_INT, ETD_UNSET,
		    &ev->delegate_id_int);
	ret = get_string(rd, t, ETD_SLOT_DEBUG_NAME, &ev->name);
	if (ret >= 0)
		ret = get_string(rd, t, ETD_SLOT_DEBUG_DELEGATE_ID_STR,
				 &ev->delegate_id_str);
	if (ret >= 0)
		ret = read_member(rd, t, ETD_SLOT_DEBUG_ENTRY, "debug_entry",
				  read_debug_entry, ev);
	return done(rd, ret);
}

static int read_allocation_event(struct rd *rd, const struct fb_table *t,
				 void *elem)
{
	struct etd_event *ev = elem;

	etd_event_init(ev, ETD_ALLOCATION);
	fb_read_i32(t, ETD_SLOT_ALLOCATION_ALLOCATOR_ID, 0, &ev->allocator_id);
	fb_read_u64(t, ETD_SLOT_ALLOCATION_SIZE, 0, &ev->allocation_size);
	return rd->fb.error;
}

/* The Inspector's preference when several members are set. */
static const struct {
	unsigned int slot;
	const char *name;
	read_fn fn;
} event_members[] = {
	{ ETD_SLOT_EVENT_PROFILE, "profile_event", read_profile_event },
	{ ETD_SLOT_EVENT_DEBUG, "debug_event", read_debug_event },
	{ ETD_SLOT_EVENT_ALLOCATION, "allocation_event", read_allocation_event },
};

static int read_event(struct rd *rd, const struct fb_table *t, void *elem)
{
	size_t i;
	int ret;

	for (i = 0; i < sizeof(event_members) / sizeof(event_members[0]); i++) {
		ret = read_member(rd, t, event_members[i].slot,
				  event_members[i].name, event_members[i].fn,
				  elem);
		if (ret)
			return done(rd, ret);
	}
	return fb_reader_fail(&rd->fb, "the event has none of profile_event, debug_event and allocation_event");
}

static int read_allocator(struct rd *rd, const struct fb_table *t,
			  void *elem)
{
	return done(rd, get_string(rd, t, ETD_SLOT_ALLOCATOR_NAME, elem));
}

static int read_run(struct rd *rd, const struct fb_table *t, void *elem)
{
	struct etd_run *run = elem;
	size_t n;
	void *p;
	int ret;

	etd_run_init(run);
	fb_read_i32(t, ETD_SLOT_RUN_BUNDLED_INPUT_INDEX, ETD_UNSET,
		    &run->bundled_input_index);
	ret = get_string(rd, t, ETD_SLOT_RUN_NAME, &run->name);
	if (ret >= 0) {
		ret = read_tables(rd, t, ETD_SLOT_RUN_ALLOCATORS, ".allocators",
				  sizeof(*run->allocators), read_allocator,
				  &p, &n);
		run->allocators = p;
		run->nallocators = n;
	}
	if (ret >= 0) {
		ret = read_tables(rd, t, ETD_SLOT_RUN_EVENTS, ".events",
				  sizeof(*run->events), read_event, &p, &n);
		run->events = p;
		run->nevents = run->cap = n;
	}
	return done(rd, ret);
}

static int read_dump(struct rd *rd, const struct fb_table *root,
		     struct etd_dump *out)
{
	size_t n;
	void *p;
	int ret;

	fb_read_u32(root, ETD_SLOT_ETDUMP_VERSION, 0, &out->version);
	ret = read_tables(rd, root, ETD_SLOT_ETDUMP_RUN_DATA, "run_data",
			  sizeof(*out->runs), read_run, &p, &n);
	out->runs = p;
	out->nruns = out->cap = n;
	return done(rd, ret);
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The identifier bytes, printable, for a message. */
static void show_ident(const uint8_t *p, char out[17])
{
	size_t i, n = 0;

	for (i = 0; i < 4; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\' && p[i] != '"')
			out[n++] = p[i];
		else
			n += sprintf(out + n, "\\x%02x", p[i]);
	}
	out[n] = 0;
}

/* Size prefix and identifier; *data_len = the bytes the prefix covers. */
static int check_header(const uint8_t *buf, size_t len, size_t *data_len,
			char *err, size_t errlen)
{
	const char *ident = ETD_FILE_IDENTIFIER, *hint;
	char shown[17];
	uint32_t prefix;

	hint = file_kind_hint(buf, len);
	if (hint) {
		say(err, errlen, "%s", hint);
		return -EINVAL;
	}
	if (len < HEADER_SIZE) {
		say(err, errlen, "truncated: %zu bytes is too short for an ETDump, whose size prefix, root offset and identifier alone take %d",
		    len, HEADER_SIZE);
		return -EINVAL;
	}
	if (memcmp(buf + 8, ident, 4)) {
		if (!memcmp(buf + 4, ident, 4)) {
			say(err, errlen, "no size prefix: the identifier %s is at byte 4 instead of 8 (an unprefixed buffer, as ExecuTorch's serialize_to_etdump_flatcc writes; the Inspector cannot read it either)",
			    ident);
			return -EINVAL;
		}
		show_ident(buf + 8, shown);
		say(err, errlen, "not an ETDump: the file identifier at byte 8 is \"%s\", expected \"%s\"",
		    shown, ident);
		return -EINVAL;
	}
	prefix = le32(buf);
	if (prefix > len - 4) {
		say(err, errlen, "truncated: the size prefix announces %u bytes after it but only %zu follow",
		    prefix, len - 4);
		return -EINVAL;
	}
	if (prefix < HEADER_SIZE - 4) {
		say(err, errlen, "corrupt ETDump: the size prefix (%u) does not even cover the root offset and identifier",
		    prefix);
		return -EINVAL;
	}
	*data_len = (size_t)prefix + 4;
	return 0;
}

static void rd_init(struct rd *rd, const void *buf, size_t len)
{
	memset(rd, 0, sizeof(*rd));
	fb_reader_init(&rd->fb, buf, len);
	rd->limit = len <= (SIZE_MAX - EXPANSION_SLACK) / EXPANSION ?
			    len * EXPANSION + EXPANSION_SLACK : SIZE_MAX;
	rd->budget = rd->limit;
}

int etdump_read(const void *buf, size_t len, struct etd_dump *out, char *err,
		size_t errlen)
{
	struct fb_table root;
	size_t data_len;
	struct rd rd;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = check_header(buf, len, &data_len, err, errlen);
	if (ret)
		return ret;
	rd_init(&rd, buf, data_len);
	ret = fb_reader_root(&rd.fb, 4, &root);
	if (!ret)
		ret = read_dump(&rd, &root, out);
	if (!ret && etd_counters_decode_dump(out)) {
		say(err, errlen, "counter metadata names differ between events (see schema/COUNTERS.md)");
		etd_dump_free(out);
		return -EINVAL;
	}
	if (!ret)
		return 0;
	if (ret == -ENOMEM)
		say(err, errlen, "out of memory reading the ETDump%s%s",
		    rd.path_len ? " at " : "", rd.path);
	else
		say(err, errlen, "corrupt ETDump%s%s: %s",
		    rd.path_len ? " at " : "", rd.path, rd.fb.err);
	etd_dump_free(out);
	return ret;
}

int etdump_load_file(const char *path, void **out, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL, *p;
	int fd, err = 0;
	ssize_t r;

	/* "-": standard input, which the user asked for, so a pipe is fine */
	fd = strcmp(path, "-") ? file_open_regular(path) : STDIN_FILENO;
	if (fd < 0)
		return fd;
	if (fd == STDIN_FILENO && isatty(fd)) {
		err = -ENOTTY;
		goto out;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= MAX_FILE_SIZE) {
				err = -EFBIG;
				goto out;
			}
			cap = cap ? 2 * cap : 1u << 16;
			p = realloc(buf, cap);
			if (!p) {
				err = -ENOMEM;
				goto out;
			}
			buf = p;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto out;
		}
		if (!r)
			break;
		n += r;
	}
	/* give back the unused tail; keeping it on failure is harmless */
	p = realloc(buf, n ? n : 1);
	*out = p ? p : buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	if (fd != STDIN_FILENO)
		close(fd);
	return err;
}

int etdump_read_file(const char *path, struct etd_dump *out, char *err,
		     size_t errlen)
{
	void *buf = NULL;
	size_t len = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = etdump_load_file(path, &buf, &len);
	if (ret) {
		say(err, errlen, "cannot read the file: %s", file_error(ret));
		goto out;
	}
	ret = etdump_read(buf, len, out, err, errlen);
out:
	free(buf);
	return ret;
}
