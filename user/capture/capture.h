/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * capture.h - the kernel side of a recording: load bpf/capture.bpf.c, attach
 * it to a process's etdump probes, and hand each ring-buffer record to a
 * callback.
 */
#ifndef ETDUMP_CAPTURE_H
#define ETDUMP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct capture;
struct counter_set;
struct probe_objects;

typedef int (*capture_record_fn)(void *ctx, const void *rec, size_t len);

struct capture_opts {
	pid_t pid;               /* only this process's events are captured */
	size_t ring_bytes;       /* ring buffer size: a power of two */
	capture_record_fn on_record;
	void *ctx;
	const struct counter_set *counters;  /* opened; NULL: none */
	bool batched;            /* attach `flush` only: the runtime buffers */
	bool sched;              /* ETDUMP_REC_SCHED at every target switch */
	/* -p PID,PID...: the other processes captured (initial PID namespace) */
	const pid_t *more_pids;
	size_t nmore;
	bool values;             /* attach `value`: record --values */
	uint64_t value_max;      /* ... copying at most this many bytes each */
	bool allocations;        /* attach `allocation`, `allocator` */
	/* also the processes follow_children.h marks recorded */
	bool follow_children;
};

#define CAPTURE_MAX_MORE 15      /* bpf/ring.bpf.h MAX_MORE_TARGETS */

int capture_open(struct capture **out, const struct capture_opts *opts);
/*
 * Attach to every etdump probe of every file in objs (the executable and
 * the libraries carrying probes); *nattached counts one per probe name and
 * file. Negative errno when one fails.
 */
int capture_attach(struct capture *cap, const struct probe_objects *objs,
		   int *nattached);
/* The same for another process of opts.more_pids (its own files). */
int capture_attach_pid(struct capture *cap, const struct probe_objects *objs,
		       pid_t pid, int *nattached);
/*
 * The same for a child followed (follow_children.h): -ESRCH, unsaid, when
 * it exited meanwhile.
 */
int capture_attach_child(struct capture *cap, const struct probe_objects *objs,
			 pid_t pid, int *nattached);
/* Whether this recording attaches the probe of that name (its mode's). */
bool capture_wants_probe(const struct capture *cap, const char *name);
/*
 * Attach the program of probe `name` to a perf event (armed_binaries.h's
 * uprobe tracepoints), its arguments read by the USDT spec spec_id (set by
 * capture_set_usdt_spec()). The link owns perf_fd once made; negative
 * errno, unsaid, when it cannot be (perf_fd is the caller's then).
 */
int capture_attach_event(struct capture *cap, const char *name, int perf_fd,
			 uint32_t spec_id);
/*
 * How many links are attached, and detaching the ones attached since
 * there were n (a file armed in part is left whole to the attach after
 * exec). The probe names they noted stay.
 */
size_t capture_nlinks(const struct capture *cap);
void capture_detach_since(struct capture *cap, size_t n);
/*
 * The USDT spec ids there are (libbpf hands out its own from 0 up), and
 * setting one for the sites capture_attach_event() attaches.
 */
struct usdt_spec;
uint32_t capture_usdt_spec_slots(const struct capture *cap);
int capture_set_usdt_spec(struct capture *cap, uint32_t id,
			  const struct usdt_spec *spec);
/*
 * The tracefs events the perf events attached to were made in: removed
 * at capture_close(), after the links.
 */
struct tracefs_uprobes;
void capture_own_tracefs(struct capture *cap, struct tracefs_uprobes *t);
/* The probes attached, by name, each once, in attach order: *n of them. */
const char *const *capture_probe_names(const struct capture *cap, size_t *n);
/* An fd that polls readable when the ring buffer asks for a read. */
int capture_fd(const struct capture *cap);
/*
 * Hand the waiting records to the callback, 65536 at most (more may wait
 * then); count or negative errno.
 */
int capture_consume(struct capture *cap);
/* Records the kernel could not reserve room for, summed over CPUs. */
uint64_t capture_drops(const struct capture *cap);
/* The ring buffer's and drop counter's maps, for symbol mode to share. */
int capture_ring_map_fd(const struct capture *cap);
int capture_drops_map_fd(const struct capture *cap);
/*
 * Each thread the ring lost records of that no later record of its own
 * has told of (they lost the end of what it was doing), to fn with the
 * ETDUMP_REC_F_LOST_* flags its next record would have had.
 */
void capture_lost_threads(const struct capture *cap,
			  void (*fn)(void *ctx, uint32_t tid, uint16_t flags),
			  void *ctx);
/* The map of followed processes (etdump_follow.h), for follow_children.h. */
int capture_followed_map_fd(const struct capture *cap);
/*
 * opts.follow_children: the programs that follow them
 * (bpf/follow_children.bpf.h), loaded with the capture's, attached here;
 * -errno.
 */
int capture_follow_attach(struct capture *cap);
/* Their ring of exec'd children (struct follow_exec each). */
int capture_execs_map_fd(const struct capture *cap);
/* The map of files whose exec is recorded at once (armed_binaries.h). */
int capture_follow_armed_map_fd(const struct capture *cap);
/* Execs of followed processes begun: heard through the ring, or lost. */
uint64_t capture_follow_execs_begun(const struct capture *cap);
/* Forks not followed (the map full) and execs not heard (the ring full). */
void capture_follow_lost(const struct capture *cap, uint64_t *forks,
			 uint64_t *execs);
/* Whether the probes attached are the batched ones (`flush` only). */
bool capture_batched(const struct capture *cap);
void capture_close(struct capture *cap);
/* The same, without waiting for the kernel to finish detaching. */
void capture_close_in_background(struct capture *cap);

#endif /* ETDUMP_CAPTURE_H */
