/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iter_run.h - a BPF iterator's program run once over all it walks, for
 * what it does on the way (its output read and left).
 */
#ifndef ETDUMP_ITER_RUN_H
#define ETDUMP_ITER_RUN_H

#include <bpf/libbpf.h>

/* link: the iterator program's; 0 or negative errno. */
int iter_run(const struct bpf_link *link);

#endif /* ETDUMP_ITER_RUN_H */
