// SPDX-License-Identifier: BSD-3-Clause
/*
 * record_loop.c - record's loop: the ring, the children's execs and idle
 * threads' buffers read into the collector until the target exits, a
 * duration passes or a signal stops it.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "capture/kernel_clock.h"
#include "capture/late_followed.h"
#include "capture/late_libraries.h"
#include "cli/record.h"
#include "collect/batch_pull.h"
#include "lib/clock.h"
#include "symbol/func_batch.h"
#include "write/raw_threads.h"
#include "write/sched_lanes.h"

/* how often the collector drains the ring when nothing wakes it */
#define POLL_INTERVAL_MS 50
/*
 * ... while the ring brings little (fewer records a turn than QUIET_RECORDS)
 * and nothing watches the runs as they come (a raw capture, the live view,
 * a run sink, symbol mode, --duty): each wakeup costs tens of us in a VM,
 * and at a runtime's pace of ~40 thousand events a second 20 of them a
 * second were a tenth of the recorder's CPU. A ring filling faster wakes
 * the collector at each quarter produced (bpf/ring.bpf.h) all the same.
 */
#define QUIET_POLL_INTERVAL_MS 250
#define QUIET_RECORDS 256
/* symbol mode measures its probes' time again this often while fed */
#define SYMBOL_POLL_INTERVAL_MS (SYMBOL_RECALIBRATE_NS / 1000000)

/* how often idle threads' batched buffers are read */
#define PULL_INTERVAL_NS 50000000ull

#define STATUS_INTERVAL_NS 250000000ull

/* how often the target's maps are looked at for libraries loaded later */
#define LATE_INTERVAL_NS 200000000ull

static volatile sig_atomic_t stop_signal;

static volatile sig_atomic_t dump_signal;

static void on_dump_signal(int sig)
{
	dump_signal = sig;
}

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/*
 * SA_RESTART: poll() is cut short by a signal all the same (signal(7):
 * never restarted), and a write to the terminal it interrupts (top's
 * table) goes on instead of failing stdout with EINTR.
 */
void record_catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal,
				.sa_flags = SA_RESTART };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void record_catch_dump_signal(void)
{
	struct sigaction usr = { .sa_handler = on_dump_signal,
				 .sa_flags = SA_RESTART };

	sigaction(SIGUSR1, &usr, NULL);
}

static int feed_one(struct record_sink *sink, const void *rec, size_t len)
{
	int err;

	if (sink->raw) {
		err = raw_writer_append(sink->raw, rec, len);
		if (!err)
			err = raw_name_thread(sink->raw, &sink->names, rec, len);
		if (err)
			return err;
	}
	/* --sched's switches are the timeline's, not the ETDump's */
	if (sched_record_is(rec, len))
		return 0;
	/* a malformed record is counted by the collector; keep reading */
	err = sink->sm ? symbol_mode_feed(sink->sm, rec, len) :
			 collector_feed(sink->col, rec, len);
	return err == -ENOMEM ? err : 0;
}

/* --every N goes first too, stamped like the first record. */
static const void *kept_every_note(struct record_sink *sink, const void *rec,
				   size_t len, size_t *note_len)
{
	struct etdump_rec_kept_every *r = &sink->kept_every;

	if (sink->every < 2 || sink->every_said ||
	    len < sizeof(struct etdump_rec_hdr))
		return NULL;
	sink->every_said = true;
	memset(r, 0, sizeof(*r));
	memcpy(&r->hdr, rec, sizeof(r->hdr));
	r->hdr.type = ETDUMP_REC_KEPT_EVERY;
	r->hdr.ncounters = 0;
	r->hdr.flags = 0;
	r->hdr.size = sizeof(*r);
	r->every = sink->every;
	*note_len = sizeof(*r);
	return r;
}

int record_feed(void *ctx, const void *rec, size_t len)
{
	struct record_sink *sink = ctx;
	const void *note;
	size_t note_len;
	int err;

	/* a thread's kept hits: each as if it had come alone */
	if (sink->sm && func_batch_each(rec, len, record_feed, sink, &err))
		return err;
	if (sink->sm)
		rec = symbol_mode_expand(sink->sm, rec, &len);
	/* symbol mode's measure of its probes goes first, raw capture too */
	note = sink->sm ? symbol_mode_note(sink->sm, rec, len, &note_len) :
			  kept_every_note(sink, rec, len, &note_len);
	if (note) {
		err = feed_one(sink, note, note_len);
		if (err)
			return err;
	}
	return feed_one(sink, rec, len);
}

/*
 * Batched mode: the kernel's clock as a line of the counter, given before
 * the buffers stamped on it, at the start and whenever its rate changed.
 */
static int feed_clock(struct record_sink *sink)
{
	struct etdump_rec_clock r;

	if (!sink->clock || kernel_clock_read(sink->clock, &r) <= 0)
		return 0;
	return record_feed(sink, &r, sizeof(r));
}

/*
 * What idle threads hold in their batched buffers, read from the process
 * (a run there is seen within PULL_INTERVAL_NS, and none is lost at the
 * end of a recording that the target outlives).
 */
static int pull_buffers(struct record_sink *sink, uint64_t idle_ns)
{
	if (sink->sm)
		return 0;
	return batch_pull(collector_batch_threads(sink->col), monotonic_ns(),
			  idle_ns, record_feed, sink);
}

