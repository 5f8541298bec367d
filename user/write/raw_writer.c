// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "capture/counters.h"
#include "lib/clock.h"
#include "lib/io_all.h"
#include "read/etdump_reader.h"
#include "schema/raw_format.h"
#include "target/process_objects.h"
#include "write/raw_writer.h"

/* how long a command just released may take to exec the runtime */
#define EXEC_WAIT_MS 1000
/* a data chunk is written once this much is buffered */
#define CHUNK_BYTES (64u << 10)
#define ALIGN_UP(n) (((n) + RAW_ALIGN - 1) & ~(size_t)(RAW_ALIGN - 1))
/* where records start in a data chunk buffer */
#define DATA_START (sizeof(struct raw_chunk) + sizeof(struct raw_data))

/* padding, and the room a chunk header takes before it is known */
static const uint8_t zeros[sizeof(struct raw_chunk)];

struct raw_writer {
	int fd;
	int err;
	/* the data chunk being filled: room for its raw_chunk, raw_data */
	uint8_t *buf;
	size_t len;
	size_t cap;
	uint64_t records;
	uint64_t drops;          /* the latest count given */
	uint64_t chunk_drops;    /* the count the last data chunk carries */
	bool finished;
};

/* buf: a free struct raw_chunk, then `len` bytes of payload. */
static int write_chunk(struct raw_writer *w, uint32_t type, uint8_t *buf,
		       size_t len)
{
	struct raw_chunk c = { .type = type, .len = len };

	if (w->err)
		return w->err;
	c.payload_crc = crc32(0, buf + sizeof(c), len);
	c.chunk_crc = crc32(0, (const Bytef *)&c,
			    offsetof(struct raw_chunk, chunk_crc));
	memcpy(buf, &c, sizeof(c));
	w->err = write_all(w->fd, buf, sizeof(c) + len);
	return w->err;
}

/* An item: tag, then a and b back to back, then padding. */
static void put_item(FILE *f, uint32_t tag, const void *a, size_t alen,
		     const void *b, size_t blen)
{
	struct raw_item it = { .tag = tag, .len = alen + blen };

	fwrite(&it, sizeof(it), 1, f);
	if (alen)
		fwrite(a, 1, alen, f);
	if (blen)
		fwrite(b, 1, blen, f);
	fwrite(zeros, 1, ALIGN_UP(it.len) - it.len, f);
}

static void put_text(FILE *f, uint32_t tag, const char *s)
{
	put_item(f, tag, NULL, 0, s, s ? strlen(s) : 0);
}

/* A memory stream holding a free struct raw_chunk, then `fixed`. */
static FILE *chunk_stream(char **buf, size_t *len, const void *fixed,
			  size_t fixed_len)
{
	FILE *f = open_memstream(buf, len);

	if (!f)
		return NULL;
	fwrite(zeros, 1, sizeof(struct raw_chunk), f);
	if (fixed_len)
		fwrite(fixed, 1, fixed_len, f);
	return f;
}

/* Close a chunk stream and write the chunk. */
static int write_stream(struct raw_writer *w, uint32_t type, FILE *f,
			char **buf, size_t *len)
{
	bool failed = ferror(f);

	if (fclose(f) || failed)
		return -ENOMEM;
	return write_chunk(w, type, (uint8_t *)*buf,
			   *len - sizeof(struct raw_chunk));
}

/* The target's map (NULL and 0 when it has gone). */
static void *load_maps(int pid, size_t *len)
{
	char path[64];
	void *maps = NULL;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (etdump_load_file(path, &maps, len))
		*len = 0;
	return maps;
}

/*
 * A command released a moment ago may still be our own fork: its map is
 * the runtime's once it has exec'd exe. Wait for that, briefly, until the
 * map shows the executable: /proc/PID/exe names it before the exec has
 * mapped it (while the old address space is torn down, long for a big one).
 */
static void *wait_exec_maps(int pid, const char *exe, size_t *len)
{
	char now[PATH_MAX];
	void *maps = NULL;
	int i;

	for (i = 0; i < EXEC_WAIT_MS; i++) {
		if (process_exe(pid, now))
			break;
		if (!strcmp(now, exe)) {
			maps = load_maps(pid, len);
			if (!maps || memmem(maps, *len, exe, strlen(exe)))
				return maps;
			free(maps);
		}
		usleep(1000);
	}
	return load_maps(pid, len);
}

/* The target's map ("" when it has gone) as an item. */
static void put_maps(FILE *f, const struct raw_target *t)
{
	size_t len = 0;
	void *maps = t->just_started ? wait_exec_maps(t->pid, t->exe, &len) :
				       load_maps(t->pid, &len);

	put_item(f, RAW_ITEM_MAPS, NULL, 0, maps, len);
	free(maps);
}

