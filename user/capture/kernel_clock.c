// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "capture/kernel_clock.h"
#include "lib/clock.h"
#include "lib/counter_clock.h"

/* CLOCK_MONOTONIC's index in the data's basetime[] */
#define BASE_MONOTONIC 1
/* bytes of one basetime[] entry: struct vdso_timestamp { u64 sec, nsec; } */
#define TIMESTAMP_BYTES 16
/* the kernel's clock modes: none (a system call), and a time namespace */
#define CLOCKMODE_NONE 0
#define CLOCKMODE_TIMENS 0x7fffffff
#define TRIES 100
#define CHECKS 3

/* Where each field lies in the kernel's per-clock vDSO data, bytes. */
struct clock_layout {
	size_t seq, mode, cycle_last, mask, mult, shift, basetime;
};

struct kernel_clock {
	const volatile unsigned char *data; /* the clock's, in [vvar] */
	struct clock_layout at;
	struct etdump_rec_clock last;
	bool given;
};

/*
 * A member's byte offset in struct id, looked for through the anonymous
 * structs and unions it holds (basetime[] sits in one); its size must be
 * size. -1 when absent or otherwise.
 */
static long member_at(const struct btf *btf, __u32 id, const char *name,
		      size_t size)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	int i;

	if (!t || (!btf_is_struct(t) && !btf_is_union(t)))
		return -1;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		__u32 bits = btf_member_bit_offset(t, i);
		const char *n = btf__name_by_offset(btf, m->name_off);
		long inner;

		if (bits % 8)
			continue;
		if (n && *n) {
			if (strcmp(n, name))
				continue;
			if (size && btf__resolve_size(btf, m->type) != (long)size)
				return -1;
			return bits / 8;
		}
		inner = member_at(btf, btf__resolve_type(btf, m->type), name,
				  size);
		if (inner >= 0)
			return bits / 8 + inner;
	}
	return -1;
}

/*
 * The per-clock data's layout, and where the data of CLOCK_MONOTONIC's
 * clock lies in the kernel's time data when the kernel says (6.15+).
 */
static int layout_of(struct clock_layout *at, long *in_time_data,
		     char *why, size_t len)
{
	struct btf *btf = btf__load_vmlinux_btf();
	long seq, mode, last, mask, mult, shift, base;
	int id;

	*in_time_data = -1;
	if (!btf) {
		snprintf(why, len, "no kernel BTF to read the vDSO data's layout");
		return -ENOENT;
	}
	id = btf__find_by_name_kind(btf, "vdso_clock", BTF_KIND_STRUCT);
	if (id > 0) {
		int td = btf__find_by_name_kind(btf, "vdso_time_data",
						BTF_KIND_STRUCT);

		if (td > 0)
			*in_time_data = member_at(btf, td, "clock_data", 0);
	} else {
		id = btf__find_by_name_kind(btf, "vdso_data", BTF_KIND_STRUCT);
	}
	seq = id > 0 ? member_at(btf, id, "seq", 4) : -1;
	mode = id > 0 ? member_at(btf, id, "clock_mode", 4) : -1;
	last = id > 0 ? member_at(btf, id, "cycle_last", 8) : -1;
	mask = id > 0 ? member_at(btf, id, "mask", 8) : -1;
	mult = id > 0 ? member_at(btf, id, "mult", 4) : -1;
	shift = id > 0 ? member_at(btf, id, "shift", 4) : -1;
	base = id > 0 ? member_at(btf, id, "basetime", 0) : -1;
	btf__free(btf);
	if (seq < 0 || mode < 0 || last < 0 || mask < 0 || mult < 0 ||
	    shift < 0 || base < 0) {
		snprintf(why, len, "the kernel's BTF has no vDSO clock data of a known layout");
		return -ENOENT;
	}
	*at = (struct clock_layout){ seq, mode, last, mask, mult, shift,
				     base + BASE_MONOTONIC * TIMESTAMP_BYTES };
	return 0;
}

/* The start of this process's [vvar] mapping, or NULL. */
static const unsigned char *vvar_start(size_t *size)
{
	unsigned long from, to;
	const unsigned char *at = NULL;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " [vvar]") &&
		    sscanf(line, "%lx-%lx", &from, &to) == 2 && to > from) {
			at = (const unsigned char *)from;
			*size = to - from;
			break;
		}
	fclose(f);
	return at;
}

