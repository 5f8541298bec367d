/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kernel_clock.h - the kernel's CLOCK_MONOTONIC as a line of the CPU's
 * counter (struct etdump_rec_clock), read from the vDSO data the kernel
 * maps into every process ([vvar]), so that batched stamps, which read
 * the counter, become the clock to the ns instead of within the error of
 * the anchors between which they would be interpolated.
 *
 * The data's layout is the running kernel's (struct vdso_clock from 6.15,
 * struct vdso_data before), found in its BTF; where it lies in [vvar] is
 * tried at the places kernels put it, and a place is taken only when the
 * line it gives brackets clock_gettime() between two counter reads
 * around it, every time. A kernel whose clock is not a line of that
 * counter (kvm-clock's pvclock, a time namespace, no vDSO clock) gives
 * none, and says why.
 */
#ifndef ETDUMP_KERNEL_CLOCK_H
#define ETDUMP_KERNEL_CLOCK_H

#include <stddef.h>
#include "schema/etdump_record.h"

struct kernel_clock;

/* 0, or -errno with why (one phrase) in why. */
int kernel_clock_open(struct kernel_clock **out, char *why, size_t len);
/*
 * The line now, in a record stamped now: 1 when it differs from the one
 * given last (the kernel changed its rate), 0 when it is the same, -EAGAIN
 * when the kernel was updating it through every try.
 */
int kernel_clock_read(struct kernel_clock *k, struct etdump_rec_clock *rec);
void kernel_clock_free(struct kernel_clock *k);

#endif /* ETDUMP_KERNEL_CLOCK_H */
