// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include "lib/direct_write.h"
#include "lib/file_io.h"
#include "lib/grow_array.h"
#include "lib/io_all.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "write/etdump_log_writer.h"
#include "write/etdump_writer.h"
#include "write/fb_builder.h"
#include "write/summary.h"

struct written_run {
	uint64_t open_time;
	uint32_t tid;
	fb_ref ref;
};

/* An open run's events written ahead of its end, and where they are. */
struct ahead_run {
	uint32_t tid;
	uint64_t open_time;
	fb_ref *refs;
	size_t n;
	size_t cap;
};

/*
 * Refs arrays kept for the next long runs: a long run's refs (4 bytes an
 * event) grow in huge pages, each fresh one a stall of up to ~8 ms here
 * while the ring fills; a recording of long runs reuses them instead.
 */
#define REFS_SPARES 4
#define REFS_SPARE_MAX_CAP ((8u << 20) / sizeof(fb_ref)) /* larger: freed */
/* and ready before a recording starts: one huge page each, for two runs */
#define REFS_PREPARED 2
#define REFS_PREPARED_CAP ((2u << 20) / sizeof(fb_ref))

struct etdump_stream {
	struct fb_builder b;
	struct etd_dump shell;        /* counter names only */
	fb_ref *refs;                 /* one run's event refs */
	size_t refs_cap;
	struct written_run *runs;
	size_t nruns;
	size_t runs_cap;
	struct run_names names;
	int spill_fd;                 /* -1: the file is built in memory */
	struct ahead_run *ahead;      /* one per thread at most, mostly none */
	size_t nahead;
	size_t ahead_cap;
	/* refs arrays a run no longer needs, for the next long one */
	struct refs_spare {
		fb_ref *refs;
		size_t cap;
	} spare[REFS_SPARES];
	unsigned int nspare;
	/* etdump_stream_series(): -o's path, and the files of it written */
	char *series_path;
	bool series_force;
	unsigned int files;
	uint64_t part_bytes;
};

/*
 * An ETDump holds at most 2 GiB (FlatBuffers' offsets): a recording that
 * reaches this goes on in a new file at the next run's end, leaving room
 * for the runs then open. ETDUMP_STREAM_PART_BYTES sets another size (the
 * tests' way to make a series of a few MiB).
 */
#define STREAM_PART_BYTES ((uint64_t)1792 << 20)

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static void stream_init(struct etdump_stream *w,
			const struct etdump_log_meta *m)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	fb_builder_init(&w->b);
	for (i = 0; m && i < m->ncounters && i < ETD_MAX_COUNTERS; i++)
		w->shell.counter_names[i] = (char *)m->counter_names[i];
	w->shell.ncounters = i;
	/* the Inspector refuses them: report and the timeline have them */
	w->shell.allocations = ETD_ALLOCATIONS_LEAVE_OUT;
	w->spill_fd = -1;
}

/* A refs array no longer needed: kept for the next long run, or freed. */
static void refs_put(struct etdump_stream *w, fb_ref *refs, size_t cap)
{
	if (!refs)
		return;
	if (w->nspare < REFS_SPARES && cap <= REFS_SPARE_MAX_CAP) {
		w->spare[w->nspare].refs = refs;
		w->spare[w->nspare++].cap = cap;
		return;
	}
	grow_array_free(refs, cap, sizeof(*refs));
}

static void ahead_forget(struct etdump_stream *w, struct ahead_run *a)
{
	refs_put(w, a->refs, a->cap);
	*a = w->ahead[--w->nahead];
}

static void stream_fini(struct etdump_stream *w)
{
	while (w->nahead)
		ahead_forget(w, &w->ahead[w->nahead - 1]);
	free(w->ahead);
	free(w->runs);
	grow_array_free(w->refs, w->refs_cap, sizeof(*w->refs));
	while (w->nspare) {
		w->nspare--;
		grow_array_free(w->spare[w->nspare].refs,
				w->spare[w->nspare].cap, sizeof(fb_ref));
	}
	fb_builder_free(&w->b);
	if (w->spill_fd >= 0)
		close(w->spill_fd);
	free(w->series_path);
}