#define FIELD(k, name, type) (*(const volatile type *)((k)->data + (k)->at.name))

/* The line as the kernel left it, read under its sequence count. */
static int snapshot(const struct kernel_clock *k, struct etdump_rec_clock *r,
		    int *mode)
{
	unsigned int seq;
	int i;

	for (i = 0; i < TRIES; i++) {
		seq = FIELD(k, seq, unsigned int);
		if (seq & 1)
			continue;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		*mode = FIELD(k, mode, int);
		r->cycle_last = FIELD(k, cycle_last, uint64_t);
		r->mask = FIELD(k, mask, uint64_t);
		r->mult = FIELD(k, mult, uint32_t);
		r->shift = FIELD(k, shift, uint32_t);
		r->sec = FIELD(k, basetime, uint64_t);
		r->nsec_shifted = *(const volatile uint64_t *)(
			k->data + k->at.basetime + 8);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (FIELD(k, seq, unsigned int) == seq)
			return 0;
	}
	return -EAGAIN;
}

/*
 * The data at this place is the clock's: the line it gives puts
 * clock_gettime() between the counter read before it and the one after,
 * each of CHECKS times (the kernel's arithmetic is monotonic: a true line
 * never fails this, a wrong place or a clock of another source does).
 */
static bool brackets_the_clock(const struct kernel_clock *k)
{
	struct etdump_rec_clock r;
	uint64_t c0, c1, ns;
	int i, mode;

	for (i = 0; i < CHECKS; i++) {
		if (snapshot(k, &r, &mode) || mode == CLOCKMODE_NONE ||
		    mode == CLOCKMODE_TIMENS || !r.mult || r.shift >= 64 ||
		    !r.mask)
			return false;
		c0 = counter_now();
		ns = monotonic_ns();
		c1 = counter_now();
		if (counter_clock_ns(&r, c0) > ns || ns > counter_clock_ns(&r, c1))
			return false;
	}
	return true;
}

int kernel_clock_open(struct kernel_clock **out, char *why, size_t len)
{
	/* 6.15+: where the kernel's BTF says; before, x86-64's 128, arm64's 0 */
	long places[] = { -1, 0, 128 };
	struct kernel_clock *k;
	const unsigned char *vvar;
	size_t size = 0, i;
	int err;

	*out = NULL;
	if (!counter_now()) {
		snprintf(why, len, "no counter read here");
		return -EOPNOTSUPP;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	err = layout_of(&k->at, &places[0], why, len);
	if (err)
		goto fail;
	vvar = vvar_start(&size);
	if (!vvar) {
		snprintf(why, len, "no [vvar] mapping in /proc/self/maps");
		err = -ENOENT;
		goto fail;
	}
	for (i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		if (places[i] < 0 ||
		    (size_t)places[i] + k->at.basetime + 16 > size)
			continue;
		k->data = vvar + places[i];
		if (brackets_the_clock(k)) {
			*out = k;
			return 0;
		}
	}
	snprintf(why, len, "the kernel's clock is not a line of the CPU's counter in its vDSO data (another clock source, or a time namespace)");
	err = -ENOENT;
fail:
	free(k);
	return err;
}

int kernel_clock_read(struct kernel_clock *k, struct etdump_rec_clock *rec)
{
	struct etdump_rec_clock r;
	int mode, err = snapshot(k, &r, &mode);

	if (err)
		return err;
	memset(&r.hdr, 0, sizeof(r.hdr));
	r.hdr.type = ETDUMP_REC_CLOCK;
	r.hdr.size = sizeof(r);
	r.hdr.ts = monotonic_ns();
	*rec = r;
	/* another point of the same line is the same clock */
	if (k->given && r.mult == k->last.mult && r.shift == k->last.shift &&
	    r.mask == k->last.mask &&
	    counter_clock_ns(&k->last, r.cycle_last) ==
		    counter_clock_ns(&r, r.cycle_last))
		return 0;
	k->last = r;
	k->given = true;
	return 1;
}

void kernel_clock_free(struct kernel_clock *k)
{
	free(k);
}