/*
 * How long the next poll may wait: POLL_INTERVAL_MS (symbol mode's own), or
 * QUIET_POLL_INTERVAL_MS for a quiet ring nobody watches; never past the
 * end of --duration.
 */
static int poll_timeout_ms(const struct record_opts *o,
			   const struct record_sink *sink,
			   const struct run_sink *rs, const struct live_view *lv,
			   int consumed, uint64_t start, uint64_t now)
{
	bool watched = sink->raw || sink->sm || sink->duty || rs || lv;
	int ms = sink->sm ? SYMBOL_POLL_INTERVAL_MS : POLL_INTERVAL_MS;
	uint64_t left;

	if (!watched && consumed < QUIET_RECORDS)
		ms = QUIET_POLL_INTERVAL_MS;
	if (o->duration_ns && ms > POLL_INTERVAL_MS) {
		left = now - start < o->duration_ns ?
			       o->duration_ns - (now - start) : 0;
		if (left < (uint64_t)ms * 1000000)
			ms = (int)((left + 999999) / 1000000);
	}
	return record_duty_timeout_ms(sink->duty, ms);
}

static void print_status(struct collector *col, struct capture *cap,
			 bool final)
{
	fprintf(stderr, "\r  %llu events, %llu runs, %llu dropped%s",
		(unsigned long long)collector_events_seen(col),
		(unsigned long long)collector_runs_seen(col),
		(unsigned long long)capture_drops(cap), final ? "\n" : "   ");
}

int record_collect(const struct record_opts *o, struct target *t,
		   struct more_targets *more, struct follow_children *fc,
		   struct capture *cap, struct record_sink *sink,
		   struct run_sink *rs, struct etdump_ahead_thread *ahead,
		   struct live_view *lv, enum stop_reason *why)
{
	struct collector *col = sink->col;
	struct raw_writer *raw = sink->raw;
	uint64_t start = monotonic_ns(), last_status = 0, last_pull = start, now;
	uint64_t last_late = start;
	/* the live view has the terminal */
	bool tty = isatty(STDERR_FILENO) && !lv;
	struct pollfd pfd[3] = {
		{ .fd = capture_fd(cap), .events = POLLIN },
		{ .fd = t->pidfd, .events = POLLIN },
		{ .fd = fc ? follow_children_fd(fc) : -1, .events = POLLIN },
	};
	int err, more_runs = 0, consumed = 0;

	for (;;) {
		/* runs waiting for the file: only a look at the ring first */
		if (poll(pfd, 3, more_runs ? 0 : poll_timeout_ms(
					o, sink, rs, lv, consumed, start,
					monotonic_ns())) < 0 &&
		    errno != EINTR)
			return -errno;
		/* a child that exec'd: attached before its exit is looked at */
		err = fc ? follow_children_consume(fc) : 0;
		if (err < 0)
			return err;
		err = feed_clock(sink);
		if (!err)
			err = capture_consume(cap);
		if (err < 0)
			return err;
		consumed = err;
		/* one slab of complete runs into the file, then the ring again */
		more_runs = ahead ? etdump_ahead_thread_drain(
					    ahead, collector_log(col), false) :
				    0;
		if (more_runs < 0)
			return more_runs;
		err = 0;
		/* a crash loses at most one poll interval of the raw capture */
		if (raw && (err = raw_writer_flush(raw, capture_drops(cap))))
			return err;
		now = monotonic_ns();
		if (now - last_pull >= PULL_INTERVAL_NS) {
			last_pull = now;
			err = pull_buffers(sink, PULL_INTERVAL_NS);
			if (err)
				return err;
		}
		if (now - last_late >= LATE_INTERVAL_NS) {
			last_late = now;
			err = sink->late && !t->exited ?
				late_libraries_check(sink->late, cap, fc) : 0;
			/* its children's, alive after it too */
			if (!err && sink->late_followed)
				err = late_followed_check(sink->late_followed,
							  cap);
			if (err)
				return err;
		}
		err = 0;
		if (rs && dump_signal) {
			dump_signal = 0;
			err = run_sink_dump(rs);
		} else if (rs) {
			err = run_sink_poll(rs, now);
		}
		if (err)
			return err;
		if (lv && live_view_tick(lv, now, capture_drops(cap))) {
			*why = STOP_QUIT;
			break;
		}
		if (stop_signal) {
			*why = STOP_SIGNAL;
			break;
		}
		if (target_has_exited(t)) {
			pfd[1].fd = -1; /* readable for ever from now on */
			if (more_targets_exited(more) &&
			    (!fc || follow_children_exited(fc))) {
				*why = STOP_EXIT;
				break;
			}
		}
		if (sink->duty && (err = record_duty_tick(sink->duty, now)))
			return err;
		if (sink->sm)
			symbol_mode_recalibrate(sink->sm, now);
		if (o->duration_ns && now - start >= o->duration_ns) {
			*why = STOP_DURATION;
			break;
		}
		if (tty && now - last_status >= STATUS_INTERVAL_NS) {
			print_status(col, cap, false);
			last_status = now;
		}
	}
	if (tty)
		print_status(col, cap, true);
	/* symbol mode: what the threads keep goes after what they sent */
	if (sink->sm)
		symbol_mode_finish(sink->sm);
	/* everything the target submitted is in the ring: drain it */
	while ((err = capture_consume(cap)) > 0)
		;
	/* then what its threads hold, if it lives on */
	return err < 0 ? err : pull_buffers(sink, 0);
}