void etdump_stream_spill_near(struct etdump_stream *w, const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct statfs fs;
	int fd;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path + 1),
			  path) >= (int)sizeof(dir))
		return;
	/*
	 * Unnamed (nothing to remove, nothing another can open), written
	 * around the page cache: on tmpfs the file would be memory again.
	 * Made as the output would be (0666 less the umask): it may become it
	 * (etdump_stream_write_file()).
	 */
	fd = open(dir, O_TMPFILE | O_RDWR | O_DIRECT | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	if (fstatfs(fd, &fs) || fs.f_type == TMPFS_MAGIC) {
		close(fd);
		return;
	}
	w->spill_fd = fd;
	fb_builder_spill(&w->b, fd);
}

/*
 * The memory a spilling file grows through before its pages come round
 * again: fresh, at millions of events a second, it slowed the recorder
 * for the first ~30 ms by more than the ring holds.
 */
int etdump_stream_prepare(struct etdump_stream *w)
{
	struct refs_spare *sp;
	int err;

	while (w->nspare < REFS_PREPARED) {
		sp = &w->spare[w->nspare];
		*sp = (struct refs_spare){ 0 };
		err = grow_array((void **)&sp->refs, &sp->cap, 0,
				 REFS_PREPARED_CAP, sizeof(fb_ref));
		if (err)
			return err;
		memset(sp->refs, 0, REFS_PREPARED_CAP * sizeof(fb_ref));
		w->nspare++;
	}
	return fb_builder_prepare(&w->b, FB_SPILL_HELD);
}

int etdump_stream_open(struct etdump_stream **out,
		       const struct etdump_log_meta *m)
{
	*out = malloc(sizeof(**out));
	if (!*out)
		return -ENOMEM;
	stream_init(*out, m);
	return 0;
}

void etdump_stream_free(struct etdump_stream *w)
{
	if (!w)
		return;
	stream_fini(w);
	free(w);
}

/*
 * r's events into the file, their refs from refs[*n] on (room made);
 * a run of allocation events only (record --allocations) adds none. Each
 * event is viewed and written alone: an array of a run's etd_events (150
 * bytes each) would be fresh memory to fault in for a long run. A compact
 * one is not even made an etd_event: most events are, and filling one
 * costs more than writing it.
 */
static int write_events(struct etdump_stream *w, struct run_view *r,
			fb_ref **refs, size_t *cap, size_t *n)
{
	const struct packed_event *p;
	struct etd_profile prof;
	struct etd_event ev;
	size_t i;
	int err;

	/* a long run's refs: grown in huge pages, not faulted in one by one */
	err = grow_array((void **)refs, cap, *n, r->nevents, sizeof(**refs));
	for (i = 0; !err && i < r->nevents; i++) {
		p = &r->events[i];
		if (p->flags & PACKED_FULL) {
			packed_event_view(r, p, &ev);
			err = etdump_write_event(&w->b, &w->shell, &ev,
						 &(*refs)[*n]);
		} else {
			packed_event_profile(r, p, &prof);
			err = etdump_write_profile(&w->b, &prof, &(*refs)[*n]);
		}
		*n += (*refs)[*n] != 0;
	}
	/*
	 * A full event's names are its own copies, freed with the run: the
	 * next run's may be made at the same addresses, so the builder must
	 * not know them by address beyond this run. The interned names of the
	 * others live on, and stay known (a run of the example runtime has a
	 * full event: forgetting all made each name hashed again every run).
	 */
	for (i = 0; i < r->nfull; i++) {
		fb_builder_forget_address(&w->b, r->full[i].name);
		fb_builder_forget_address(&w->b, r->full[i].delegate_id_str);
	}
	return err;
}

static struct ahead_run *ahead_of(struct etdump_stream *w,
				  const struct run_view *r)
{
	size_t i;

	for (i = 0; i < w->nahead; i++)
		if (w->ahead[i].tid == r->tid &&
		    w->ahead[i].open_time == r->open_time)
			return &w->ahead[i];
	return NULL;
}

int etdump_stream_ahead(void *ctx, struct run_view *r)
{
	struct etdump_stream *w = ctx;
	struct ahead_run *a = ahead_of(w, r);
	int err;

	if (!a) {
		err = grow((void **)&w->ahead, &w->ahead_cap, w->nahead + 1,
			   sizeof(*w->ahead));
		if (err)
			return err;
		a = &w->ahead[w->nahead++];
		*a = (struct ahead_run){ .tid = r->tid,
					 .open_time = r->open_time };
		if (w->nspare) {
			w->nspare--;
			a->refs = w->spare[w->nspare].refs;
			a->cap = w->spare[w->nspare].cap;
		}
	}
	return write_events(w, r, &a->refs, &a->cap, &a->n);
}

