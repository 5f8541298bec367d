// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zlib.h>
#include "lib/file_io.h"
#include "read/etdump_reader.h"
#include "read/raw_reader.h"
#include "schema/raw_format.h"

/* in 64 bits: a u32 length near 4 GiB must not wrap to 0 */
#define ALIGN_UP(n) (((uint64_t)(n) + RAW_ALIGN - 1) & ~(uint64_t)(RAW_ALIGN - 1))
/* bounds on what a header may list: far beyond any real one */
#define MAX_PROBES 1024
#define MAX_ARGS 4096
#define MAX_THREADS 65536

struct raw_reader {
	const uint8_t *data;
	size_t size;
	void *map;              /* data, when we mapped the file */
	void *copy;             /* data, when the caller's was not aligned */
	size_t pos;             /* the next chunk */
	size_t rec, rec_end;    /* the current data chunk's records left */
	bool nomem;             /* reading stopped for want of memory */
	struct raw_info info;
};

/* A chunk whose checksums hold. */
struct chunk {
	size_t at;              /* its offset in the file */
	uint32_t type;
	const uint8_t *p;       /* payload */
	size_t len;
};

static void say(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

#define corrupt(r, at, fmt, ...)                                               \
	stop_at(r, RAW_CORRUPT, at, "corrupt chunk at byte %zu: " fmt,         \
		(size_t)(at), ##__VA_ARGS__)

static bool stop_at(struct raw_reader *r, enum raw_state state, size_t at,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Reading ends here: no chunk from `at` on is used. Always false. */
static bool stop_at(struct raw_reader *r, enum raw_state state, size_t at,
		    const char *fmt, ...)
{
	va_list ap;

	r->info.state = state;
	r->info.offset = state == RAW_TRUNCATED ? r->size : at;
	va_start(ap, fmt);
	vsnprintf(r->info.message, sizeof(r->info.message), fmt, ap);
	va_end(ap);
	return false;
}

/* Reading ends for want of memory: not the file's fault. Always false. */
static bool no_memory(struct raw_reader *r)
{
	r->nomem = true;
	return false;
}

/* The chunk at r->pos, checksums verified; false: reading ends (state). */
static bool take_chunk(struct raw_reader *r, struct chunk *c)
{
	size_t at = r->pos, left = r->size - r->pos;
	struct raw_chunk h;

	if (!left)
		return stop_at(r, RAW_TRUNCATED, at,
			       "truncated at byte %zu: no end chunk (the recording did not end cleanly)",
			       at);
	if (left < sizeof(h))
		goto truncated;
	memcpy(&h, r->data + at, sizeof(h));
	if (crc32(0, (const Bytef *)&h, offsetof(struct raw_chunk, chunk_crc)) !=
	    h.chunk_crc)
		return corrupt(r, at, "its header fails its checksum");
	if (h.len % RAW_ALIGN || h.len > RAW_CHUNK_MAX)
		return corrupt(r, at, "invalid length %u", h.len);
	if (h.len > left - sizeof(h))
		goto truncated;
	c->at = at;
	c->type = h.type;
	c->p = r->data + at + sizeof(h);
	c->len = h.len;
	if (crc32(0, c->p, c->len) != h.payload_crc)
		return corrupt(r, at, "its payload fails its checksum");
	r->pos = at + sizeof(h) + h.len;
	return true;
truncated:
	return stop_at(r, RAW_TRUNCATED, at,
		       "truncated at byte %zu: the chunk at byte %zu is incomplete",
		       r->size, at);
}

/* The bytes after len, up to the next multiple of 8, are zero. */
static bool zero_padded(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = len; i < ALIGN_UP(len); i++)
		if (p[i])
			return false;
	return true;
}

/* The items of a header or end chunk, read from payload offset `at` on. */
struct items {
	const struct chunk *c;
	size_t at;
};

/* The next item: 1, 0 at the end, -1 when malformed (state set). */
static int next_item(struct raw_reader *r, struct items *it, uint32_t *tag,
		     const uint8_t **p, size_t *len)
{
	const struct chunk *c = it->c;
	struct raw_item h;

	if (it->at == c->len)
		return 0;
	if (c->len - it->at < sizeof(h)) {
		corrupt(r, c->at, "an item at payload byte %zu is cut", it->at);
		return -1;
	}
	memcpy(&h, c->p + it->at, sizeof(h));
	if (ALIGN_UP(h.len) > c->len - it->at - sizeof(h)) {
		corrupt(r, c->at, "the item at payload byte %zu overruns it",
			it->at);
		return -1;
	}
	*tag = h.tag;
	*p = c->p + it->at + sizeof(h);
	*len = h.len;
	if (!zero_padded(*p, h.len)) {
		corrupt(r, c->at, "non-zero padding after the item at payload byte %zu",
			it->at);
		return -1;
	}
	it->at += sizeof(h) + ALIGN_UP(h.len);
	return 1;
}

/* A copy of an item's text; NULL with state set when it holds a NUL. */
static char *take_text(struct raw_reader *r, const struct chunk *c,
		       const uint8_t *p, size_t len)
{
	char *s;

	if (memchr(p, '\0', len)) {
		corrupt(r, c->at, "an item's text holds a NUL byte");
		return NULL;
	}
	s = strndup((const char *)p, len);
	if (!s)
		no_memory(r);
	return s;
}

/* A text item that may appear once. */
static bool set_once(struct raw_reader *r, const struct chunk *c, char **slot,
		     const uint8_t *p, size_t len, const char *what)
{
	if (*slot)
		return corrupt(r, c->at, "two %s items", what);
	*slot = take_text(r, c, p, len);
	return *slot != NULL;
}

static bool add_probe(struct raw_reader *r, const struct chunk *c,
		      const uint8_t *p, size_t len)
{
	struct raw_info *in = &r->info;
	char **probes;

	if (in->nprobes == MAX_PROBES)
		return corrupt(r, c->at, "more than %d probes", MAX_PROBES);
	probes = realloc(in->probes, (in->nprobes + 1) * sizeof(*probes));
	if (!probes)
		return no_memory(r);
	in->probes = probes;
	probes[in->nprobes] = take_text(r, c, p, len);
	if (!probes[in->nprobes])
		return false;
	in->nprobes++;
	return true;
}

static bool add_counter(struct raw_reader *r, const struct chunk *c,
			const uint8_t *p, size_t len)
{
	struct raw_info *in = &r->info;
	uint32_t kind;

	if (in->ncounters == ETDUMP_MAX_COUNTERS)
		return corrupt(r, c->at, "more than %d counters",
			       ETDUMP_MAX_COUNTERS);
	if (len <= sizeof(kind))
		return corrupt(r, c->at, "a counter item without a name");
	memcpy(&kind, p, sizeof(kind));
	/* kinds are the collector's to know; they fit its uint8_t */
	if (kind > UINT8_MAX)
		return corrupt(r, c->at, "invalid counter kind %u", kind);
	in->counter_names[in->ncounters] =
		take_text(r, c, p + sizeof(kind), len - sizeof(kind));
	if (!in->counter_names[in->ncounters])
		return false;
	in->counter_kinds[in->ncounters++] = kind;
	return true;
}

static bool add_arg(struct raw_reader *r, const struct chunk *c,
		    const uint8_t *p, size_t len)
{
	struct raw_info *in = &r->info;
	char **args;

	if (in->nargs == MAX_ARGS)
		return corrupt(r, c->at, "more than %d arguments", MAX_ARGS);
	args = realloc(in->args, (in->nargs + 1) * sizeof(*args));
	if (!args)
		return no_memory(r);
	in->args = args;
	args[in->nargs] = take_text(r, c, p, len);
	if (!args[in->nargs])
		return false;
	in->nargs++;
	return true;
}

/* A threads chunk: each item names a thread, a known one anew. */
static bool read_threads(struct raw_reader *r, const struct chunk *c)
{
	struct items it = { .c = c, .at = 0 };
	struct raw_info *in = &r->info;
	struct raw_thread *v;
	const uint8_t *p;
	uint32_t tag, tid;
	size_t len, i;
	char *name;
	int n;

	while ((n = next_item(r, &it, &tag, &p, &len)) > 0) {
		if (tag != RAW_ITEM_THREAD)
			continue;
		if (len < sizeof(tid))
			return corrupt(r, c->at, "a thread item without its tid");
		memcpy(&tid, p, sizeof(tid));
		name = take_text(r, c, p + sizeof(tid), len - sizeof(tid));
		if (!name)
			return false;
		for (i = 0; i < in->nthreads && in->threads[i].tid != tid; i++)
			;
		if (i < in->nthreads) {
			free(in->threads[i].name);
			in->threads[i].name = name;
			continue;
		}
		if (in->nthreads == MAX_THREADS) {
			free(name);
			return corrupt(r, c->at, "more than %d threads",
				       MAX_THREADS);
		}
		v = realloc(in->threads, (in->nthreads + 1) * sizeof(*v));
		if (!v) {
			free(name);
			return no_memory(r);
		}
		in->threads = v;
		v[in->nthreads++] = (struct raw_thread){ tid, name };
	}
	return n == 0;
}

static bool read_header_items(struct raw_reader *r, const struct chunk *c)
{
	struct items it = { .c = c, .at = sizeof(struct raw_header) };
	struct raw_info *in = &r->info;
	const uint8_t *p;
	uint32_t tag;
	size_t len;
	bool ok = true;
	int n;

	while (ok && (n = next_item(r, &it, &tag, &p, &len)) > 0) {
		switch (tag) {
		case RAW_ITEM_EXE:
			ok = set_once(r, c, &in->exe, p, len, "executable");
			break;
		case RAW_ITEM_MAPS:
			ok = set_once(r, c, &in->maps, p, len, "maps");
			break;
		case RAW_ITEM_PROBE:
			ok = add_probe(r, c, p, len);
			break;
		case RAW_ITEM_COUNTER:
			ok = add_counter(r, c, p, len);
			break;
		case RAW_ITEM_TOOL:
			ok = set_once(r, c, &in->tool, p, len, "tool");
			break;
		case RAW_ITEM_ARG:
			ok = add_arg(r, c, p, len);
			break;
		}
		/* items of later versions are skipped */
	}
	if (!ok || n < 0)
		return false;
	if (!in->exe)
		in->exe = strdup("");
	if (!in->maps)
		in->maps = strdup("");
	if (!in->tool)
		in->tool = strdup("");
	return in->exe && in->maps && in->tool ? true : no_memory(r);
}

/* The header chunk; -errno with a message in err. */
static int read_header(struct raw_reader *r, char *err, size_t errlen)
{
	struct raw_info *in = &r->info;
	struct raw_header h;
	struct chunk c;

	r->pos = r->size < RAW_MAGIC_LEN ? r->size : RAW_MAGIC_LEN;
	if (!r->size || memcmp(r->data, RAW_MAGIC, r->pos)) {
		say(err, errlen, "not a raw capture (it does not start with \"ETDPRAW\")");
		return -EPROTO;
	}
	if (r->pos < RAW_MAGIC_LEN || !take_chunk(r, &c)) {
		if (r->info.state == RAW_CORRUPT) {
			say(err, errlen, "%s", in->message);
			return -EBADMSG;
		}
		say(err, errlen, "truncated at byte %zu, inside its header: nothing to convert",
		    r->size);
		return -ENODATA;
	}
	if (c.type != RAW_CHUNK_HEADER || c.len < sizeof(h)) {
		corrupt(r, c.at, "%s", c.type != RAW_CHUNK_HEADER ?
			"the first chunk is not a header" :
			"a header chunk too short for its fields");
		say(err, errlen, "%s", in->message);
		return -EBADMSG;
	}
	memcpy(&h, c.p, sizeof(h));
	if (h.format_version != RAW_FORMAT_VERSION ||
	    h.record_version != ETDUMP_RECORD_VERSION) {
		say(err, errlen, "raw format %u with records of version %u: this etdump-bpf reads format %u, records of version %u",
		    h.format_version, h.record_version, RAW_FORMAT_VERSION,
		    ETDUMP_RECORD_VERSION);
		return -ENOTSUP;
	}
	if (h.clock != CLOCK_MONOTONIC) {
		say(err, errlen, "timestamps on clock %u: this etdump-bpf reads CLOCK_MONOTONIC (%d) only",
		    h.clock, CLOCK_MONOTONIC);
		return -ENOTSUP;
	}
	in->record_version = h.record_version;
	in->clock = h.clock;
	in->pid = h.pid;
	in->start_realtime = h.start_realtime;
	in->start_clock = h.start_clock;
	in->capture_start = h.capture_start;
	if (!read_header_items(r, &c)) {
		say(err, errlen, "%s", r->nomem ? "out of memory" : in->message);
		return r->nomem ? -ENOMEM : -EBADMSG;
	}
	in->chunks = 1;
	return 0;
}

/* The kernel's count as of `time`: it only grows; marked when it does. */
static bool note_drops(struct raw_reader *r, const struct chunk *c,
		       uint64_t time, uint64_t drops)
{
	struct raw_info *in = &r->info;
	struct raw_drop_mark *marks;

	if (drops < in->drops)
		return corrupt(r, c->at, "the drop count went down");
	if (drops == in->drops)
		return true;
	marks = realloc(in->marks, (in->nmarks + 1) * sizeof(*marks));
	if (!marks)
		return no_memory(r);
	in->marks = marks;
	marks[in->nmarks++] = (struct raw_drop_mark){ time, drops };
	in->drops = drops;
	return true;
}

/* Walk a data chunk's records; false with state set when one is bad. */
static bool read_data(struct raw_reader *r, const struct chunk *c)
{
	struct raw_info *in = &r->info;
	struct raw_record rec;
	struct raw_data d;
	uint64_t n = 0;
	size_t at;

	if (c->len < sizeof(d))
		return corrupt(r, c->at, "a data chunk without its times");
	memcpy(&d, c->p, sizeof(d));
	for (at = sizeof(d); at < c->len; at += sizeof(rec) + ALIGN_UP(rec.len)) {
		if (c->len - at < sizeof(rec))
			return corrupt(r, c->at, "a record at payload byte %zu is cut",
				       at);
		memcpy(&rec, c->p + at, sizeof(rec));
		if (!rec.len || rec.reserved ||
		    ALIGN_UP(rec.len) > c->len - at - sizeof(rec))
			return corrupt(r, c->at, "the record at payload byte %zu has an invalid length",
				       at);
		if (!zero_padded(c->p + at + sizeof(rec), rec.len))
			return corrupt(r, c->at, "non-zero padding after the record at payload byte %zu",
				       at);
		n++;
	}
	if (!note_drops(r, c, d.time, d.drops))
		return false;
	in->records += n;
	r->rec = c->p - r->data + sizeof(d);
	r->rec_end = c->p - r->data + c->len;
	return true;
}

static bool read_end(struct raw_reader *r, const struct chunk *c)
{
	struct items it = { .c = c, .at = sizeof(struct raw_end) };
	struct raw_info *in = &r->info;
	struct raw_end e;
	const uint8_t *p;
	uint32_t tag;
	size_t len;
	int n;

	if (c->len < sizeof(e))
		return corrupt(r, c->at, "an end chunk without its totals");
	memcpy(&e, c->p, sizeof(e));
	if (e.records != in->records)
		return corrupt(r, c->at, "it counts %llu records, the data chunks hold %llu",
			       (unsigned long long)e.records,
			       (unsigned long long)in->records);
	while ((n = next_item(r, &it, &tag, &p, &len)) > 0)
		if (tag == RAW_ITEM_STOP && !set_once(r, c, &in->stop, p, len,
						      "stop"))
			return false;
	if (n < 0)
		return false;
	if (r->pos != r->size)
		return stop_at(r, RAW_CORRUPT, r->pos,
			       "corrupt capture: %zu bytes after its end chunk, from byte %zu",
			       r->size - r->pos, r->pos);
	if (!note_drops(r, c, e.end_clock, e.drops))
		return false;
	if (!in->stop)
		in->stop = strdup("");
	if (!in->stop)
		return no_memory(r);
	in->end_clock = e.end_clock;
	in->state = RAW_COMPLETE;
	return true;
}

/* The next chunk with records, or the end; false when reading ends. */
static bool next_chunk(struct raw_reader *r)
{
	struct chunk c;

	while (take_chunk(r, &c)) {
		switch (c.type) {
		case RAW_CHUNK_HEADER:
			return corrupt(r, c.at, "a second header chunk");
		case RAW_CHUNK_DATA:
			if (!read_data(r, &c))
				return false;
			r->info.chunks++;
			if (r->rec < r->rec_end)
				return true;
			break;
		case RAW_CHUNK_END:
			if (read_end(r, &c))
				r->info.chunks++;
			return false;
		case RAW_CHUNK_THREADS:
			if (!read_threads(r, &c))
				return false;
			r->info.chunks++;
			break;
		default:
			/* chunk types of later versions are skipped */
			r->info.chunks++;
		}
	}
	return false;
}

int raw_reader_next(struct raw_reader *r, const void **rec, size_t *len)
{
	struct raw_record h;

	if (r->rec == r->rec_end &&
	    (r->info.state != RAW_READING || !next_chunk(r)))
		return r->nomem ? -ENOMEM : 0;
	/* read_data() checked every length */
	memcpy(&h, r->data + r->rec, sizeof(h));
	*rec = r->data + r->rec + sizeof(h);
	*len = h.len;
	r->rec += sizeof(h) + ALIGN_UP(h.len);
	return 1;
}

static int open_data(struct raw_reader **out, struct raw_reader *r,
		     char *err, size_t errlen)
{
	int ret = read_header(r, err, errlen);

	if (ret) {
		raw_reader_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

int raw_reader_open_mem(struct raw_reader **out, const void *buf, size_t len,
			char *err, size_t errlen)
{
	struct raw_reader *r = calloc(1, sizeof(*r));

	if (!r)
		goto nomem;
	r->data = buf;
	r->size = len;
	/* records are handed out in place: they must be aligned as written */
	if ((uintptr_t)buf % RAW_ALIGN) {
		r->copy = malloc(len);
		if (!r->copy)
			goto nomem;
		memcpy(r->copy, buf, len);
		r->data = r->copy;
	}
	return open_data(out, r, err, errlen);
nomem:
	free(r);
	say(err, errlen, "out of memory");
	return -ENOMEM;
}

/* "-": standard input, read whole (bounded) since a pipe cannot be mapped */
static int open_stdin(struct raw_reader **out, char *err, size_t errlen)
{
	struct raw_reader *r;
	size_t len;
	void *buf;
	int ret;

	ret = etdump_load_file("-", &buf, &len);
	if (ret) {
		say(err, errlen, "cannot read: %s", file_error(ret));
		return ret;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		free(buf);
		say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* malloc's alignment serves RAW_ALIGN; freed with the reader */
	r->data = r->copy = buf;
	r->size = len;
	return open_data(out, r, err, errlen);
}

int raw_reader_open(struct raw_reader **out, const char *path, char *err,
		    size_t errlen)
{
	struct raw_reader *r = NULL;
	struct stat st;
	int fd, ret;

	if (!strcmp(path, "-"))
		return open_stdin(out, err, errlen);
	fd = file_open_regular(path);
	if (fd == -ENOTREGULAR) {
		ret = -EPROTO;
		say(err, errlen, "not a raw capture (not a regular file)");
		goto out;
	}
	if (fd < 0 || fstat(fd, &st)) {
		ret = fd < 0 ? fd : -errno;
		say(err, errlen, "cannot read: %s", strerror(-ret));
		goto out;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		say(err, errlen, "out of memory");
		goto out;
	}
	r->size = st.st_size;
	if (r->size) {
		r->map = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (r->map == MAP_FAILED) {
			ret = -errno;
			r->map = NULL;
			say(err, errlen, "cannot map: %s", strerror(errno));
			goto out;
		}
		r->data = r->map;
	}
	ret = open_data(out, r, err, errlen);
	r = NULL;
out:
	free(r);
	if (fd >= 0)
		close(fd);
	return ret;
}

const struct raw_info *raw_reader_info(const struct raw_reader *r)
{
	return &r->info;
}

const char *raw_thread_name(const struct raw_info *info, uint32_t tid)
{
	size_t i;

	for (i = 0; i < info->nthreads; i++)
		if (info->threads[i].tid == tid && *info->threads[i].name)
			return info->threads[i].name;
	return NULL;
}

void raw_reader_free(struct raw_reader *r)
{
	struct raw_info *in;
	uint32_t i;

	if (!r)
		return;
	in = &r->info;
	free(in->exe);
	for (i = 0; i < in->nprobes; i++)
		free(in->probes[i]);
	free(in->probes);
	for (i = 0; i < in->ncounters; i++)
		free(in->counter_names[i]);
	free(in->maps);
	free(in->tool);
	for (i = 0; i < in->nargs; i++)
		free(in->args[i]);
	free(in->args);
	for (i = 0; i < in->nthreads; i++)
		free(in->threads[i].name);
	free(in->threads);
	free(in->marks);
	free(in->stop);
	if (r->map)
		munmap(r->map, r->size);
	free(r->copy);
	free(r);
}