static int write_header(struct raw_writer *w, const struct raw_target *t)
{
	struct raw_header h = {
		.format_version = RAW_FORMAT_VERSION,
		.record_version = ETDUMP_RECORD_VERSION,
		.clock = CLOCK_MONOTONIC,
		.pid = t->pid,
		.capture_start = t->capture_start,
	};
	uint64_t before, after;
	char *buf = NULL;
	size_t i, len = 0;
	uint32_t kind;
	FILE *f;
	int err;

	/* the wall time half-way between two reads of the record clock */
	before = clock_ns(CLOCK_MONOTONIC);
	h.start_realtime = clock_ns(CLOCK_REALTIME);
	after = clock_ns(CLOCK_MONOTONIC);
	h.start_clock = before + (after - before) / 2;

	f = chunk_stream(&buf, &len, &h, sizeof(h));
	if (!f)
		return -ENOMEM;
	put_text(f, RAW_ITEM_EXE, t->exe);
	for (i = 0; i < t->nprobes; i++)
		put_text(f, RAW_ITEM_PROBE, t->probes[i]);
	for (i = 0; t->counters && i < t->counters->n; i++) {
		kind = t->counters->spec[i].kind;
		put_item(f, RAW_ITEM_COUNTER, &kind, sizeof(kind),
			 t->counters->spec[i].name,
			 strlen(t->counters->spec[i].name));
	}
	put_maps(f, t);
	if (t->tool)
		put_text(f, RAW_ITEM_TOOL, t->tool);
	for (i = 0; t->argv && i < (size_t)t->argc; i++)
		put_text(f, RAW_ITEM_ARG, t->argv[i]);
	err = write_all(w->fd, RAW_MAGIC, RAW_MAGIC_LEN);
	if (!err)
		err = write_stream(w, RAW_CHUNK_HEADER, f, &buf, &len);
	else
		fclose(f);
	free(buf);
	return err;
}

int raw_writer_open(struct raw_writer **out, const char *path, bool force,
		    const struct raw_target *t)
{
	struct raw_writer *w;
	bool created;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->len = DATA_START;
	w->cap = CHUNK_BYTES;
	w->buf = malloc(w->cap);
	/* root writes here: never through a symbolic link, even with force */
	w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	created = w->fd >= 0;
	if (w->fd < 0 && errno == EEXIST && force)
		w->fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	if (w->fd < 0) {
		err = -errno;
		goto fail;
	}
	err = w->buf ? write_header(w, t) : -ENOMEM;
	if (err)
		goto fail;
	*out = w;
	return 0;
fail:
	/* what we created holds no capture: leave nothing half written, and
	 * never remove what was there before (a device, a user's file) */
	if (created)
		unlink(path);
	w->finished = true;
	raw_writer_free(w);
	return err;
}

/* Records buffered, or a drop count the last data chunk does not have. */
static bool data_pending(const struct raw_writer *w)
{
	return w->len > DATA_START || w->drops != w->chunk_drops;
}

/* The buffered records and the drop count as a data chunk. */
static int write_data(struct raw_writer *w)
{
	struct raw_data d = { .drops = w->drops };
	int err;

	d.time = clock_ns(CLOCK_MONOTONIC);
	memcpy(w->buf + sizeof(struct raw_chunk), &d, sizeof(d));
	err = write_chunk(w, RAW_CHUNK_DATA, w->buf,
			  w->len - sizeof(struct raw_chunk));
	w->len = DATA_START;
	w->chunk_drops = w->drops;
	return err;
}

int raw_writer_append(struct raw_writer *w, const void *rec, size_t len)
{
	struct raw_record r = { .len = len };
	size_t need = sizeof(r) + ALIGN_UP(len);
	uint8_t *p;
	int err;

	err = w->err;
	if (!err && w->len + need > w->cap && w->len > DATA_START)
		err = write_data(w);
	if (err)
		return err;
	if (w->len + need > w->cap) {
		/* a record larger than a chunk gets a chunk of its own */
		p = realloc(w->buf, w->len + need);
		if (!p)
			return -ENOMEM;
		w->buf = p;
		w->cap = w->len + need;
	}
	p = w->buf + w->len;
	memcpy(p, &r, sizeof(r));
	memcpy(p + sizeof(r), rec, len);
	memset(p + sizeof(r) + len, 0, need - sizeof(r) - len);
	w->len += need;
	w->records++;
	return 0;
}

int raw_writer_flush(struct raw_writer *w, uint64_t drops)
{
	if (drops > w->drops)
		w->drops = drops;
	return data_pending(w) ? write_data(w) : w->err;
}

int raw_writer_finish(struct raw_writer *w, uint64_t drops, const char *stop)
{
	struct raw_end end = { .records = w->records };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	w->finished = true;
	err = raw_writer_flush(w, drops);
	if (err)
		return err;
	end.drops = w->drops;
	end.end_clock = clock_ns(CLOCK_MONOTONIC);
	f = chunk_stream(&buf, &len, &end, sizeof(end));
	if (!f)
		return -ENOMEM;
	put_text(f, RAW_ITEM_STOP, stop);
	err = write_stream(w, RAW_CHUNK_END, f, &buf, &len);
	free(buf);
	if (!err && fsync(w->fd))
		err = w->err = -errno;
	return err;
}

int raw_writer_thread(struct raw_writer *w, uint32_t tid, const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	if (w->err)
		return w->err;
	f = chunk_stream(&buf, &len, NULL, 0);
	if (!f)
		return -ENOMEM;
	put_item(f, RAW_ITEM_THREAD, &tid, sizeof(tid), name, strlen(name));
	err = write_stream(w, RAW_CHUNK_THREADS, f, &buf, &len);
	free(buf);
	return err;
}

int raw_writer_error(const struct raw_writer *w)
{
	return w ? w->err : 0;
}

void raw_writer_free(struct raw_writer *w)
{
	if (!w)
		return;
	if (!w->finished)
		raw_writer_flush(w, w->drops);
	free(w->buf);
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}
