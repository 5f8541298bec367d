// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/file_io.h"
#include "lib/version.h"
#include "write/gzip_buffer.h"
#include "write/pprof_samples.h"
#include "write/pprof_writer.h"
#include "write/protobuf_encode.h"
#include "write/string_index.h"

/* profile.proto's field numbers, of the messages written here */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING,
	PROFILE_LOCATION, PROFILE_FUNCTION, PROFILE_STRING_TABLE,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE,
	PROFILE_PERIOD, PROFILE_COMMENT, PROFILE_DEFAULT_SAMPLE_TYPE,
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL };
enum { LABEL_KEY = 1, LABEL_STR, LABEL_NUM };
enum { MAPPING_ID = 1, MAPPING_FILENAME = 5, MAPPING_HAS_FUNCTIONS = 7 };
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1 };
enum { FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME };

struct out {
	struct pb_buf pb;       /* the Profile */
	struct pb_buf msg, sub; /* a message of it, a message inside that */
	struct string_index strings;
	uint64_t *ids;          /* a sample's locations, a packed list */
	bool failed;
	const struct etd_dump *dump;
	const struct pprof_source *src;
	const struct pprof_samples *s;
};

/* The string's index in the string table (0, "", when out of memory). */
static int64_t str(struct out *o, const char *s)
{
	size_t i = 0;

	if (string_index_add(&o->strings, s ? s : "", &i))
		o->failed = true;
	return (int64_t)i;
}

static void value_type(struct out *o, uint32_t field, const char *type,
		       const char *unit)
{
	pb_reset(&o->msg);
	pb_int64(&o->msg, VALUE_TYPE_TYPE, str(o, type));
	pb_int64(&o->msg, VALUE_TYPE_UNIT, str(o, unit));
	pb_message(&o->pb, field, &o->msg);
}

/* perf's clocks count nanoseconds, its other events occurrences */
static const char *counter_unit(const char *name)
{
	size_t n = strlen(name);

	return n >= 6 && !strcmp(name + n - 6, "-clock") ? "nanoseconds" :
	       "count";
}

static void sample_types(struct out *o)
{
	uint32_t c;

	value_type(o, PROFILE_SAMPLE_TYPE, "events", "count");
	value_type(o, PROFILE_SAMPLE_TYPE, "wall", "nanoseconds");
	for (c = 0; c + PPROF_COUNTERS < o->s->nvalues; c++)
		value_type(o, PROFILE_SAMPLE_TYPE, o->dump->counter_names[c],
			   counter_unit(o->dump->counter_names[c]));
}

static void label_str(struct out *o, const char *key, const char *value)
{
	pb_reset(&o->sub);
	pb_int64(&o->sub, LABEL_KEY, str(o, key));
	pb_int64(&o->sub, LABEL_STR, str(o, value));
	pb_message(&o->msg, SAMPLE_LABEL, &o->sub);
}

static void label_num(struct out *o, const char *key, int64_t value)
{
	pb_reset(&o->sub);
	pb_int64(&o->sub, LABEL_KEY, str(o, key));
	pb_int64(&o->sub, LABEL_NUM, value);
	pb_message(&o->msg, SAMPLE_LABEL, &o->sub);
}

/* Its own name where the capture has it, else its number. */
static void thread_labels(struct out *o, uint32_t tid)
{
	const char *name = o->src->info ?
			   raw_thread_name(o->src->info, tid) : NULL;
	char buf[32];

	if (!name) {
		snprintf(buf, sizeof(buf), "thread %u", tid);
		name = buf;
	}
	label_str(o, "thread", name);
	/* an ETDump's tids are tracks we numbered, not the kernel's */
	if (o->src->info)
		label_num(o, "tid", tid);
}

/* Location ids leaf first: a frame's location is its number + 1. */
static void sample(struct out *o, size_t i)
{
	const struct pprof_samples *s = o->s;
	const struct pprof_sample *x = &s->v[i];
	const struct etd_run *run = &o->dump->runs[x->run];
	uint32_t id = x->stack;
	size_t n = 0;

	for (; id; id = s->stacks[id - 1].parent)
		o->ids[n++] = (uint64_t)s->stacks[id - 1].frame + 1;
	pb_reset(&o->msg);
	pb_packed(&o->msg, SAMPLE_LOCATION_ID, o->ids, n);
	/* int64 values: the same varints as their uint64 bits */
	pb_packed(&o->msg, SAMPLE_VALUE,
		  (const uint64_t *)&s->values[i * s->nvalues], s->nvalues);
	/* from 1, as report --values numbers runs (and a num of 0 would
	 * read as no label) */
	label_num(o, "run", (int64_t)x->run + 1);
	label_str(o, "block", run->name ? run->name : "run");
	thread_labels(o, x->tid);
	pb_message(&o->pb, PROFILE_SAMPLE, &o->msg);
}

/*
 * One mapping, the recorded executable (the ETDump where the executable is
 * not known), saying its functions are known: readers do not try to
 * symbolize addresses there are none of.
 */
static void mapping(struct out *o)
{
	const struct raw_info *info = o->src->info;

	pb_reset(&o->msg);
	pb_uint64(&o->msg, MAPPING_ID, 1);
	pb_int64(&o->msg, MAPPING_FILENAME, str(o, info && *info->exe ?
						info->exe : o->src->input));
	pb_bool(&o->msg, MAPPING_HAS_FUNCTIONS, true);
	pb_message(&o->pb, PROFILE_MAPPING, &o->msg);
}