void etdump_stream_drop_ahead(void *ctx, const struct run_view *r)
{
	struct etdump_stream *w = ctx;
	struct ahead_run *a = ahead_of(w, r);

	if (a)
		ahead_forget(w, a);
}

static int next_file(struct etdump_stream *w);

int etdump_stream_run(void *ctx, struct run_view *r)
{
	struct etdump_stream *w = ctx;
	struct ahead_run *a = ahead_of(w, r);
	struct etd_run run;
	size_t n = 0;
	int err;

	/* between runs, none of whose events are in the file yet */
	if (w->series_path && !w->nahead && w->nruns &&
	    w->b.size >= w->part_bytes) {
		err = next_file(w);
		if (err)
			return err;
	}

	/* the events that went ahead are the run's first: their refs taken */
	if (a) {
		refs_put(w, w->refs, w->refs_cap);
		w->refs = a->refs;
		w->refs_cap = a->cap;
		n = a->n;
		a->refs = NULL;
		a->cap = 0;
		ahead_forget(w, a);
	}
	err = grow((void **)&w->runs, &w->runs_cap, w->nruns + 1,
		   sizeof(*w->runs));
	err = err ? err : write_events(w, r, &w->refs, &w->refs_cap, &n);
	if (err)
		return err;
	run_names_add(&w->names, r);
	if (!n)
		return 0;
	etd_run_init(&run);
	run.name = (char *)r->name;
	w->runs[w->nruns].open_time = r->open_time;
	w->runs[w->nruns].tid = r->tid;
	err = etdump_write_run_table(&w->b, &run, w->refs, n,
				     &w->runs[w->nruns].ref);
	w->nruns++;
	return err;
}

static void give_pages(void *ctx, void *mem, size_t len)
{
	struct etdump_stream *w = ctx;

	fb_builder_give_pages(&w->b, mem, len);
}

int etdump_stream_drain(struct etdump_stream *w, struct run_log *log,
			bool all)
{
	int ret;

	do
		ret = run_log_drain_slab(log, all, etdump_stream_run, w,
					 w->spill_fd >= 0 ? NULL : give_pages);
	while (all && ret > 0);
	return ret;
}

bool etdump_stream_failed(const struct etdump_stream *w)
{
	return w && w->b.err;
}

const struct run_names *etdump_stream_names(const struct etdump_stream *w)
{
	return &w->names;
}

static int run_cmp(const void *a, const void *b)
{
	const struct written_run *x = a, *y = b;

	if (x->open_time != y->open_time)
		return x->open_time < y->open_time ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return 0;
}