static void frames(struct out *o)
{
	const struct string_index *f = &o->s->frames;
	size_t i;

	for (i = 0; i < f->n; i++) {
		pb_reset(&o->msg);
		pb_uint64(&o->msg, LOCATION_ID, i + 1);
		pb_uint64(&o->msg, LOCATION_MAPPING_ID, 1);
		pb_reset(&o->sub);
		pb_uint64(&o->sub, LINE_FUNCTION_ID, i + 1);
		pb_message(&o->msg, LOCATION_LINE, &o->sub);
		pb_message(&o->pb, PROFILE_LOCATION, &o->msg);
	}
	for (i = 0; i < f->n; i++) {
		pb_reset(&o->msg);
		pb_uint64(&o->msg, FUNCTION_ID, i + 1);
		pb_int64(&o->msg, FUNCTION_NAME, str(o, f->strs[i]));
		pb_int64(&o->msg, FUNCTION_SYSTEM_NAME, str(o, f->strs[i]));
		pb_message(&o->pb, PROFILE_FUNCTION, &o->msg);
	}
}

/* words joined by spaces, after prefix */
static void comment_words(struct out *o, const char *prefix,
			  char *const *words, size_t n)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		o->failed = true;
		return;
	}
	fputs(prefix, f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " " : "", words[i]);
	if (fclose(f)) {
		o->failed = true;
	} else {
		pb_int64(&o->pb, PROFILE_COMMENT, str(o, text));
	}
	free(text);
}

/* As `perf report --header` tells: what recorded, how, when; what converted. */
static void comments(struct out *o)
{
	const struct raw_info *info = o->src->info;
	char line[512], when[32];
	time_t secs;
	struct tm tm;

	if (info && *info->tool) {
		snprintf(line, sizeof(line), "recorder: %s", info->tool);
		pb_int64(&o->pb, PROFILE_COMMENT, str(o, line));
	}
	if (info && info->nargs)
		comment_words(o, "command: ", info->args, info->nargs);
	if (info && info->start_realtime) {
		secs = (time_t)(info->start_realtime / 1000000000ull);
		if (gmtime_r(&secs, &tm) &&
		    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm)) {
			snprintf(line, sizeof(line), "recorded: %s", when);
			pb_int64(&o->pb, PROFILE_COMMENT, str(o, line));
		}
	}
	snprintf(line, sizeof(line), "converted from %s %s by etdump-bpf "
		 ETDUMP_BPF_VERSION, info ? "the raw capture" : "the ETDump",
		 o->src->input);
	pb_int64(&o->pb, PROFILE_COMMENT, str(o, line));
	if (o->src->argc)
		comment_words(o, "convert command: etdump-bpf ", o->src->argv,
			      (size_t)o->src->argc);
}

/*
 * A raw capture knows when recording started (its wall-clock and
 * monotonic pair) and ended; an ETDump only its events' times.
 */
static void times(struct out *o)
{
	const struct raw_info *info = o->src->info;
	const struct pprof_samples *s = o->s;
	uint64_t end = s->last;

	if (info && info->start_realtime) {
		pb_int64(&o->pb, PROFILE_TIME_NANOS,
			 (int64_t)info->start_realtime);
		if (info->state == RAW_COMPLETE && info->end_clock > end)
			end = info->end_clock;
		if (end > info->start_clock)
			pb_int64(&o->pb, PROFILE_DURATION_NANOS,
				 (int64_t)(end - info->start_clock));
	} else if (s->last > s->first) {
		pb_int64(&o->pb, PROFILE_DURATION_NANOS,
			 (int64_t)(s->last - s->first));
	}
}

/* Every field but the string table, which they fill. */
static void profile(struct out *o)
{
	size_t i;

	sample_types(o);
	for (i = 0; i < o->s->n; i++)
		sample(o, i);
	mapping(o);
	frames(o);
	times(o);
	pb_reset(&o->msg);
	pb_int64(&o->msg, VALUE_TYPE_TYPE, str(o, "events"));
	pb_int64(&o->msg, VALUE_TYPE_UNIT, str(o, "count"));
	pb_message(&o->pb, PROFILE_PERIOD_TYPE, &o->msg);
	pb_int64(&o->pb, PROFILE_PERIOD, 1);
	comments(o);
	pb_int64(&o->pb, PROFILE_DEFAULT_SAMPLE_TYPE, str(o, "wall"));
}

int pprof_write(const struct etd_dump *dump, const struct pprof_source *src,
		uint8_t **buf, size_t *len)
{
	struct pprof_samples s;
	struct out o = { .dump = dump, .src = src, .s = &s };
	size_t i, zero;
	int err;

	*buf = NULL;
	*len = 0;
	err = pprof_samples_build(dump, &s);
	if (err)
		return err;
	/* string_table[0] must be "" */
	o.failed = string_index_add(&o.strings, "", &zero) != 0;
	/* no stack is deeper than the stacks there are */
	o.ids = calloc(s.nstacks ? s.nstacks : 1, sizeof(*o.ids));
	if (!o.ids)
		o.failed = true;
	if (!o.failed)
		profile(&o);
	for (i = 0; i < o.strings.n; i++)
		pb_string(&o.pb, PROFILE_STRING_TABLE, o.strings.strs[i]);
	err = o.failed || o.pb.failed || o.msg.failed || o.sub.failed ?
	      -ENOMEM : 0;
	if (!err)
		err = gzip_buffer(o.pb.data, o.pb.len, buf, len);
	free(o.ids);
	pb_free(&o.pb);
	pb_free(&o.msg);
	pb_free(&o.sub);
	string_index_free(&o.strings);
	pprof_samples_free(&s);
	return err;
}

int pprof_write_file(const struct etd_dump *dump,
		     const struct pprof_source *src, const char *path,
		     bool force, char **kept)
{
	uint8_t *buf;
	size_t len;
	int err;

	*kept = NULL;
	err = pprof_write(dump, src, &buf, &len);
	if (!err)
		err = file_replace(path, buf, len, force, kept);
	free(buf);
	return err;
}