/* The runs written so far as the file's root: the file is finished. */
static int stream_root(struct etdump_stream *w)
{
	fb_ref *refs;
	size_t i;
	int err;

	/* the file lists runs by open time; they were written as they completed */
	if (w->nruns) /* none: no array at all */
		qsort(w->runs, w->nruns, sizeof(*w->runs), run_cmp);
	refs = malloc((w->nruns ? w->nruns : 1) * sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	for (i = 0; i < w->nruns; i++)
		refs[i] = w->runs[i].ref;
	err = etdump_write_root(&w->b, 0, refs, w->nruns);
	free(refs);
	return err;
}

static int piece_to_fd(void *ctx, const void *data, size_t len)
{
	return write_all(*(int *)ctx, data, len);
}

static int piece_to_direct(void *ctx, const void *data, size_t len)
{
	return direct_write_add(ctx, data, len);
}

/* file_replace_with()'s writer: the finished file into fd. */
static int builder_to_fd(void *ctx, int fd, bool regular)
{
	struct fb_builder *b = ctx;
	struct direct_write d;
	int err, end;

	if (!regular)
		return fb_output(b, piece_to_fd, &fd);
	direct_write_begin(&d, fd, b->size);
	err = fb_output(b, piece_to_direct, &d);
	end = direct_write_end(&d);
	return err ? err : end;
}

/* The runs written so far finished, and the file made at path. */
static int write_built(struct etdump_stream *w, const char *path, bool force,
		       char **kept)
{
	int err = stream_root(w);

	*kept = NULL;
	if (err)
		return err;
	/*
	 * A spilled file is made where its chunks are, in the spill file
	 * (next to path), which then takes path's name: nothing read back and
	 * written again (a third of convert's time on the example's 3.2 M
	 * events), nor on disk twice at the end.
	 */
	if (w->spill_fd >= 0 && !file_is_special(path)) {
		err = fb_output_in_place(&w->b);
		if (!err)
			return file_name_unnamed(w->spill_fd, path, force, kept);
		if (err != -EOPNOTSUPP)
			return err;
	}
	return file_replace_with(path, builder_to_fd, &w->b, force, kept);
}

void etdump_stream_series(struct etdump_stream *w, const char *path,
			  bool force)
{
	const char *env = getenv("ETDUMP_STREAM_PART_BYTES");

	free(w->series_path);
	w->series_path = strdup(path);
	w->series_force = force;
	if (!env || parse_size(env, &w->part_bytes) || !w->part_bytes)
		w->part_bytes = STREAM_PART_BYTES;
}

/*
 * The runs so far as the series' next file, named after path into name
 * (PATH_MAX): counted once written, or kept beside a name that was taken.
 */
static int write_series_file(struct etdump_stream *w, const char *path,
			     bool force, char *name, char **kept)
{
	int err = file_series_name(path, w->files + 1, name, PATH_MAX);

	*kept = NULL;
	err = err ? err : write_built(w, name, force, kept);
	w->files += !err || *kept;
	return err;
}

/*
 * The file so far as the next of the series; the runs to come go into a
 * new one. Its data kept beside a name that was taken is said, and the
 * recording goes on.
 */
static int next_file(struct etdump_stream *w)
{
	char name[PATH_MAX];
	char *kept;
	int err;

	err = write_series_file(w, w->series_path, w->series_force, name,
				&kept);
	if (err && !kept)
		return err;
	if (err)
		output_error(name, err, kept);
	free(kept);
	if (w->files == 1)
		p_info("%s: the recording reached %llu MiB, as much as one ETDump should hold (2 GiB at most): it goes on as a series, %s first (record --rotate SIZE sets the size)",
		       w->series_path,
		       (unsigned long long)(w->b.size >> 20), name);
	fb_builder_free(&w->b);
	fb_builder_init(&w->b);
	w->nruns = 0;
	if (w->spill_fd >= 0) {
		close(w->spill_fd);
		w->spill_fd = -1;
		etdump_stream_spill_near(w, w->series_path);
	}
	return 0;
}

int etdump_stream_write_file(struct etdump_stream *w, const char *path,
			     bool force, char **kept)
{
	char name[PATH_MAX];

	if (!w->files)
		return write_built(w, path, force, kept);
	return write_series_file(w, path, force, name, kept);
}

void etdump_stream_files_text(const struct etdump_stream *w, const char *path,
			      char *buf, size_t len)
{
	char first[PATH_MAX], last[PATH_MAX];

	if (!w->files || file_series_name(path, 1, first, sizeof(first)) ||
	    file_series_name(path, w->files, last, sizeof(last))) {
		snprintf(buf, len, "%s", path);
		return;
	}
	snprintf(buf, len, "%u file(s) %s to %s", w->files, first, last);
}

int etdump_stream_write_fd(struct etdump_stream *w, int fd)
{
	int err = stream_root(w);

	return err ? err : fb_output(&w->b, piece_to_fd, &fd);
}

struct file_dest {
	const char *path;
	bool force;
	char **kept;
	int fd;
};

static int finish_file(struct etdump_stream *w, struct file_dest *d)
{
	return d->path ? etdump_stream_write_file(w, d->path, d->force, d->kept) :
			 etdump_stream_write_fd(w, d->fd);
}

/* Build the file from the log into d. The log is emptied either way. */
static int write_log(struct run_log *log, const struct etdump_log_meta *m,
		     struct file_dest *d)
{
	struct etdump_stream w;
	int err;

	stream_init(&w, m);
	/* the builder grows into the pages of the slabs it has written */
	err = run_log_drain_to(log, true, etdump_stream_run, &w, give_pages);
	if (!err)
		err = finish_file(&w, d);
	stream_fini(&w);
	return err;
}

int etdump_write_log_file(struct run_log *log, const struct etdump_log_meta *m,
			  const char *path, bool force, char **kept)
{
	struct file_dest d = { path, force, kept, -1 };

	*kept = NULL;
	return write_log(log, m, &d);
}

int etdump_write_log_fd(struct run_log *log, const struct etdump_log_meta *m,
			int fd)
{
	struct file_dest d = { NULL, false, NULL, fd };

	return write_log(log, m, &d);
}
